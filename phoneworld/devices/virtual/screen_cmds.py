"""Virtual-device commands that read or touch the screen: `input`, `uiautomator dump`,
`screencap`, `wm`, `dumpsys`, `getprop`.

`uiautomator dump` writes the simulator's XML (the same bytes the simulator backend observes) and
prints Android's own message, typo included ("UI hierchary dumped to: ..."). `screencap -p`
renders the layout at the device's full size (`phoneworld.runtime.screenshot`).
"""

from __future__ import annotations

import io
import struct
from typing import TYPE_CHECKING, Any

import numpy as np

from phoneworld.devices.protocol import DUMP_PATH, keycode
from phoneworld.devices.virtual.device import norm_path
from phoneworld.devices.virtual.input import Event

if TYPE_CHECKING:
    from phoneworld.devices.virtual.device import VirtualDevice

Out = tuple[bytes, int]
DUMP_ERROR = b"ERROR: could not get idle state.\n"
_INPUT_SOURCES = {"touchscreen", "touchpad", "keyboard", "mouse", "dpad", "gamepad", "stylus",
                  "trackball", "joystick", "touchnavigation", "rotaryencoder"}
_USAGE = b"Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n"


def _num(s: str) -> int:
    return round(float(s))


def cmd_input(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    rest = args[1:]
    if rest and rest[0] in _INPUT_SOURCES:
        rest = rest[1:]
    if len(rest) >= 2 and rest[0] == "-d":
        rest = rest[2:]
    if not rest:
        return _USAGE, 1
    dev.input_log.append(" ".join(args))
    sub, a = rest[0], rest[1:]
    try:
        if sub == "tap" and len(a) >= 2:
            dev.queue_input(Event("tap", dev.to_app(_num(a[0]), _num(a[1]))))
        elif sub in ("swipe", "draganddrop") and len(a) >= 4:
            ms = _num(a[4]) if len(a) > 4 else 300
            p1, p2 = dev.to_app(_num(a[0]), _num(a[1])), dev.to_app(_num(a[2]), _num(a[3]))
            dev.queue_input(Event("swipe", (*p1, *p2, ms)))
        elif sub == "text" and a:
            dev.queue_input(Event("text", (" ".join(a).replace("%s", " "),)))
        elif sub == "keyevent" and a:
            for k in (v for v in a if not v.startswith("--")):
                code = keycode(k)
                if code is None:
                    return f"Error: unknown keycode {k}\n".encode(), 1
                dev.queue_input(Event("key", (code,)))
        else:
            return _USAGE, 1
    except ValueError:
        return _USAGE, 1
    return b"", 0


def cmd_uiautomator(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    words = [a for a in args[1:] if not a.startswith("--")]
    if not words or words[0] != "dump":
        return b"Usage: uiautomator dump [--compressed] [file]\n", 1
    path = words[1] if len(words) > 1 else DUMP_PATH
    f = dev.faults
    if f.dump_errors > 0:
        f.dump_errors -= 1
        return DUMP_ERROR, 0
    if f.dump_garbage > 0:
        f.dump_garbage -= 1
        xml = b"<hierarchy rotation=\"0\"><node index=\"0\" text=\"\x00\xff"
    else:
        xml = dev.dump_xml().encode()
    if path in ("/dev/tty", "/proc/self/fd/1"):
        return xml + f"\nUI hierchary dumped to: {path}\n".encode(), 0
    dev.files[norm_path(path)] = xml
    return f"UI hierchary dumped to: {path}\n".encode(), 0


def _image(dev: VirtualDevice) -> Any:
    from phoneworld.runtime.screenshot import render_image

    app = dev.spec.device
    img = render_image(dev.sim.frame(), app.width, app.height, 1.0)
    return img.resize((dev.width, dev.height)) if dev.scaled else img


def screenshot_png(dev: VirtualDevice) -> bytes:
    img = _image(dev)
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def cmd_screencap(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    png = "-p" in args[1:]
    paths = [a for a in args[1:] if not a.startswith("-")]
    if png or (paths and paths[0].endswith(".png")):
        out = screenshot_png(dev)
    else:
        rgb = np.asarray(_image(dev))
        rgba = np.dstack([rgb, np.full(rgb.shape[:2], 255, np.uint8)])
        out = struct.pack("<III", dev.width, dev.height, 1) + rgba.tobytes()
    if paths:
        dev.files[norm_path(paths[0])] = out
        return b"", 0
    return out, 0


def cmd_wm(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    sub = args[1] if len(args) > 1 else ""
    if sub == "size":
        return f"Physical size: {dev.width}x{dev.height}\n".encode(), 0
    if sub == "density":
        return f"Physical density: {dev.density}\n".encode(), 0
    return b"usage: wm [size|density]\n", 1


def cmd_getprop(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    props = {**dev.props, "ro.serialno": dev.props["ro.serialno"]}
    if len(args) > 1:
        return (props.get(args[1], args[2] if len(args) > 2 else "") + "\n").encode(), 0
    return "".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())).encode(), 0


def cmd_dumpsys(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    service = args[1] if len(args) > 1 else ""
    focus = dev.focus()
    win = f"Window{{5a1c0de u0 {focus}}}"
    if service == "window":
        app = focus if "/" in focus and " " not in focus else dev.package
        return (f"WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
                f"  mCurrentFocus={win}\n"
                f"  mFocusedApp=AppWindowToken{{7f00b1 token=Token{{3c2e u0 {app} t1}}}}\n"
                f"  init={dev.width}x{dev.height} {dev.density}dpi cur={dev.width}x{dev.height}"
                f" app={dev.width}x{dev.height}\n").encode(), 0
    if service == "activity":
        return (f"ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
                f"  mResumedActivity: ActivityRecord{{9d2 u0 {focus} t1}}\n"
                f"  ACTIVITY {focus} 9d2 pid={dev.pid or 0}\n").encode(), 0
    if service == "package" and len(args) > 2:
        if args[2] != dev.package or not dev.installed:
            return b"", 0
        return (f"Packages:\n  Package [{dev.package}] (1f2e3d):\n    versionCode=1\n"
                f"    versionName=1.0\n    flags=[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ]\n"
                ).encode(), 0
    return b"", 0
