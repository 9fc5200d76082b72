"""Virtual-device commands that manage the app: `am`, `pm`, `monkey`, `run-as`, `pidof`, `ps`, and
the table `ANDROID` of every Android command the virtual shell knows (each a function of the device,
argv and stdin returning stdout and the exit status; one that keeps running raises
`ports.StillRunning`).

Only the served app is installed (plus a launcher that owns the home screen). Outputs follow
Android's (`Broadcast completed: result=0`, `Success`, `run-as: unknown package: ...`), so clients
that parse them work unchanged.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

from phoneworld.devices.protocol import (
    LAUNCHER_CATEGORY, SPEC_ASSET, STATE_EXTRA, reset_action, short_component,
)
from phoneworld.devices.virtual import droidbot_server
from phoneworld.devices.virtual import screen_cmds as sc
from phoneworld.devices.virtual import system_cmds as sy
from phoneworld.devices.virtual.dumpsys import cmd_dumpsys
from phoneworld.devices.virtual.device import LAUNCHER_COMPONENT, norm_path, screen_doc
from phoneworld.errors import PhoneworldError
from phoneworld.ir.app import AppSpec
from phoneworld.runtime.compiled import LAUNCHER_PACKAGE

if TYPE_CHECKING:
    from phoneworld.devices.virtual.device import VirtualDevice

logger = logging.getLogger(__name__)
Out = tuple[bytes, int]
# helper apps harnesses install, played by the device: package -> what (un)installing it updates
HELPERS = {droidbot_server.PACKAGE: droidbot_server.sync}
# `am` intent options that take one value (two for the typed extras)
_ONE = {"-a", "-c", "-d", "-t", "-f", "-p", "-n", "-e", "--user", "--receiver-permission",
        "-i", "--attribute", "--display", "--windowingMode", "--activityType", "-P", "--start-profiler",
        "--sampling", "-R", "--task"}
_TWO = {"--es", "--ei", "--ez", "--el", "--ef", "--eu", "--ecn", "--esa", "--eia", "--ela",
        "--efa", "--esal", "--eial", "--elal", "--efal", "--esn"}


def _intent(args: list[str]) -> tuple[dict[str, str], dict[str, str], set[str]]:
    """Options with values, string extras (`--es`), and bare flags of an `am` command."""
    opts: dict[str, str] = {}
    extras: dict[str, str] = {}
    flags: set[str] = set()
    i = 0
    while i < len(args):
        a = args[i]
        if a in _TWO:
            if a == "--es" and i + 2 < len(args):
                extras[args[i + 1]] = args[i + 2]
            i += 3
        elif a in _ONE:
            opts[a] = args[i + 1] if i + 1 < len(args) else ""
            i += 2
        elif a.startswith("-"):
            flags.add(a)
            i += 1
        else:
            opts.setdefault("component", a)
            i += 1
    return opts, extras, flags


def _am_start(dev: VirtualDevice, args: list[str]) -> Out:
    opts, _, flags = _intent(args)
    comp = opts.get("-n") or opts.get("component") or ""
    pkg = comp.split("/", 1)[0] if comp else opts.get("-p", "")
    if not pkg or pkg != dev.package or not dev.installed:
        what = comp or opts.get("-a", "intent")
        return f"Starting: Intent {{ cmp={what} }}\nError: Activity class {{{what}}} does not " \
               f"exist.\n".encode(), 1
    dev.start_app(stop_first="-S" in flags)
    out = f"Starting: Intent {{ cmp={comp or pkg} }}\n"
    if "-W" in flags:
        out += f"Status: ok\nActivity: {dev.focus()}\nThisTime: 4\nTotalTime: 4\nWaitTime: 5\n" \
               "Complete\n"
    return out.encode(), 0


def _am_broadcast(dev: VirtualDevice, args: list[str]) -> Out:
    opts, extras, _ = _intent(args)
    action = opts.get("-a", "")
    head = f"Broadcasting: Intent {{ act={action} flg=0x400000"
    head += f" pkg={opts['-p']}" if "-p" in opts else ""
    head += " (has extras) }\n" if extras else " }\n"
    if action == reset_action(dev.package) and dev.installed:
        try:  # as the APK's receiver: RESULT_OK (-1), or RESULT_CANCELED (0) with the error
            state = json.loads(extras[STATE_EXTRA]) if STATE_EXTRA in extras else None
            dev.set_state(state, extras.get("screen"))
        except (ValueError, PhoneworldError) as exc:
            logger.warning("virtual device %s: the reset broadcast was refused: %s", dev.serial, exc)
            why = str(exc).replace('"', "'")[:200]
            return (head + f'Broadcast completed: result=0, data="{why}"\n').encode(), 0
        return (head + 'Broadcast completed: result=-1, data="reset"\n').encode(), 0
    return (head + "Broadcast completed: result=0\n").encode(), 0


def cmd_am(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    sub, rest = (args[1] if len(args) > 1 else ""), args[2:]
    if sub in ("start", "start-activity"):
        return _am_start(dev, rest)
    if sub == "broadcast":
        return _am_broadcast(dev, rest)
    if sub in ("force-stop", "kill"):
        if rest and rest[-1] == dev.package and (sub == "force-stop" or not _foreground(dev)):
            dev.stop_app()
        return b"", 0
    return f"Error: unknown command '{sub}'\n".encode(), 1


def _foreground(dev: VirtualDevice) -> bool:
    return dev.running and dev.focus().startswith(dev.package + "/")


def cmd_monkey(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    opts, _, _ = _intent(args[1:])
    if opts.get("-p") == dev.package and dev.installed and opts.get("-c", LAUNCHER_CATEGORY) \
            == LAUNCHER_CATEGORY:
        dev.start_app()
        return b"  bash arg: -p\n  bash arg: 1\nEvents injected: 1\n", 0
    return b"** No activities found to run, monkey aborted.\n", 251


def apk_path(dev: VirtualDevice, package: str | None = None) -> str:
    pkg = package or dev.package
    if pkg == LAUNCHER_PACKAGE:
        return f"/system/priv-app/Launcher3/Launcher3.apk"
    return f"/data/app/{pkg}-1/base.apk"


def _list_packages(dev: VirtualDevice, rest: list[str]) -> Out:
    """`pm list packages [-f] [-3|-s] [-U] [FILTER]`: the launcher is a system app."""
    flags = "".join(a[1:] for a in rest if a.startswith("-") and not a.startswith("--"))
    words = [a for a in rest if not a.startswith("-")]
    filt = words[1] if len(words) > 1 else ""
    pkgs = ([] if "3" in flags else [LAUNCHER_PACKAGE]) + \
        ([dev.package] if dev.installed and "s" not in flags else []) + \
        ([] if "s" in flags else sorted(dev.helpers))
    out = []
    for p in sorted(pkgs):
        if filt not in p:
            continue
        line = f"package:{apk_path(dev, p)}={p}" if "f" in flags else f"package:{p}"
        out.append(line + (" uid:10100" if "U" in flags else ""))
    return "".join(o + "\n" for o in out).encode(), 0


def _install(dev: VirtualDevice, path: str, flags: set[str]) -> Out:
    """`pm install FILE`: a phoneworld APK (one carrying its app spec) installs that app: the
    served app again, or another app, which this one-app device then serves instead; a helper
    app a harness brings installs as the helper the device plays; any other APK is refused."""
    apk = dev.files.get(norm_path(path)) if path else None
    if apk is None:
        return f"Failure [INSTALL_FAILED_INVALID_URI: no file {path or '(none)'}]\n".encode(), 1
    try:
        package, spec = read_apk(apk, (dev.package, *HELPERS))
    except ValueError as exc:
        return f"Failure [INSTALL_PARSE_FAILED_NOT_APK: {path}: {exc}]\n".encode(), 1
    if package in HELPERS:  # a harness's helper app: the device answers its protocol itself
        dev.helpers.add(package)
        HELPERS[package](dev)
        return b"Success\n", 0
    if spec is None:
        return f"Failure [INSTALL_FAILED_INVALID_APK: {path} is not a phoneworld APK (no " \
               f"{SPEC_ASSET}); this virtual device runs only compiled phoneworld apps]\n" \
               .encode(), 1
    if spec.package == dev.package and dev.installed and "-r" not in flags:
        return f"Failure [INSTALL_FAILED_ALREADY_EXISTS: Attempt to re-install {spec.package} " \
               "without first uninstalling.]\n".encode(), 1
    dev.install_app(spec)
    logger.info("virtual device %s: %s installed from %s", dev.serial, spec.package, path)
    return b"Success\n", 0


def read_apk(apk: bytes, known: tuple[str, ...]) -> tuple[str, AppSpec | None]:
    """The package of an APK among `known` ("" for none: its binary manifest keeps strings
    UTF-16LE in its string pool, where a known name is enough to spot), and the app spec a
    phoneworld APK carries. Raises ValueError for a file that is no APK."""
    import io
    import zipfile

    from pydantic import ValidationError

    try:
        with zipfile.ZipFile(io.BytesIO(apk)) as z:
            manifest = z.read("AndroidManifest.xml")
            raw = z.read(SPEC_ASSET) if SPEC_ASSET in z.namelist() else None
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        raise ValueError("not an APK (no AndroidManifest.xml in a zip)") from exc
    package = next((k for k in known if k.encode("utf-16-le") in manifest or k.encode() in manifest),
                   "")
    if raw is None:
        return package, None
    try:
        spec = AppSpec.model_validate_json(raw)
    except ValidationError as exc:
        raise ValueError(f"its {SPEC_ASSET} is not a valid app spec: {exc.errors()[0]['msg']}") \
            from exc
    return spec.package, spec


def cmd_pm(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    sub, rest = (args[1] if len(args) > 1 else ""), args[2:]
    words = [a for a in rest if not a.startswith("-")]
    target = words[-1] if words else ""
    mine = target == dev.package and dev.installed
    if sub == "list" and words[:1] == ["packages"]:
        return _list_packages(dev, rest)
    if sub == "path":
        if target in dev.helpers:
            return f"package:{apk_path(dev, target)}\n".encode(), 0
        return (f"package:{apk_path(dev)}\n".encode(), 0) if mine else (b"", 1)
    if sub == "clear":
        if not mine:
            return b"Failed\n", 1
        dev.clear_data()
        return b"Success\n", 0
    if sub == "install":
        return _install(dev, target, {a for a in rest if a.startswith("-")})
    if sub == "resolve-activity":
        return _resolve_activity(dev, rest)
    if sub == "uninstall" and target in dev.helpers:
        dev.helpers.discard(target)
        HELPERS[target](dev)
        return b"Success\n", 0
    if sub == "uninstall":
        if not mine:
            return b"Failure [DELETE_FAILED_INTERNAL_ERROR]\n", 1
        dev.stop_app()
        dev.installed = False
        return b"Success\n", 0
    if sub in ("grant", "revoke", "disable-user", "enable"):
        return b"", 0
    return f"Unknown command: {sub}\n".encode(), 1


def _resolve_activity(dev: VirtualDevice, rest: list[str]) -> Out:
    """`pm resolve-activity [--brief] -a ACTION -c CATEGORY [PACKAGE]`: the launcher for HOME, the
    app's start activity for its LAUNCHER intent."""
    cats = {rest[i + 1] for i, a in enumerate(rest[:-1]) if a == "-c"}
    head = "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\n"
    if "android.intent.category.HOME" in cats:
        return (head + short_component(LAUNCHER_COMPONENT) + "\n").encode(), 0
    if rest and rest[-1] == dev.package and dev.installed:
        return (head + short_component(dev.focus_of_start()) + "\n").encode(), 0
    return b"No activity found\n", 0


def cmd_run_as(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    from phoneworld.devices.protocol import SCREEN_FILE, STATE_FILE

    if len(args) < 2 or args[1] != dev.package or not dev.installed:
        pkg = args[1] if len(args) > 1 else ""
        return f"run-as: unknown package: {pkg}\n".encode(), 1
    cmd = args[2:]
    path = cmd[1].removeprefix("./") if len(cmd) == 2 else ""
    if cmd[:1] == ["cat"] and path == STATE_FILE:
        return json.dumps(dev.sim.state, ensure_ascii=False).encode() + b"\n", 0
    if cmd[:1] == ["cat"] and path == SCREEN_FILE:
        return json.dumps(screen_doc(dev.sim)).encode() + b"\n", 0
    if cmd[:1] == ["ls"]:
        return b"screen.json\nstate.json\n", 0
    if not cmd:
        return b"run-as: an interactive shell is not supported by this virtual device\n", 1
    return f"run-as: exec failed for {cmd[0]}: No such file or directory\n".encode(), 1


def cmd_pidof(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    if len(args) > 1 and args[1] == dev.package and dev.pid is not None:
        return f"{dev.pid}\n".encode(), 0
    return b"", 1


_PS_VALUED = {"-g", "-G", "-k", "-t", "-u", "-U"}  # options that take a value (-o, -p: read)
_PS_HEAD = "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME"


def cmd_ps(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    """toybox `ps` (`-A`, `-e` and plain alike list every process: harnesses written for older
    Android call it bare): init, zygote, system_server, the launcher, the served app while it
    runs, a helper app whose service runs, and the adb shell's own; a name argument keeps that
    process only."""
    rows = [("root", 1, 0, "init"), ("root", 600, 1, "zygote64"),
            ("system", 1200, 600, "system_server"), ("u0_a10", 1500, 600, LAUNCHER_PACKAGE)]
    if dev.pid is not None:
        rows.append(("u0_a100", dev.pid, 600, dev.package))
    if droidbot_server.SERVICE in dev.services:
        rows.append(("u0_a101", 1600, 600, droidbot_server.PACKAGE))
    rows += [("shell", 2000, 1, "adbd"), ("shell", 2001, 2000, "sh"), ("shell", 2002, 2001, "ps")]
    names, fields, pids = [], [], []
    rest = iter(args[1:])
    for a in rest:
        if a in ("-o", "-p") or a in _PS_VALUED:
            value = next(rest, "")
            if a == "-o":
                fields += [f.split("=")[0].lower() for f in value.split(",") if f]
            elif a == "-p":
                pids += [int(p) for p in value.split(",") if p.isdigit()]
        elif not a.startswith("-"):
            names.append(a)
    keep = [r for r in rows if (not names or r[3] in names) and (not pids or r[1] in pids)]
    if fields:
        cols = {"user": 0, "pid": 1, "ppid": 2, "name": 3, "comm": 3, "cmd": 3, "args": 3,
                "cmdline": 3}
        idx = [cols[f] for f in fields if f in cols]
        lines = [" ".join(f.upper() for f in fields if f in cols)]
        lines += [" ".join(str(r[i]) for i in idx) for r in keep]
    else:
        lines = [_PS_HEAD] + [f"{u:<12} {pid:>5} {ppid:>5} {0:>7} {0:>6} 0 {0:>19} S {name}"
                              for u, pid, ppid, name in keep]
    return ("\n".join(lines) + "\n").encode(), 0 if keep or not (names or pids) else 1


ANDROID = {
    "am": cmd_am, "pm": cmd_pm, "cmd": lambda dev, args, data: cmd_pm(dev, args[1:], data)
    if args[1:2] == ["package"] else (b"cmd: unknown service\n", 1),
    "monkey": cmd_monkey, "run-as": cmd_run_as, "pidof": cmd_pidof, "ps": cmd_ps,
    "input": sc.cmd_input, "uiautomator": sc.cmd_uiautomator, "screencap": sc.cmd_screencap,
    "wm": sc.cmd_wm, "getprop": sc.cmd_getprop, "dumpsys": cmd_dumpsys,
    "settings": sy.cmd_settings, "ime": sy.cmd_ime, "logcat": sy.cmd_logcat,
    "getevent": sy.cmd_getevent, "app_process": sy.cmd_app_process, "ifconfig": sy.cmd_ifconfig,
    "ip": sy.cmd_ip,
}
