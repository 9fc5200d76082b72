"""The adb transport protocol of virtual devices, spoken by a minimal host written here (so this
runs without Debian's adb): handshake, shell streams with OKAY flow control, shell v2 exit codes,
sync RECV, refused services, and a device that vanishes."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator

import pytest

from phoneworld.devices import wire
from phoneworld.devices.virtual import DeviceServer, VirtualDevice
from phoneworld.ir.app import AppSpec


class Host:
    """The host side of one adb connection (blocking sockets, 5 s timeouts)."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.send(wire.Message(wire.A_CNXN, wire.A_VERSION, 4096, b"host::\0"))
        self.banner = self.recv()
        self.next_id = 100

    def send(self, m: wire.Message) -> None:
        self.sock.sendall(m.pack())

    def _exact(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError
            buf += chunk
        return buf

    def recv(self) -> wire.Message:
        cmd, a0, a1, n, _, magic = wire.HEADER.unpack(self._exact(24))
        assert magic == cmd ^ 0xFFFFFFFF
        return wire.Message(cmd, a0, a1, self._exact(n) if n else b"")

    def service(self, name: str, send: bytes = b"") -> bytes:
        """Open `name`, optionally write `send`, read until the device closes."""
        local = self.next_id = self.next_id + 1
        self.send(wire.Message(wire.A_OPEN, local, 0, name.encode() + b"\0"))
        okay = self.recv()
        assert okay.command == wire.A_OKAY and okay.arg1 == local
        remote = okay.arg0
        if send:
            self.send(wire.Message(wire.A_WRTE, local, remote, send))
        out = b""
        while True:
            m = self.recv()
            if m.command == wire.A_WRTE:
                out += m.data
                self.send(wire.Message(wire.A_OKAY, local, remote))
            elif m.command == wire.A_CLSE:
                return out


@pytest.fixture
def server(example_spec: AppSpec) -> Iterator[DeviceServer]:
    with DeviceServer([VirtualDevice(example_spec)]) as s:
        yield s


def test_message_round_trip() -> None:
    m = wire.Message(wire.A_WRTE, 3, 7, b"hello")
    cmd, a0, a1, n, checksum, magic = wire.HEADER.unpack(m.pack()[:24])
    assert (cmd, a0, a1, n, checksum, magic) == (wire.A_WRTE, 3, 7, 5, sum(b"hello"),
                                                 wire.A_WRTE ^ 0xFFFFFFFF)


def test_handshake_and_shell(server: DeviceServer) -> None:
    host = Host(server.ports[0])
    assert host.banner.command == wire.A_CNXN
    assert host.banner.data.startswith(b"device::") and b"features=shell_v2" in host.banner.data
    assert host.service("shell:wm size") == b"Physical size: 1080x1920\n"
    v2 = host.service("shell,v2,raw:echo hi; false")
    assert v2 == wire.shell_v2_packet(1, b"hi\n") + wire.shell_v2_packet(3, b"\x01")


def test_big_output_is_chunked_with_flow_control(server: DeviceServer) -> None:
    host = Host(server.ports[0])  # maxdata 4096: a screenshot takes many WRTEs
    png = host.service("exec:screencap -p")
    assert png[:4] == b"\x89PNG" and len(png) > 4096


def test_sync_recv(server: DeviceServer) -> None:
    host = Host(server.ports[0])
    host.service("shell:uiautomator dump /sdcard/d.xml")
    path = b"/sdcard/d.xml"
    quit_ = b"QUIT" + struct.pack("<I", 0)
    raw = host.service("sync:", b"RECV" + struct.pack("<I", len(path)) + path + quit_)
    data, i = b"", 0
    while raw[i:i + 4] == b"DATA":
        n = struct.unpack("<I", raw[i + 4:i + 8])[0]
        data += raw[i + 8:i + 8 + n]
        i += 8 + n
    assert raw[i:i + 4] == b"DONE"
    assert data.decode() == server.devices[0].sim.xml()


@pytest.mark.parametrize("service", ["jdwp:1234", "tcp:9008", "localabstract:nothing"])
def test_unknown_service_is_refused(server: DeviceServer, service: str) -> None:
    """A service the device lacks, or a device port nobody listens on: CLSE instead of OKAY."""
    host = Host(server.ports[0])
    host.send(wire.Message(wire.A_OPEN, 7, 0, service.encode() + b"\0"))
    m = host.recv()
    assert (m.command, m.arg1) == (wire.A_CLSE, 7)
    assert host.service("shell:echo still here") == b"still here\n"


def test_vanish_drops_connections(server: DeviceServer) -> None:
    host = Host(server.ports[0])
    server.vanish(0)
    with pytest.raises((EOFError, OSError)):
        host.service("shell:echo hi")
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.ports[0]), timeout=2)
