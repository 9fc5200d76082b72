"""Fleets: many episodes over many devices at once, on any mix of backends (simulator, virtual
devices, emulators, phones), one worker per device (DESIGN section 5).

A `DeviceSlot` names a device and says how to make its env. `Fleet(slots).run(episodes, policy)`
hands episodes to the workers from one queue and returns one `EpisodeResult` per episode, in
order. Before each episode a worker checks its device (`backend.ping()` where the backend has
one). When a device is lost (`DeviceLostError`, `DeviceTimeoutError`, `DumpError`, or a failed
health check), its unfinished episode goes back to the queue and `replace(slot)` is asked for a
new device (None: the fleet carries on smaller); an app crash retries the episode on the same
device. An episode is tried `max_attempts` times at most; finished episodes are never lost: a run
that runs out of devices returns what finished, the rest marked with an error.

`policy(spec)` makes the policy of one episode: a callable `(obs, info, env) -> action`.
The Ray engine with the same interface is `phoneworld.devices.fleet_ray.RayFleet`.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as dc_replace
from typing import Any

from phoneworld.errors import (
    AppCrashedError,
    DeviceError,
    DeviceLostError,
    DeviceTimeoutError,
    DumpError,
    PhoneworldError,
)

logger = logging.getLogger(__name__)

Policy = Callable[[dict[str, Any], dict[str, Any], Any], Any]
LOST = (DeviceLostError, DeviceTimeoutError, DumpError)


@dataclass(frozen=True)
class EpisodeSpec:
    index: int
    seed: int = 0
    state: dict[str, Any] | None = None
    max_steps: int = 30
    attempt: int = 0


PolicyFactory = Callable[[EpisodeSpec], Policy]


@dataclass
class EpisodeResult:
    index: int
    device: str
    seed: int
    steps: list[dict[str, Any]] = field(default_factory=list)
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False
    attempts: int = 1
    seconds: float = 0.0
    blocked: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class DeviceSlot:
    """A device: its name and how to make an env on it (called in the worker, maybe remotely).
    `resources` are Ray resources that pin its actor to the machine holding the device."""

    name: str
    make_env: Callable[[], Any]
    resources: dict[str, float] = field(default_factory=dict)


def healthy(env: Any, timeout: float = 5.0) -> bool:
    ping = getattr(getattr(env, "backend", None), "ping", None)
    return True if ping is None else bool(ping(timeout))


def run_episode(env: Any, spec: EpisodeSpec, policy: Policy, device: str = "") -> EpisodeResult:
    """Play one episode; device failures propagate (the fleet decides what to do with them)."""
    t0 = time.perf_counter()
    options = {"state": spec.state} if spec.state is not None else None
    obs, info = env.reset(seed=spec.seed, options=options)
    res = EpisodeResult(spec.index, device, spec.seed, attempts=spec.attempt + 1)
    res.steps.append({"step": 0, "screen": info["screen"], "action": None})
    for n in range(1, spec.max_steps + 1):
        action = policy(obs, info, env)
        obs, reward, terminated, truncated, info = env.step(action)
        res.reward += float(reward)
        res.steps.append({"step": n, "screen": info["screen"], "action": action,
                          "reward": float(reward)})
        if terminated or truncated:
            res.terminated, res.truncated = bool(terminated), bool(truncated)
            res.blocked = info.get("blocked")
            break
    else:
        res.truncated = True
    res.seconds = time.perf_counter() - t0
    return res


class _Run:
    """The shared bookkeeping of one `Fleet.run`."""

    def __init__(self, specs: list[EpisodeSpec], on_result: Callable[[EpisodeResult], None] | None):
        self.jobs: queue.Queue[EpisodeSpec] = queue.Queue()
        for s in specs:
            self.jobs.put(s)
        self.total = len(specs)
        self.results: dict[int, EpisodeResult] = {}
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.on_result = on_result
        self.workers = 0

    def finish(self, res: EpisodeResult) -> None:
        with self.lock:
            self.results[res.index] = res
            if len(self.results) >= self.total:
                self.done.set()
        if self.on_result is not None:
            self.on_result(res)


class Fleet:
    """Runs episodes over `slots`, a worker thread per device (see the module docstring)."""

    def __init__(self, slots: Sequence[DeviceSlot],
                 replace: Callable[[DeviceSlot], DeviceSlot | None] | None = None,
                 max_attempts: int = 3, health_timeout: float = 5.0) -> None:
        if not slots:
            raise ValueError("a fleet needs at least one device")
        self.slots, self.replace = list(slots), replace
        self.max_attempts, self.health_timeout = max_attempts, health_timeout
        self.replaced: list[tuple[str, str | None]] = []  # (lost device, its replacement)

    def run(self, episodes: int | Sequence[EpisodeSpec], policy: PolicyFactory,
            max_steps: int = 30,
            on_result: Callable[[EpisodeResult], None] | None = None) -> list[EpisodeResult]:
        specs = episode_specs(episodes, max_steps)
        run = _Run(specs, on_result)
        threads = [threading.Thread(target=self._worker, args=(slot, run, policy),
                                    name=f"fleet-{slot.name}", daemon=True) for slot in self.slots]
        run.workers = len(threads)
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return fill_missing(specs, run.results)

    def _worker(self, slot: DeviceSlot | None, run: _Run, policy: PolicyFactory) -> None:
        env = None
        try:
            while slot is not None and not run.done.is_set():
                try:
                    spec = run.jobs.get(timeout=0.05)
                except queue.Empty:
                    continue
                try:
                    if env is None:
                        env = slot.make_env()
                    if not healthy(env, self.health_timeout):
                        raise DeviceLostError("failed its health check", slot.name)
                    run.finish(run_episode(env, spec, policy(spec), slot.name))
                except LOST as exc:
                    logger.warning("device %s is lost: %s", slot.name, exc)
                    self._retry(run, spec, slot, exc)
                    _close(env)
                    env = None
                    slot = self._replacement(slot)
                except AppCrashedError as exc:
                    logger.warning("the app crashed on %s: %s", slot.name, exc)
                    self._retry(run, spec, slot, exc)
                except DeviceError as exc:
                    if env is not None and healthy(env, self.health_timeout):
                        run.finish(EpisodeResult(spec.index, slot.name, spec.seed,
                                                 attempts=spec.attempt + 1, error=str(exc)))
                        continue
                    # a failure the device cannot explain while it is healthy: it is going away
                    logger.warning("device %s failed and is unhealthy: %s", slot.name, exc)
                    self._retry(run, spec, slot, exc)
                    _close(env)
                    env = None
                    slot = self._replacement(slot)
                except PhoneworldError as exc:
                    run.finish(EpisodeResult(spec.index, slot.name, spec.seed,
                                             attempts=spec.attempt + 1, error=str(exc)))
        finally:
            _close(env)
            with run.lock:
                run.workers -= 1
                last = run.workers == 0
            if last:
                run.done.set()

    def _retry(self, run: _Run, spec: EpisodeSpec, slot: DeviceSlot, exc: Exception) -> None:
        if spec.attempt + 1 >= self.max_attempts:
            run.finish(EpisodeResult(spec.index, slot.name, spec.seed, attempts=spec.attempt + 1,
                                     error=f"gave up after {spec.attempt + 1} attempts: {exc}"))
        else:
            run.jobs.put(dc_replace(spec, attempt=spec.attempt + 1))

    def _replacement(self, slot: DeviceSlot) -> DeviceSlot | None:
        new = None
        if self.replace is not None:
            try:
                new = self.replace(slot)
            except DeviceError as exc:
                logger.error("could not replace %s: %s", slot.name, exc)
        self.replaced.append((slot.name, new.name if new is not None else None))
        logger.info("device %s replaced by %s", slot.name, new.name if new else "nothing")
        return new


def _close(env: Any) -> None:
    if env is not None:
        try:
            env.close()
        except PhoneworldError as exc:
            logger.info("closing an env failed: %s", exc)


def episode_specs(episodes: int | Sequence[EpisodeSpec], max_steps: int) -> list[EpisodeSpec]:
    if isinstance(episodes, int):
        return [EpisodeSpec(i, seed=i, max_steps=max_steps) for i in range(episodes)]
    return list(episodes)


def fill_missing(specs: list[EpisodeSpec], results: dict[int, EpisodeResult]
                 ) -> list[EpisodeResult]:
    """Results in episode order; an episode no device finished carries an error."""
    return [results.get(s.index) or EpisodeResult(s.index, "", s.seed, attempts=s.attempt,
                                                  error="no device was left to run it")
            for s in specs]
