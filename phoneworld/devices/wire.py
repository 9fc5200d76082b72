"""The adb transport protocol on the wire (the device side of `adb connect HOST:PORT`).

A message is a 24-byte little-endian header (command, arg0, arg1, payload length, payload
checksum, command ^ 0xffffffff) and the payload. A connection starts with CNXN both ways; then
the host OPENs streams by service name (`shell:...`, `sync:`), the device answers OKAY with its
own stream id, data flows as WRTE, each WRTE is acknowledged with OKAY before the next one is sent
on that stream, and either side ends a stream with CLSE. See adb's `protocol.txt`.
"""

from __future__ import annotations

import asyncio
import struct
from dataclasses import dataclass

A_SYNC = 0x434E5953
A_CNXN = 0x4E584E43
A_AUTH = 0x48545541
A_OPEN = 0x4E45504F
A_OKAY = 0x59414B4F
A_CLSE = 0x45534C43
A_WRTE = 0x45545257
A_STLS = 0x534C5453

A_VERSION = 0x01000001  # the version from which checksums are optional
MAX_PAYLOAD = 256 * 1024
MAX_HOST_PAYLOAD = 1024 * 1024  # anything larger in a header is garbage, not a message
HEADER = struct.Struct("<6I")

NAMES = {A_SYNC: "SYNC", A_CNXN: "CNXN", A_AUTH: "AUTH", A_OPEN: "OPEN", A_OKAY: "OKAY",
         A_CLSE: "CLSE", A_WRTE: "WRTE", A_STLS: "STLS"}


class WireError(Exception):
    """The peer sent something that is not an adb message."""


@dataclass(frozen=True, slots=True)
class Message:
    command: int
    arg0: int
    arg1: int
    data: bytes = b""

    @property
    def name(self) -> str:
        return NAMES.get(self.command, hex(self.command))

    def pack(self) -> bytes:
        checksum = sum(self.data) & 0xFFFFFFFF
        head = HEADER.pack(self.command, self.arg0, self.arg1, len(self.data), checksum,
                           self.command ^ 0xFFFFFFFF)
        return head + self.data


async def read_message(reader: asyncio.StreamReader) -> Message:
    """The next message (raises `asyncio.IncompleteReadError` at EOF, `WireError` on garbage)."""
    head = await reader.readexactly(HEADER.size)
    command, arg0, arg1, length, _checksum, magic = HEADER.unpack(head)
    if magic != command ^ 0xFFFFFFFF:
        raise WireError(f"bad magic in header {head.hex()}")
    if length > MAX_HOST_PAYLOAD:
        raise WireError(f"payload of {length} bytes is over the limit")
    data = await reader.readexactly(length) if length else b""
    return Message(command, arg0, arg1, data)


def banner(props: dict[str, str], features: tuple[str, ...]) -> bytes:
    """The device's CNXN payload: `device::k=v;...;features=a,b` (no NUL: adb splits on ';')."""
    items = [f"{k}={v}" for k, v in props.items()] + ["features=" + ",".join(features)]
    return ("device::" + ";".join(items)).encode()


# shell protocol v2 (feature `shell_v2`): each chunk is [id u8][length u32 le][data]
SHELL_STDIN, SHELL_STDOUT, SHELL_STDERR, SHELL_EXIT = 0, 1, 2, 3


def shell_v2_packet(kind: int, data: bytes) -> bytes:
    return struct.pack("<BI", kind, len(data)) + data
