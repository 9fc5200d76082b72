"""The `sync:` service of a virtual device (what `adb pull`, `adb push` and `adb install` use).

Requests are `ID(4) length(u32 le) payload`; version 1 of the protocol only (the device does not
advertise `stat_v2`): STAT, LIST, RECV (file → DATA chunks + DONE), SEND (`path,mode`, then DATA
chunks and DONE with the mtime → OKAY), QUIT. Errors are FAIL with a message.
"""

from __future__ import annotations

import logging
import struct
import time
from typing import TYPE_CHECKING, Protocol

from phoneworld.devices.virtual.device import DIRS, norm_path

if TYPE_CHECKING:
    from phoneworld.devices.virtual.device import VirtualDevice

logger = logging.getLogger(__name__)

S_IFREG, S_IFDIR = 0o100000, 0o040000
CHUNK = 64 * 1024
MAX_PUSH = 512 * 1024 * 1024


class ByteStream(Protocol):
    async def read_exact(self, n: int) -> bytes: ...

    async def write(self, data: bytes) -> None: ...


def _u32(n: int) -> bytes:
    return struct.pack("<I", n)


def _fail(message: str) -> bytes:
    data = message.encode()
    return b"FAIL" + _u32(len(data)) + data


async def serve_sync(dev: VirtualDevice, stream: ByteStream) -> None:
    """Answer sync requests until QUIT (or the host closes the stream)."""
    while True:
        head = await stream.read_exact(8)
        rid, length = head[:4], struct.unpack("<I", head[4:])[0]
        if rid == b"QUIT":
            return
        if length > 4096:
            await stream.write(_fail("path too long"))
            return
        path = (await stream.read_exact(length)).decode(errors="replace")
        if rid == b"STAT":
            await stream.write(b"STAT" + _stat(dev, path))
        elif rid == b"LIST":
            await stream.write(_list(dev, path))
        elif rid == b"RECV":
            await stream.write(_recv(dev, path))
        elif rid == b"SEND":
            await _send(dev, stream, path)
        else:
            await stream.write(_fail(f"unknown sync request {rid!r}"))
            return


def _stat(dev: VirtualDevice, path: str) -> bytes:
    p = norm_path(path)
    with dev.lock:
        if p in dev.files:
            return struct.pack("<III", S_IFREG | 0o644, len(dev.files[p]), int(time.time()))
    if p in DIRS:
        return struct.pack("<III", S_IFDIR | 0o755, 4096, int(time.time()))
    return struct.pack("<III", 0, 0, 0)


def _list(dev: VirtualDevice, path: str) -> bytes:
    p = norm_path(path)
    out = bytearray()
    with dev.lock:
        entries = {f.rsplit("/", 1)[1]: len(v) for f, v in dev.files.items()
                   if f.rsplit("/", 1)[0] == p}
    for name, size in sorted(entries.items()):
        raw = name.encode()
        out += b"DENT" + struct.pack("<IIII", S_IFREG | 0o644, size, int(time.time()), len(raw))
        out += raw
    return bytes(out) + b"DONE" + bytes(16)


def _recv(dev: VirtualDevice, path: str) -> bytes:
    with dev.lock:
        data = dev.files.get(norm_path(path))
    if data is None:
        return _fail(f"remote object '{path}' does not exist")
    out = bytearray()
    for i in range(0, len(data), CHUNK):
        part = data[i:i + CHUNK]
        out += b"DATA" + _u32(len(part)) + part
    return bytes(out) + b"DONE" + _u32(0)


async def _send(dev: VirtualDevice, stream: ByteStream, spec: str) -> None:
    path = spec.rsplit(",", 1)[0]
    buf = bytearray()
    while True:
        head = await stream.read_exact(8)
        rid, n = head[:4], struct.unpack("<I", head[4:])[0]
        if rid == b"DONE":
            break
        if rid != b"DATA" or n > CHUNK or len(buf) + n > MAX_PUSH:
            await stream.write(_fail(f"bad push of {path}"))
            return
        buf += await stream.read_exact(n)
    with dev.lock:
        dev.files[norm_path(path)] = bytes(buf)
    logger.debug("virtual device %s: received %s (%d bytes)", dev.serial, path, len(buf))
    await stream.write(b"OKAY" + _u32(0))
