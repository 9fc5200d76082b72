"""`PhoneEnv`: a compiled app as a Gymnasium environment over a `Backend` (DESIGN section 5).

Observation (a `spaces.Dict`): `xml` (uiautomator dump), `text` (the LM text form with element
ids), `screen` (screen id; `@launcher` once the app is left), optionally `screenshot` (H x W x 3
uint8). Action: a JSON string in the paper's format (see `phoneworld.runtime.actions`), a dict, or
a trace action model. Reward is 0 unless `reward_fn(state, info)` gives one: it returns a float
(success when > 0) or `(reward, success)`. `terminated`: a `done` action, success, or a
guard refusing an action (`info["blocked"]`, see `phoneworld.devices.guard`); `truncated`:
`max_steps` reached. Invalid actions are a no-op flagged `info["invalid_action"]` (with
`info["error"]`), or raise `EnvError` with `invalid_action="raise"`.
"""

from __future__ import annotations

from collections.abc import Callable
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
from phoneworld.runtime.backend import Backend, Obs, SimBackend
from phoneworld.runtime.screenshot import screenshot_size
from phoneworld.runtime.spaces import UnicodeText

ENV_ID = "phoneworld/Phone-v0"
RewardFn = Callable[[dict[str, Any], dict[str, Any]], "float | tuple[float, bool]"]
BACKENDS = ("sim",)
MAX_XML = 4_000_000
MAX_TEXT = 1_000_000
MAX_ACTION = 100_000


def make_backend(spec: AppSpec, backend: str | Backend, screenshot_scale: float) -> Backend:
    if not isinstance(backend, str):
        return backend
    if backend == "sim":
        return SimBackend(spec, screenshot_scale=screenshot_scale)
    near = get_close_matches(backend, BACKENDS, n=1)
    hint = f"; did you mean {near[0]!r}?" if near else ""
    raise EnvError(f"unknown backend {backend!r}{hint} (available: {', '.join(BACKENDS)})")


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
    def elements(self) -> tuple[Any, ...]:
        """The current observation's text-form elements (element id = position)."""
        return self._obs.elements if self._obs is not None else ()


if ENV_ID not in gym.registry:
    gym.register(id=ENV_ID, entry_point="phoneworld.runtime.env:PhoneEnv")
