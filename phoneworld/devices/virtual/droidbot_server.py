"""DroidBot's accessibility app, answered by the virtual device.

DroidBot installs `io.github.ylimit.droidbotapp`, enables its accessibility service with
`settings put secure enabled_accessibility_services ...`, waits until `dumpsys activity services`
lists it, then `adb forward`s a host port to the app's `tcp:7336` and reads view trees from it.
The device plays the app: `pm install` of an APK naming that package installs it as a helper,
enabling the service starts `tcp:7336` (and lists the service), and each connection gets a
message for the screen at once and another whenever it changes. A message is a 6-byte header
(`>BBI`: two zero bytes, the payload length) and `AccEvent >>> {json}` whose `root_node` is the
view tree of the screen: per view `class`, `resource_id`, `text`, `content_description`,
`package`, `bounds` `[x1, y1, x2, y2]`, the boolean traits and `children`, from the same XML
`uiautomator dump` gives.

Checked against DroidBot's documented client (its `droidbot_app` adapter's header and message
parsing); DroidBot itself is not on PyPI in a current version, so an unmodified exploration was
not run here.
"""

from __future__ import annotations

import asyncio
import json
import re
import struct
from typing import TYPE_CHECKING, Any

from lxml import etree

from phoneworld.devices.virtual.ports import Stream, listen

if TYPE_CHECKING:
    from phoneworld.devices.virtual.device import VirtualDevice

PACKAGE = "io.github.ylimit.droidbotapp"
SERVICE = f"{PACKAGE}/io.github.privacystreams.accessibility.PSAccessibilityService"
SOCKET = "tcp:7336"
POLL_S = 0.05
_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_TRAITS = {"checkable": "checkable", "checked": "checked", "clickable": "clickable",
           "enabled": "enabled", "focusable": "focusable", "focused": "focused",
           "scrollable": "scrollable", "long-clickable": "long_clickable",
           "password": "is_password", "selected": "selected"}


def sync(dev: VirtualDevice) -> None:
    """Start or stop the app's service to match the settings and whether the app is installed."""
    enabled = SERVICE in dev.settings.get("secure", {}).get("enabled_accessibility_services",
                                                             "").split(":")
    running = SERVICE in dev.services
    if enabled and PACKAGE in dev.helpers and not running:
        dev.services[SERVICE] = listen(dev, SOCKET, lambda stream: serve(dev, stream))
    elif running and not (enabled and PACKAGE in dev.helpers):
        dev.services.pop(SERVICE)()


def _node(n: Any) -> dict[str, Any]:
    m = _BOUNDS.fullmatch(n.get("bounds", ""))
    bounds = [int(v) for v in m.groups()] if m else [0, 0, 0, 0]
    view: dict[str, Any] = {
        "class": n.get("class") or None, "resource_id": n.get("resource-id") or None,
        "text": n.get("text") or None, "content_description": n.get("content-desc") or None,
        "package": n.get("package") or None, "bounds": bounds, "visible": True,
        "editable": "EditText" in n.get("class", ""),
    }
    view.update({key: n.get(attr) == "true" for attr, key in _TRAITS.items()})
    view["children"] = [_node(c) for c in n.findall("node")]
    return view


def event(dev: VirtualDevice) -> bytes:
    """One message: the screen's view tree as the app's accessibility event."""
    with dev.lock:
        dev.flush_input()
        root = etree.fromstring(dev.dump_xml().encode())
        focus = dev.focus()
    top = root.find("node")
    doc = {"event_type": "TYPE_WINDOW_CONTENT_CHANGED", "package_name": focus.split("/")[0],
           "root_node": _node(top) if top is not None else None}
    body = ("AccEvent >>> " + json.dumps(doc, ensure_ascii=False)).encode()
    return struct.pack(">BBI", 0, 0, len(body)) + body


def _shown(dev: VirtualDevice) -> tuple[Any, ...]:
    with dev.lock:
        return dev.sim.screen, dev.sim.version, dev.error_dialog, dev.width, dev.height


async def serve(dev: VirtualDevice, stream: Stream) -> None:
    """Send the screen now and after every change, until the host closes the connection."""
    loop = asyncio.get_running_loop()
    last = None
    while not stream.closed:
        now = await loop.run_in_executor(None, _shown, dev)
        if now != last:
            await stream.write(await loop.run_in_executor(None, event, dev))
            last = now
        await asyncio.sleep(POLL_S)
