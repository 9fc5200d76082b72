"""Virtual-device commands of the system around the app: `settings`, `ime`, `logcat`,
`getevent`, `app_process` (the helper servers harnesses start), `ifconfig` and `ip`.

`logcat` prints the device's log (`VirtualDevice.log`, threadtime format: app starts, stops,
crashes); `-d` dumps and exits, without it the command keeps running and prints new lines as
they come, as logcat does. `app_process / com.wetest.uia2.Main -p PORT` (uiautomator2's server, from the `u2.jar` the
client pushed to /data/local/tmp) is answered by the device itself (`virtual.u2_server`) until the
host closes its stream.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from phoneworld.devices.virtual import droidbot_server
from phoneworld.devices.virtual.device import norm_path
from phoneworld.devices.virtual.ports import StillRunning, listen

if TYPE_CHECKING:
    from phoneworld.devices.virtual.device import VirtualDevice

Out = tuple[bytes, int]
LATIN_IME = "com.android.inputmethod.latin/.LatinIME"
IMES = (LATIN_IME,)
U2_MAIN = "com.wetest.uia2.Main"
U2_JAR_DIR = "/data/local/tmp"
WLAN_IP = "10.0.2.15"


def cmd_settings(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    """`settings get|put|delete|list NAMESPACE [KEY [VALUE]]` over the device's settings store."""
    sub, rest = (args[1] if len(args) > 1 else ""), [a for a in args[2:] if a != "--user"]
    if sub not in ("get", "put", "delete", "list") or not rest or \
            rest[0] not in ("system", "secure", "global"):
        return b"usage:  settings [--user <USER_ID> | current] get namespace key\n", 1
    space = dev.settings.setdefault(rest[0], {})
    if rest[0] == "secure":
        space["default_input_method"] = dev.ime
    if sub == "list":
        return "".join(f"{k}={v}\n" for k, v in sorted(space.items())).encode(), 0
    if len(rest) < 2:
        return b"usage:  settings get namespace key\n", 1
    key = rest[1]
    if sub == "get":
        return (space.get(key, "null") + "\n").encode(), 0
    if sub == "delete":
        return f"Deleted {int(space.pop(key, None) is not None)} rows\n".encode(), 0
    value = rest[2] if len(rest) > 2 else ""
    if rest[0] == "secure" and key == "default_input_method":
        dev.ime = value
    space[key] = value
    droidbot_server.sync(dev)  # enabled_accessibility_services may start or stop its service
    return b"", 0


def cmd_ime(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    """`ime list [-s] [-a]`, `ime enable|disable|set ID`, `ime reset`: the one IME is LatinIME."""
    sub, rest = (args[1] if len(args) > 1 else ""), [a for a in args[2:] if not a.startswith("-")]
    if sub == "list":
        if "-s" in args:
            return "".join(i + "\n" for i in IMES).encode(), 0
        return "".join(f"{i}:\n  mId={i} mSettingsActivity=com.android.inputmethod.latin.settings"
                       ".SettingsActivity\n" for i in IMES).encode(), 0
    if sub == "reset":
        dev.ime = LATIN_IME
        return f"Reset input method: {LATIN_IME}\n".encode(), 0
    if sub in ("enable", "disable", "set") and rest:
        ime = rest[0]
        if ime not in IMES:
            return f"Unknown input method {ime} cannot be {sub}d for user #0\n".encode(), 0
        if sub == "set":
            dev.ime = ime
            return f"Input method {ime} selected for user #0\n".encode(), 0
        return f"Input method {ime}: already {sub}d for user #0\n".encode(), 0
    return b"ime <command>:\n  list [-a] [-s]\n  enable ID\n  disable ID\n  set ID\n  reset\n", 1


def cmd_logcat(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    """`logcat [-d] [-c] [-t N] [-s TAG...] [TAG:LEVEL...]` over `dev.log`."""
    if "-c" in args:
        dev.log.clear()
        return b"", 0
    lines = list(dev.log)
    if "-t" in args[:-1]:
        n = args[args.index("-t") + 1]
        lines = lines[-int(n):] if n.isdigit() and int(n) else lines
    tags = [a.split(":")[0] for a in args[1:] if ":" in a and not a.startswith("-")]
    if "-s" in args:
        tags += [a for a in args[args.index("-s") + 1:] if not a.startswith("-") and ":" not in a]
    keep = (lambda ln: _tag(ln) in tags) if tags and "*" not in tags else (lambda ln: True)
    out = "--------- beginning of main\n" + "".join(ln + "\n" for ln in lines if keep(ln))
    if "-d" in args or "-t" in args:
        return out.encode(), 0
    seen = dev.log_count

    def more() -> bytes:  # the lines logged since, as `logcat` prints them while it runs
        nonlocal seen
        with dev.lock:
            new = dev.log[len(dev.log) - min(dev.log_count - seen, len(dev.log)):]
            seen = dev.log_count
        return "".join(ln + "\n" for ln in new if keep(ln)).encode()

    raise StillRunning(out.encode(), more=more)


_THREADTIME = re.compile(r"^\S+ \S+\s+\d+\s+\d+ [VDIWEF] (.*?)\s*: ")


def _tag(line: str) -> str:
    m = _THREADTIME.match(line)
    return m.group(1) if m else ""


def cmd_getevent(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    """`getevent -p` describes the touchscreen and keys; plain `getevent` keeps running."""
    w, h = dev.width, dev.height
    out = ("add device 1: /dev/input/event1\n  name:     \"phoneworld_touchscreen\"\n"
           "add device 2: /dev/input/event2\n  name:     \"phoneworld_keys\"\n")
    if any(a.startswith("-") and "p" in a for a in args[1:]):
        out = ("add device 1: /dev/input/event1\n  bus:      0000\n  vendor    0000\n"
               "  product   0000\n  version   0000\n  name:     \"phoneworld_touchscreen\"\n"
               "  location: \"\"\n  id:       \"\"\n  version:  1.0.1\n  events:\n"
               "    ABS (0003): 0035  : value 0, min 0, max " f"{w - 1}, fuzz 0, flat 0, "
               "resolution 0\n                0036  : value 0, min 0, max " f"{h - 1}, fuzz 0, "
               "flat 0, resolution 0\n                0039  : value 0, min 0, max 65535, fuzz 0,"
               " flat 0, resolution 0\n  input props:\n    INPUT_PROP_DIRECT\n"
               "add device 2: /dev/input/event2\n  name:     \"phoneworld_keys\"\n  events:\n"
               "    KEY (0001): 0066  0072  0073  0074  008b  009e\n  input props:\n"
               "    <none>\n")
        return out.encode(), 0
    raise StillRunning(out.encode())


def cmd_app_process(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    """`app_process DIR MAIN [ARGS]`: uiautomator2's server is the one Java program this device
    runs (its jar must have been pushed, as u2 does); anything else is a missing class."""
    words = [a for a in args[1:] if not a.startswith("-D")]
    main = words[1] if len(words) > 1 else ""
    if main != U2_MAIN:
        return (f"Exception in thread \"main\" java.lang.ClassNotFoundException: {main}\n"
                "\tat java.lang.Class.classForName(Native Method)\n").encode(), 1
    jar = next((p for p in dev.files if p.startswith(U2_JAR_DIR + "/") and p.endswith(".jar")), None)
    if jar is None:
        return (f"Exception in thread \"main\" java.lang.ClassNotFoundException: {main}\n"
                f"(no uiautomator2 jar in {U2_JAR_DIR}: push it first, as u2.connect does)\n"
                ).encode(), 1
    port = words[words.index("-p") + 1] if "-p" in words[:-1] else "9008"
    if not port.isdigit():
        return f"Error: bad port {port}\n".encode(), 1
    name = f"tcp:{port}"
    if name in dev.sockets:
        return b"[server] INFO: [UiAutomator2Server] Starting Server\njava.net.BindException: " \
               b"Address already in use\n", 1
    from phoneworld.devices.virtual.u2_server import U2Server

    close = listen(dev, name, U2Server(dev).serve)
    dev.logcat("I", "UiAutomator2Server", f"Starting Server on port {port} ({norm_path(jar)})")
    raise StillRunning(b"[server] INFO: [UiAutomator2Server] Starting Server\n", close)


def cmd_ifconfig(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    iface = args[1] if len(args) > 1 else "wlan0"
    if iface not in ("wlan0", "lo"):
        return f"ifconfig: {iface}: No such device\n".encode(), 1
    ip = WLAN_IP if iface == "wlan0" else "127.0.0.1"
    return (f"{iface}     Link encap:Ethernet  HWaddr 02:00:00:44:55:66\n"
            f"          inet addr:{ip}  Bcast:10.0.2.255  Mask:255.255.255.0 \n"
            "          UP BROADCAST RUNNING MULTICAST  MTU:1500  Metric:1\n").encode(), 0


def cmd_ip(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    if args[1:3] in (["addr", "show"], ["-f", "inet"], ["address", "show"]) or args[1:2] == ["addr"]:
        return ("3: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP group "
                "default qlen 3000\n    link/ether 02:00:00:44:55:66 brd ff:ff:ff:ff:ff:ff\n"
                f"    inet {WLAN_IP}/24 brd 10.0.2.255 scope global wlan0\n"
                "       valid_lft forever preferred_lft forever\n").encode(), 0
    if args[1:2] == ["route"]:
        return f"10.0.2.0/24 dev wlan0 proto kernel scope link src {WLAN_IP}\n".encode(), 0
    return b"Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }\n", 1
