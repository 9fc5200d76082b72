"""The Ray engine of fleets: one Ray actor per device, for rollouts spread over several machines
(`--ray-address`). Same interface and the same rules as `phoneworld.devices.fleet.Fleet`.

Each actor makes its env in its own process from the slot's `make_env` (pickled with cloudpickle)
and is placed by the slot's `resources` (e.g. `{"node:10.0.0.7": 0.01}` for a phone plugged into
that machine). Actors reserve no CPU (`num_cpus=0`): they wait on devices, and CPU-reserving actors
starve other tasks on small nodes (research/rl-backend.md). A dead actor process counts as a lost
device. Ray binds the machine's network address even when asked for 127.0.0.1, so tests run it
inside a network namespace that has only loopback.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace as dc_replace
from typing import Any

from phoneworld.devices.fleet import (
    LOST,
    DeviceSlot,
    EpisodeResult,
    EpisodeSpec,
    PolicyFactory,
    episode_specs,
    fill_missing,
    healthy,
    run_episode,
)
from phoneworld.errors import AppCrashedError, DeviceError, PhoneworldError, ToolchainError

logger = logging.getLogger(__name__)


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ToolchainError("the Ray engine needs ray: pip install 'phoneworld[ray]'") from exc
    return ray


class _EnvWorker:
    """What runs inside an actor: the env of one device."""

    def __init__(self, make_env: Callable[[], Any]) -> None:
        self.make_env = make_env
        self.env: Any = None

    def run(self, spec: EpisodeSpec, policy: PolicyFactory, name: str,
            health_timeout: float) -> tuple[str, Any]:
        """("ok", result), ("lost" | "crash" | "error", message): exceptions stay in the actor."""
        try:
            if self.env is None:
                self.env = self.make_env()
            if not healthy(self.env, health_timeout):
                return "lost", f"{name} failed its health check"
            return "ok", run_episode(self.env, spec, policy(spec), name)
        except LOST as exc:
            return "lost", str(exc)
        except AppCrashedError as exc:
            return "crash", str(exc)
        except DeviceError as exc:
            if self.env is not None and healthy(self.env, health_timeout):
                return "error", str(exc)
            return "lost", f"{exc} (and the device is unhealthy)"
        except PhoneworldError as exc:
            return "error", str(exc)


class RayFleet:
    """Runs episodes over `slots` with one Ray actor each (see the module docstring)."""

    def __init__(self, slots: Sequence[DeviceSlot],
                 replace: Callable[[DeviceSlot], DeviceSlot | None] | None = None,
                 address: str | None = None, max_attempts: int = 3,
                 health_timeout: float = 5.0, init_kwargs: dict[str, Any] | None = None) -> None:
        self.ray = _ray()
        if not self.ray.is_initialized():
            kwargs = {"include_dashboard": False, "log_to_driver": False, **(init_kwargs or {})}
            self.ray.init(address=address, **kwargs)
        self.slots, self.replace = list(slots), replace
        self.max_attempts, self.health_timeout = max_attempts, health_timeout
        self.replaced: list[tuple[str, str | None]] = []
        self._actor_cls = self.ray.remote(num_cpus=0, max_restarts=0)(_EnvWorker)

    def _spawn(self, slot: DeviceSlot) -> Any:
        opts: dict[str, Any] = {"resources": slot.resources} if slot.resources else {}
        return self._actor_cls.options(**opts).remote(slot.make_env)

    def run(self, episodes: int | Sequence[EpisodeSpec], policy: PolicyFactory,
            max_steps: int = 30,
            on_result: Callable[[EpisodeResult], None] | None = None) -> list[EpisodeResult]:
        ray = self.ray
        specs = episode_specs(episodes, max_steps)
        jobs: deque[EpisodeSpec] = deque(specs)
        results: dict[int, EpisodeResult] = {}
        idle = [(slot, self._spawn(slot)) for slot in self.slots]
        pending: dict[Any, tuple[DeviceSlot, Any, EpisodeSpec]] = {}
        while len(results) < len(specs) and (pending or (jobs and idle)):
            while jobs and idle:
                slot, actor = idle.pop()
                spec = jobs.popleft()
                ref = actor.run.remote(spec, policy, slot.name, self.health_timeout)
                pending[ref] = (slot, actor, spec)
            ready, _ = ray.wait(list(pending), num_returns=1)
            slot, actor, spec = pending.pop(ready[0])
            try:
                tag, payload = ray.get(ready[0])
            except ray.exceptions.RayActorError as exc:
                tag, payload = "lost", f"the actor of {slot.name} died: {exc}"
            if tag == "ok":
                results[spec.index] = payload
                if on_result is not None:
                    on_result(payload)
                idle.append((slot, actor))
                continue
            logger.warning("episode %d on %s: %s: %s", spec.index, slot.name, tag, payload)
            self._retry(spec, slot, tag, payload, jobs, results, on_result)
            if tag == "lost":
                ray.kill(actor)
                new = self._replacement(slot)
                if new is not None:
                    idle.append((new, self._spawn(new)))
            else:
                idle.append((slot, actor))
        for _, actor in idle:
            ray.kill(actor)
        return fill_missing(specs, results)

    def _retry(self, spec: EpisodeSpec, slot: DeviceSlot, tag: str, message: str,
               jobs: deque[EpisodeSpec], results: dict[int, EpisodeResult],
               on_result: Callable[[EpisodeResult], None] | None) -> None:
        if tag == "error" or spec.attempt + 1 >= self.max_attempts:
            res = EpisodeResult(spec.index, slot.name, spec.seed, attempts=spec.attempt + 1,
                                error=message)
            results[spec.index] = res
            if on_result is not None:
                on_result(res)
        else:
            jobs.append(dc_replace(spec, attempt=spec.attempt + 1))

    def _replacement(self, slot: DeviceSlot) -> DeviceSlot | None:
        new = self.replace(slot) if self.replace is not None else None
        self.replaced.append((slot.name, new.name if new is not None else None))
        logger.info("device %s replaced by %s", slot.name, new.name if new else "nothing")
        return new

    def shutdown(self) -> None:
        self.ray.shutdown()
