"""Virtual devices served over TCP with the adb transport protocol, so that `adb connect
127.0.0.1:PORT` (Debian's `adb`, adbutils, any harness) sees a phone.

`DeviceServer` runs one listening socket per `VirtualDevice` on an asyncio loop in a background
thread (`start`/`stop`, or a `with` block). It binds 127.0.0.1 unless told otherwise. Services: `shell:` (and
`shell,v2,...:` with exit codes, `exec:`), `sync:`; anything else is refused with CLSE. A shell
line of the fast grammar (`virtual.shell`) runs in a worker thread, so a slow screenshot on one
device does not stall the others; any other line, a stdin-fed `adb shell` and an interactive one
(`shell:` with no command, `pty` in v2) run in the device's sandboxed mksh (`virtual.sandbox`),
with stdin, stdout and stderr streamed both ways. A command made to hang by a fault holds only its
own stream. `vanish(i)` closes device i's sockets, as when a phone is unplugged or an emulator dies.

Besides the shell and sync: `framebuffer:` (the raw image of the device's API level),
`tcp:PORT` and `localabstract:NAME` to device-side servers (`virtual.ports`; a socket nobody
listens on is refused with CLSE), `reverse:` (forward, list-forward, killforward, as adbd answers
them; nothing on the device dials out), `root:` and `unroot:`. A command that keeps running
(`ports.StillRunning`) holds its shell stream open until the host closes it, on the fast path
(`_follow`) as in the real shell (`sandbox.CallServer`).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import logging
import os
import socket
import struct
import termios
import threading
import time
from collections.abc import Sequence
from typing import Any

from phoneworld.devices import wire
from phoneworld.devices.virtual.device import ShellResult, VirtualDevice
from phoneworld.devices.virtual.ports import FOLLOW_S, StillRunning, socket_name
from phoneworld.devices.virtual.sandbox import WATCH_S, kill
from phoneworld.devices.virtual.screen_cmds import framebuffer
from phoneworld.devices.virtual.sync import serve_sync
from phoneworld.errors import DeviceError, ToolchainError

logger = logging.getLogger(__name__)

FEATURES = ("shell_v2",)
START_TIMEOUT = 10.0
RESTART_DELAY = 0.2  # seconds from `adb root`'s answer to the connection drop of adbd's restart
SHELL_CLOSE_STDIN, SHELL_WINDOW_SIZE = 4, 5  # v2 packets from the host


class _Stream:
    """One adb stream: bytes in from WRTE, bytes out as WRTE with OKAY flow control."""

    def __init__(self, conn: _Connection, local: int, remote: int) -> None:
        self.conn, self.local, self.remote = conn, local, remote
        self.buf = bytearray()
        self.more = asyncio.Event()
        self.acked = asyncio.Event()
        self.closed = False

    def feed(self, data: bytes) -> None:
        self.buf += data
        self.more.set()

    def shut(self) -> None:
        self.closed = True
        self.more.set()
        self.acked.set()

    async def read_any(self) -> bytes:
        """What has come in (at least one byte); EOFError once closed."""
        while not self.buf:
            if self.closed:
                raise EOFError("stream closed")
            self.more.clear()
            await self.more.wait()
        out = bytes(self.buf)
        self.buf.clear()
        return out

    async def read_exact(self, n: int) -> bytes:
        while len(self.buf) < n:
            if self.closed:
                raise EOFError("stream closed")
            self.more.clear()
            await self.more.wait()
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    async def read_some(self) -> bytes:
        """What has arrived (waiting for something); b"" once the host closed the stream."""
        while not self.buf:
            if self.closed:
                return b""
            self.more.clear()
            await self.more.wait()
        out = bytes(self.buf)
        self.buf.clear()
        return out

    async def write(self, data: bytes) -> None:
        step = self.conn.max_payload
        for i in range(0, len(data), step):
            if self.closed:
                raise EOFError("stream closed")
            self.acked.clear()
            await self.conn.send(wire.Message(wire.A_WRTE, self.local, self.remote, data[i:i + step]))
            await self.acked.wait()

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            await self.conn.send(wire.Message(wire.A_CLSE, self.local, self.remote))


class _Connection:
    """One adb host connected to one device."""

    def __init__(self, dev: VirtualDevice, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.dev, self.reader, self.writer = dev, reader, writer
        self.streams: dict[int, _Stream] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.next_id = 1
        self.max_payload = 4096
        self.lock = asyncio.Lock()

    async def send(self, msg: wire.Message) -> None:
        async with self.lock:
            self.writer.write(msg.pack())
            await self.writer.drain()

    async def run(self) -> None:
        try:
            await self._handshake()
            while True:
                await self._dispatch(await wire.read_message(self.reader))
        except (asyncio.IncompleteReadError, ConnectionError, wire.WireError) as exc:
            logger.debug("virtual device %s: connection ends (%s)", self.dev.serial, exc)
        finally:
            for s in self.streams.values():
                s.shut()
            for t in list(self.tasks):
                t.cancel()
            self.writer.close()

    async def _handshake(self) -> None:
        msg = await wire.read_message(self.reader)
        while msg.command != wire.A_CNXN:
            msg = await wire.read_message(self.reader)
        self.max_payload = max(4096, min(msg.arg1, wire.MAX_PAYLOAD))
        banner = wire.banner({k: self.dev.props[k] for k in (
            "ro.product.name", "ro.product.model", "ro.product.device")}, FEATURES)
        await self.send(wire.Message(wire.A_CNXN, wire.A_VERSION, wire.MAX_PAYLOAD, banner))

    async def _dispatch(self, msg: wire.Message) -> None:
        if msg.command == wire.A_OPEN:
            service = msg.data.rstrip(b"\0").decode(errors="replace")
            if not self._accepts(service):
                logger.info("virtual device %s: service %r is refused", self.dev.serial, service)
                await self.send(wire.Message(wire.A_CLSE, 0, msg.arg0))
                return
            local, self.next_id = self.next_id, self.next_id + 1
            stream = _Stream(self, local, msg.arg0)
            self.streams[local] = stream
            await self.send(wire.Message(wire.A_OKAY, local, msg.arg0))
            task = asyncio.create_task(self._service(stream, service))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
            return
        known = self.streams.get(msg.arg1)
        if known is None:
            return
        if msg.command == wire.A_OKAY:
            known.acked.set()
        elif msg.command == wire.A_WRTE:
            known.feed(msg.data)
            await self.send(wire.Message(wire.A_OKAY, known.local, known.remote))
        elif msg.command == wire.A_CLSE:
            known.shut()
            self.streams.pop(msg.arg1, None)

    def _accepts(self, service: str) -> bool:
        if service.startswith(("tcp:", "localabstract:", "localreserved:", "localfilesystem:")):
            return socket_name(service) in self.dev.sockets
        return service.startswith(("shell", "exec:", "sync:", "framebuffer:", "reverse:",
                                   "root:", "unroot:"))

    async def _service(self, stream: _Stream, service: str) -> None:
        try:
            if service.startswith(("shell", "exec:")):
                await self._shell(stream, service)
            elif service == "sync:":
                await serve_sync(self.dev, stream)
            elif service.startswith("framebuffer:"):
                loop = asyncio.get_running_loop()
                await stream.write(await loop.run_in_executor(None, framebuffer, self.dev))
            elif service.startswith("reverse:"):
                await stream.write(self._reverse(service.removeprefix("reverse:")))
            elif service in ("root:", "unroot:"):
                answer = self._root(service == "root:")
                await stream.write(answer)
                if answer.startswith(b"restarting"):  # adbd restarts: the host reconnects
                    asyncio.get_running_loop().call_later(RESTART_DELAY,
                                                          self.writer.transport.abort)
            else:
                handler = self.dev.sockets.get(socket_name(service))
                if handler is not None:
                    await handler(stream)
        except (EOFError, ConnectionError):
            pass
        finally:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await stream.close()
            self.streams.pop(stream.local, None)

    def _reverse(self, request: str) -> bytes:
        """adbd's answers to `adb reverse` (the adb server reads the OKAY/FAIL itself)."""
        rev = self.dev.reverses
        if request == "list-forward":
            body = "".join(f"{self.dev.serial} {r} {h}\n" for r, h in rev.items()).encode()
            return f"{len(body):04x}".encode() + body  # adbd sends no OKAY before the list
        if request == "killforward-all":
            rev.clear()
            return b"OKAY"
        if request.startswith("killforward:"):
            if rev.pop(request.removeprefix("killforward:"), None) is None:
                return _fail("listener '" + request.removeprefix("killforward:") + "' not found")
            return b"OKAY"
        if request.startswith("forward:"):
            spec = request.removeprefix("forward:")
            norebind = spec.startswith("norebind:")
            remote, _, local = spec.removeprefix("norebind:").partition(";")
            if not remote or not local:
                return _fail(f"malformed reverse request: {request}")
            if norebind and remote in rev:
                return _fail("cannot rebind existing socket")
            rev[remote] = local
            return b"OKAY"
        return _fail(f"unknown reverse request: {request}")

    def _root(self, root: bool) -> bytes:
        """`adb root`/`adb unroot`: adbd restarts as root (or not): the connection drops and the
        host's adb server connects again, as with a phone."""
        if root == self.dev.adbd_root:
            return b"adbd is already running as root\n" if root else b"adbd not running as root\n"
        self.dev.set_adbd_root(root)
        return b"restarting adbd as root\n" if root else b"restarting adbd as non root\n"

    async def _shell(self, stream: _Stream, service: str) -> None:
        head, _, command = service.partition(":")
        opts = head.split(",")[1:]
        v2 = "v2" in opts
        interactive = not command.strip()
        pty = "pty" in opts or (interactive and "raw" not in opts and head == "shell")
        if not interactive:
            loop = asyncio.get_running_loop()
            try:
                result = await loop.run_in_executor(None, self.dev.fast_shell, command)
            except StillRunning as running:
                await _follow(stream, running, v2)
                return
            if result is not None:
                await _answer(stream, result, v2)
                return
        await _Session(self.dev, stream, None if interactive else command, v2, pty,
                       stderr=not head.startswith("exec")).run()


async def _follow(stream: _Stream, running: StillRunning, v2: bool) -> None:
    """A process of the fast path that lives until the host closes its stream (what the host
    sends it is dropped): its output, then what `more` prints every FOLLOW_S; then `stop`."""
    loop = asyncio.get_running_loop()
    try:
        if running.output:
            out = running.output
            await stream.write(wire.shell_v2_packet(wire.SHELL_STDOUT, out) if v2 else out)
        while not stream.closed:
            stream.more.clear()
            stream.buf.clear()
            if running.more is None:
                await stream.more.wait()
                continue
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stream.more.wait(), FOLLOW_S)
            out = await loop.run_in_executor(None, running.more)
            if out and not stream.closed:
                await stream.write(wire.shell_v2_packet(wire.SHELL_STDOUT, out) if v2 else out)
    finally:
        if running.stop is not None:
            running.stop()


async def _answer(stream: _Stream, result: ShellResult, v2: bool) -> None:
    if result.delay:
        await asyncio.sleep(result.delay)
    if result.hang:
        while not stream.closed:
            stream.more.clear()
            await stream.more.wait()
        return
    if not v2:
        await stream.write(result.output)
        return
    body = wire.shell_v2_packet(wire.SHELL_STDOUT, result.output) if result.output else b""
    await stream.write(body + wire.shell_v2_packet(wire.SHELL_EXIT, bytes([result.code & 255])))


class _Session:
    """One shell session in the device's sandbox, its stdio carried by an adb stream."""

    def __init__(self, dev: VirtualDevice, stream: _Stream, command: str | None, v2: bool,
                 pty: bool, stderr: bool = True) -> None:
        self.dev, self.stream, self.command = dev, stream, command
        self.v2, self.pty, self.stderr = v2, pty, stderr
        self._stdin: socket.socket | None = None
        self._master = -1

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            box = await loop.run_in_executor(None, self.dev.sandbox)
        except ToolchainError as exc:
            await self._out(wire.SHELL_STDERR, f"/system/bin/sh: {exc}\n".encode())
            await self._exit(127)
            return
        if self.dev.faults.delay:
            await asyncio.sleep(self.dev.faults.delay)
        try:
            proc, readers = await self._spawn(box)
        except OSError as exc:
            logger.error("virtual device %s: the shell did not start: %s", self.dev.serial, exc)
            await self._out(wire.SHELL_STDERR, f"/system/bin/sh: cannot start: {exc}\n".encode())
            await self._exit(127)
            return
        feeder = asyncio.create_task(self._feed())
        waiter = asyncio.create_task(proc.wait())
        started = time.monotonic()
        try:
            while True:
                done, _ = await asyncio.wait({waiter, feeder}, timeout=WATCH_S,
                                             return_when=asyncio.FIRST_COMPLETED)
                why = None if done else box.out_of_bounds(started)
                if done or why is not None:
                    break
            if waiter not in done:  # out of bounds, or the host went away: the sandbox dies
                kill(proc.pid)
                await waiter
                if why is not None and not self.stream.closed:
                    await self._out(wire.SHELL_STDERR, f"/system/bin/sh: killed: {why}\n".encode())
            await asyncio.gather(*readers, return_exceptions=True)
            if not self.stream.closed:
                await self._exit(proc.returncode if waiter in done else 137)
        finally:
            if proc.returncode is None:  # (once reaped, its pid is no longer ours to kill)
                kill(proc.pid)
            feeder.cancel()
            for r in readers:
                r.cancel()
            self._close_fds()
            await loop.run_in_executor(None, self._flush)

    def _flush(self) -> None:
        with self.dev.lock:
            self.dev.flush_input()

    async def _spawn(self, box: Any) -> tuple[asyncio.subprocess.Process, list[asyncio.Task[None]]]:
        if self.pty:
            self._master, slave = os.openpty()
            os.set_blocking(self._master, False)
            try:
                proc = await box.spawn(self.command, slave, slave, slave)
            finally:
                os.close(slave)
            return proc, [asyncio.create_task(self._pump_pty())]
        self._stdin, child = socket.socketpair()
        self._stdin.setblocking(False)
        pipe = asyncio.subprocess.PIPE
        err = pipe if self.v2 else asyncio.subprocess.STDOUT if self.stderr else \
            asyncio.subprocess.DEVNULL  # `exec:` (exec-out) keeps stdout clean
        try:
            proc = await box.spawn(self.command, child.fileno(), pipe, err)
        finally:
            child.close()
        readers = [asyncio.create_task(self._pump(proc.stdout, wire.SHELL_STDOUT))]
        if self.v2 and proc.stderr is not None:
            readers.append(asyncio.create_task(self._pump(proc.stderr, wire.SHELL_STDERR)))
        return proc, readers

    async def _pump(self, reader: asyncio.StreamReader | None, kind: int) -> None:
        if reader is None:
            return
        while True:
            data = await reader.read(self.stream.conn.max_payload - 5)
            if not data:
                return
            await self._out(kind, data)

    async def _pump_pty(self) -> None:
        loop = asyncio.get_running_loop()
        ready = asyncio.Event()
        loop.add_reader(self._master, ready.set)
        try:
            while True:
                await ready.wait()
                ready.clear()
                try:
                    data = os.read(self._master, self.stream.conn.max_payload - 5)
                except BlockingIOError:
                    continue
                except OSError:  # EIO: every process holding the terminal is gone
                    return
                if not data:
                    return
                await self._out(wire.SHELL_STDOUT, data)
        finally:
            loop.remove_reader(self._master)

    async def _feed(self) -> None:
        """The host's input to the shell's stdin (v2: packets), until the stream closes."""
        with contextlib.suppress(EOFError):
            while True:
                if not self.v2:
                    await self._write_in(await self.stream.read_any())
                    continue
                head = await self.stream.read_exact(5)
                kind, n = head[0], struct.unpack("<I", head[1:])[0]
                data = await self.stream.read_exact(n)
                if kind == wire.SHELL_STDIN:
                    await self._write_in(data)
                elif kind == SHELL_CLOSE_STDIN:
                    self._close_stdin()
                elif kind == SHELL_WINDOW_SIZE and self.pty:
                    self._resize(data)

    async def _write_in(self, data: bytes) -> None:
        if self.pty and self._master >= 0:
            with contextlib.suppress(OSError):
                os.write(self._master, data)
        elif self._stdin is not None:
            with contextlib.suppress(OSError):
                await asyncio.get_running_loop().sock_sendall(self._stdin, data)

    def _close_stdin(self) -> None:
        if self.pty and self._master >= 0:
            with contextlib.suppress(OSError):
                os.write(self._master, b"\x04")
        elif self._stdin is not None:
            with contextlib.suppress(OSError):
                self._stdin.shutdown(socket.SHUT_WR)

    def _resize(self, data: bytes) -> None:
        try:  # "ROWSxCOLS,XPIXxYPIX"
            cells, _, pixels = data.rstrip(b"\0").decode().partition(",")
            rows, cols = (int(v) for v in cells.split("x"))
            xp, yp = (int(v) for v in pixels.split("x")) if pixels else (0, 0)
            fcntl.ioctl(self._master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, xp, yp))
        except (ValueError, OSError):
            pass

    def _close_fds(self) -> None:
        if self._master >= 0:
            os.close(self._master)
            self._master = -1
        if self._stdin is not None:
            self._stdin.close()
            self._stdin = None

    async def _out(self, kind: int, data: bytes) -> None:
        if self.v2:
            await self.stream.write(wire.shell_v2_packet(kind, data))
        else:
            await self.stream.write(data)

    async def _exit(self, code: int) -> None:
        if self.v2:
            await self.stream.write(wire.shell_v2_packet(wire.SHELL_EXIT, bytes([code & 255])))


def _fail(message: str) -> bytes:
    data = message.encode()
    return b"FAIL" + f"{len(data):04x}".encode() + data


class DeviceServer:
    """Serves `devices` on `host`, device i on `ports[i]` (0: any free port)."""

    def __init__(self, devices: Sequence[VirtualDevice], host: str = "127.0.0.1",
                 ports: Sequence[int] | None = None) -> None:
        self.devices = list(devices)
        self.host = host
        self.ports = list(ports) if ports is not None else [0] * len(self.devices)
        if len(self.ports) != len(self.devices):
            raise ValueError("give one port per device")
        self._servers: list[asyncio.base_events.Server | None] = [None] * len(self.devices)
        self._conns: list[set[_Connection]] = [set() for _ in self.devices]
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def serials(self) -> list[str]:
        return [f"{self.host}:{p}" for p in self.ports]

    async def _open(self) -> None:
        for i, dev in enumerate(self.devices):
            server = await asyncio.start_server(
                functools.partial(self._accept, i), self.host, self.ports[i])
            self.ports[i] = server.sockets[0].getsockname()[1]
            dev.serial = f"{self.host}:{self.ports[i]}"
            self._servers[i] = server
            logger.info("virtual device %s serves %s", dev.serial, dev.package)

    async def _accept(self, i: int, reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> None:
        conn = _Connection(self.devices[i], reader, writer)
        self._conns[i].add(conn)
        try:
            await conn.run()
        finally:
            self._conns[i].discard(conn)

    # ------------------------------------------------------------------ background thread

    def start(self) -> DeviceServer:
        self._thread = threading.Thread(target=self._thread_main, name="phoneworld-vdevices",
                                        daemon=True)
        self._thread.start()
        if not self._ready.wait(START_TIMEOUT) or self._error is not None:
            self.stop()
            raise DeviceError(f"virtual devices did not start on {self.host}: {self._error}")
        return self

    def _thread_main(self) -> None:
        loop = self._loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._open())
        except OSError as exc:
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        loop.run_forever()
        loop.run_until_complete(self._close_all())
        loop.close()

    async def _close_all(self) -> None:
        for i in range(len(self.devices)):
            await self._vanish(i)
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            loop.call_soon_threadsafe(loop.stop)
            thread.join(START_TIMEOUT)
        self._thread = None

    def vanish(self, i: int, timeout: float = 5.0) -> None:
        """Device i disappears: its port stops listening and its connections drop."""
        if self._loop is None:
            raise RuntimeError("the server is not running")
        asyncio.run_coroutine_threadsafe(self._vanish(i), self._loop).result(timeout)

    async def _vanish(self, i: int) -> None:
        server, self._servers[i] = self._servers[i], None
        if server is not None:
            server.close()
        for conn in list(self._conns[i]):
            conn.writer.transport.abort()
        if server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 2.0)

    def __enter__(self) -> DeviceServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
