"""Fixtures of the client compatibility suite: `phoneworld device serve` of the bundled example
app (a real subprocess, as a user runs it), Debian's adb server on a private port, and a fresh
app per test (`pm clear`, then the launcher intent). Each client library then drives the device
through its own API; what it sees is checked against a simulator of the same app replaying the
same actions (`Reference`)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from phoneworld.ir import trace as tr
from phoneworld.ir.app import AppSpec
from phoneworld.runtime.sim import Simulator

REPO = Path(__file__).resolve().parents[3]
SERVE_TIMEOUT = 60.0


@dataclass
class Phone:
    """The served device as the tests see it: its serial, the adb server's port, the app."""

    serial: str
    adb_port: int
    spec: AppSpec
    adb: Any  # phoneworld.devices.link.AdbServer

    @property
    def package(self) -> str:
        return self.spec.package

    def shell(self, line: str) -> str:
        """A shell line through Debian's adb (the harness's own check, not the client's)."""
        return self.adb.run("-s", self.serial, "shell", line)


@pytest.fixture(scope="session")
def served_phone(example_dir: Path, example_spec: AppSpec, adb_server: Any) -> Iterator[Phone]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "phoneworld.cli", "device", "serve",
                             str(example_dir), "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env, text=True)
    try:
        assert proc.stdout is not None
        serial = proc.stdout.readline().strip()
        assert serial.startswith("127.0.0.1:"), f"device serve printed {serial!r}"
        adb_server.connect(serial)
        yield Phone(serial, adb_server.port, example_spec, adb_server)
        adb_server.disconnect(serial)
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture
def phone(served_phone: Phone) -> Phone:
    """The served app, fresh: its data cleared, then launched at its start screen."""
    served_phone.shell(f"pm clear {served_phone.package}")
    served_phone.shell(f"monkey -p {served_phone.package} -c android.intent.category.LAUNCHER 1")
    return served_phone


class Reference:
    """A simulator of the app, launched like `phone`: what a client must see after each action."""

    def __init__(self, spec: AppSpec) -> None:
        self.sim = Simulator(spec)
        self.sim.step(tr.OpenApp(package=spec.package))

    def center(self, **attrs: str) -> tuple[int, int]:
        """The center of the first view with these XML attributes (`content_desc="Add note"`)."""
        from lxml import etree

        want = {k.replace("_", "-"): v for k, v in attrs.items()}
        root = etree.fromstring(self.sim.xml().encode())
        for n in root.iter("node"):
            if all(n.get(k) == v for k, v in want.items()):
                x1, y1, x2, y2 = (int(v) for v in
                                  n.get("bounds").replace("][", ",").strip("[]").split(","))
                return (x1 + x2) // 2, (y1 + y2) // 2
        raise AssertionError(f"no view with {want} on {self.sim.screen}")

    def click(self, **attrs: str) -> tuple[int, int]:
        x, y = self.center(**attrs)
        self.sim.step(tr.Click(x=x, y=y))
        return x, y

    def type(self, text: str) -> None:
        self.sim.step(tr.TypeText(text=text))

    def back(self) -> None:
        self.sim.step(tr.Back())


@pytest.fixture
def ref(phone: Phone) -> Reference:
    return Reference(phone.spec)
