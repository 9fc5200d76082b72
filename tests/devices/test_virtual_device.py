"""The virtual device without adb: its shell, its Android commands, and that the command lines the
adb backend sends do to the device's simulator exactly what the trace actions do to a simulator."""

from __future__ import annotations

import json
import random

import pytest

from phoneworld.devices import protocol
from phoneworld.devices.inputs import Frame, command
from phoneworld.devices.virtual import VirtualDevice
from phoneworld.devices.virtual.shell import OP, fast_words
from phoneworld.ir import trace as tr
from phoneworld.ir.app import AppSpec
from phoneworld.runtime.actions import parse_action
from phoneworld.runtime.render import elements_from_view
from phoneworld.runtime.sim import Simulator

from ..runtime.notes_app import notes_app
from .conftest import any_action


@pytest.fixture
def dev(example_spec: AppSpec) -> VirtualDevice:
    return VirtualDevice(example_spec)


def sh(dev: VirtualDevice, line: str) -> tuple[str, int]:
    r = dev.shell(line)
    return r.output.decode(), r.code


def test_shell_lists_exit_codes_and_redirects(dev: VirtualDevice) -> None:
    assert sh(dev, "echo a; false; echo rc=$?") == ("a\nrc=1\n", 0)
    assert sh(dev, "false; echo '$?' \"$?\"") == ("$? 1\n", 0)
    assert sh(dev, "false && echo no || echo yes") == ("yes\n", 0)
    assert sh(dev, "echo 'x; y' > /sdcard/f.txt 2>&1; cat /sdcard/f.txt") == ("x; y\n", 0)
    assert sh(dev, "cat /sdcard/missing")[1] == 1
    assert sh(dev, "no-such-tool")[1] == 127
    assert sh(dev, "getprop | grep -E 'sdk|boot_completed' | head -n 1")[0].startswith("[")


def test_fast_words_keep_quoted_operators() -> None:
    assert fast_words("am broadcast --es state '{\"a\": \"b;c d\"}' && echo ok") == [
        "am", "broadcast", "--es", "state", '{"a": "b;c d"}', OP + "&&", "echo", "ok"]
    assert fast_words("echo '|' ';'") == ["echo", "|", ";"]
    assert fast_words("echo $HOME") is None  # anything not literal is the real shell's


def test_android_commands(dev: VirtualDevice, example_spec: AppSpec) -> None:
    assert sh(dev, "wm size") == ("Physical size: 1080x1920\n", 0)
    focus = protocol.parse_focus(sh(dev, "dumpsys window windows")[0])
    assert focus == example_spec.screen(example_spec.start_screen).activity
    out, _ = sh(dev, f"uiautomator dump {protocol.DUMP_PATH}")
    assert out == f"UI hierchary dumped to: {protocol.DUMP_PATH}\n"
    assert dev.files[protocol.DUMP_PATH].decode() == dev.sim.xml()
    assert json.loads(sh(dev, protocol.state_command(dev.package))[0]) == dev.sim.state
    assert json.loads(sh(dev, protocol.screen_command(dev.package))[0]) == {
        "screen": dev.sim.screen, "stack": []}
    assert sh(dev, "run-as com.other cat files/state.json")[1] == 1
    assert sh(dev, f"pm path {dev.package}")[0].startswith("package:")
    assert dev.shell("screencap -p").output[:8] == b"\x89PNG\r\n\x1a\n"


def test_reset_broadcast_seeds_state_with_any_text(dev: VirtualDevice) -> None:
    state = dev.sim.state
    first = next(k for k, v in state.items() if isinstance(v, list) and v)
    field = next(k for k, v in state[first][0].items() if isinstance(v, str))
    state[first][0][field] = "it's \"quoted\"; rm -rf / && echo $? | x"
    sh(dev, f"am force-stop {dev.package}")
    out, _ = sh(dev, protocol.reset_command(dev.package, state))
    assert protocol.RESET_OK in out
    out, _ = sh(dev, protocol.start_command(protocol.app_component(dev.package), dev.package))
    assert "Status: ok" in out
    assert dev.sim.state[first][0][field] == state[first][0][field]


def test_process_lifecycle_and_crash(dev: VirtualDevice) -> None:
    pkg = dev.package
    assert sh(dev, f"pidof {pkg}")[1] == 0
    sh(dev, f"am force-stop {pkg}")
    assert sh(dev, f"pidof {pkg}") == ("", 1)
    assert protocol.parse_focus(sh(dev, "dumpsys window")[0]).startswith("com.android.launcher3")
    sh(dev, f"monkey -p {pkg} -c {protocol.LAUNCHER_CATEGORY} 1")
    assert dev.sim.screen == dev.spec.start_screen
    dev.faults.crash_on_input = True
    sh(dev, "input tap 10 10")
    focus = protocol.parse_focus(sh(dev, "dumpsys window")[0])
    assert protocol.crash_window(focus, pkg) == f"Application Error: {pkg}"
    assert sh(dev, "pm clear " + pkg) == ("Success\n", 0)


def _agree(spec: AppSpec, seed: int, steps: int = 40) -> None:
    """Backend command lines on a virtual device == trace actions on a simulator."""
    dev, sim, rng = VirtualDevice(spec), Simulator(spec), random.Random(seed)
    w, h = spec.device.width, spec.device.height
    frame = Frame(w, h, lambda x, y: (round(x), round(y)))
    start = protocol.app_component(spec.package)
    for _ in range(steps):
        root_elements = elements_from_view(sim.view())
        raw = any_action(root_elements, rng, spec.package)
        for action in parse_action(raw, root_elements, w, h):
            elements = elements_from_view(sim.view())
            line = command(action, frame, elements, spec.package, start, (w, h))
            if line is not None:
                dev.shell(line)
            sim.step(action)
            assert (dev.sim.screen, dev.sim.xml(), dev.sim.state) == \
                (sim.screen, sim.xml(), sim.state), (raw, line)


@pytest.mark.parametrize("seed", range(6))
def test_commands_do_what_actions_do_example(example_spec: AppSpec, seed: int) -> None:
    _agree(example_spec, seed)


@pytest.mark.parametrize("seed", range(6))
def test_commands_do_what_actions_do_notes(seed: int) -> None:
    _agree(notes_app(), seed)


def test_input_coalescing(example_spec: AppSpec) -> None:
    dev = VirtualDevice(example_spec)
    sim = Simulator(example_spec)
    dev.shell("input swipe 540 900 540 900 1000")
    sim.step(tr.LongPress(x=540, y=900))
    assert dev.sim.xml() == sim.xml()
    assert dev.input_log == ["input swipe 540 900 540 900 1000"]
