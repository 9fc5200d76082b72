"""The virtual device's real shell: Debian's `mksh` (Android's shell) in a bubblewrap sandbox.

Each `adb shell` session runs `/system/bin/sh` in a fresh sandbox (`bwrap --unshare-all`: its own
user, pid, network, ipc, uts and cgroup namespaces, no further user namespaces) whose root is an
empty tmpfs made read-only, holding only:

- `/system/bin`: `sh` (mksh), busybox's applets that toybox also has (`cp ps cut wc sed sort grep
  test which date uname ...`), and one small script per Android command of `commands.ANDROID`
  (`am pm input uiautomator screencap dumpsys wm getprop monkey ...`), read-only;
- the shared libraries those binaries load (found with `ldd`), read-only, at their own paths;
- the device's files, read-write: `/sdcard` and `/data` are the folders of `DeviceFiles`
  (`/storage/emulated/0`, `/storage/self/primary`, `/mnt/sdcard` link to `/sdcard`);
- `/proc` of its own pid namespace, a minimal `/dev`, and `/dev/socket/phoneworld`.

An Android command script sends its name, arguments and (when it is a pipe or a file) its stdin
over that unix socket to the device process (`CallServer`), which runs the Python command with the
simulator and sends back the exit code and the output; so the simulator's state stays in Python and
every command in `ANDROID` is a command of the real shell. A command that keeps running
(`ports.StillRunning`: `logcat`, `getevent`, uiautomator2's `app_process`) answers 0 and its
output at once, then streams what it prints next until its shim dies with the session.

Nothing else of the host is there: no `/etc`, no `/usr`, no `/home`, no network. The shell runs
as uid 2000 (`shell`) of its user namespace; as root on the host (CI, containers) each device gets
its own unprivileged host uid, so the process limit counts that device's processes only. Every
session is bounded (`Limits`): the shell is its pid namespace's init (`--as-pid-1`), so when it
ends, or is killed with bwrap (`--die-with-parent`) at the wall-clock timeout or when the device's
storage runs low, every process it started dies with it; `prlimit` bounds processes, CPU seconds,
file size, open files and address space.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import os
import re
import select
import shutil
import signal
import socket
import socketserver
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from phoneworld.devices.virtual.ports import FOLLOW_S, StillRunning
from phoneworld.errors import ToolchainError

logger = logging.getLogger(__name__)

# the host tools the sandbox needs, and the Debian package of each (Makefile APT_DEPS)
TOOLS = {"bwrap": "bubblewrap", "mksh": "mksh", "busybox": "busybox",
         "nc.openbsd": "netcat-openbsd", "prlimit": "util-linux"}
SHELL_UID = 2000  # `shell` on Android
HOST_UID_BASE = 20000  # as root: device n's shell is host uid HOST_UID_BASE + n
SOCKET = "/dev/socket/phoneworld"
WATCH_S = 0.25  # how often a running session's bounds are checked
MAX_CALL = 64 * 1024 * 1024  # largest request (arguments and stdin) of an Android command
# busybox applets in /system/bin: those of toybox (Android's) that busybox has; the commands that
# change mounts, namespaces, sessions or the network are left out
APPLETS = """
[ [[ awk base64 basename bunzip2 bzcat cal cat chgrp chmod chown cksum clear cmp comm cp cpio
crc32 cut date dc dd df diff dirname dos2unix du echo egrep env expand expr factor fallocate false
fgrep find fold free fsync getopt grep groups gunzip gzip head hexdump hostname id install kill
killall less link ln logname ls md5sum mkdir mkfifo mktemp more mv nice nl nohup nproc od paste
patch pgrep pidof pkill printenv printf ps pwd readlink realpath renice rev rm rmdir sed seq
sha1sum sha256sum sha512sum shuf sleep sort split stat strings stty sum sync tac tail tar tee test
time timeout top touch tr true truncate tty uname unexpand uniq unix2dos unlink unxz unzip uptime
usleep uudecode uuencode vi watch wc which whoami xargs xxd xz xzcat yes zcat
""".split()
# mksh builtins: a shim of that name would never run (the shell's own command wins)
MKSH_BUILTINS = frozenset("""
. : [ alias bg bind break builtin cat cd command continue echo eval exec exit export false fc fg
getopts global jobs kill let print pwd read readonly realpath rename return set shift sleep source
suspend test time times trap true typeset ulimit umask unalias unset wait whence
""".split())
SHIM = """#!/system/bin/sh
# phoneworld: an Android command of the virtual device, run by the device process
{ printf '%s\\0' "${0##*/}" "$#" "$@"
  if [ -p /dev/stdin ] || [ -f /dev/stdin ]; then cat; fi
} | /system/phoneworld/nc -NU SOCKET | { read -r _pw_rc; cat; exit "${_pw_rc:-1}"; }
""".replace("SOCKET", SOCKET)
TOYBOX = """#!/system/bin/sh
# phoneworld: Android's multi-call toybox, played by busybox
exec /system/bin/busybox "$@"
"""
MKSHRC = """# phoneworld virtual device: the prompt of Android's shell
PS1='${HOSTNAME:-phoneworld}:${PWD:-?} $ '
"""
ENV = {"PATH": "/system/bin", "HOME": "/", "ANDROID_DATA": "/data", "ANDROID_ROOT": "/system",
       "EXTERNAL_STORAGE": "/sdcard", "TMPDIR": "/data/local/tmp", "USER": "shell",
       "LOGNAME": "shell", "SHELL": "/system/bin/sh", "HOSTNAME": "phoneworld",
       "ENV": "/system/etc/mkshrc"}


@dataclass(frozen=True)
class Limits:
    """Bounds of one shell session (see the module docstring)."""

    timeout: float = 600.0  # wall-clock seconds, then the whole sandbox is killed
    cpu: int = 300  # CPU seconds of each process
    nproc: int = 256  # processes of the device's shell user at once
    fsize: int = 512 * 1024 * 1024  # bytes: largest file a process writes
    nofile: int = 256  # open files of each process
    memory: int = 4 * 1024 * 1024 * 1024  # bytes of address space of each process
    min_free: int = 1024 * 1024 * 1024  # bytes: the sandbox is killed when the device's files'
    # filesystem (memory, for a temporary device) has less left, so a shell cannot fill it


# ----------------------------------------------------------------------------- host tools


@functools.cache
def tools() -> dict[str, str]:
    """Host paths of `TOOLS`; raises ToolchainError naming the missing Debian packages."""
    found = {name: shutil.which(name) for name in TOOLS}
    missing = sorted({TOOLS[n] for n, p in found.items() if p is None})
    if missing:
        raise ToolchainError(
            "the virtual device's shell needs " + ", ".join(missing) + " (`make deps`, or "
            "apt-get install " + " ".join(missing) + ")")
    return {n: os.path.realpath(p) for n, p in found.items() if p is not None}


@functools.cache
def libraries() -> tuple[str, ...]:
    """The shared libraries of the sandbox's binaries (their paths as the loader asks for them)."""
    paths: set[str] = set()
    for name in ("mksh", "busybox", "nc.openbsd"):
        out = subprocess.run(["ldd", tools()[name]], capture_output=True, text=True,
                             check=False).stdout
        paths.update(re.findall(r"(/\S+) \(0x", out))
    return tuple(sorted(p for p in paths if os.path.exists(p)))


def available() -> str | None:
    """None when sandboxed shells work here, else why not (for tests to skip on)."""
    try:
        probe()
    except ToolchainError as exc:
        return str(exc)
    return None


@functools.cache
def probe() -> None:
    """Start one sandbox; raises ToolchainError with bwrap's complaint when it cannot."""
    from phoneworld.devices.virtual.files import DeviceFiles

    with tempfile.TemporaryDirectory(prefix="pw-probe-") as tmp:
        os.chmod(tmp, 0o755)
        uid = new_host_uid()
        DeviceFiles(Path(tmp) / "dev", owner=None if uid is None else (uid, uid))
        box = Sandbox(Path(tmp) / "dev", Limits(timeout=20.0), call=lambda *a: (b"", 0),
                      host_uid=uid)
        try:
            out, code = box.run("echo ok")
        finally:
            box.close()
    if code != 0 or out != b"ok\n":
        raise ToolchainError("bubblewrap cannot start the virtual device's shell here (user "
                             f"namespaces off?): {out.decode(errors='replace')[-300:]}")


_host_uids = itertools.count(HOST_UID_BASE)


def new_host_uid() -> int | None:
    """As root: a fresh unprivileged host uid for one device's shell; else None (yours)."""
    return next(_host_uids) if os.geteuid() == 0 else None


# ----------------------------------------------------------------------------- call server

Call = Callable[[str, list[str], bytes], "tuple[bytes, int] | None"]


class _Handler(socketserver.BaseRequestHandler):
    server: CallServer

    def handle(self) -> None:
        sock: socket.socket = self.request
        data = bytearray()
        while len(data) <= MAX_CALL:
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            data += chunk
        name, argv, stdin = _parse_call(bytes(data))
        if name is None:
            sock.sendall(b"1\nphoneworld: bad command call\n")
            return
        try:
            result = self.server.call(name, argv, stdin)
        except StillRunning as running:
            self._follow(sock, running)
            return
        if result is None:  # the command hangs (a test's fault): answer never, until the caller dies
            self._hold(sock)
            return
        out, code = result
        with contextlib.suppress(OSError):
            sock.sendall(f"{code & 255}\n".encode() + out)

    def _follow(self, sock: socket.socket, running: StillRunning) -> None:
        """A command that keeps running: exit code 0 and its output now, then what `more` prints
        every FOLLOW_S, until its shim dies (the session ends: the host closed the stream, or a
        bound killed it) or the device closes; then `stop`, as when the process is killed."""
        poll = select.poll()
        poll.register(sock, select.POLLHUP)
        try:
            sock.sendall(b"0\n" + running.output)
            while not self.server.closing.is_set() and not poll.poll(int(FOLLOW_S * 1000)):
                out = running.more() if running.more is not None else b""
                if out:
                    sock.sendall(out)
        except OSError:
            pass
        finally:
            if running.stop is not None:
                running.stop()

    def _hold(self, sock: socket.socket) -> None:
        poll = select.poll()
        poll.register(sock, select.POLLHUP)
        while not self.server.closing.is_set() and not poll.poll(500):
            pass


def _parse_call(data: bytes) -> tuple[str | None, list[str], bytes]:
    parts = data.split(b"\0", 2)
    if len(parts) < 3 or not parts[1].isdigit():
        return None, [], b""
    name, argc, rest = parts[0].decode(errors="replace"), int(parts[1]), parts[2]
    args: list[str] = []
    for _ in range(argc):
        arg, sep, rest = rest.partition(b"\0")
        if not sep:
            return None, [], b""
        args.append(arg.decode(errors="surrogateescape"))
    return name, [name, *args], rest


class CallServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """Answers the Android command scripts of one device's sandboxes (a thread per call)."""

    daemon_threads = True

    def __init__(self, path: Path, call: Call) -> None:
        self.call = call
        self.closing = threading.Event()
        super().__init__(str(path), _Handler)
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="phoneworld-shell-calls", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.closing.set()
        self.shutdown()
        self.server_close()


# ----------------------------------------------------------------------------- the sandbox


class Sandbox:
    """The shell of one device whose files are `files_root` (a `DeviceFiles` root). `call(name,
    argv, stdin)` runs an Android command (None: it never answers)."""

    def __init__(self, files_root: Path, limits: Limits, call: Call,
                 host_uid: int | None = None) -> None:
        tools()
        self.files_root = Path(files_root)
        self.limits = limits
        self.user = SHELL_UID  # the shell's uid in its namespace: 0 after `adb root`
        self.as_root = os.geteuid() == 0
        uid = host_uid if host_uid is not None else new_host_uid()
        self.uid = uid if uid is not None else os.geteuid()
        if self.as_root:
            _check_reachable(self.files_root, self.uid)
        self.run_dir = Path(tempfile.mkdtemp(prefix="pw-shell-"))
        os.chmod(self.run_dir, 0o755)
        self._bin = self._system_bin()
        sock = self.run_dir / "calls.sock"
        self.calls = CallServer(sock, call)
        if self.as_root:
            os.chown(sock, self.uid, self.uid)
        os.chmod(sock, 0o600)
        self._closer = weakref.finalize(self, _cleanup, self.calls, self.run_dir)

    @property
    def owner(self) -> tuple[int, int] | None:
        """Who the device's files must belong to on the host (None: whoever writes them)."""
        return (self.uid, self.uid) if self.as_root else None

    def close(self) -> None:
        self._closer()

    def _system_bin(self) -> Path:
        from phoneworld.devices.virtual.commands import ANDROID

        bin_dir, pw_dir, etc = self.run_dir / "bin", self.run_dir / "pw", self.run_dir / "etc"
        for d in (bin_dir, pw_dir, etc):
            d.mkdir()
        for placeholder in (bin_dir / "sh", bin_dir / "busybox", pw_dir / "nc"):
            placeholder.touch()
        (pw_dir / "shim").write_text(SHIM)
        os.chmod(pw_dir / "shim", 0o755)
        (etc / "mkshrc").write_text(MKSHRC)
        for name in APPLETS:
            os.symlink("busybox", bin_dir / name)
        (bin_dir / "toybox").write_text(TOYBOX)  # `toybox md5sum F` (uiautomator2 asks so)
        os.chmod(bin_dir / "toybox", 0o755)
        os.symlink("sh", bin_dir / "mksh")
        for name in ANDROID:
            if name not in MKSH_BUILTINS and "/" not in name:
                with contextlib.suppress(FileExistsError):
                    (bin_dir / name).unlink(missing_ok=True)
                    os.symlink("/system/phoneworld/shim", bin_dir / name)
        return bin_dir

    def argv(self, command: str | None) -> list[str]:
        """prlimit + bwrap + sh: one session's command line (`command` None: read stdin)."""
        t, lim = tools(), self.limits
        box = [t["bwrap"], "--unshare-all", "--unshare-user", "--uid", str(self.user), "--gid",
               str(self.user), "--disable-userns", "--die-with-parent", "--as-pid-1", "--hostname", "localhost",
               "--clearenv"]
        for k, v in ENV.items():
            box += ["--setenv", k, v]
        box += ["--ro-bind", str(self._bin), "/system/bin",
                "--ro-bind", t["mksh"], "/system/bin/sh",
                "--ro-bind", t["busybox"], "/system/bin/busybox",
                "--ro-bind", str(self.run_dir / "pw"), "/system/phoneworld",
                "--ro-bind", t["nc.openbsd"], "/system/phoneworld/nc",
                "--ro-bind", str(self.run_dir / "etc"), "/system/etc"]
        for lib in libraries():
            box += ["--ro-bind", lib, lib]
        box += ["--proc", "/proc", "--dev", "/dev",
                "--ro-bind", str(self.run_dir / "calls.sock"), SOCKET,
                "--bind", str(self.files_root / "sdcard"), "/sdcard",
                "--bind", str(self.files_root / "data"), "/data",
                "--symlink", "/sdcard", "/storage/emulated/0",
                "--symlink", "/sdcard", "/storage/self/primary",
                "--symlink", "/sdcard", "/mnt/sdcard",
                "--symlink", "/system/etc", "/etc",
                "--remount-ro", "/", "--chdir", "/", "/system/bin/sh"]
        if command is not None:
            box += ["-c", command]
        limits = [t["prlimit"], f"--nproc={lim.nproc}", f"--cpu={lim.cpu}",
                  f"--fsize={lim.fsize}", f"--nofile={lim.nofile}", f"--as={lim.memory}",
                  "--core=0", "--"]
        return limits + box

    def popen_kw(self) -> dict[str, Any]:
        """Popen arguments: its own process group (killed as one), the device's host uid."""
        kw: dict[str, Any] = {"process_group": 0, "close_fds": True, "env": {"PATH": "/usr/bin"}}
        if self.as_root:
            kw.update(user=self.uid, group=self.uid, extra_groups=[])
        return kw

    def out_of_bounds(self, started: float) -> str | None:
        """Why a session that started at `started` (monotonic) must die now, if it must."""
        if time.monotonic() - started > self.limits.timeout:
            return "the session ran out of time"
        st = os.statvfs(self.files_root)
        if st.f_bavail * st.f_frsize < self.limits.min_free:
            return "the device's storage is full"
        return None

    def run(self, command: str) -> tuple[bytes, int]:
        """Run `command` to its end (stdin /dev/null); stdout and stderr together, exit code."""
        proc = subprocess.Popen(self.argv(command), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                **self.popen_kw())
        started = time.monotonic()
        while True:
            try:
                out, _ = proc.communicate(timeout=WATCH_S)
                return out, proc.returncode
            except subprocess.TimeoutExpired:
                why = self.out_of_bounds(started)
                if why is not None:
                    break
        kill(proc.pid)
        out, _ = proc.communicate()
        return out + f"\n/system/bin/sh: killed: {why}\n".encode(), 137

    async def spawn(self, command: str | None, stdin: int, stdout: int,
                    stderr: int) -> asyncio.subprocess.Process:
        """Start a session whose stdio are these descriptors (or asyncio.subprocess.PIPE)."""
        return await asyncio.create_subprocess_exec(*self.argv(command), stdin=stdin,
                                                    stdout=stdout, stderr=stderr,
                                                    **self.popen_kw())


def _check_reachable(path: Path, uid: int) -> None:
    """bwrap runs as `uid`: every folder above the device's must let it through."""
    for d in [path.resolve(), *path.resolve().parents]:
        st = d.stat()
        if not (st.st_mode & 0o001 or st.st_uid == uid):
            raise ToolchainError(f"the device folder {path} is out of reach of its shell (host uid "
                                 f"{uid}): {d} is mode {st.st_mode & 0o777:o}; use a folder "
                                 "whose parents others may traverse (chmod o+x)")


def kill(pid: int) -> None:
    """Kill a session: its process group (prlimit, bwrap; the sandbox dies with bwrap)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def _cleanup(calls: CallServer, run_dir: Path) -> None:
    with contextlib.suppress(OSError):
        calls.close()
    shutil.rmtree(run_dir, ignore_errors=True)
