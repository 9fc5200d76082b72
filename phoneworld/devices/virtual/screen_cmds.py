"""Virtual-device commands that read or touch the screen: `input`, `uiautomator dump`,
`screencap` (and the `framebuffer:` service's image), `wm`, `getprop` (`dumpsys` is in
`virtual.dumpsys`).

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


def screen_image(dev: VirtualDevice) -> Any:
    """The screen as a PIL image of the device's size (what screencap shows)."""
    from phoneworld.runtime.screenshot import render_image

    app = dev.spec.device
    img = render_image(dev.sim.frame(), app.width, app.height, 1.0)
    return img.resize((dev.width, dev.height)) if dev.scaled else img


def screenshot_png(dev: VirtualDevice) -> bytes:
    img = screen_image(dev)
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def cmd_screencap(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    png = "-p" in args[1:]
    paths = [a for i, a in enumerate(args[1:], 1) if not a.startswith("-") and args[i - 1] != "-d"]
    if png or (paths and paths[0].endswith(".png")):
        out = screenshot_png(dev)
    else:
        rgb = np.asarray(screen_image(dev))
        rgba = np.dstack([rgb, np.full(rgb.shape[:2], 255, np.uint8)])
        head = struct.pack("<III", dev.width, dev.height, 1)  # RGBA_8888
        if int(dev.props["ro.build.version.sdk"]) >= 28:
            head += struct.pack("<I", 1)  # API 28+ adds the colour space (1: sRGB)
        out = head + rgba.tobytes()
    if paths:
        dev.files[norm_path(paths[0])] = out
        return b"", 0
    return out, 0


def framebuffer(dev: VirtualDevice) -> bytes:
    """What adbd's `framebuffer:` service sends: the header of the device's API level (version 2,
    with a colour space, from API 28; version 1 before), then RGBA_8888 pixels."""
    with dev.lock:
        dev.flush_input()
        rgb = np.asarray(screen_image(dev))
    rgba = np.dstack([rgb, np.full(rgb.shape[:2], 255, np.uint8)]).tobytes()
    w, h = rgb.shape[1], rgb.shape[0]
    layout = (0, 8, 16, 8, 8, 8, 24, 8)  # red, blue, green, alpha: (offset, length)
    if int(dev.props["ro.build.version.sdk"]) >= 28:
        head = struct.pack("<14I", 2, 32, 1, len(rgba), w, h, *layout)  # colour space 1: sRGB
    else:
        head = struct.pack("<13I", 1, 32, len(rgba), w, h, *layout)
    return head + rgba


def _wm_value(arg: str, kind: str) -> tuple[int, int] | int | None:
    if kind == "size":
        w, _, h = arg.lower().partition("x")
        return (int(w), int(h)) if w.isdigit() and h.isdigit() and int(w) and int(h) else None
    return int(arg) if arg.isdigit() and int(arg) > 0 else None


def cmd_wm(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    """`wm size [WxH|reset]`, `wm density [DPI|reset]`: an override shows as Android prints it,
    and a new size rescales what the screen shows and where touches land."""
    sub, rest = (args[1] if len(args) > 1 else ""), args[2:]
    if sub not in ("size", "density"):
        return b"usage: wm [size|density] [VALUE|reset]\n", 1
    physical = dev.physical if sub == "size" else dev.physical_density
    if rest:
        value = None if rest[0] == "reset" else _wm_value(rest[0], sub)
        if value is None and rest[0] != "reset":
            return f"Error: bad {sub} {rest[0]}\n".encode(), 255
        if sub == "size":
            dev.resize(value)  # type: ignore[arg-type]
        else:
            dev.density = value or dev.physical_density  # type: ignore[assignment]
        return b"", 0
    if sub == "size":
        out = f"Physical size: {physical[0]}x{physical[1]}\n"  # type: ignore[index]
        if (dev.width, dev.height) != physical:
            out += f"Override size: {dev.width}x{dev.height}\n"
    else:
        out = f"Physical density: {physical}\n"
        if dev.density != physical:
            out += f"Override density: {dev.density}\n"
    return out.encode(), 0


def cmd_getprop(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    props = {**dev.props, "ro.serialno": dev.props["ro.serialno"]}
    if len(args) > 1:
        return (props.get(args[1], args[2] if len(args) > 2 else "") + "\n").encode(), 0
    return "".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())).encode(), 0
