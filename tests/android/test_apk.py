"""`build --apk` output for the example and Habitica: signed, aligned, launchable, with the core and
shell classes in its dex; warm rebuilds reuse the app's dex; the CLI reports a missing toolchain."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from phoneworld.android.apk import manifest_package
from phoneworld.cli import app as cli
from tests.android.conftest import CHECK_TOOLS, need

APPS = ["example", "habitica"]


def _run(*cmd: str | Path) -> str:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("name", APPS)
def test_apk_is_signed_and_aligned(apks, name: str) -> None:  # type: ignore[no-untyped-def]
    tools = need("apksigner", "zipalign")
    apk = apks[name].path
    out = _run(tools["apksigner"], "verify", "--verbose", apk)
    assert "Verified using v2 scheme (APK Signature Scheme v2): true" in out
    _run(tools["zipalign"], "-c", "4", apk)


@pytest.mark.parametrize("name", APPS)
def test_badging_shows_package_and_launchable_activity(apks, android_apps, name: str) -> None:  # type: ignore[no-untyped-def]
    tools = need(*CHECK_TOOLS)
    pkg = manifest_package(android_apps[name].project)
    out = _run(tools["aapt"], "dump", "badging", apks[name].path)
    assert f"package: name='{pkg}'" in out
    assert f"launchable-activity: name='{pkg}.MainActivity'" in out
    assert "application-debuggable" in out  # run-as needs it to read files/state.json


@pytest.mark.parametrize("name", APPS)
def test_dex_holds_core_and_shell_classes(apks, android_apps, name: str) -> None:  # type: ignore[no-untyped-def]
    tools = need(*CHECK_TOOLS)
    pkg = manifest_package(android_apps[name].project).replace(".", "/")
    _run(tools["dexdump"], "-c", apks[name].path)  # checksums verify
    out = _run(tools["dexdump"], apks[name].path)
    classes = {line.split("'")[1] for line in out.splitlines() if "Class descriptor" in line}
    for cls in ("MainActivity", "ResetReceiver", "ScreenRenderer", "MockText", "core/Machine",
                "core/AppState", "core/App", "core/Values", "R$id"):
        assert f"L{pkg}/{cls};" in classes, cls
    spec = android_apps[name].spec
    screen_objects = [c for c in classes if c.startswith(f"L{pkg}/core/screens/") and
                      c.endswith("Screen;")]
    assert len(screen_objects) == len(spec.screens) + 1  # and the launcher
    assert "Lkotlin/collections/CollectionsKt;" in classes  # the Kotlin runtime is packed


def test_warm_rebuild_reuses_the_app_dex(apks, android_apps, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from phoneworld.android.apk import build_apk

    again = build_apk(android_apps["example"].app_dir, tmp_path / "again.apk", route="offline")
    assert again.dex_cached
    assert "kotlinc" not in again.steps
    assert again.size == pytest.approx(apks["example"].size, rel=0.01)


def test_apk_command_builds(android_apps, apks, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "cli.apk"
    result = CliRunner().invoke(cli, ["apk", str(android_apps["example"].app_dir), "--out",
                                      str(out), "--route", "offline"])
    assert result.exit_code == 0, result.output
    assert out.exists() and str(out) in result.stdout


def test_build_apk_flag(tmp_path: Path) -> None:
    from tests.android.conftest import BUILD_TOOLS

    need(*BUILD_TOOLS)
    from tests.conftest import EXAMPLE

    result = CliRunner().invoke(cli, ["build", str(EXAMPLE), "--out", str(tmp_path), "--apk", "-q"])
    assert result.exit_code == 0, result.output
    apk = tmp_path / "com.example.notes" / "com.example.notes-debug.apk"
    assert apk.exists() and str(apk) in result.stdout


@pytest.mark.parametrize("name", APPS)
def test_apk_carries_its_app_spec(apks, android_apps, name: str) -> None:  # type: ignore[no-untyped-def]
    import zipfile

    from phoneworld.devices.protocol import SPEC_ASSET

    with zipfile.ZipFile(apks[name].path) as z:
        assert z.read(SPEC_ASSET) == (android_apps[name].app_dir / "app.json").read_bytes()


def test_apk_installs_on_a_virtual_device_as_its_app(apks, android_apps, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`adb install` of the example's APK on a virtual device serving another app: the device
    serves the example from then on, as the simulator shows it."""
    import shutil

    from phoneworld.devices.link import AdbServer
    from phoneworld.devices.virtual import DeviceServer, VirtualDevice
    from phoneworld.pipeline import BuildConfig, build
    from phoneworld.runtime.sim import Simulator
    from tests.conftest import MESSAGES

    if shutil.which("adb") is None:
        pytest.skip("Debian's adb is not installed (`make deps` installs it)")
    other = build(BuildConfig(traces=MESSAGES, out=tmp_path, html=False, android=False,
                              tasks=False)).apps[0].spec
    spec = android_apps["example"].spec
    adb_server = AdbServer().start()
    with DeviceServer([VirtualDevice(other)]) as server:
        serial = server.serials[0]
        adb_server.connect(serial)
        try:
            assert "Success" in adb_server.run("-s", serial, "install", "-r",
                                               str(apks["example"].path), timeout=60)
            adb_server.run("-s", serial, "shell", f"monkey -p {spec.package} 1")
            assert server.devices[0].dump_xml() == Simulator(spec).xml()
            listed = adb_server.run("-s", serial, "shell", "pm list packages -3")
            assert listed == f"package:{spec.package}"
        finally:
            adb_server.disconnect(serial)
            adb_server.stop()
