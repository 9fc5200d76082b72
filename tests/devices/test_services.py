"""The services and system commands of a virtual device that adb clients use beyond the shell:
`framebuffer:`, `reverse:`, `root:`, device ports (`tcp:`) and the long-running processes behind
them, `dumpsys` in the formats clients parse, `wm` overrides, `pm list -f -3`, `pm install`,
`logcat`, `ime`, `settings`, `getevent`, and Android's zero-length swipe."""

from __future__ import annotations

import io
import re
import socket
import struct
import subprocess
import time
import zipfile
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from phoneworld.devices import wire
from phoneworld.devices.protocol import SPEC_ASSET
from phoneworld.devices.virtual import DeviceServer, VirtualDevice
from phoneworld.devices.virtual.ports import StillRunning
from phoneworld.devices.virtual.screen_cmds import screen_image
from phoneworld.devices.virtual.server import RESTART_DELAY
from phoneworld.emit import dumps
from phoneworld.ir.app import AppSpec

from .conftest import Served, serve
from .test_wire import Host


@pytest.fixture
def server(example_spec: AppSpec) -> Iterator[DeviceServer]:
    with DeviceServer([VirtualDevice(example_spec)]) as s:
        yield s


@pytest.fixture
def dev(example_spec: AppSpec) -> VirtualDevice:
    return VirtualDevice(example_spec)


@pytest.fixture(scope="module")
def messages_spec(tmp_path_factory: pytest.TempPathFactory) -> AppSpec:
    """The bundled messages app (a second app to install)."""
    from phoneworld.pipeline import BuildConfig, build

    from ..conftest import MESSAGES

    out = tmp_path_factory.mktemp("messages")
    return build(BuildConfig(traces=MESSAGES, out=out, html=False, android=False,
                             tasks=False)).apps[0].spec


def out(dev: VirtualDevice, line: str) -> str:
    return dev.shell(line).output.decode()


# ----------------------------------------------------------------------------- adb services


@pytest.mark.parametrize("sdk,version,words", [("29", 2, 14), ("27", 1, 13)], ids=["api29", "api27"])
def test_framebuffer_has_the_header_of_the_api_level(server: DeviceServer, sdk: str,
                                                     version: int, words: int) -> None:
    dev = server.devices[0]
    dev.props["ro.build.version.sdk"] = sdk
    raw = Host(server.ports[0]).service("framebuffer:")
    head = struct.unpack(f"<{words}I", raw[:4 * words])
    assert head[0] == version and head[1] == 32
    size, w, h = head[-11:-8]
    assert (w, h, size) == (1080, 1920, 1080 * 1920 * 4)
    assert head[-8:] == (0, 8, 16, 8, 8, 8, 24, 8)  # R, B, G, A (offset, length)
    pixels = np.frombuffer(raw[4 * words:], np.uint8).reshape(h, w, 4)
    assert len(raw) == 4 * words + size
    assert (pixels[..., :3] == np.asarray(screen_image(dev))).all()


def test_reverse_requests_get_adbd_answers(server: DeviceServer) -> None:
    host = Host(server.ports[0])
    assert host.service("reverse:forward:tcp:5000;tcp:6000") == b"OKAY"
    assert host.service("reverse:forward:norebind:tcp:5000;tcp:7000")[:4] == b"FAIL"
    listed = host.service("reverse:list-forward")
    body = f"{server.serials[0]} tcp:5000 tcp:6000\n".encode()
    assert listed == f"{len(body):04x}".encode() + body
    assert host.service("reverse:killforward:tcp:5000") == b"OKAY"
    assert host.service("reverse:killforward:tcp:5000")[:4] == b"FAIL"
    assert host.service("reverse:list-forward") == b"0000"


@pytest.mark.parametrize("service,first,again", [
    ("root:", b"restarting adbd as root\n", b"adbd is already running as root\n"),
    ("unroot:", b"adbd not running as root\n", b"adbd not running as root\n")])
def test_root_and_unroot(server: DeviceServer, service: str, first: bytes, again: bytes) -> None:
    host = Host(server.ports[0])
    assert host.service(service) == first
    if first.startswith(b"restarting"):  # adbd restarted: the old connection is gone
        time.sleep(RESTART_DELAY + 0.3)
        with pytest.raises((EOFError, OSError)):
            host.service("shell:echo hi")
        host = Host(server.ports[0])
    assert host.service(service) == again


def test_adb_root_and_reverse_with_debian_adb(lone: Served) -> None:
    """`adb root` waits for adbd to restart (the connection drops) and the device comes back."""
    s = lone.serials[0]
    assert "restarting adbd as root" in lone.adb.run("-s", s, "root", timeout=15)
    lone.adb.run("-s", s, "wait-for-device", timeout=15)
    assert "already running as root" in lone.adb.run("-s", s, "root", timeout=15)
    assert lone.adb.run("-s", s, "shell", "echo back") == "back"
    lone.adb.run("-s", s, "reverse", "tcp:5005", "tcp:6006")
    assert "tcp:5005 tcp:6006" in lone.adb.run("-s", s, "reverse", "--list")
    lone.adb.run("-s", s, "reverse", "--remove-all")


def _push_jar(dev: VirtualDevice) -> None:
    dev.files["/data/local/tmp/u2.jar"] = b"PK\x05\x06" + bytes(18)


def test_app_process_serves_u2_until_its_stream_closes(dev: VirtualDevice) -> None:
    assert "ClassNotFoundException" in out(dev, "app_process / com.example.Nope")
    assert "no uiautomator2 jar" in out(dev, "app_process / com.wetest.uia2.Main -p 9008")
    _push_jar(dev)
    with pytest.raises(StillRunning) as running:
        dev.shell("app_process / com.wetest.uia2.Main -p 9008")
    assert b"Starting Server" in running.value.output and "tcp:9008" in dev.sockets
    assert "BindException" in out(dev, "app_process / com.wetest.uia2.Main -p 9008")
    assert running.value.stop is not None
    running.value.stop()
    assert dev.sockets == {}


def _http(sock: socket.socket, request: bytes) -> bytes:
    sock.sendall(request)
    data = b""
    while b"\r\n\r\n" not in data or len(data) < data.index(b"\r\n\r\n") + 4 + int(
            re.search(rb"Content-Length: (\d+)", data).group(1)):  # type: ignore[union-attr]
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_adb_forward_reaches_the_device_server(lone: Served) -> None:
    """`adb forward tcp:N tcp:9008` + the u2 server started on a live shell stream: HTTP and
    JSON-RPC from the host; when the shell stream closes the port is refused again."""
    s, dev = lone.serials[0], lone.devices[0]
    _push_jar(dev)
    proc = subprocess.Popen([lone.adb.exe, "-P", str(lone.adb.port), "-s", s, "shell",
                             "app_process / com.wetest.uia2.Main -p 9008"], env=lone.adb.env,
                            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None and b"Starting Server" in proc.stdout.readline()
        port = int(lone.adb.run("-s", s, "forward", "tcp:0", "tcp:9008"))
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            assert _http(sock, b"GET /ping HTTP/1.1\r\nHost: x\r\n\r\n").endswith(b"\r\n\r\npong")
            body = b'{"jsonrpc": "2.0", "id": 7, "method": "deviceInfo", "params": []}'
            got = _http(sock, b"POST /jsonrpc/0 HTTP/1.1\r\nContent-Length: %d\r\n\r\n%s"
                        % (len(body), body))
            assert b'"displayWidth": 1080' in got and b'"id": 7' in got
    finally:
        proc.terminate()
        proc.wait(10)
    for _ in range(100):
        if not dev.sockets:
            break
        time.sleep(0.05)
    assert dev.sockets == {}


# ----------------------------------------------------------------------------- dumpsys


def test_dumpsys_formats_clients_parse(dev: VirtualDevice) -> None:
    display = out(dev, "dumpsys display")
    assert re.search(r".*?orientation=(\d+)", display).group(1) == "0"  # type: ignore[union-attr]
    assert re.search(r"DisplayViewport\{.*valid=true, .*orientation=0, .*deviceWidth=1080, "
                     r"deviceHeight=1920", display)
    assert "mHoldingDisplaySuspendBlocker=true" in out(dev, "dumpsys power")
    windows = out(dev, "dumpsys window windows")
    focus = "com.example.notes/com.example.notes.MainActivity"
    assert re.search(r"^ *Window #0 Window\{5a1c0de u0 " + re.escape(focus) + r"\}:", windows, re.M)
    assert re.search(r"^  mCurrentFocus=Window\{5a1c0de .*", windows, re.M)
    assert " mViewVisibility=0x0 " in windows
    assert re.search(r"^     *content=\[0,0\]\[1080,1920\] visible=", windows, re.M)
    assert "mPredictedRotation=0" in out(dev, "dumpsys window displays")
    assert "interactiveState=INTERACTIVE_STATE_AWAKE" in out(dev, "dumpsys window policy")
    assert "SurfaceOrientation: 0" in out(dev, "dumpsys input")
    assert "  level: 100\n" in out(dev, "dumpsys battery")
    assert "versionName=1.0" in out(dev, "dumpsys package com.example.notes")
    assert out(dev, "dumpsys package com.nope") == ""


def test_dumpsys_activities_list_the_back_stack(dev: VirtualDevice) -> None:
    from phoneworld.ir import trace as tr

    dev.sim.step(tr.Click(x=964, y=1678))  # "Add note": the editor on top of the list
    acts = out(dev, "dumpsys activity activities")
    assert re.findall(r"\* Hist #(\d+): ActivityRecord\{\w+ u0 (\S+) t1\}", acts) == [
        ("1", "com.example.notes/.EditorActivity"), ("0", "com.example.notes/.MainActivity")]
    assert "mResumedActivity: ActivityRecord{" in acts and "Task id #1" in acts
    assert re.search(r"ACTIVITY com\.example\.notes/\.EditorActivity \w+ pid=\d+",
                     out(dev, "dumpsys activity top"))
    assert "(nothing)" in out(dev, "dumpsys activity services")


# ----------------------------------------------------------------------------- wm, pm


def test_wm_size_and_density_can_be_overridden(dev: VirtualDevice) -> None:
    assert out(dev, "wm size 540x960") == ""
    assert out(dev, "wm size") == "Physical size: 1080x1920\nOverride size: 540x960\n"
    assert screen_image(dev).size == (540, 960)
    assert 'bounds="[0,0][540,960]"' in dev.dump_xml()
    dev.shell("input tap 482 839")  # "Add note" at half scale
    assert dev.focus().endswith(".EditorActivity")
    dev.shell("wm size reset")
    assert out(dev, "wm size") == "Physical size: 1080x1920\n"
    dev.shell("wm density 320")
    assert out(dev, "wm density") == "Physical density: 420\nOverride density: 320\n"
    assert dev.shell("wm size 12").code != 0


def test_pm_list_packages_flags(dev: VirtualDevice) -> None:
    assert out(dev, "pm list packages -f -3") == \
        "package:/data/app/com.example.notes-1/base.apk=com.example.notes\n"
    assert out(dev, "pm list packages -s") == "package:com.android.launcher3\n"
    assert out(dev, "pm list packages notes") == "package:com.example.notes\n"


def _apk(package: str, spec: AppSpec | None = None) -> bytes:
    """An APK naming `package` in its manifest; a phoneworld one when it carries `spec`."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("AndroidManifest.xml", b"\x03\x00\x08\x00" + package.encode("utf-16-le"))
        z.writestr("classes.dex", b"dex\n035\x00")
        if spec is not None:
            z.writestr(SPEC_ASSET, dumps(spec))
    return buf.getvalue()


def test_pm_install_refuses_what_it_cannot_run(dev: VirtualDevice) -> None:
    assert "INSTALL_FAILED_INVALID_URI" in out(dev, "pm install /data/local/tmp/none.apk")
    dev.files["/data/local/tmp/junk.apk"] = b"not a zip"
    assert "INSTALL_PARSE_FAILED_NOT_APK" in out(dev, "pm install /data/local/tmp/junk.apk")
    dev.files["/data/local/tmp/other.apk"] = _apk("org.other.app")
    got = dev.shell("pm install -r /data/local/tmp/other.apk")
    assert got.code == 1 and b"not a phoneworld APK" in got.output
    broken = io.BytesIO()
    with zipfile.ZipFile(broken, "w") as z:
        z.writestr("AndroidManifest.xml", b"")
        z.writestr(SPEC_ASSET, b'{"format": "phoneworld-app/1"}')
    dev.files["/data/local/tmp/bad.apk"] = broken.getvalue()
    assert "is not a valid app spec" in out(dev, "pm install /data/local/tmp/bad.apk")
    assert dev.installed and dev.package == "com.example.notes"


def test_pm_install_of_a_phoneworld_apk_installs_its_app(dev: VirtualDevice,
                                                        messages_spec: AppSpec) -> None:
    from phoneworld.runtime.sim import Simulator

    dev.files["/data/local/tmp/notes.apk"] = _apk("com.example.notes", dev.spec)
    assert "INSTALL_FAILED_ALREADY_EXISTS" in out(dev, "pm install /data/local/tmp/notes.apk")
    assert out(dev, "pm uninstall com.example.notes") == "Success\n"
    assert out(dev, "pm list packages -3") == ""
    assert out(dev, "pm install /data/local/tmp/notes.apk") == "Success\n"
    assert out(dev, "pm list packages -3") == "package:com.example.notes\n"
    # another phoneworld app's APK: the device serves that app from now on
    dev.files["/data/local/tmp/messages.apk"] = _apk(messages_spec.package, messages_spec)
    assert out(dev, "pm install -r /data/local/tmp/messages.apk") == "Success\n"
    assert out(dev, "pm list packages -3") == f"package:{messages_spec.package}\n"
    assert dev.focus().startswith("com.android.launcher3/")
    dev.shell(f"monkey -p {messages_spec.package} -c android.intent.category.LAUNCHER 1")
    sim = Simulator(messages_spec)
    assert dev.dump_xml() == sim.xml()


# ----------------------------------------------------------------------------- system commands


def test_logcat_has_the_app_lifecycle(dev: VirtualDevice) -> None:
    dev.shell("am force-stop com.example.notes")
    dev.shell("monkey -p com.example.notes -c android.intent.category.LAUNCHER 1")
    log = out(dev, "logcat -d")
    threadtime = re.compile(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [VDIWEF] \S+ *: .+$")
    lines = log.splitlines()
    assert lines[0] == "--------- beginning of main"
    assert lines[1:] and all(threadtime.match(ln) for ln in lines[1:])
    assert "Force stopping com.example.notes" in log and "Start proc" in log
    assert "Displayed com.example.notes/com.example.notes.MainActivity" in log
    assert all("ActivityManager" in ln for ln in out(dev, "logcat -d -s ActivityManager")
               .splitlines()[1:])
    dev.shell("logcat -c")
    assert out(dev, "logcat -d") == "--------- beginning of main\n"
    with pytest.raises(StillRunning):
        dev.shell("logcat")


def test_a_running_command_ends_a_fast_line(dev: VirtualDevice) -> None:
    """On the fast path, what the line printed before the running command comes first, and a
    `grep` after it filters what it prints later too; the commands after it never run."""
    dev.shell("logcat -c")
    with pytest.raises(StillRunning) as running:
        dev.shell("echo first; logcat | grep -v beginning; echo never")
    assert running.value.output == b"first\n" and running.value.more is not None
    dev.shell("am force-stop com.example.notes")
    later = running.value.more().decode()
    assert "Force stopping com.example.notes" in later and "never" not in later
    dev.shell("monkey -p com.example.notes -c android.intent.category.LAUNCHER 1")
    with pytest.raises(StillRunning) as running:
        dev.shell("logcat | grep Force")
    assert running.value.output.decode().splitlines() == [
        ln for ln in out(dev, "logcat -d").splitlines() if "Force" in ln]


def test_ime_settings_getevent_network(dev: VirtualDevice) -> None:
    latin = "com.android.inputmethod.latin/.LatinIME"
    assert out(dev, "ime list -s -a") == latin + "\n"
    assert out(dev, f"ime set {latin}") == f"Input method {latin} selected for user #0\n"
    assert "cannot be" in out(dev, "ime set com.github.uiautomator/.AdbKeyboard")
    assert out(dev, "settings get secure default_input_method") == latin + "\n"
    dev.shell("settings put system pointer_location 1")
    assert out(dev, "settings get system pointer_location") == "1\n"
    assert out(dev, "settings get global nope") == "null\n"
    assert "ABS (0003): 0035  : value 0, min 0, max 1079" in out(dev, "getevent -p")
    with pytest.raises(StillRunning):
        dev.shell("getevent -lt")
    assert "inet addr:10.0.2.15" in out(dev, "ifconfig wlan0")
    assert "inet 10.0.2.15/24" in out(dev, "ip addr show dev wlan0")


@pytest.mark.parametrize("ms,want", [(200, ".EditorActivity"), (50, ".EditorActivity")],
                         ids=["200ms", "50ms"])
def test_a_swipe_that_does_not_move_is_a_tap(dev: VirtualDevice, ms: int, want: str) -> None:
    dev.shell(f"input swipe 964 1678 964 1678 {ms}")  # "Add note", not moving
    assert dev.focus().endswith(want)


def test_a_held_touch_is_a_long_press(example_spec: AppSpec) -> None:
    from phoneworld.ir import trace as tr
    from phoneworld.runtime.sim import Simulator

    dev, sim = VirtualDevice(example_spec), Simulator(example_spec)
    dev.shell("input swipe 600 294 600 294 1000")  # a note, held 1 s
    sim.step(tr.LongPress(x=600, y=294))
    assert dev.sim.xml() == sim.xml() and dev.sim.state == sim.state


@pytest.mark.parametrize("argv", [["shell", "logcat", "-s", "ActivityManager"],
                                  ["logcat", "-s", "ActivityManager"]],
                         ids=["fast-path", "real-shell"])
def test_logcat_follows_new_lines(lone: Served, argv: list[str]) -> None:
    """`logcat` (no -d) keeps running and prints what is logged after it started: a plain line
    on the fast path, and `adb logcat`'s `export ...; exec logcat ...` through the real shell's
    shim, which streams it."""
    s = lone.serials[0]
    proc = subprocess.Popen([lone.adb.exe, "-P", str(lone.adb.port), "-s", s, *argv],
                            env=lone.adb.env, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"--------- beginning of main\n"
        lone.adb.run("-s", s, "shell", "am force-stop com.example.notes")
        assert b"Force stopping com.example.notes" in proc.stdout.readline()
    finally:
        proc.terminate()
        proc.wait(10)


def test_adb_logcat_command(lone: Served) -> None:
    assert lone.adb.run("-s", lone.serials[0], "logcat", "-d").startswith("--------- beginning")


@pytest.mark.parametrize("line", [
    "app_process / com.wetest.uia2.Main -p 9008",
    "CLASSPATH=/data/local/tmp/u2.jar exec app_process / com.wetest.uia2.Main -p 9008"],
    ids=["fast-path", "real-shell"])
def test_a_running_process_lives_until_the_host_closes_its_stream(lone: Served,
                                                                 line: str) -> None:
    """uiautomator2's server started over adb: its socket is there while `adb shell` runs (on
    the fast path, and through the real shell's shim), and goes when the host ends it."""
    dev, s = lone.devices[0], lone.serials[0]
    _push_jar(dev)
    proc = subprocess.Popen([lone.adb.exe, "-P", str(lone.adb.port), "-s", s, "shell", line],
                            env=lone.adb.env, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        assert b"Starting Server" in proc.stdout.readline()
        assert "tcp:9008" in dev.sockets
    finally:
        proc.terminate()
        proc.wait(10)
    deadline = time.monotonic() + 10
    while "tcp:9008" in dev.sockets and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "tcp:9008" not in dev.sockets


def test_ps_lists_the_served_app_while_it_runs(dev: VirtualDevice) -> None:
    dev.shell("am start -n com.example.notes/.MainActivity")
    rows = [line.split() for line in out(dev, "ps -A").splitlines()]
    assert rows[0][:2] == ["USER", "PID"] and rows[0][-1] == "NAME"
    pids = {r[-1]: r[1] for r in rows[1:]}
    assert pids["com.example.notes"] == out(dev, "pidof com.example.notes").strip()
    assert {"init", "system_server", "sh"} <= set(pids)
    assert out(dev, "ps com.example.notes").count("\n") == 2  # the header and the app
    dev.shell("am force-stop com.example.notes")
    assert "com.example.notes" not in out(dev, "ps")
    # through the real shell too: /system/bin/ps is this one
    assert "system_server" in out(dev, "ps -A | grep system_ && true")


def test_after_adb_root_the_shell_runs_as_root(dev: VirtualDevice) -> None:
    assert out(dev, "id -u").strip() == "2000"
    dev.set_adbd_root(True)
    assert out(dev, "id -u").strip() == "0"
    assert "No such file" in out(dev, "cat /etc/passwd 2>&1")  # root of the sandbox only
    dev.set_adbd_root(False)
    assert out(dev, "id -u").strip() == "2000"
