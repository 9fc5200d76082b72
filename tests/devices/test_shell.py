"""The virtual device's real shell (mksh in a sandbox): POSIX semantics, the toybox commands clients
use, Android commands at absolute paths and in pipes, a real directory tree, stdin-fed and
interactive `adb shell`, and that the fast path gives what the real shell gives."""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from phoneworld.devices import protocol
from phoneworld.devices.virtual import VirtualDevice, sandbox
from phoneworld.ir.app import AppSpec

from .conftest import ADB, NO_ADB, Served, serve

NO_SANDBOX = sandbox.available()
pytestmark = pytest.mark.skipif(NO_SANDBOX is not None, reason=str(NO_SANDBOX))


@pytest.fixture
def dev(example_spec: AppSpec) -> Iterator[VirtualDevice]:
    d = VirtualDevice(example_spec)
    yield d
    d.close()


def sh(dev: VirtualDevice, line: str) -> tuple[str, int]:
    r = dev.shell(line)
    return r.output.decode(errors="replace"), r.code


def test_posix_shell_semantics(dev: VirtualDevice) -> None:
    assert sh(dev, "V=x sh -c 'echo $V'; echo ${V:-unset}") == ("x\nunset\n", 0)
    assert sh(dev, "export A=1; B=$((A + 41)); echo $B `echo tick` $(echo sub)") == \
        ("42 tick sub\n", 0)
    assert sh(dev, "for i in 1 2 3; do printf '%s,' $i; done; echo") == ("1,2,3,\n", 0)
    assert sh(dev, "[ -d /sdcard ] && test -n x && echo yes; [ 1 -gt 2 ] || echo no") == \
        ("yes\nno\n", 0)
    assert sh(dev, "echo aXbXc | grep -o X | wc -l")[0].strip() == "2"
    assert sh(dev, "ls /nowhere 2>/dev/null; echo rc=$?") == ("rc=1\n", 0)
    assert sh(dev, "exit 7") == ("", 7)
    assert sh(dev, "if true; then echo a; else echo b; fi; case q in q) echo c;; esac") == \
        ("a\nc\n", 0)


def test_toybox_commands(dev: VirtualDevice) -> None:
    for cmd in ("cp", "ps", "cut", "wc", "test", "which", "date", "uname", "sed", "sort", "grep"):
        out, code = sh(dev, f"which {cmd}")
        assert code == 0 and out.strip() == f"/system/bin/{cmd}", cmd
    assert sh(dev, "echo 'b a c' | tr ' ' '\\n' | sort | sed 's/^/-/' | cut -c2 | tr -d '\\n'") \
        == ("abc", 0)
    assert sh(dev, "uname -s")[0] == "Linux\n"
    assert sh(dev, "date +%Y")[0].strip().isdigit()
    assert "sh" in sh(dev, "ps -o comm; true")[0]
    dev.files["/data/local/tmp/u2.jar"] = b"jar"  # uiautomator2 checks its pushed jar so
    assert sh(dev, "toybox md5sum /data/local/tmp/u2.jar") == (
        f"{hashlib.md5(b'jar').hexdigest()}  /data/local/tmp/u2.jar\n", 0)


def test_android_commands_in_the_real_shell(dev: VirtualDevice) -> None:
    png = dev.shell("/system/bin/screencap -p").output
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert sh(dev, "pm list packages 2>/dev/null") == (f"package:com.android.launcher3\n"
                                                       f"package:{dev.package}\n", 0)
    assert sh(dev, "wm density | cut -d: -f2 | tr -d ' '") == (f"{dev.density}\n", 0)
    assert sh(dev, "W=$(wm size | sed 's/.*: //'); echo ${W%x*}") == (f"{dev.width}\n", 0)
    out, code = sh(dev, f"uiautomator dump {protocol.DUMP_PATH} >/dev/null && "
                        f"cat {protocol.DUMP_PATH}")
    assert (out, code) == (dev.sim.xml(), 0)
    assert sh(dev, "echo x | /system/bin/input bogus")[1] == 1
    assert sh(dev, "command -v am")[0] == "/system/bin/am\n"


def test_files_are_a_real_tree(dev: VirtualDevice) -> None:
    out, code = sh(dev, "mkdir -p /sdcard/a/b && echo hi > /storage/emulated/0/a/b/c.txt && "
                        "cp /sdcard/a/b/c.txt /data/local/tmp/d.txt && ls -l /sdcard/a/b")
    assert code == 0 and out.startswith("total") and "-rw-" in out and "c.txt" in out
    assert dev.files["/sdcard/a/b/c.txt"] == b"hi\n" == dev.files["/data/local/tmp/d.txt"]
    dev.files["/sdcard/Download/pushed.txt"] = b"from the host"
    assert sh(dev, "cat /mnt/sdcard/Download/pushed.txt") == ("from the host", 0)
    assert "/sdcard/a/b/c.txt" in list(dev.files)


def test_fast_path_agrees_with_the_real_shell(example_spec: AppSpec) -> None:
    """Lines of the fast grammar: same output, code, screen and state with and without it."""
    pkg = example_spec.package
    lines = [
        "input tap 540 294", "input tap 73 136; input tap 73 136",
        f"uiautomator dump {protocol.DUMP_PATH}; dumpsys window | grep -E "
        f"'mCurrentFocus|mFocusedApp'; pidof {pkg}; echo MARK; {protocol.screen_command(pkg)}",
        protocol.state_command(pkg), "dumpsys window | grep -v Focus", "getprop | grep -i SDK",
        "false && echo no || echo yes", "true || echo no; echo 'a;b' \"c d\"",
        f"am force-stop {pkg} && pidof {pkg}; echo after", "pidof nothing | grep -q 1",
        protocol.start_command(protocol.app_component(pkg), pkg, restart=True),
        "input keyevent 123 67 67 && input text 'it'\"'\"'s%sok'", "input keyevent BACK",
        "run-as com.other cat files/state.json", "wm size | grep -F x",
    ]
    fast, real = VirtualDevice(example_spec), VirtualDevice(example_spec)
    real.fast, real.pid = False, fast.pid
    try:
        for line in lines:
            real.pid = fast.pid if (real.pid is None) == (fast.pid is None) else real.pid
            assert fast.fast_shell(line) is not None, line
            a, b = fast.shell(line), real.shell(line)
            assert (a.output, a.code) == (b.output, b.code), line
            assert (fast.sim.screen, fast.sim.xml(), fast.sim.state) == \
                (real.sim.screen, real.sim.xml(), real.sim.state), line
    finally:
        fast.close()
        real.close()


def test_input_events_group_within_a_line_only(example_spec: AppSpec) -> None:
    from phoneworld.ir import trace as tr
    from phoneworld.runtime.sim import Simulator

    dev = VirtualDevice(example_spec)
    dev.fast = False
    sim = Simulator(example_spec)
    try:
        dev.shell("input swipe 540 900 540 900 1000; echo $?")
        sim.step(tr.LongPress(x=540, y=900))
        assert dev.sim.xml() == sim.xml()
        assert dev.input_log == ["input swipe 540 900 540 900 1000"]
    finally:
        dev.close()


# ----------------------------------------------------------------------------- over real adb


@pytest.fixture
def one(example_spec: AppSpec, adb_server: Any) -> Iterator[Served]:
    with serve(example_spec, adb_server, 1) as served:
        yield served


def _adb(one: Served, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    assert ADB is not None, NO_ADB
    return subprocess.run([ADB, "-P", str(one.adb.port), "-s", one.serials[0], *args],
                          input=stdin, capture_output=True, timeout=60, check=False)


def test_adb_shell_fed_from_stdin_and_interactive(one: Served) -> None:
    p = _adb(one, "shell", stdin=b"X=6\necho $((X * 7))\nwm size\nexit 3\n")
    assert p.stdout.decode().splitlines() == ["42", "Physical size: 1080x1920"]
    assert p.returncode == 3
    p = _adb(one, "shell", "-tt", stdin=b"echo $((6 * 7))\nexit\n")  # a pty: interactive mksh
    assert b"42" in p.stdout and b"phoneworld:/ $" in p.stdout
    p = _adb(one, "shell", "cat | wc -c", stdin=b"12345")
    assert p.stdout.strip() == b"5"
    p = _adb(one, "shell", "echo out; echo err >&2; exit 4")
    assert (p.stdout, p.stderr, p.returncode) == (b"out\n", b"err\n", 4)


def test_adb_push_and_pull_folders(one: Served, tmp_path: Path) -> None:
    src = tmp_path / "tree"
    (src / "sub" / "deeper").mkdir(parents=True)
    (src / "top.txt").write_text("top")
    (src / "sub" / "deeper" / "leaf.sh").write_text("#!/system/bin/sh\necho leaf\n")
    (src / "sub" / "deeper" / "leaf.sh").chmod(0o755)
    assert _adb(one, "push", str(src), "/data/local/tmp/").returncode == 0
    out = _adb(one, "shell", "cd /data/local/tmp/tree && find . -type f | sort && "
                             "./sub/deeper/leaf.sh").stdout.decode()
    assert out.splitlines() == ["./sub/deeper/leaf.sh", "./top.txt", "leaf"]
    _adb(one, "shell", "mkdir -p /sdcard/made/x && echo made > /sdcard/made/x/f.txt")
    back = tmp_path / "back"
    assert _adb(one, "pull", "/sdcard/made", str(back)).returncode == 0
    assert (back / "x" / "f.txt").read_text() == "made\n"
    assert "-rwx" in _adb(one, "shell", "ls -l /data/local/tmp/tree/sub/deeper").stdout.decode()


def test_only_literal_lines_take_the_fast_path(dev: VirtualDevice) -> None:
    for line in ("echo $HOME", "V=1 wm size", "wm size > /sdcard/x", "wm size 2>/dev/null",
                 "wm size &", "cat /sdcard/x", "/system/bin/wm size", "wm size | grep 'a.b'",
                 "wm size | grep -E 'a|'", "wm size | grep -o x", "echo -n x", "sleep 1",
                 "wm size | sort", "echo `id`", "wm size; ls", "for i in 1; do wm size; done"):
        assert dev.fast_shell(line) is None, line
    for line in ("wm size", "wm size | grep -i physical", "true && echo 'a b' || false;"):
        assert dev.fast_shell(line) is not None, line


def test_a_new_android_command_is_a_command_of_the_real_shell(
        example_spec: AppSpec, monkeypatch: pytest.MonkeyPatch) -> None:
    """`commands.ANDROID` is the one table: an entry added there runs in the shell too."""
    from phoneworld.devices.virtual import commands

    def hello(dev: VirtualDevice, argv: list[str], data: bytes) -> tuple[bytes, int]:
        return f"hello {argv[1:]} {data!r}\n".encode(), 5

    monkeypatch.setitem(commands.ANDROID, "pwhello", hello)
    d = VirtualDevice(example_spec)
    d.fast = False
    try:
        assert sh(d, "echo in | /system/bin/pwhello 'a b' c; echo rc=$?") == \
            ("hello ['a b', 'c'] b'in\\n'\nrc=5\n", 0)
    finally:
        d.close()
