"""DroidBot's accessibility app as the virtual device plays it, driven the way DroidBot's
`droidbot_app` adapter does: `adb install` of the app, the service enabled in settings and seen
in `dumpsys activity services`, `adb forward` to its `tcp:7336`, view trees read as `>BBI`-headed
`AccEvent >>> {json}` messages, a new one after each change. (DroidBot itself is not on PyPI in
a current version; this follows its adapter's protocol, not a run of DroidBot.)"""

from __future__ import annotations

import json
import re
import socket
import struct
import zipfile
from pathlib import Path
from typing import Any

from phoneworld.devices.virtual.droidbot_server import PACKAGE, SERVICE

from .conftest import Served

SERVICE_RE = re.compile(r"^.+ServiceRecord{.+ ([A-Za-z0-9_.]+)/([A-Za-z0-9_.]+)")  # DroidBot's


def _services(lone: Served) -> list[str]:
    out = lone.adb.run("-s", lone.serials[0], "shell", "dumpsys activity services")
    return [f"{m.group(1)}/{m.group(2)}" for m in map(SERVICE_RE.search, out.splitlines()) if m]


def _read(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def _event(sock: socket.socket) -> dict[str, Any]:
    _, _, length = struct.unpack(">BBI", _read(sock, 6))
    message = _read(sock, length).decode()
    assert message.startswith("AccEvent >>> ")
    return json.loads(message[len("AccEvent >>> "):])  # type: ignore[no-any-return]


def _texts(node: dict[str, Any]) -> list[str]:
    own = [node["text"]] if node["text"] else []
    return own + [t for c in node["children"] for t in _texts(c)]


def test_droidbot_app_sends_view_trees(lone: Served, tmp_path: Path) -> None:
    s, adb = lone.serials[0], lone.adb
    apk = tmp_path / "droidbotApp.apk"
    with zipfile.ZipFile(apk, "w") as z:
        z.writestr("AndroidManifest.xml", b"\x03\x00\x08\x00" + PACKAGE.encode("utf-16-le"))
        z.writestr("classes.dex", b"dex\n035\x00")
    assert "Success" in adb.run("-s", s, "install", str(apk))
    assert f"package:{PACKAGE}" in adb.run("-s", s, "shell", "pm list packages -3").split()
    assert SERVICE not in _services(lone)
    adb.run("-s", s, "shell", f"settings put secure enabled_accessibility_services {SERVICE}")
    adb.run("-s", s, "shell", "settings put secure accessibility_enabled 1")
    assert _services(lone) == [SERVICE]
    port = int(adb.run("-s", s, "forward", "tcp:0", "tcp:7336"))
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        first = _event(sock)
        root = first["root_node"]
        assert first["package_name"] == "com.example.notes"
        assert root["bounds"] == [0, 0, 1080, 1920] and root["class"] == "android.widget.FrameLayout"
        assert _texts(root) == ["Notes", "Buy milk", "Call Alice", "Pay rent"]
        adb.run("-s", s, "shell", "input swipe 964 1678 964 1678 200")  # DroidBot's touch
        assert "Edit note" in _texts(_event(sock)["root_node"])
    adb.run("-s", s, "shell", "settings put secure enabled_accessibility_services null")
    assert _services(lone) == []
    assert "Success" in adb.run("-s", s, "uninstall", PACKAGE)
    assert f"package:{PACKAGE}" not in adb.run("-s", s, "shell", "pm list packages").split()


def test_the_service_needs_the_app(lone: Served) -> None:
    dev = lone.devices[0]
    dev.shell(f"settings put secure enabled_accessibility_services {SERVICE}")
    assert _services(lone) == [] and "tcp:7336" not in dev.sockets
