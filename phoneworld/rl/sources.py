"""Rollout sources: one per environment kind, each producing groups of G episodes per task.

- `sim`: mock apps in the in-process simulator (`PhoneEnv`), rule-verifier rewards; all episodes
  of a call are batched together.
- `adb`: mock-app APKs on devices through `phoneworld.devices.AdbBackend` behind the same
  `PhoneEnv`, one device per live episode, env steps on a thread pool.
- `real`: real apps on devices through `phoneworld.devices.RealAppBackend` (no state access,
  a guard in front of every action), rewarded by the rubric judge.

A source walks its training tasks round-robin in a seeded shuffled order, re-drawing parameters
each time (the group key keeps one draw's G episodes together). Environments are built by an
env factory, which tests replace (the simulator is the device's test double).
"""

from __future__ import annotations

import functools
import itertools
import logging
import random
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from phoneworld.rl.advantage import Group
from phoneworld.rl.config import SourceConfig
from phoneworld.rl.policy import Policy
from phoneworld.rl.rewards import RewardFn
from phoneworld.rl.rollout import EnvHandle, PhoneEnvHandle, Runner, run_episodes
from phoneworld.rl.tasks import RLTask, TaskSource, is_world_dir

log = logging.getLogger(__name__)
EnvFactory = Callable[[RLTask, int], EnvHandle]  # (task, slot) -> env; slot picks a device
ENV_STEP_CAP = 10_000  # the runner owns the budget; the env's own is only a backstop


@functools.lru_cache(maxsize=64)
def app_spec(app_dir: str) -> Any:
    """A built app's spec, loaded once and shared by every env on it."""
    from phoneworld import load_app

    return load_app(Path(app_dir))


@functools.lru_cache(maxsize=16)
def world_def(world_dir: str) -> Any:
    """A built world's apps and wiring, loaded once; every env gets its own `World` on it."""
    from phoneworld import load_world

    return load_world(Path(world_dir))


def sim_env(app_dir: str) -> EnvHandle:
    """A simulator env on an app folder, or on a world folder (cross-app tasks)."""
    from phoneworld import PhoneEnv

    if is_world_dir(app_dir):
        from phoneworld import world_env

        return PhoneEnvHandle(world_env(world_def(app_dir), max_steps=ENV_STEP_CAP))
    return PhoneEnvHandle(PhoneEnv(app_spec(app_dir), max_steps=ENV_STEP_CAP))


def env_factory(cfg: SourceConfig) -> EnvFactory:
    """The default env factory of a source kind."""

    def sim(task: RLTask, slot: int) -> EnvHandle:
        return sim_env(task.app)

    def adb(task: RLTask, slot: int) -> EnvHandle:
        from phoneworld.devices import AdbBackend
        from phoneworld import PhoneEnv

        backend = AdbBackend(cfg.serials[slot % len(cfg.serials)], app_spec(task.app))
        return PhoneEnvHandle(PhoneEnv(app_spec(task.app), backend=backend,
                                       max_steps=ENV_STEP_CAP))

    def real(task: RLTask, slot: int) -> EnvHandle:
        from phoneworld.devices import RealAppBackend, real_app_spec
        from phoneworld import PhoneEnv

        backend = RealAppBackend(cfg.serials[slot % len(cfg.serials)], task.app)
        return PhoneEnvHandle(PhoneEnv(real_app_spec(backend), backend=backend,
                                       max_steps=ENV_STEP_CAP))

    return {"sim": sim, "adb": adb, "real": real}[cfg.kind]


class Mix:
    """Which groups are cross-app: group g is when floor((g + 1) r) > floor(g r), so every run
    of n consecutive groups holds n r of them, give or take one (no sampling noise)."""

    def __init__(self, ratio: float) -> None:
        self.ratio, self.count = ratio, 0

    def next(self) -> bool:
        g, r = self.count, self.ratio
        self.count += 1
        return int((g + 1) * r + 1e-9) > int(g * r + 1e-9)


class Source:
    """Produces groups of episodes for one environment kind. `world_tasks` (sim sources) are
    cross-app tasks drawn for a `world_ratio` share of the groups (`Mix`)."""

    def __init__(self, cfg: SourceConfig, tasks: list[tuple[TaskSource, list[str]]],
                 reward: RewardFn, group_size: int, budget: int, terminate_on_success: bool,
                 factory: EnvFactory | None = None, seed: int = 0,
                 world_tasks: list[tuple[TaskSource, list[str]]] | None = None,
                 world_ratio: float = 0.0) -> None:
        self.cfg, self.name, self.domain = cfg, cfg.name, str(cfg.domain)
        self.reward, self.group_size, self.budget = reward, group_size, budget
        self.stop_on_success = terminate_on_success
        self.factory = factory or env_factory(cfg)
        pairs = [(src, tid) for src, ids in tasks for tid in ids]
        worlds = [(src, tid) for src, ids in world_tasks or [] for tid in ids]
        if world_ratio > 0 and not worlds:
            raise ValueError(f"source {cfg.name!r}: world_ratio {world_ratio} but no world task")
        if not pairs and world_ratio < 1:
            raise ValueError(f"source {cfg.name!r} has no training tasks")
        random.Random(seed).shuffle(pairs)
        random.Random(seed + 1).shuffle(worlds)
        self._cycle = itertools.cycle(pairs)
        self._worlds = itertools.cycle(worlds)
        self.mix = Mix(world_ratio)
        self._draws = itertools.count(seed * 1_000_003)
        self.slots = len(cfg.serials) if cfg.kind != "sim" else 0
        self.executor = ThreadPoolExecutor(max(1, self.slots)) if self.slots else None

    def next_tasks(self, n: int) -> list[RLTask]:
        picks = [next(self._worlds) if self.mix.next() else next(self._cycle) for _ in range(n)]
        return [src.draw(tid, next(self._draws)) for src, tid in picks]

    def produce(self, policy: Policy, n_groups: int | None = None,
                greedy: bool = False) -> list[Group]:
        """Sample `n_groups` groups (default: the config's groups_per_batch) with `policy`."""
        n = n_groups or self.cfg.groups_per_batch
        if self.slots:  # one device per live episode
            n = max(1, min(n, self.slots // self.group_size))
        tasks = self.next_tasks(n)
        runners = []
        for i, task in enumerate(tasks):
            for g in range(self.group_size):
                env = self._delayed(self.factory(task, i * self.group_size + g))
                runners.append(Runner(env, task, self.budget, self.stop_on_success,
                                      self.name, self.domain))
        episodes = run_episodes(policy, runners, greedy, self.executor)
        for r in runners:
            r.env.close()
        for e in episodes:
            e.reward = self.reward(e)
        G = self.group_size
        return [Group(tasks[i].key, self.name, self.domain, episodes[i * G:(i + 1) * G])
                for i in range(len(tasks))]

    def _delayed(self, env: EnvHandle) -> EnvHandle:
        if self.cfg.step_delay_s <= 0:
            return env
        return _Delayed(env, self.cfg.step_delay_s)

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=False)


class _Delayed:
    """An env slowed down per step (tests of slow sources, speed models of emulators)."""

    def __init__(self, env: EnvHandle, delay: float) -> None:
        self.env, self.delay = env, delay

    def reset(self, task: RLTask) -> dict[str, Any]:
        return self.env.reset(task)

    def step(self, action: dict[str, Any]) -> dict[str, Any]:
        import time

        time.sleep(self.delay)
        return self.env.step(action)

    def close(self) -> None:
        self.env.close()

