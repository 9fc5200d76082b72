"""The `sync:` service of a virtual device (what `adb pull`, `adb push` and `adb install` use).

Requests are `ID(4) length(u32 le) payload`; version 1 of the protocol only (the device does not
advertise `stat_v2`): STAT, LIST, RECV (file → DATA chunks + DONE), SEND (`path,mode`, then DATA
chunks and DONE with the mtime → OKAY), QUIT. Errors are FAIL with a message.

Paths are the device's (`virtual.files.DeviceFiles`): a push makes the missing folders and keeps
the file's permission bits (not set-id ones), a pull or push through `..` or a symbolic link stays
inside the device's folder, and a path outside `/sdcard` and `/data` is refused.
"""

from __future__ import annotations

import logging
import stat
import struct
from typing import TYPE_CHECKING, Protocol

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
    st = dev.files.stat(path)
    if st is None:
        return struct.pack("<III", 0, 0, 0)
    return struct.pack("<III", _mode(st.st_mode), st.st_size & 0xFFFFFFFF, int(st.st_mtime))


def _mode(mode: int) -> int:
    kind = S_IFDIR if stat.S_ISDIR(mode) else S_IFREG if stat.S_ISREG(mode) else \
        stat.S_IFMT(mode)
    return kind | stat.S_IMODE(mode)


def _list(dev: VirtualDevice, path: str) -> bytes:
    out = bytearray()
    for name, st in dev.files.listdir(path):
        raw = name.encode(errors="surrogateescape")
        out += b"DENT" + struct.pack("<IIII", _mode(st.st_mode), st.st_size & 0xFFFFFFFF,
                                     int(st.st_mtime), len(raw))
        out += raw
    return bytes(out) + b"DONE" + bytes(16)


def _recv(dev: VirtualDevice, path: str) -> bytes:
    try:
        data = dev.files.read(path)
    except OSError:
        return _fail(f"remote object '{path}' does not exist")
    out = bytearray()
    for i in range(0, len(data), CHUNK):
        part = data[i:i + CHUNK]
        out += b"DATA" + _u32(len(part)) + part
    return bytes(out) + b"DONE" + _u32(0)


async def _send(dev: VirtualDevice, stream: ByteStream, spec: str) -> None:
    path, _, mode_s = spec.rpartition(",")
    if not path:
        path, mode_s = spec, ""
    mode = int(mode_s) & 0o777 if mode_s.isdigit() else 0o644
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
    try:
        dev.files.write(path, bytes(buf), mode)
    except OSError as exc:
        logger.info("virtual device %s: push to %s refused (%s)", dev.serial, path, exc)
        await stream.write(_fail(f"couldn't create file: {exc.strerror}: {path}"))
        return
    logger.debug("virtual device %s: received %s (%d bytes)", dev.serial, path, len(buf))
    await stream.write(b"OKAY" + _u32(0))
