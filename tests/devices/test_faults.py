"""Faults injected into virtual devices give clear errors (or bounded retries) within bounded time:
a device that drops mid-episode, dumps that fail or return garbage, a command that never answers,
an app that crashes, a broken reset."""

from __future__ import annotations

import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from phoneworld.devices.protocol import SPEC_ASSET
from phoneworld.emit import dumps
from phoneworld.errors import (
    AppCrashedError,
    DeviceError,
    DeviceLostError,
    DeviceTimeoutError,
    DumpError,
    EnvError,
    InstallError,
)
from phoneworld.ir.trace import Click
from phoneworld.runtime.env import PhoneEnv

from .conftest import Served

TAP_ADD = '{"type": "click", "x": 964, "y": 1678, "coords": "pixels"}'  # the "add note" button


def _tap() -> Click:
    return Click(x=964, y=1678)


@contextmanager
def within(seconds: float) -> Iterator[None]:
    t0 = time.monotonic()
    yield
    took = time.monotonic() - t0
    assert took < seconds, f"took {took:.1f} s, more than {seconds} s"


def test_device_vanishes_mid_episode(lone: Served) -> None:
    env = PhoneEnv(lone.spec, backend=lone.backend(0, timeout=5.0))
    env.reset()
    env.step(TAP_ADD)
    lone.server.vanish(0)
    with within(10.0), pytest.raises(DeviceLostError) as err:
        env.step('{"type": "back"}')
    assert lone.serials[0] in str(err.value)
    assert not env.backend.ping(timeout=2.0)


def test_a_few_failing_dumps_are_retried(lone: Served) -> None:
    backend = lone.backend(0, retry_delay=0.01)
    backend.reset()
    lone.devices[0].faults.dump_errors = 2  # "ERROR: could not get idle state." twice
    with within(5.0):
        backend.step(_tap())
    assert lone.devices[0].faults.dump_errors == 0
    assert backend.observe().screen == "s01_editor"


@pytest.mark.parametrize("fault", ["dump_errors", "dump_garbage"])
def test_dumps_that_keep_failing_raise(lone: Served, fault: str) -> None:
    backend = lone.backend(0, dump_retries=3, retry_delay=0.01)
    backend.reset()
    setattr(lone.devices[0].faults, fault, 100)
    with within(5.0), pytest.raises(DumpError) as err:
        backend.step(_tap())
    assert "4 times" in str(err.value)


def test_a_command_that_hangs_times_out(lone: Served) -> None:
    backend = lone.backend(0, timeout=1.5)
    backend.reset()
    lone.devices[0].faults.hang = {"uiautomator"}
    with within(6.0), pytest.raises(DeviceTimeoutError) as err:
        backend.step(_tap())
    assert "uiautomator" in str(err.value)
    lone.devices[0].faults.hang = set()
    assert backend.ping()  # only that command hung; the device still answers


def test_slow_device_times_out(lone: Served) -> None:
    backend = lone.backend(0, timeout=1.0)
    lone.devices[0].faults.delay = 3.0
    with within(5.0), pytest.raises(DeviceTimeoutError):
        backend.reset()


def test_app_crash(lone: Served) -> None:
    env = PhoneEnv(lone.spec, backend=lone.backend(0))
    env.reset()
    lone.devices[0].faults.crash_on_input = True
    with within(5.0), pytest.raises(AppCrashedError) as err:
        env.step(TAP_ADD)
    assert "crashed" in str(err.value)
    env.reset()  # a reset brings the app back
    assert env.step(TAP_ADD)[0]["screen"] == "s01_editor"


def test_app_process_dies_without_a_dialog(lone: Served) -> None:
    backend = lone.backend(0)
    backend.reset()
    dev = lone.devices[0]
    dev.stop_app()  # killed behind the backend's back (low memory, a bug)
    with pytest.raises(AppCrashedError, match="process"):
        backend.step(_tap())


def test_close_app_is_not_a_crash(lone: Served) -> None:
    env = PhoneEnv(lone.spec, backend=lone.backend(0))
    env.reset()
    obs, *_ = env.step('{"type": "close_app"}')
    assert obs["screen"] == "@launcher"
    obs, *_ = env.step({"type": "open_app", "package": lone.spec.package})
    assert obs["screen"] == lone.spec.start_screen


def test_bad_reset_state_and_missing_app(lone: Served) -> None:
    backend = lone.backend(0)
    with pytest.raises(DeviceError, match="reset broadcast"):
        backend.reset({"note_list_items": "not a list"})
    lone.devices[0].shell(f"pm uninstall {lone.spec.package}")
    with pytest.raises(EnvError, match="not installed"):
        lone.backend(0)


def test_install_pushes_and_installs(lone: Served, tmp_path) -> None:  # type: ignore[no-untyped-def]
    dev = lone.devices[0]
    dev.shell(f"pm uninstall {lone.spec.package}")
    apk = tmp_path / "app.apk"
    apk.write_bytes(b"PK\x03\x04" + bytes(200_000))  # no APK: the device says so
    with pytest.raises(InstallError, match="INSTALL_PARSE_FAILED_NOT_APK"):
        lone.backend(0, apk=apk)
    with zipfile.ZipFile(apk, "w") as z:  # a phoneworld APK: it carries its app spec
        z.writestr("AndroidManifest.xml", b"\x03\x00\x08\x00" + lone.spec.package.encode("utf-16-le"))
        z.writestr("classes.dex", bytes(200_000))
        z.writestr(SPEC_ASSET, dumps(lone.spec))
    backend = lone.backend(0, apk=apk)
    assert backend.installed() and dev.installed
    assert backend.reset().screen == lone.spec.start_screen
