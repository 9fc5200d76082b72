"""A virtual Android device: one compiled mock app on the simulator, with the bits of Android that
adb clients touch (a file system for dumps and pushes, an app process, system properties, focus).

The simulator is the app. Its `@launcher` screen is the home screen; the process (`pid`) dies on
`am force-stop`, `pm clear` and injected crashes, and is started again by `am start` or `monkey`
(the app then restarts at its start screen with its state kept, like the simulator's `open_app`).
State is what the APK keeps in `files/state.json`: the debug broadcast replaces it and `run-as`
reads it (see `phoneworld.devices.protocol`).

`faults` lets tests break the device on purpose: failing or garbage dumps, commands that hang or
answer late, an app that crashes on the next input. The server (`virtual.server`) turns a device
that "vanishes" into closed sockets.
"""

from __future__ import annotations

import itertools
import logging
import os
import shutil
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from phoneworld.devices.virtual import sandbox as sb
from phoneworld.devices.virtual.files import DeviceFiles, norm_path
from phoneworld.devices.virtual.input import Event, to_actions
from phoneworld.devices.virtual.ports import StillRunning
from phoneworld.ir import trace as tr
from phoneworld.ir.app import AppSpec
from phoneworld.runtime.compiled import LAUNCHER, LAUNCHER_PACKAGE
from phoneworld.runtime.sim import Simulator

logger = logging.getLogger(__name__)

LAUNCHER_COMPONENT = f"{LAUNCHER_PACKAGE}/{LAUNCHER_PACKAGE}.Launcher"
_MEMORY_DIR = "/dev/shm"  # a device's temporary folder is in memory (a dump per step is written)
DOUBLE_TAP_S = 0.3  # Android's double-tap timeout: input commands further apart are not grouped
_pids = itertools.count(4100)
MAX_LOG = 5000


@dataclass
class Faults:
    """Faults injected by tests. Counters are consumed as the faults fire."""

    dump_errors: int = 0  # the next N `uiautomator dump`s print "ERROR: could not get idle state."
    dump_garbage: int = 0  # the next N dumps write a file that is not a view hierarchy
    hang: set[str] = field(default_factory=set)  # command names that never answer
    delay: float = 0.0  # seconds every command line waits before answering
    crash_on_input: bool = False  # the next input event kills the app (an error dialog shows)


@dataclass
class ShellResult:
    output: bytes
    code: int = 0
    hang: bool = False  # never answer (the stream stays open until the host gives up)
    delay: float = 0.0  # answer after this many seconds


__all__ = ["DeviceFiles", "Faults", "ShellResult", "VirtualDevice", "norm_path"]


def component(activity: str | None, package: str) -> str:
    """The full component (`pkg/pkg.Act`) of a screen's recorded activity (`pkg/.Act`), or of the
    app's main activity when none was recorded."""
    act = activity or f"{package}/.MainActivity"
    pkg, _, cls = act.partition("/")
    return f"{pkg}/{pkg}{cls}" if cls.startswith(".") else act


def screen_doc(sim: Any) -> dict[str, Any]:
    """What a generated APK writes to `files/screen.json`: its screen and back stack."""
    return {"screen": sim.screen, "stack": list(sim.stack)}


class VirtualDevice:
    """One virtual phone serving one compiled app (thread-safe: one lock around everything)."""

    def __init__(self, spec: AppSpec, model: str = "phoneworld_virtual",
                 size: tuple[int, int] | None = None, root: Path | None = None,
                 limits: sb.Limits | None = None) -> None:
        """`root`: the device's folder (its /sdcard and /data; default: a temporary folder,
        removed with the device); `limits`: bounds of each shell session."""
        self.spec = spec
        self.package = spec.package
        self.sim = Simulator(spec)
        self.lock = threading.RLock()
        self.host_uid = sb.new_host_uid()
        owner = None if self.host_uid is None else (self.host_uid, self.host_uid)
        self.root = Path(root) if root is not None else Path(tempfile.mkdtemp(
            prefix="pw-vdev-", dir=_MEMORY_DIR if os.access(_MEMORY_DIR, os.W_OK) else None))
        self.files = DeviceFiles(self.root, owner)
        self.limits = limits or sb.Limits()
        self.fast = True  # run the lines of `shell.fast_plan` in-process (False: all in the shell)
        self._sandbox: sb.Sandbox | None = None
        self._last_input = 0.0
        self._closer = weakref.finalize(self, _cleanup, None if root is not None else self.root)
        self.installed = True
        self.pid: int | None = next(_pids)
        self.error_dialog = False  # "Application Error: <pkg>" is in front
        self.faults = Faults()
        self.input_log: list[str] = []  # every `input ...` command received, for tests
        self.serial = ""  # set by the server: "127.0.0.1:PORT"
        self.sockets: dict[str, Any] = {}  # device-side servers by socket name (`virtual.ports`)
        self.reverses: dict[str, str] = {}  # `adb reverse`: device socket -> host socket
        self.helpers: set[str] = set()  # helper apps installed that the device plays itself
        self.services: dict[str, Any] = {}  # running helper services: component -> stop
        self.adbd_root = False  # `adb root` switched adbd to root
        self.clipboard = ""  # what a helper app (uiautomator2's server) set and pastes
        self.ime = "com.android.inputmethod.latin/.LatinIME"  # `ime set`
        self.log: list[str] = []  # logcat lines, threadtime format (`logcat`), the last MAX_LOG
        self.log_count = 0  # lines ever logged (a following `logcat` reads from its count)
        self.settings: dict[str, dict[str, str]] = {}  # `settings put NAMESPACE KEY VALUE`
        dev = spec.device
        # a screen of another size than the app was recorded on: views and touches are scaled
        self.physical = size or (dev.width, dev.height)
        self.width, self.height = self.physical
        self.fx, self.fy = self.width / dev.width, self.height / dev.height
        self.physical_density = dev.density or 420
        self.density = self.physical_density
        self.props = {
            "ro.product.model": model, "ro.product.name": "phoneworld", "ro.product.device":
            "phoneworld", "ro.product.manufacturer": "phoneworld", "ro.build.version.sdk":
            str(dev.sdk or 29), "ro.build.version.release": "10", "ro.product.cpu.abi": "x86_64",
            "sys.boot_completed": "1", "ro.debuggable": "1", "ro.secure": "0",
            "ro.serialno": "phoneworld-virtual",
        }
        self._pending: list[Event] = []

    # ------------------------------------------------------------------ the shell entry point

    def shell(self, line: str) -> ShellResult:
        """Run one shell command line the way `adb shell` would (see `virtual.shell`)."""
        from phoneworld.devices.virtual.shell import run_line

        return run_line(self, line)

    def fast_shell(self, line: str) -> ShellResult | None:
        """Run `line` in-process if it is in the fast grammar (`shell.fast_plan`), else None;
        raises `ports.StillRunning` when the line ends in a command that keeps running."""
        from phoneworld.devices.virtual.commands import ANDROID
        from phoneworld.devices.virtual.shell import Hang, fast_plan, run_fast

        plan = fast_plan(line, frozenset(ANDROID)) if self.fast else None
        if plan is None:
            return None
        with self.lock:
            try:
                out, code = run_fast(self, plan)
            except Hang:
                self.flush_input()
                return ShellResult(b"", 0, hang=True, delay=self.faults.delay)
            self.flush_input()
        return ShellResult(out, code, delay=self.faults.delay)

    def sandbox(self) -> sb.Sandbox:
        """The device's real shell (made on first use; raises ToolchainError if it cannot be)."""
        with self.lock:
            if self._sandbox is None:
                ref = weakref.ref(self)

                def call(name: str, argv: list[str], stdin: bytes) -> tuple[bytes, int] | None:
                    dev = ref()
                    return (b"device gone\n", 1) if dev is None else dev.android_call(
                        name, argv, stdin)

                self._sandbox = sb.Sandbox(self.root, self.limits, call, self.host_uid)
                self._sandbox.user = 0 if self.adbd_root else sb.SHELL_UID
            return self._sandbox

    def set_adbd_root(self, root: bool) -> None:
        """`adb root` / `adb unroot`: later shells run as uid 0 (`root`) of their namespace, or
        2000 (`shell`) again; the host sees the same unprivileged uid either way."""
        self.adbd_root = root
        with self.lock:
            if self._sandbox is not None:
                self._sandbox.user = 0 if root else sb.SHELL_UID

    def android_call(self, name: str, argv: list[str], stdin: bytes) -> tuple[bytes, int] | None:
        """An Android command run from the real shell (None: it hangs, by a test's fault; raises
        `ports.StillRunning` for one that keeps running, which `sandbox.CallServer` streams)."""
        with self.lock:
            if name != "input" or time.monotonic() - self._last_input > DOUBLE_TAP_S:
                self.flush_input()
            if name in self.faults.hang:
                return None
            out, code = self.run_android(name, argv, stdin)
            if name == "input":
                self._last_input = time.monotonic()
            return out, code

    def run_android(self, name: str, argv: list[str], stdin: bytes) -> tuple[bytes, int]:
        """One command of `commands.ANDROID` (the caller holds the lock); a file it cannot write
        is its error message, a bug in it is logged and an error, never the device's end. A
        command that keeps running raises `ports.StillRunning`."""
        from phoneworld.devices.virtual.commands import ANDROID

        cmd = ANDROID.get(name)
        if cmd is None:
            return f"/system/bin/sh: {name}: inaccessible or not found\n".encode(), 127
        try:
            return cmd(self, argv, stdin)
        except StillRunning:  # a process that keeps running: the caller streams it
            raise
        except OSError as exc:
            return f"{name}: {exc.filename or ''}: {exc.strerror}\n".encode(), 1
        except Exception:  # noqa: BLE001 - a command's bug must not end the device's shell
            logger.exception("virtual device %s: %s failed", self.serial, " ".join(argv))
            return f"{name}: internal error of the virtual device\n".encode(), 1

    def close(self) -> None:
        """Stop the device's shell and remove its temporary folder (if it made one)."""
        if self._sandbox is not None:
            self._sandbox.close()
        self._closer()

    # ------------------------------------------------------------------ app process

    def logcat(self, level: str, tag: str, message: str, pid: int | None = None) -> None:
        """One line of the device's log, as `logcat -v threadtime` prints it."""
        now = time.time()
        stamp = time.strftime("%m-%d %H:%M:%S", time.localtime(now)) + f".{int(now * 1000) % 1000:03d}"
        p = pid or 1200  # system_server's pid when the app's own is not the writer
        self.log.append(f"{stamp} {p:5d} {p:5d} {level} {tag:<8}: {message}")
        self.log_count += 1
        del self.log[:-MAX_LOG]

    @property
    def running(self) -> bool:
        return self.pid is not None

    def focus_of_start(self) -> str:
        """The component of the app's start screen (its launcher activity)."""
        return component(self.spec.screen(self.spec.start_screen).activity, self.package)

    def focus(self) -> str:
        """What has the window focus: an error dialog's title or an activity component."""
        if self.error_dialog:
            return f"Application Error: {self.package}"
        if self.sim.screen == LAUNCHER or not self.running:
            return LAUNCHER_COMPONENT
        return component(self.spec.screen(self.sim.screen).activity, self.package)

    def start_app(self, stop_first: bool = False) -> None:
        """Launch the app at its start screen (its state kept), like `am start` of its launcher."""
        self.flush_input()
        if stop_first:
            self.stop_app()
        self.error_dialog = False
        if self.pid is None:
            self.pid = next(_pids)
            self.logcat("I", "ActivityManager", f"Start proc {self.pid}:{self.package}/u0a100 for "
                        f"activity {{{self.focus_of_start()}}}")
        self.sim.step(tr.OpenApp(package=self.package))
        self.logcat("I", "ActivityTaskManager", f"Displayed {self.focus()}: +42ms")

    def stop_app(self) -> None:
        """`am force-stop`: the process dies, the home screen shows."""
        self.flush_input()
        if self.pid is not None:
            self.logcat("I", "ActivityManager", f"Force stopping {self.package} appid=10100 user=0")
            self.logcat("I", "ActivityManager", f"Killing {self.pid}:{self.package}/u0a100 (adj 0):"
                        " stop " + self.package)
        self.pid = None
        self.error_dialog = False
        self.sim.step(tr.CloseApp())

    def crash(self) -> None:
        logger.info("virtual device %s: the app crashes (injected)", self.serial)
        self.logcat("E", "AndroidRuntime", "FATAL EXCEPTION: main", self.pid)
        self.logcat("E", "AndroidRuntime", f"Process: {self.package}, PID: {self.pid}", self.pid)
        self.logcat("E", "AndroidRuntime", "java.lang.RuntimeException: injected by the test",
                    self.pid)
        self.stop_app()
        self.error_dialog = True

    def set_state(self, state: dict[str, Any] | None, screen: str | None = None) -> None:
        """What the APK's reset receiver does: its state machine restarts in `state` at `screen`
        (default: the start screen). In front, that shows at once; behind the home screen, the
        home screen stays and the app opens at its start screen later."""
        self.flush_input()
        if self.sim.screen != LAUNCHER and self.running and not self.error_dialog:
            self.sim.reset(state, screen)
        else:
            self.sim.set_position(LAUNCHER, state)

    def install_app(self, spec: AppSpec) -> None:
        """`pm install` of a phoneworld APK: this device now serves `spec` (installed, not
        running, its state initial; the screen keeps its size, the app is scaled to it)."""
        self.stop_app()
        self.spec, self.package, self.sim = spec, spec.package, Simulator(spec)
        self.installed = True
        app = spec.device
        self.fx, self.fy = self.width / app.width, self.height / app.height
        self.sim.set_position(LAUNCHER, None)

    def clear_data(self) -> None:
        """`pm clear`: stop the app and reset its data to the initial state."""
        self.stop_app()
        self.sim.set_position(LAUNCHER, None)

    # ------------------------------------------------------------------ screen geometry

    def resize(self, size: tuple[int, int] | None) -> None:
        """`wm size WxH` (None: `wm size reset`): the logical screen the app is drawn on."""
        self.flush_input()
        self.width, self.height = size or self.physical
        app = self.spec.device
        self.fx, self.fy = self.width / app.width, self.height / app.height

    @property
    def scaled(self) -> bool:
        return (self.width, self.height) != (self.spec.device.width, self.spec.device.height)

    def to_app(self, x: float, y: float) -> tuple[int, int]:
        """A point on this screen in the app's (recorded) pixels."""
        return round(x / self.fx), round(y / self.fy)

    def dump_xml(self) -> str:
        """What `uiautomator dump` shows: the simulator's XML, scaled to this screen."""
        if not self.scaled:
            return self.sim.xml()
        from phoneworld.devices.screens import scale_view
        from phoneworld.runtime.render import view_xml

        return view_xml(scale_view(self.sim.view(), self.fx, self.fy))

    # ------------------------------------------------------------------ input

    def queue_input(self, event: Event) -> None:
        self._pending.append(event)

    def flush_input(self) -> None:
        """Apply queued input events (see `virtual.input`)."""
        events, self._pending = self._pending, []
        if not events:
            return
        if self.faults.crash_on_input:
            self.faults.crash_on_input = False
            self.crash()
            return
        if self.error_dialog:
            if any(e.kind == "key" for e in events):  # BACK or HOME dismisses the dialog
                self.error_dialog = False
            return
        to_actions(events, self.sim)


def _cleanup(root: Path | None) -> None:
    if root is not None:
        shutil.rmtree(root, ignore_errors=True)
