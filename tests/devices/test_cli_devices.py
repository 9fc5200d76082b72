"""The device commands: `phoneworld device serve` (a real process, reached with Debian's adb),
`phoneworld record` against it, and `phoneworld fleet`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from phoneworld.cli import app

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
