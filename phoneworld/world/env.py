"""A world as one Gymnasium env: `PhoneEnv` over `WorldBackend`, so observations, info keys and
actions are exactly those of a single app (`phoneworld.runtime.env`), and agents and `phoneworld.rl`
prompts work unchanged. `info["state"]` is the world state (`phoneworld.world.device`); `reset(options=
{"state": ...})` takes a (partial) world state. `snapshot`/`restore`/`fork` work as on an app.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from phoneworld.runtime.backend import Obs
from phoneworld.runtime.env import PhoneEnv, RewardFn
from phoneworld.runtime.screenshot import render_frame
from phoneworld.runtime.sim import StepResult
from phoneworld.world.device import World, WorldSnapshot
from phoneworld.world.load import WorldDef, load_world


class WorldBackend:
    """A `World` behind the runtime's `Backend` protocol. Deterministic: `seed` changes nothing."""

    def __init__(self, world: World, screenshot_scale: float = 0.5) -> None:
        self.world = world
        self.device = world.device
        self.package = world.system_spec.package
        self.screenshot_scale = screenshot_scale

    def reset(self, state: dict[str, Any] | None = None, seed: int | None = None) -> Obs:
        self.world.reset(state)
        return self.observe()

    def step(self, action: Any) -> StepResult:
        return self.world.step(action)

    def observe(self, screenshot: bool = False) -> Obs:
        f = self.world.frame()
        shot = None
        if screenshot:
            shot = render_frame(f, self.device.width, self.device.height, self.screenshot_scale)
        return Obs(f.xml, f.text, self.world.screen, f.package, f.activity, lambda: f.elements, shot)

    def read_state(self) -> dict[str, Any]:
        return self.world.state

    def snapshot(self) -> WorldSnapshot:
        return self.world.snapshot()

    def restore(self, snap: WorldSnapshot) -> None:
        self.world.restore(snap)

    def fork(self) -> WorldBackend:
        return WorldBackend(self.world.fork(), self.screenshot_scale)

    def close(self) -> None:
        pass


def world_env(world: str | Path | WorldDef | World, screenshots: bool = False,
              max_steps: int = 30, reward_fn: RewardFn | None = None,
              **kwargs: Any) -> PhoneEnv:
    """A `PhoneEnv` over a world (a spec file, a built world folder, or a loaded world)."""
    if isinstance(world, (str, Path)):
        world = load_world(world)
    w = world if isinstance(world, World) else World(world)
    backend = WorldBackend(w, kwargs.get("screenshot_scale", 0.5))
    return PhoneEnv(w.system_spec, backend=backend, screenshots=screenshots, max_steps=max_steps,
                    reward_fn=reward_fn, **kwargs)
