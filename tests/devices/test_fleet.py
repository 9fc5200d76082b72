"""Fleets: episodes over a mix of simulators and virtual devices; a device killed mid-run loses no
finished episode and is replaced; the same through a local Ray cluster started by the test in a
loopback-only network namespace; retries and giving up, on fake devices."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from phoneworld.devices.fleet import DeviceSlot, EpisodeSpec, Fleet
from phoneworld.devices.rollout import RandomPolicy, sim_factory
from phoneworld.errors import AppCrashedError, DeviceLostError

from . import fleet_scenario
from .fleet_scenario import EPISODES, KILL_AFTER, sim_screens

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def _check(summary: dict[str, Any], app_dir: Path) -> None:
    results = summary["results"]
    assert [r["index"] for r in results] == list(range(EPISODES))
    assert all(r["error"] is None for r in results), results
    assert summary["finished_before_kill"] >= KILL_AFTER
    lost, new = summary["replaced"][0]
    assert lost == summary["killed"] and new is not None and new != lost
    for r in results:  # every episode, on whichever device, is the simulator's episode
        assert r["screens"] == sim_screens(app_dir, r["index"]), r
    assert any(r["attempts"] > 1 or r["device"] == new for r in results) or \
        summary["killed"] not in {r["device"] for r in results}


def test_fleet_survives_a_device_killed_mid_run(example_dir: Path, adb_server: Any) -> None:
    _check(fleet_scenario.scenario(example_dir, adb_server, "threads"), example_dir)


def _netns_ok() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    p = subprocess.run(["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True,
                       timeout=10, check=False)
    return p.returncode == 0


def test_ray_fleet_in_a_loopback_only_namespace(example_dir: Path) -> None:
    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed (pip install 'phoneworld[ray]')")
    if shutil.which("adb") is None:
        pytest.skip("Debian's adb is not installed")
    if not _netns_ok():
        pytest.skip("cannot make a network namespace here (needs root or user namespaces)")
    script = f"ip link set lo up && exec {sys.executable} {HERE / 'fleet_scenario.py'} " \
             f"{example_dir} ray"
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
           "RAY_USAGE_STATS_ENABLED": "0"}
    p = subprocess.run(["unshare", "-n", "sh", "-c", script], capture_output=True, text=True,
                       timeout=240, env=env, cwd=REPO, check=False)
    assert p.returncode == 0, p.stderr[-3000:]
    _check(json.loads(p.stdout.strip().splitlines()[-1]), example_dir)


# ----------------------------------------------------------------------------- fake devices


class _Flaky:
    """Wraps a simulator env; raises `error` at reset the first `times` times."""

    def __init__(self, env: Any, error: Exception, times: int) -> None:
        self.env, self.error, self.times = env, error, times
        self.backend = env.backend

    def reset(self, **kw: Any) -> Any:
        if self.times > 0:
            self.times -= 1
            raise self.error
        return self.env.reset(**kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)


def test_crash_retries_on_the_same_device(example_dir: Path) -> None:
    make = sim_factory(example_dir, None, 5)
    env = _Flaky(make(), AppCrashedError("boom"), 1)
    fleet = Fleet([DeviceSlot("flaky", lambda: env)])
    results = fleet.run(2, lambda spec: RandomPolicy(spec.seed), max_steps=5)
    assert [r.ok for r in results] == [True, True]
    assert sorted(r.attempts for r in results) == [1, 2]
    assert fleet.replaced == []


def test_gives_up_after_max_attempts_and_keeps_finished_episodes(example_dir: Path) -> None:
    make = sim_factory(example_dir, None, 5)
    bad = DeviceSlot("bad", lambda: _Flaky(make(), DeviceLostError("gone"), 99))
    replaced: list[str] = []

    def replace(slot: DeviceSlot) -> DeviceSlot | None:
        replaced.append(slot.name)
        return bad if len(replaced) < 5 else None

    fleet = Fleet([bad, DeviceSlot("good", make)], replace, max_attempts=2)
    specs = [EpisodeSpec(i, seed=i, max_steps=5) for i in range(6)]
    results = fleet.run(specs, lambda spec: RandomPolicy(spec.seed))
    assert [r.index for r in results] == list(range(6))
    assert sum(r.ok for r in results) >= 4
    for r in results:
        assert r.ok or "gave up after 2 attempts" in (r.error or "")
    assert fleet.replaced and all(lost == "bad" for lost, _ in fleet.replaced)


def test_no_device_left(example_dir: Path) -> None:
    make = sim_factory(example_dir, None, 5)
    fleet = Fleet([DeviceSlot("bad", lambda: _Flaky(make(), DeviceLostError("gone"), 99))])
    results = fleet.run(3, lambda spec: RandomPolicy(spec.seed), max_steps=5)
    assert all(r.error for r in results)
