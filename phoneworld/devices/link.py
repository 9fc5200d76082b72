"""The adb boundary: one device reached through an adb server with adbutils, every call bounded by a
timeout, every failure wrapped once into the `DeviceError` tree (`phoneworld.errors`).

`DeviceLink(serial)` runs shell commands (with exit codes over shell protocol v2), pulls and
pushes files over `sync:` (adbutils' own sync has no timeout, so RECV/SEND are done here), and
pings. `AdbServer` runs a private adb server (a port of its own, mDNS and USB scans off) as a
child process and connects TCP devices to it: tests and benchmarks use it. `AdbServer.users()`
is the user's own server ($ANDROID_ADB_SERVER_PORT or 5037), which `phoneworld device serve
--connect` connects its devices to (and disconnects them from when it stops).
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import adbutils
from adbutils._adb import AdbConnection
from adbutils.errors import AdbError, AdbTimeout

from phoneworld.errors import (
    DeviceError, DeviceLostError, DeviceTimeoutError, ToolchainError, UsageError,
)

logger = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_TIMEOUT = 20.0
_LOST = ("not found", "offline", "closed", "no devices", "unauthorized", "connection reset",
         "connect to adb server", "broken pipe", "eof",
         "unknown data: b''")  # the adb server hung up mid-answer: the transport died


class _Connection(AdbConnection):  # type: ignore[misc]
    """adbutils' connection to the adb server, which must not start a server of its own (on the
    default port) when ours is gone: that is a lost device, not something to repair."""

    def _safe_connect(self) -> socket.socket:
        return self._create_socket()  # type: ignore[no-any-return]

    def close(self) -> None:
        # adbutils sleeps 10 ms here on every close; our callers have read everything by then
        sock = self.__dict__.get("_AdbConnection__conn")
        if sock is not None:
            sock.close()
            self.__dict__["_AdbConnection__conn"] = None


class _Client(adbutils.AdbClient):  # type: ignore[misc]
    """adbutils' client without its side trips: no server started behind our back, and the server
    version (asked before every transport) cached, since a running server keeps it."""

    _version: int | None = None

    def make_connection(self, timeout: float | None = None) -> AdbConnection:
        try:
            conn = _Connection(self.host, self.port)
        except TimeoutError as exc:
            raise AdbTimeout("connect to adb server timeout") from exc
        if timeout:
            conn.conn.settimeout(timeout)
        return conn

    def server_version(self) -> int:
        if self._version is None:
            self._version = int(super().server_version())
        return self._version


def server_port(port: int | None = None) -> int:
    """The port of the user's adb server, by adb's own rule: `port`, else
    $ANDROID_ADB_SERVER_PORT, else 5037."""
    if port:
        return port
    raw = os.environ.get("ANDROID_ADB_SERVER_PORT", "5037")
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise UsageError(f"ANDROID_ADB_SERVER_PORT is {raw!r}, not a port number: unset it or "
                         "set it to the port of your adb server (adb's default is 5037)")
    return int(raw)


def client(port: int | None = None, host: str = "127.0.0.1") -> adbutils.AdbClient:
    return _Client(host=host, port=server_port(port))


class DeviceLink:
    """One device; methods raise `DeviceLostError`, `DeviceTimeoutError` or `DeviceError`."""

    def __init__(self, serial: str, adb: adbutils.AdbClient | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> None:
        self.serial = serial
        self.adb = adb if adb is not None else client()
        self.timeout = timeout
        self.device = self.adb.device(serial)

    def _call(self, what: str, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except AdbTimeout as exc:
            raise DeviceTimeoutError("no answer in time", self.serial, what, str(exc)) from exc
        except (AdbError, OSError, EOFError) as exc:
            text = str(exc).lower() or type(exc).__name__.lower()
            if isinstance(exc, (OSError, EOFError)) or any(w in text for w in _LOST):
                raise DeviceLostError("the device is gone", self.serial, what, str(exc)) from exc
            raise DeviceError("adb failed", self.serial, what, str(exc)) from exc

    def shell(self, command: str, timeout: float | None = None) -> str:
        """Output of `command` (stdout and stderr) as text; the exit code is ignored."""
        t = timeout or self.timeout
        return self._call(command, lambda: str(self.device.shell(command, timeout=t)))

    def shell_rc(self, command: str, timeout: float | None = None) -> tuple[str, int]:
        """(output, exit code) over shell protocol v2."""
        t = timeout or self.timeout
        r = self._call(command, lambda: self.device.shell2(command, timeout=t, v2=True))
        return str(r.output), int(r.returncode)

    def shell_bytes(self, command: str, timeout: float | None = None) -> bytes:
        t = timeout or self.timeout
        out = self._call(command, lambda: self.device.shell(command, timeout=t, encoding=None))
        return bytes(out)

    def pull(self, path: str, timeout: float | None = None) -> bytes:
        return self._call(f"pull {path}", lambda: self._recv(path, timeout or self.timeout))

    def push(self, data: bytes, path: str, timeout: float | None = None) -> None:
        self._call(f"push {path}", lambda: self._send(data, path, timeout or self.timeout))

    def ping(self, timeout: float = 3.0) -> bool:
        """True when the device answers a trivial command within `timeout`."""
        try:
            return self.shell("echo pw-ok", timeout=timeout).strip() == "pw-ok"
        except DeviceError as exc:
            logger.info("device %s failed its health check: %s", self.serial, exc)
            return False

    def _sync(self, timeout: float) -> Any:
        c = self.device.open_transport(timeout=timeout)
        c.send_command("sync:")
        c.check_okay()
        return c

    def _recv(self, path: str, timeout: float) -> bytes:
        with self._sync(timeout) as c:
            raw = path.encode()
            c.conn.sendall(b"RECV" + struct.pack("<I", len(raw)) + raw)
            buf = bytearray()
            while True:
                head = c.read_exact(8)
                rid, n = head[:4], struct.unpack("<I", head[4:])[0]
                if rid == b"DATA":
                    buf += c.read_exact(n)
                elif rid == b"DONE":
                    return bytes(buf)
                elif rid == b"FAIL":
                    raise DeviceError("pull failed", self.serial, f"pull {path}",
                                      c.read_exact(n).decode(errors="replace"))
                else:
                    raise DeviceError("pull got garbage", self.serial, f"pull {path}", repr(head))

    def _send(self, data: bytes, path: str, timeout: float) -> None:
        with self._sync(timeout) as c:
            spec = f"{path},{0o644}".encode()
            out = bytearray(b"SEND" + struct.pack("<I", len(spec)) + spec)
            for i in range(0, len(data), 64 * 1024):
                part = data[i:i + 64 * 1024]
                out += b"DATA" + struct.pack("<I", len(part)) + part
            out += b"DONE" + struct.pack("<I", int(time.time()))
            c.conn.sendall(bytes(out))
            head = c.read_exact(8)
            if head[:4] != b"OKAY":
                n = struct.unpack("<I", head[4:])[0]
                raise DeviceError("push failed", self.serial, f"push {path}",
                                  c.read_exact(n).decode(errors="replace"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class AdbServer:
    """A private adb server on 127.0.0.1:`port` (Debian's `adb`), with TCP devices connected."""

    def __init__(self, port: int | None = None, adb: str | None = None) -> None:
        exe = adb or shutil.which("adb")
        if exe is None:
            raise ToolchainError("adb is not installed (Debian: apt-get install adb)")
        self.exe = exe
        self.port = port or free_port()
        self.env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(self.port), "ADB_MDNS": "0",
                    "ADB_USB": "0", "ADB_EMU": "0"}
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: Any = None
        self.owned = True  # False for the user's server: `stop` leaves it running

    @classmethod
    def users(cls, port: int | None = None, adb: str | None = None) -> AdbServer:
        """The user's own adb server (`server_port(port)`), reached with the user's environment,
        so that `adb devices` in another shell sees what is connected here; the `adb` command
        starts it as its daemon when it is not running, as `adb devices` would."""
        server = cls(server_port(port), adb)
        server.env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(server.port)}
        server.owned = False
        return server

    def listening(self) -> bool:
        """Whether an adb server answers on the port."""
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1.0).close()
        except OSError:
            return False
        return True

    def serials(self) -> list[str]:
        """`adb devices`: the serials the server knows, in any state."""
        lines = self.run("devices").splitlines()
        return [ln.split("\t")[0] for ln in lines if "\t" in ln]

    def run(self, *args: str, timeout: float = 20.0) -> str:
        cmd = [self.exe, "-P", str(self.port), *args]
        try:
            p = subprocess.run(cmd, env=self.env, capture_output=True, text=True,
                               timeout=timeout, stdin=subprocess.DEVNULL, check=False)
        except subprocess.TimeoutExpired as exc:
            raise DeviceTimeoutError("adb did not finish", None, " ".join(cmd)) from exc
        out = (p.stdout + p.stderr).strip()
        if p.returncode != 0:
            raise DeviceError(f"adb exited with {p.returncode}", None, " ".join(cmd), out)
        return out

    def start(self, timeout: float = 30.0) -> AdbServer:
        """Run the server as a child (`adb nodaemon server`) that dies with this process, so a
        killed test run leaves no adb server behind."""
        self._log = tempfile.TemporaryFile()
        cmd = [self.exe, "-P", str(self.port), "nodaemon", "server"]
        setpriv = shutil.which("setpriv")  # util-linux: SIGTERM to adb when its parent dies
        if setpriv is not None:
            cmd = [setpriv, "--pdeathsig", "TERM", "--", *cmd]
        self.proc = subprocess.Popen(cmd, env=self.env, stdin=subprocess.DEVNULL,
                                     stdout=self._log, stderr=self._log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._log.seek(0)
                tail = self._log.read().decode(errors="replace")
                raise DeviceError(f"adb server exited with {self.proc.returncode}", None,
                                  "adb nodaemon server", tail)
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1.0).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise DeviceTimeoutError("adb server did not come up", None, "adb nodaemon server")

    def stop(self) -> None:
        """`adb kill-server`, and make sure the child is gone (never for the user's server)."""
        if not self.owned:
            return
        proc = self.proc
        try:
            self.run("kill-server", timeout=10.0)
        except DeviceError as exc:
            logger.info("adb kill-server on port %d: %s", self.port, exc)
        if proc is not None:
            try:
                proc.wait(timeout=5.0)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5.0)
            self._log.close()
            self.proc = None

    def connect(self, serial: str, timeout: float = 20.0) -> None:
        """`adb connect serial`, then wait until the device is online."""
        out = self.run("connect", serial, timeout=timeout)
        if "connected" not in out:
            raise DeviceLostError("adb connect failed", serial, "adb connect", out)
        self.run("-s", serial, "wait-for-device", timeout=timeout)

    def disconnect(self, serial: str) -> None:
        try:
            self.run("disconnect", serial, timeout=10.0)
        except DeviceError as exc:
            logger.info("adb disconnect %s: %s", serial, exc)

    def client(self) -> adbutils.AdbClient:
        return client(self.port)

    @contextmanager
    def connected(self, serials: list[str]) -> Iterator[AdbServer]:
        """`adb connect` every serial; on the way out (an exception, Ctrl-C) disconnect each one
        connected, so none stays behind "offline", and `adb kill-server` when this started the
        server (none was listening) and nothing else is attached to it, so no daemon is left."""
        started = not self.listening()
        done: list[str] = []
        try:
            for s in serials:
                done.append(s)
                self.connect(s)
            yield self
        finally:
            for s in done:
                self.disconnect(s)
            if started and self.listening() and not self._others():
                try:
                    self.run("kill-server", timeout=10.0)
                except DeviceError as exc:
                    logger.info("adb kill-server on port %d: %s", self.port, exc)

    def _others(self) -> list[str]:
        try:
            return self.serials()
        except DeviceError:
            return ["?"]  # unknown: leave the server running

    def link(self, serial: str, timeout: float = DEFAULT_TIMEOUT) -> DeviceLink:
        return DeviceLink(serial, self.client(), timeout)

    def __enter__(self) -> AdbServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
