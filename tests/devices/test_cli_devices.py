"""The device commands: `phoneworld device serve` (a real process, reached with Debian's adb),
`phoneworld record` against it, and `phoneworld fleet`.

`serve --connect` uses the user's adb server ($ANDROID_ADB_SERVER_PORT or 5037): these tests point
that variable at a server of their own on a free port (the session's `adb_server`, or one the
command itself starts), never at the user's 5037, and stop whatever they started."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from phoneworld.cli import app

from .conftest import ADB, NO_ADB

runner = CliRunner()


@pytest.fixture
def served_cli(example_dir: Path, adb_server: Any) -> Iterator[list[str]]:
    cmd = [sys.executable, "-m", "phoneworld.cli", "device", "serve", str(example_dir),
           "--port", "0", "--count", "2", "--size", "720x1280", "--connect",
           "--adb-port", str(adb_server.port)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **adb_server.env})
    try:
        assert proc.stdout is not None
        serials = [proc.stdout.readline().strip() for _ in range(2)]
        assert all(s.startswith("127.0.0.1:") for s in serials), proc.stderr.read()
        yield serials
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        for s in serials:
            adb_server.disconnect(s)


def test_serve_and_record(served_cli: list[str], example_dir: Path, adb_server: Any,
                          tmp_path: Path) -> None:
    assert "\tdevice" in adb_server.run("devices")
    assert adb_server.run("-s", served_cli[1], "shell", "wm", "size") == "Physical size: 720x1280"
    out = tmp_path / "traces"
    res = runner.invoke(app, ["record", "--serial", served_cli[0], "--app-dir", str(example_dir),
                              "--out", str(out), "--policy", "random", "--steps", "5",
                              "--episodes", "2", "--adb-port", str(adb_server.port)])
    assert res.exit_code == 0, res.output
    folders = [Path(line) for line in res.stdout.splitlines()]
    assert len(folders) == 2 and all((f / "episode.json").is_file() for f in folders)
    res = runner.invoke(app, ["check", str(out)])
    assert res.exit_code == 0, res.output


def _serve(app_dir: Path, env: dict[str, str], *extra: str,
           count: int = 2) -> tuple[Any, list[str]]:
    cmd = [sys.executable, "-m", "phoneworld.cli", "device", "serve", str(app_dir),
           "--port", "0", "--count", str(count), "--connect", *extra]
    # Ctrl-C reaches serve as it does from a terminal: SIGINT at its default, whatever the test
    # process inherited or set (an ignored SIGINT would be inherited, and Python then installs
    # no KeyboardInterrupt for it)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout is not None
    serials = [proc.stdout.readline().strip() for _ in range(count)]
    if not all(s.startswith("127.0.0.1:") for s in serials):
        proc.kill()
        raise AssertionError(proc.communicate(timeout=10)[1])
    return proc, serials


def _stop(proc: Any, sig: int) -> str:
    """Signal `proc` and wait for it: serve's own bound on stopping is `adb disconnect`'s 10 s a
    device (AdbServer.disconnect) and the server's stop, so the wait leaves room for both devices
    on a loaded machine (the full suite once took 20 s here)."""
    proc.send_signal(sig)
    try:
        _, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    assert proc.returncode == 0, stderr
    return str(stderr)


def _adb_processes(port: int) -> list[str]:
    """Command lines of running adb servers of `port` (the daemon is `adb -L tcp:PORT ...`)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        text = " ".join(a.decode(errors="replace") for a in argv)
        if Path(argv[0].decode(errors="replace")).name == "adb" and f"tcp:{port}" in text:
            found.append(text)
    return found


def test_serve_connects_to_the_users_server_and_leaves_no_offline_device(
        adb_server: Any, example_dir: Path) -> None:
    """No --adb-port: $ANDROID_ADB_SERVER_PORT names the server (here the test's own), `adb
    devices` lists the served devices online, and after Ctrl-C none of them is left, offline or
    not, while the server (not started by serve) keeps running."""
    env = {**os.environ, **adb_server.env}
    proc, serials = _serve(example_dir, env)
    try:
        listed = adb_server.run("devices")
        assert all(f"{s}\tdevice" in listed for s in serials), listed
    finally:
        _stop(proc, signal.SIGINT)
    assert not set(serials) & set(adb_server.serials()), adb_server.run("devices")
    assert adb_server.listening()


def test_serve_stops_the_server_it_started(example_dir: Path, tmp_path: Path) -> None:
    """With no server listening on $ANDROID_ADB_SERVER_PORT, `adb connect` starts the daemon;
    after SIGTERM serve has disconnected its devices and stopped that daemon again."""
    if ADB is None:
        pytest.skip(NO_ADB)
    from phoneworld.devices.link import AdbServer, free_port

    port = free_port()
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(port), "ADB_MDNS": "0", "ADB_USB": "0",
           "ADB_EMU": "0", "HOME": str(tmp_path)}  # the daemon's keys go to tmp_path/.android
    probe = AdbServer(port)
    try:
        proc, serials = _serve(example_dir, env, count=1)
        try:
            assert f"{serials[0]}\tdevice" in probe.run("devices")
            assert _adb_processes(port)
        finally:
            _stop(proc, signal.SIGTERM)
        assert not probe.listening()
        deadline = time.monotonic() + 10  # kill-server answers before the daemon has exited
        while _adb_processes(port) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _adb_processes(port) == []
    finally:
        if probe.listening():
            probe.run("kill-server")


def test_fleet_command(example_dir: Path) -> None:
    res = runner.invoke(app, ["fleet", str(example_dir), "--sim", "2", "--episodes", "4",
                              "--steps", "3", "--json"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert [r["episode"] for r in rows] == [0, 1, 2, 3]
    assert all(r["error"] is None and r["steps"] == 3 for r in rows)


def test_fleet_needs_devices(example_dir: Path) -> None:
    res = runner.invoke(app, ["fleet", str(example_dir)])
    assert res.exit_code == 2 and "--sim" in res.output
