"""What a hostile adb client gets from a virtual device: the device's own files and nothing of the
host (no host file read or written outside the device's folder, no host program run, no network),
and shells bounded in time and processes. Each test names the attack it tries."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from phoneworld.devices import protocol
from phoneworld.devices.virtual import DeviceServer, VirtualDevice, sandbox
from phoneworld.devices.virtual.sync import serve_sync
from phoneworld.ir.app import AppSpec

from .conftest import serve

NO_SANDBOX = sandbox.available()
pytestmark = pytest.mark.skipif(NO_SANDBOX is not None, reason=str(NO_SANDBOX))
SECRET = "phoneworld-host-secret"


@pytest.fixture
def host_dir() -> Iterator[Path]:
    """A host folder next to the device's, with a secret file a client must not reach (in /tmp:
    the device's shell user must be able to traverse the folders above its own)."""
    path = Path(tempfile.mkdtemp(prefix="pw-host-"))
    path.chmod(0o711)
    (path / "secret.txt").write_text(SECRET)
    (path / "secret.txt").chmod(0o644)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def dev(example_spec: AppSpec, host_dir: Path) -> Iterator[VirtualDevice]:
    d = VirtualDevice(example_spec, root=host_dir / "device",
                      limits=sandbox.Limits(timeout=4.0, cpu=3, nproc=48))
    yield d
    d.close()


def sh(dev: VirtualDevice, line: str) -> tuple[str, int]:
    r = dev.shell(line)
    return r.output.decode(errors="replace"), r.code


def _host_files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if "device" not in p.relative_to(root).parts[:1]}


def _running(uid: int, wait: float = 3.0) -> list[str]:
    """Live (not zombie) processes of host `uid`, after waiting up to `wait` s for them to go."""
    end = time.monotonic() + wait
    while True:
        out = subprocess.run(["ps", "-o", "pid=,stat=,comm=", "-u", str(uid)],
                             capture_output=True, text=True).stdout
        live = [ln for ln in out.splitlines() if ln.split()[1:2] != ["Z"]]
        if not live or time.monotonic() > end:
            return live
        time.sleep(0.2)


def test_the_host_filesystem_is_not_there(dev: VirtualDevice, host_dir: Path) -> None:
    out, code = sh(dev, "cat /etc/passwd")
    assert code == 1 and "No such file" in out
    for path in ("/usr", "/home", "/root", "/tmp", "/work", str(host_dir), "/var", "/bin"):
        assert sh(dev, f"ls {path}")[1] != 0, path
    out, _ = sh(dev, f"cat {host_dir}/secret.txt; find / -name secret.txt 2>/dev/null")
    assert SECRET not in out
    top = sh(dev, "ls /")[0].split()
    assert set(top) <= {"data", "dev", "etc", "lib", "lib64", "mnt", "proc", "sdcard",
                        "storage", "system"}, top
    env = sh(dev, "env")[0]
    assert "pw-" not in env and "/usr" not in env and "/work" not in env  # no host path


def test_no_host_program_runs(dev: VirtualDevice) -> None:
    for prog in ("/usr/bin/python3", "python3", "/bin/bash", "bash", "apt-get", "adb", "nc",
                 "bwrap", "unshare", "nsenter", "mount", "setsid", "chroot"):
        out, code = sh(dev, prog + " -c true")
        assert code == 127, (prog, out)
    assert sh(dev, "echo x > /system/bin/am")[1] != 0  # the system is read-only
    assert sh(dev, "touch /newfile")[1] != 0


def test_no_network(dev: VirtualDevice) -> None:
    ifaces = [ln.split(":")[0].strip() for ln in sh(dev, "cat /proc/net/dev")[0].splitlines()[2:]]
    assert ifaces == ["lo"]


def test_redirections_and_links_stay_in_the_device(dev: VirtualDevice, host_dir: Path) -> None:
    before = _host_files(host_dir)
    sh(dev, "echo pwned > /sdcard/../../escape1.txt; echo pwned > /data/../../../escape2.txt")
    sh(dev, "ln -s ../.. /sdcard/up; echo pwned > /sdcard/up/escape3.txt")
    sh(dev, "ln -s / /sdcard/root; echo pwned > /sdcard/root/escape4.txt")
    assert _host_files(host_dir) == before
    assert (host_dir / "secret.txt").read_text() == SECRET
    assert SECRET not in sh(dev, "cat /sdcard/up/secret.txt /sdcard/up/up/secret.txt")[0]


def test_the_device_process_follows_links_inside_the_device_only(
        dev: VirtualDevice, host_dir: Path) -> None:
    """What the host side does with device paths (pull, push, `uiautomator dump FILE`) resolves
    links made by the shell as links of the device."""
    sh(dev, f"ln -s {host_dir}/secret.txt /sdcard/abs; ln -s ../../../secret.txt /sdcard/rel; "
            "ln -s /etc/passwd /sdcard/pw; ln -s ../.. /sdcard/up; "
            "ln -s /data/local/tmp /sdcard/tmp; mkfifo /sdcard/fifo")
    for path in ("/sdcard/abs", "/sdcard/rel", "/sdcard/pw", "/sdcard/up/secret.txt",
                 "/sdcard/../secret.txt", "/sdcard/fifo", "/etc/passwd"):
        assert dev.files.get(path) is None, path
    before = _host_files(host_dir)
    for path in ("/sdcard/up/escape.txt", "/sdcard/abs", "/sdcard/../../escape.txt", "/tmp/x"):
        with pytest.raises(OSError):
            dev.files.write(path, b"pwned")
    out, code = sh(dev, "uiautomator dump /sdcard/up/escape.xml")
    assert code != 0
    assert _host_files(host_dir) == before
    assert (host_dir / "secret.txt").read_text() == SECRET
    dev.files.write("/sdcard/tmp/inside.txt", b"ok")  # a link inside the device is followed
    assert sh(dev, "cat /data/local/tmp/inside.txt") == ("ok", 0)


class _Pipe:
    """A sync: stream fed from bytes, for the host's side of push and pull."""

    def __init__(self, data: bytes) -> None:
        self.data, self.out = bytearray(data), bytearray()

    async def read_exact(self, n: int) -> bytes:
        if len(self.data) < n:
            raise EOFError
        chunk = bytes(self.data[:n])
        del self.data[:n]
        return chunk

    async def write(self, data: bytes) -> None:
        self.out += data


def _sync(dev: VirtualDevice, *requests: bytes) -> bytes:
    pipe = _Pipe(b"".join(requests) + b"QUIT" + bytes(4))
    asyncio.run(serve_sync(dev, pipe))
    return bytes(pipe.out)


def _req(rid: bytes, payload: bytes) -> bytes:
    return rid + len(payload).to_bytes(4, "little") + payload


def test_push_and_pull_cannot_escape(dev: VirtualDevice, host_dir: Path) -> None:
    sh(dev, "ln -s ../.. /sdcard/up; ln -s / /sdcard/root")
    before = _host_files(host_dir)
    data = _req(b"DATA", b"pwned") + b"DONE" + bytes(4)
    for target in ("/sdcard/../../pushed.txt", "/sdcard/up/pushed.txt", f"{host_dir}/pushed.txt",
                   "/sdcard/root/pushed.txt", "../../pushed.txt"):
        out = _sync(dev, _req(b"SEND", f"{target},33188".encode()) + data)
        assert out.startswith(b"FAIL"), (target, out)
    assert _host_files(host_dir) == before
    for source in ("/sdcard/up/secret.txt", f"{host_dir}/secret.txt", "/etc/passwd",
                   "/sdcard/../../secret.txt"):
        out = _sync(dev, _req(b"RECV", source.encode()))
        assert out.startswith(b"FAIL") and SECRET.encode() not in out, source
    out = _sync(dev, _req(b"SEND", b"/sdcard/ok/deep/file.txt,33261") + data)
    assert out == b"OKAY" + bytes(4)
    assert dev.files["/sdcard/ok/deep/file.txt"] == b"pwned"


def test_endless_loops_and_fork_bombs_are_bounded(dev: VirtualDevice) -> None:
    t0 = time.monotonic()
    assert sh(dev, "while :; do :; done")[1] != 0
    t1 = time.monotonic()
    assert t1 - t0 < 15
    out, code = sh(dev, "b() { b | b & }; b; sleep 100")
    assert code != 0
    assert time.monotonic() - t1 < 15
    assert sh(dev, "echo alive") == ("alive\n", 0)  # the device is fine after
    if dev.host_uid is not None:  # as root: nothing of the device's shell user is left running
        assert _running(dev.host_uid) == []


def test_a_shell_filling_the_device_storage_is_killed(example_spec: AppSpec) -> None:
    st = os.statvfs("/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir())
    free = st.f_bavail * st.f_frsize
    dev = VirtualDevice(example_spec, limits=sandbox.Limits(min_free=free + 2**40))
    try:
        t0 = time.monotonic()
        out, code = sh(dev, "sleep 30")
        assert code == 137 and "storage is full" in out
        assert time.monotonic() - t0 < 10
    finally:
        dev.close()


def test_background_processes_die_with_the_session(dev: VirtualDevice) -> None:
    assert sh(dev, "sleep 300 & echo started") == ("started\n", 0)
    if dev.host_uid is not None:
        assert _running(dev.host_uid) == []


def test_a_hung_session_over_adb_is_killed_at_its_timeout(example_spec: AppSpec,
                                                          adb_server: Any) -> None:
    with serve(example_spec, adb_server, 1) as served:
        served.devices[0].limits = sandbox.Limits(timeout=2.0)
        t0 = time.monotonic()
        out, code = adb_server.link(served.serials[0], timeout=30).shell_rc("sleep 100; echo no")
        assert time.monotonic() - t0 < 15
        assert "no" not in out and code == 137


def test_the_server_listens_on_loopback_only(example_spec: AppSpec) -> None:
    with DeviceServer([VirtualDevice(example_spec)]) as server:
        assert server.serials[0].startswith("127.0.0.1:")
        server_socket = server._servers[0]
        assert server_socket is not None
        assert {s.getsockname()[0] for s in server_socket.sockets} == {"127.0.0.1"}


def test_shell_files_belong_to_the_device_user(dev: VirtualDevice) -> None:
    sh(dev, f"uiautomator dump {protocol.DUMP_PATH}; echo x > /sdcard/mine.txt")
    if dev.host_uid is None:
        pytest.skip("not root: the shell runs as you")
    for p in ("sdcard/mine.txt", protocol.DUMP_PATH.lstrip("/")):
        assert os.stat(dev.root / p).st_uid == dev.host_uid, p
