"""`PhoneEnv`: a compiled app as a Gymnasium environment over a `Backend` (DESIGN section 5).

Observation (a `spaces.Dict`): `xml` (uiautomator dump), `text` (the LM text form with element
ids), `screen` (screen id; `@launcher` once the app is left), optionally `screenshot` (H x W x 3
uint8). Action: a JSON string in the paper's format (see `phoneworld.runtime.actions`), a dict, or
a trace action model. Reward is 0 unless `reward_fn(state, info)` gives one: it returns a float
(success when > 0) or `(reward, success)`. `terminated`: a `done` action, success, or a
guard refusing an action (`info["blocked"]`, see `phoneworld.devices.guard`); `truncated`:
`max_steps` reached. Invalid actions are a no-op flagged `info["invalid_action"]` (with
`info["error"]`), or raise `EnvError` with `invalid_action="raise"`.

Snapshots and forks (on a backend whose state is in this process: the simulator, a world):
`snapshot()` is the env mid-episode (the backend's snapshot: screen, back stack, focus, list
offsets, app state; the episode's step count and whether it is over; the RNG), `restore(snap)`
puts it back. `fork(n)` gives n independent envs in this env's current state that share its
compiled app and settings (reward function included, by reference): no recompilation, no reading
of app.json. With `seed=None` each fork continues this env's RNG stream, so forks given the same
actions stay identical; `fork(n, seed=s)` gives fork i its own stream (`SeedSequence(s)`'s i-th
child), the same for the same `s`. A device backend cannot be copied: `EnvError`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from difflib import get_close_matches
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from phoneworld.errors import ActionBlocked, EnvError
from phoneworld.ir.app import AppSpec
from phoneworld.runtime.actions import parse_action
from phoneworld.runtime.appdir import load_app
from phoneworld.runtime.backend import Backend, Forkable, Obs, SimBackend
from phoneworld.runtime.screenshot import screenshot_size
from phoneworld.runtime.spaces import UnicodeText

ENV_ID = "phoneworld/Phone-v0"
RewardFn = Callable[[dict[str, Any], dict[str, Any]], "float | tuple[float, bool]"]
BACKENDS = ("sim",)
MAX_XML = 1_000_000  # characters; the largest dump of the real corpus has 63,505
MAX_TEXT = 500_000
MAX_ACTION = 100_000


def make_backend(spec: AppSpec, backend: str | Backend, screenshot_scale: float) -> Backend:
    if not isinstance(backend, str):
        return backend
    if backend == "sim":
        return SimBackend(spec, screenshot_scale=screenshot_scale)
    near = get_close_matches(backend, BACKENDS, n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    raise EnvError(f"unknown backend {backend!r}{hint} (available: {', '.join(BACKENDS)})")


@dataclass(frozen=True)
class EnvSnapshot:
    """A `PhoneEnv` at one moment (see the module docstring); restore it with `PhoneEnv.restore`."""

    backend: Any  # the backend's own snapshot (`SimSnapshot`, `WorldSnapshot`)
    steps: int
    over: bool
    started: bool
    rng: np.random.Generator | None  # a private copy: restoring copies it again
    rng_seed: int | None


class PhoneEnv(gym.Env[dict[str, Any], Any]):
    """A compiled mock app as an RL environment (see the module docstring)."""

    metadata = {"render_modes": ["rgb_array", "ansi"], "render_fps": 4}  # noqa: RUF012 (gym API)

    def __init__(
        self,
        app: AppSpec | str | Path,
        backend: str | Backend = "sim",
        screenshots: bool = False,
        max_steps: int = 30,
        reward_fn: RewardFn | None = None,
        invalid_action: str = "noop",
        screenshot_scale: float = 0.5,
        render_mode: str | None = None,
    ) -> None:
        if invalid_action not in ("noop", "raise"):
            raise EnvError(f'invalid_action must be "noop" or "raise", got {invalid_action!r}')
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvError(f"render_mode must be one of {self.metadata['render_modes']}")
        if max_steps < 1:
            raise EnvError(f"max_steps must be at least 1, got {max_steps}")
        self.spec_app = app if isinstance(app, AppSpec) else load_app(app)
        self.backend = make_backend(self.spec_app, backend, screenshot_scale)
        self.screenshots, self.max_steps, self.reward_fn = screenshots, max_steps, reward_fn
        self.invalid_action, self.render_mode = invalid_action, render_mode
        self.screenshot_scale = screenshot_scale
        dev = self.spec_app.device
        self.width, self.height = dev.width, dev.height
        obs_spaces: dict[str, spaces.Space[Any]] = {
            "xml": UnicodeText(MAX_XML, min_length=1),
            "text": UnicodeText(MAX_TEXT),
            "screen": UnicodeText(256, min_length=1),
        }
        if screenshots:
            w, h = screenshot_size(dev.width, dev.height, screenshot_scale)
            obs_spaces["screenshot"] = spaces.Box(0, 255, (h, w, 3), dtype=np.uint8)
        self.observation_space = spaces.Dict(obs_spaces)
        self.action_space = UnicodeText(MAX_ACTION, min_length=1)
        self._obs: Obs | None = None
        self._steps = 0
        self._over = True

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        options = dict(options or {})
        state = options.pop("state", None)
        if options:
            raise EnvError(f"unknown reset options {sorted(options)} (known: 'state')")
        self.backend.reset(state, seed)
        self._steps, self._over = 0, False
        self._obs = self.backend.observe(self.screenshots)
        info = {"screen": self._obs.screen, "state": self.backend.read_state(), "step": 0}
        return self._obs_dict(self._obs), info

    def step(
        self, action: Any
    ) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if self._obs is None or self._over:
            raise EnvError("the episode is over (or never started): call reset() first")
        self._steps += 1
        info: dict[str, Any] = {"invalid_action": False}
        try:
            prev = self._obs
            actions = parse_action(action, lambda: prev.elements, self.width, self.height)
        except EnvError as exc:
            if self.invalid_action == "raise":
                raise
            actions = ()
            info.update(invalid_action=True, error=str(exc))
        done = self._apply(actions, info)
        self._obs = obs = self.backend.observe(self.screenshots)
        state = self.backend.read_state()
        info.update(screen=obs.screen, state=state, step=self._steps)
        reward, success = self._reward(state, info)
        terminated = done or success
        truncated = not terminated and self._steps >= self.max_steps
        self._over = terminated or truncated
        return self._obs_dict(obs), reward, terminated, truncated, info

    def render(self) -> Any:
        if self.render_mode == "rgb_array":
            return self.backend.observe(True).screenshot
        if self.render_mode == "ansi":
            return self.backend.observe(False).text
        return None

    def close(self) -> None:
        self.backend.close()

    # ------------------------------------------------------------------ snapshots and forks

    def snapshot(self) -> EnvSnapshot:
        """This env now, mid-episode included (see the module docstring)."""
        return EnvSnapshot(self._forkable().snapshot(), self._steps, self._over,
                           self._obs is not None, copy.deepcopy(self._np_random),
                           self._np_random_seed)

    def restore(self, snap: EnvSnapshot) -> None:
        """Put the env back to `snap` (taken from this env or one of its forks)."""
        self._forkable().restore(snap.backend)
        self._adopt(snap)

    def fork(self, n: int, *, seed: int | None = None) -> list[PhoneEnv]:
        """`n` independent envs in this env's current state, sharing its compiled app (see the
        module docstring). This env is left as it was."""
        if not isinstance(n, int) or n < 1:
            raise EnvError(f"fork(n) needs a number of envs of at least 1, got {n!r}")
        backend, snap = self._forkable(), self.snapshot()
        rngs: list[np.random.Generator | None] = [None] * n
        if seed is not None:
            rngs = [np.random.Generator(np.random.PCG64(s))
                    for s in np.random.SeedSequence(seed).spawn(n)]
        forks = []
        for rng in rngs:
            twin = PhoneEnv(self.spec_app, backend=backend.fork(), **self._settings())
            twin._adopt(snap)
            if rng is not None:
                twin._np_random, twin._np_random_seed = rng, seed
            twin.spec = self.spec
            forks.append(twin)
        return forks

    def _forkable(self) -> Forkable:
        if not isinstance(self.backend, Forkable):
            raise EnvError(
                f"the {type(self.backend).__name__} backend cannot be snapshotted or forked: its "
                "state lives on a device, not in this process. Fork an env on the simulator "
                "(backend='sim') or a world (`world_env`), or run one episode per device "
                "(`phoneworld.devices.fleet`)")
        return self.backend

    def _adopt(self, snap: EnvSnapshot) -> None:
        """Take the episode part of `snap`; the backend is already in its state."""
        self._steps, self._over = snap.steps, snap.over
        self._obs = self.backend.observe(self.screenshots) if snap.started else None
        self._np_random = copy.deepcopy(snap.rng)
        self._np_random_seed = snap.rng_seed

    def _settings(self) -> dict[str, Any]:
        return {"screenshots": self.screenshots, "max_steps": self.max_steps,
                "reward_fn": self.reward_fn, "invalid_action": self.invalid_action,
                "screenshot_scale": self.screenshot_scale, "render_mode": self.render_mode}

    # ------------------------------------------------------------------ helpers

    def _apply(self, actions: tuple[Any, ...], info: dict[str, Any]) -> bool:
        done, changed, left, fired = False, False, False, None
        for a in actions:
            try:
                r = self.backend.step(a)
            except ActionBlocked as exc:  # a guard refused it: the episode ends, nothing was sent
                info["blocked"] = exc.reason
                done = True
                break
            changed, left = changed or r.changed, left or r.left_app
            fired = r.transition or fired
            if a.type == "done":
                done = True
                info["answer"] = a.answer
        info.update(changed=changed, left_app=left, transition=fired)
        return done

    def _reward(self, state: dict[str, Any], info: dict[str, Any]) -> tuple[float, bool]:
        if self.reward_fn is None:
            return 0.0, False
        out = self.reward_fn(state, info)
        if isinstance(out, tuple):
            return float(out[0]), bool(out[1])
        return float(out), float(out) > 0

    def _obs_dict(self, obs: Obs) -> dict[str, Any]:
        out: dict[str, Any] = {"xml": obs.xml, "text": obs.text, "screen": obs.screen}
        if self.screenshots:
            out["screenshot"] = obs.screenshot
        return out

    @property
    def started(self) -> bool:
        """Whether an episode has begun (a `reset`, or a restored or forked running episode)."""
        return self._obs is not None

    @property
    def episode_over(self) -> bool:
        """Whether the episode has ended (or never started): `step` needs a `reset` first."""
        return self._over

    def observation(self) -> dict[str, Any]:
        """The current observation, as `reset`/`step` last returned it."""
        if self._obs is None:
            raise EnvError("no episode has started: call reset() first")
        return self._obs_dict(self._obs)

    @property
    def elements(self) -> tuple[Any, ...]:
        """The current observation's text-form elements (element id = position)."""
        return self._obs.elements if self._obs is not None else ()


if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="phoneworld.runtime.env:PhoneEnv",
                 vector_entry_point="phoneworld.runtime.vector:VectorPhoneEnv")
