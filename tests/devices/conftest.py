"""Fixtures of the device tests: Debian's adb server on a private port, virtual devices serving
the example app, and helpers to serve any app spec. Every server a fixture starts is stopped by it
(`adb kill-server` included); tests that need `adb` skip when it is not installed."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from phoneworld.ir.app import AppSpec
from phoneworld.runtime.appdir import load_app

ADB = shutil.which("adb")
NO_ADB = "Debian's adb is not installed (`make deps` installs it: apt-get install adb)"


@pytest.fixture(scope="session")
def example_spec(example_dir: Path) -> AppSpec:
    return load_app(example_dir)


@pytest.fixture(scope="session")
def adb_server() -> Iterator[Any]:
    if ADB is None:
        pytest.skip(NO_ADB)
    from phoneworld.devices.link import AdbServer

    server = AdbServer().start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class Served:
    """Virtual devices of one app, connected to the test's adb server."""

    server: Any  # DeviceServer
    adb: Any  # AdbServer
    spec: AppSpec

    @property
    def serials(self) -> list[str]:
        return self.server.serials

    @property
    def devices(self) -> list[Any]:
        return self.server.devices

    def backend(self, i: int = 0, **kw: Any) -> Any:
        from phoneworld.devices.adb_backend import AdbBackend

        kw.setdefault("timeout", 10.0)
        kw.setdefault("wait_seconds", 0.0)
        return AdbBackend(self.serials[i], self.spec, adb=self.adb.client(), **kw)


@contextmanager
def serve(spec: AppSpec, adb: Any, count: int = 1,
          size: tuple[int, int] | None = None) -> Iterator[Served]:
    from phoneworld.devices.virtual import DeviceServer, VirtualDevice

    server = DeviceServer([VirtualDevice(spec, size=size) for _ in range(count)]).start()
    try:
        for s in server.serials:
            adb.connect(s)
        yield Served(server, adb, spec)
    finally:
        for s in server.serials:
            adb.disconnect(s)
        server.stop()


@pytest.fixture(scope="session")
def farm(example_spec: AppSpec, adb_server: Any) -> Iterator[Served]:
    """Four virtual devices serving the example app."""
    with serve(example_spec, adb_server, 4) as served:
        yield served


@pytest.fixture
def lone(example_spec: AppSpec, adb_server: Any) -> Iterator[Served]:
    """One fresh virtual device of the example app (tests may break it)."""
    with serve(example_spec, adb_server, 1) as served:
        yield served


WORDS = ("milk", "Call Bob", "it's 10 o'clock", 'say "hi"', "a&b;c|d", "", "x" * 30)


def any_action(elements: Any, rng: random.Random, package: str) -> dict[str, Any]:
    """A random env action of any kind the action space has (for backend agreement tests)."""
    targets = [e for e in elements if e.enabled and (e.clickable or e.checkable or e.editable)]
    kind = rng.choice(["click"] * 6 + ["type"] * 2 + ["long_press", "double_click", "scroll",
                       "scroll", "drag", "back", "enter", "menu", "home", "open_app", "wait"])
    if kind in ("click", "long_press", "double_click") and targets:
        return {"type": kind, "element": rng.choice(targets).id}
    if kind == "type":
        act: dict[str, Any] = {"type": "type", "text": rng.choice(WORDS)}
        editable = [e for e in targets if e.editable]
        if editable and rng.random() < 0.5:
            act["element"] = rng.choice(editable).id
        return act
    if kind == "scroll":
        act = {"type": "scroll", "direction": rng.choice(["up", "down", "left", "right"])}
        if rng.random() < 0.5:
            act.update(x=rng.randint(100, 900), y=rng.randint(200, 900))
        return act
    if kind == "drag":
        return {"type": "drag", "x1": 500, "y1": rng.randint(300, 800), "x2": 500,
                "y2": rng.randint(100, 900)}
    if kind == "open_app":
        return {"type": "open_app", "package": package}
    if kind in ("back", "enter", "menu", "home", "wait"):
        return {"type": kind}
    return {"type": "back"}
