"""End to end with Debian's adb: four virtual devices serving the example app, `adb` itself talking
to them, and `PhoneEnv(backend=AdbBackend(...))` agreeing step by step (screen, XML, text form,
state) with the simulator on every example episode and on 200 random episodes."""

from __future__ import annotations

import json
import random
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from phoneworld.ir.app import AppSpec
from phoneworld.runtime.env import PhoneEnv

from ..conftest import EXAMPLE
from .conftest import Served, any_action, serve

RANDOM_EPISODES = 200
RANDOM_STEPS = 8


def adb(served: Served, *args: str) -> str:
    cmd = [served.adb.exe, "-P", str(served.adb.port), *args]
    p = subprocess.run(cmd, capture_output=True, timeout=20, env=served.adb.env, check=False)
    return (p.stdout + p.stderr).decode(errors="replace")


def test_adb_sees_the_devices(farm: Served, tmp_path: Path) -> None:
    listed = adb(farm, "devices")
    for s in farm.serials:
        assert f"{s}\tdevice" in listed
    s = farm.serials[0]
    assert adb(farm, "-s", s, "shell", "wm", "size").strip() == "Physical size: 1080x1920"
    assert subprocess.run([farm.adb.exe, "-P", str(farm.adb.port), "-s", s, "shell", "false"],
                          env=farm.adb.env, timeout=20, check=False).returncode == 1
    adb(farm, "-s", s, "shell", "uiautomator", "dump", "/sdcard/window_dump.xml")
    adb(farm, "-s", s, "pull", "/sdcard/window_dump.xml", str(tmp_path / "d.xml"))
    assert (tmp_path / "d.xml").read_text() == farm.devices[0].sim.xml()


def _pair(farm: Served, i: int, spec: AppSpec) -> tuple[PhoneEnv, PhoneEnv]:
    return PhoneEnv(spec, backend=farm.backend(i), max_steps=50), PhoneEnv(spec, max_steps=50)


def _same(a: Any, s: Any, where: str) -> None:
    obs_a, obs_s = a[0], s[0]
    info_a, info_s = a[-1], s[-1]
    assert obs_a["screen"] == obs_s["screen"], where
    assert obs_a["xml"] == obs_s["xml"], where
    assert obs_a["text"] == obs_s["text"], where
    assert info_a["state"] == info_s["state"], where
    assert a[1:-1] == s[1:-1], where  # reward, terminated, truncated after a step


def _play(farm: Served, i: int, spec: AppSpec, episodes: list[tuple[str, list[Any]]]) -> int:
    """Play `episodes` (id, actions) on device i and on a simulator; returns steps compared."""
    dev_env, sim_env = _pair(farm, i, spec)
    steps = 0
    for ep, actions in episodes:
        _same(dev_env.reset(), sim_env.reset(), f"{ep} reset")
        for n, action in enumerate(actions):
            _same(dev_env.step(action), sim_env.step(action), f"{ep} step {n} {action}")
            steps += 1
    return steps


def test_example_episodes_agree(farm: Served, example_spec: AppSpec) -> None:
    from phoneworld.pipeline import check

    traces, _ = check(EXAMPLE)
    episodes = [(ep.id, [s.action for s in ep.steps if s.action is not None])
                for ep in traces.episodes]
    shards = [episodes[i::4] for i in range(4)]
    with ThreadPoolExecutor(4) as pool:
        steps = sum(pool.map(lambda i: _play(farm, i, example_spec, shards[i]), range(4)))
    assert steps == sum(len(a) for _, a in episodes) > 0


def _random_episodes(farm: Served, i: int, spec: AppSpec, seeds: list[int]) -> int:
    dev_env, sim_env = _pair(farm, i, spec)
    steps = 0
    for seed in seeds:
        rng = random.Random(seed)
        _same(dev_env.reset(seed=seed), sim_env.reset(seed=seed), f"episode {seed} reset")
        for n in range(RANDOM_STEPS):
            action = json.dumps(any_action(sim_env.elements, rng, spec.package))
            _same(dev_env.step(action), sim_env.step(action), f"episode {seed} step {n} {action}")
            steps += 1
    return steps


def test_random_episodes_agree(farm: Served, example_spec: AppSpec) -> None:
    seeds = list(range(RANDOM_EPISODES))
    with ThreadPoolExecutor(4) as pool:
        steps = sum(pool.map(lambda i: _random_episodes(farm, i, example_spec, seeds[i::4]),
                             range(4)))
    assert steps == RANDOM_EPISODES * RANDOM_STEPS


def test_screenshots_and_activity(farm: Served, example_spec: AppSpec) -> None:
    dev_env = PhoneEnv(example_spec, backend=farm.backend(0), screenshots=True)
    sim_env = PhoneEnv(example_spec, screenshots=True)
    obs_d, _ = dev_env.reset()
    obs_s, _ = sim_env.reset()
    assert obs_d["screenshot"].shape == obs_s["screenshot"].shape
    assert obs_d["screenshot"].dtype == np.uint8
    assert dev_env.observation_space.contains(obs_d)
    assert dev_env.backend.observe().activity == sim_env.backend.observe().activity


def test_gymnasium_env_checker(farm: Served, example_spec: AppSpec) -> None:
    from gymnasium.utils.env_checker import check_env

    check_env(PhoneEnv(example_spec, backend=farm.backend(1)), skip_render_check=True)


@pytest.mark.parametrize("size", [(2160, 3840), (720, 1280)], ids=["2x", "2/3"])
def test_another_screen_size(example_spec: AppSpec, adb_server: Any,
                             size: tuple[int, int]) -> None:
    """A phone of another size: taps are scaled to it and its dumps back to the app's frame.
    At twice the size nothing is lost; at 2/3 bounds round, so only screens and state agree."""
    exact = size[0] % example_spec.device.width == 0
    with serve(example_spec, adb_server, 1, size) as served:
        backend = served.backend(0)
        assert backend.real_size == size
        dev_env, sim_env = PhoneEnv(example_spec, backend=backend), PhoneEnv(example_spec)
        rng = random.Random(7)
        for _ in range(3):
            a, s = dev_env.reset(), sim_env.reset()
            for _ in range(8):
                assert a[0]["screen"] == s[0]["screen"] and a[-1]["state"] == s[-1]["state"]
                assert (a[0]["xml"] == s[0]["xml"]) or not exact
                action = json.dumps(any_action(sim_env.elements, rng, example_spec.package))
                a, s = dev_env.step(action), sim_env.step(action)
