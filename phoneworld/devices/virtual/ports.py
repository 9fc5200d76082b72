"""Device-side servers of a virtual device: what `adb forward tcp:N tcp:M`, `adb forward ...
localabstract:NAME` and adbutils' `create_connection` reach on the phone, and the long-running
processes that start them.

A helper a harness brings (uiautomator2's `app_process` server, an agent) is answered by the
device itself: the command that starts it registers a `Handler` under its socket name (`tcp:9008`,
`localabstract:...`) and raises `StillRunning`, so its `adb shell` stream stays open, as a live
process keeps it; when the host closes that stream (u2's `stop_uiautomator`), the process "dies"
and its socket goes away. A socket nobody listens on refuses the connection (the device answers
the OPEN with CLSE, as adbd does when `connect()` fails).

`http_serve` is the HTTP/1.1 request loop such servers speak over one adb stream.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from phoneworld.devices.virtual.device import VirtualDevice

logger = logging.getLogger(__name__)

MAX_REQUEST = 8 * 1024 * 1024
FOLLOW_S = 0.1


class Stream(Protocol):
    """One adb stream as a device-side server sees it (`server._Stream`)."""

    closed: bool

    async def read_some(self) -> bytes: ...

    async def write(self, data: bytes) -> None: ...


Handler = Callable[[Stream], Awaitable[None]]


class StillRunning(Exception):
    """Raised by a command that keeps running after it printed `output` (a server process, `logcat`
    without `-d`): its `adb shell` stream stays open until the host closes it, and then `stop`
    (if any) runs, as when the process is killed. `more`, if given, is asked every `FOLLOW_S`
    for what the process prints next (b"" for nothing yet)."""

    def __init__(self, output: bytes = b"", stop: Callable[[], None] | None = None,
                 more: Callable[[], bytes] | None = None) -> None:
        super().__init__("the command keeps running")
        self.output = output
        self.stop = stop
        self.more = more


def socket_name(spec: str) -> str:
    """The canonical name of a device socket in an adb service (`tcp:9008`, `tcp:localhost:9008`
    and `tcp:127.0.0.1:9008` are one socket)."""
    kind, _, rest = spec.partition(":")
    if kind == "tcp":
        return "tcp:" + rest.rsplit(":", 1)[-1]
    return f"{kind}:{rest}"


def listen(dev: VirtualDevice, name: str, handler: Handler) -> Callable[[], None]:
    """Serve `handler` on device socket `name`; returns what closes it again."""
    key = socket_name(name)
    dev.sockets[key] = handler
    logger.info("virtual device %s: a device-side server listens on %s", dev.serial, key)

    def close() -> None:
        if dev.sockets.get(key) is handler:
            del dev.sockets[key]
            logger.info("virtual device %s: %s is closed", dev.serial, key)

    return close


# ----------------------------------------------------------------------------- HTTP over a stream


class Request:
    def __init__(self, method: str, path: str, headers: dict[str, str], body: bytes) -> None:
        self.method, self.path, self.headers, self.body = method, path, headers, body

    def json(self) -> Any:
        return json.loads(self.body or b"null")


Route = Callable[[Request], Awaitable[tuple[int, str, bytes]]]  # status, content type, body


async def _read_request(stream: Stream, buf: bytearray) -> Request | None:
    while b"\r\n\r\n" not in buf:
        if len(buf) > MAX_REQUEST:
            return None
        chunk = await stream.read_some()
        if not chunk:
            return None
        buf += chunk
    head, _, rest = bytes(buf).partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) < 2:
        return None
    headers = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        headers[k.strip().lower()] = v.strip()
    length = int(headers.get("content-length", "0") or 0)
    if length > MAX_REQUEST:
        return None
    body = bytearray(rest)
    while len(body) < length:
        chunk = await stream.read_some()
        if not chunk:
            return None
        body += chunk
    buf[:] = body[length:]
    return Request(parts[0], parts[1], headers, bytes(body[:length]))


_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
            500: "Internal Server Error"}


async def http_serve(stream: Stream, route: Route) -> None:
    """Answer HTTP/1.1 requests on `stream` until the client closes it (keep-alive honoured)."""
    buf = bytearray()
    while not stream.closed:
        req = await _read_request(stream, buf)
        if req is None:
            return
        status, ctype, body = await route(req)
        close = req.headers.get("connection", "").lower() == "close"
        head = (f"HTTP/1.1 {status} {_REASONS.get(status, 'OK')}\r\nContent-Type: {ctype}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: {'close' if close else 'keep-alive'}"
                "\r\n\r\n")
        await stream.write(head.encode() + body)
        if close:
            return
