"""Driving devices from the command line: built-in policies, env factories for serials, recording
episodes (`phoneworld record`) and fleet rollouts (`phoneworld fleet`).

Policies are callables `(obs, info, env) -> action`: `RandomPolicy(seed)` (the simulator's random
policy: taps, typing, back) and `StdinPolicy` (a person types JSON actions; the screen's text form
is shown on stderr). A serial with an app folder gets the adb backend on the compiled app (state
access); without one it gets `RealAppBackend` behind the guard.
"""

from __future__ import annotations

import json
import logging
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from phoneworld.devices.fleet import DeviceSlot, EpisodeResult, EpisodeSpec, Fleet
from phoneworld.devices.record import RecordingBackend, TraceWriter
from phoneworld.errors import UsageError

logger = logging.getLogger(__name__)


class RandomPolicy:
    """Uniform taps over what the screen offers, some typing, back now and then."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self, obs: dict[str, Any], info: dict[str, Any], env: Any) -> Any:
        from phoneworld.runtime.episode import random_action

        return random_action(env.elements, self.rng)


class StdinPolicy:
    """Asks a person for each action (a JSON object per line; an empty line or EOF ends)."""

    def __init__(self, stream: IO[str] | None = None, out: IO[str] | None = None) -> None:
        self.stream, self.out = stream or sys.stdin, out or sys.stderr

    def __call__(self, obs: dict[str, Any], info: dict[str, Any], env: Any) -> Any:
        self.out.write(f"\n[{info.get('screen')}]\n{obs['text']}\n"
                       'action (e.g. {"type": "click", "element": 3}; empty: done)> ')
        self.out.flush()
        line = self.stream.readline().strip()
        return line or json.dumps({"type": "done"})


def policy_factory(name: str) -> Callable[[EpisodeSpec], Any]:
    if name == "random":
        return lambda spec: RandomPolicy(spec.seed)
    if name == "stdin":
        return lambda spec: StdinPolicy()
    raise UsageError(f"unknown policy {name!r}; known: random, stdin")


def env_factory(serial: str, package: str | None, app_dir: Path | None, adb_port: int | None,
                record_dir: Path | None = None, instruction: str | None = None,
                screenshots: bool = False, max_steps: int = 30) -> Callable[[], Any]:
    """How to make a `PhoneEnv` on `serial` (picklable: it may run in a Ray actor)."""

    def make() -> Any:
        from phoneworld.devices.adb_backend import AdbBackend
        from phoneworld.devices.link import client
        from phoneworld.devices.real_backend import RealAppBackend, real_app_spec
        from phoneworld.runtime.appdir import load_app
        from phoneworld.runtime.env import PhoneEnv

        adb = client(adb_port)
        backend: Any
        if app_dir is not None:
            spec = load_app(app_dir)
            if package is not None and package != spec.package:
                raise UsageError(f"--app {package} is not the app in {app_dir} ({spec.package})")
            backend = AdbBackend(serial, spec, adb=adb)
        elif package is not None:
            backend = RealAppBackend(serial, package, adb=adb)
            spec = real_app_spec(backend)
        else:
            raise UsageError("give the app folder (mock app) or the package (real app)")
        if record_dir is not None:
            backend = RecordingBackend(backend, TraceWriter(record_dir, backend.package,
                                                            backend.device),
                                       instruction, screenshots)
        return PhoneEnv(spec, backend=backend, screenshots=screenshots, max_steps=max_steps)

    return make


def sim_factory(app_dir: Path, record_dir: Path | None, max_steps: int) -> Callable[[], Any]:
    def make() -> Any:
        from phoneworld.runtime.appdir import load_app
        from phoneworld.runtime.backend import SimBackend
        from phoneworld.runtime.env import PhoneEnv

        spec = load_app(app_dir)
        backend: Any = SimBackend(spec)
        if record_dir is not None:
            backend = RecordingBackend(backend, TraceWriter(record_dir, spec.package, spec.device))
        return PhoneEnv(spec, backend=backend, max_steps=max_steps)

    return make


def run_fleet(app_dir: Path, sims: int, serials: list[str], episodes: int, steps: int,
              seed: int, policy: str = "random", ray_address: str | None = None,
              record_dir: Path | None = None, adb_port: int | None = None,
              ) -> list[EpisodeResult]:
    """`phoneworld fleet`: episodes of the app over simulators and devices."""
    if record_dir is not None:
        claim_traces(record_dir, app_dir)
    slots = [DeviceSlot(f"sim-{i}", sim_factory(app_dir, record_dir, steps)) for i in range(sims)]
    slots += [DeviceSlot(s, env_factory(s, None, app_dir, adb_port, record_dir, max_steps=steps))
              for s in serials]
    if not slots:
        raise UsageError("give --sim N and/or --serial S")
    specs = [EpisodeSpec(i, seed=seed + i, max_steps=steps) for i in range(episodes)]
    factory = policy_factory(policy)
    if ray_address is not None:
        from phoneworld.devices.fleet_ray import RayFleet

        address = None if ray_address in ("", "local") else ray_address
        return RayFleet(slots, address=address).run(specs, factory)
    return Fleet(slots).run(specs, factory)


def claim_traces(out: Path, app_dir: Path | None, force: bool = False) -> None:
    """The trace folder may be written into (`phoneworld.outdir`), checked before any episode."""
    from phoneworld import outdir

    outdir.claim_root(out, outdir.TRACES_KIND, [app_dir] if app_dir is not None else [], force,
                      outdir.legacy_traces_root)


def record_episodes(serial: str, package: str | None, app_dir: Path | None, out: Path,
                    policy: str, episodes: int, steps: int, seed: int,
                    instruction: str | None, adb_port: int | None,
                    screenshots: bool, force: bool = False) -> list[Path]:
    """`phoneworld record`: play episodes on a device and write them as native traces."""
    claim_traces(out, app_dir, force)
    make = env_factory(serial, package, app_dir, adb_port, out, instruction, screenshots, steps)
    env = make()
    factory = policy_factory(policy)
    from phoneworld.devices.fleet import run_episode

    try:
        for i in range(episodes):
            spec = EpisodeSpec(i, seed=seed + i, max_steps=steps)
            res = run_episode(env, spec, factory(spec), serial)
            logger.info("episode %d: %d steps, blocked=%s", i, len(res.steps) - 1, res.blocked)
    finally:
        env.close()
    recorded: list[Path] = env.backend.recorded
    return recorded
