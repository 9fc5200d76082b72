"""`VectorPhoneEnv`: N envs of one app stepped in one process, as a gymnasium (1.x) `VectorEnv`.

Observations are a dict of lists, entry i for env i: `xml`, `text`, `screen` (lists of str) and,
with screenshots, `screenshot` (an (N, H, W, 3) uint8 array). `observation_space` is gymnasium's
batch of the single space (`Dict` of `Tuple`s of text spaces, and a `Box`), so it contains the
observations; `single_observation_space` is `PhoneEnv`'s. Actions: a sequence of N actions, each
what `PhoneEnv.step` takes (a JSON string, a dict or a trace action). Rewards are float64 (N,),
terminations and truncations bool (N,), infos gymnasium's dict of arrays with `_<key>` masks,
built a key at a time over all envs (`batch_infos`). Two differences from gymnasium's
`VectorEnv._add_info`, which types a key's array by env 0's value: `infos["state"]` is an object
array of the envs' state dicts, not one array per state variable (gymnasium fails when env 0's
selection is a number and another's is null, as `SyncVectorEnv`/`AsyncVectorEnv` of `PhoneEnv`s
do), and a key whose envs' values differ in type gets an object array.

Autoreset (`metadata["autoreset_mode"]`, as gymnasium's `SyncVectorEnv` does it):
- `NEXT_STEP` (default): the step after an env's episode ended resets that env; its action is
  ignored, its reward is 0, neither flag is set, its info is the reset's;
- `SAME_STEP`: the step that ends an episode resets the env at once; the last observation and
  info are in `infos["final_obs"]` / `infos["final_info"]`;
- `DISABLED`: the caller resets ended envs with `reset(options={"reset_mask": mask})`.

Built from an app (`VectorPhoneEnv(app_dir, num_envs, **PhoneEnv settings)`: loaded and compiled
once, the envs are forks of the first) or from an env mid-episode (`VectorPhoneEnv.fork(env, n)`:
n forks that start where `env` is; `step` works without a `reset`, `observations()` is the batch
they start from), or from envs of one app (`VectorPhoneEnv(envs=...)`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from phoneworld.errors import EnvError
from phoneworld.ir.app import AppSpec
from phoneworld.runtime.env import PhoneEnv

Obs = dict[str, Any]


class VectorPhoneEnv(VectorEnv[Obs, Any, Any]):
    """N phone envs stepped together (see the module docstring)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (gymnasium API)
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": PhoneEnv.metadata["render_modes"],
    }

    def __init__(
        self, app: AppSpec | str | Path | None = None, num_envs: int = 1, *,
        envs: Sequence[PhoneEnv] | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, **env_kwargs: Any,
    ) -> None:
        self.envs = _make_envs(app, num_envs, envs, env_kwargs)
        self.num_envs = len(self.envs)
        try:
            self.autoreset_mode = AutoresetMode(autoreset_mode)
        except ValueError:
            modes = ", ".join(repr(m.value) for m in AutoresetMode)
            raise EnvError(
                f"autoreset_mode must be one of {modes}, got {autoreset_mode!r}") from None
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        first = self.envs[0]
        self.render_mode = first.render_mode
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._keys = tuple(self.single_observation_space.spaces)
        self._started = all(e.started for e in self.envs)
        self._obs: list[Obs] = [e.observation() for e in self.envs] if self._started else []
        self._ended = np.array([e.episode_over for e in self.envs], dtype=np.bool_)

    @classmethod
    def fork(cls, env: PhoneEnv, n: int, *, seed: int | None = None,
             autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP) -> VectorPhoneEnv:
        """`n` forks of `env` (see `PhoneEnv.fork`) stepped together, starting where `env` is."""
        return cls(envs=env.fork(n, seed=seed), autoreset_mode=autoreset_mode)

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[Obs, dict[str, Any]]:
        """Reset every env (or those of `options["reset_mask"]`, an (N,) bool array). `seed`: an
        int seeds env i with `seed + i`, a list gives each env its seed."""
        seeds = self._seeds(seed)
        options = dict(options or {})
        mask = _reset_mask(options.pop("reset_mask", None), self.num_envs)
        if mask is not None and not self._started:
            raise EnvError("reset_mask resets some envs of a started batch: call reset() first")
        if mask is None:
            mask = np.ones(self.num_envs, dtype=np.bool_)
            self._obs = [{} for _ in self.envs]
        infos: list[dict[str, Any] | None] = [None] * self.num_envs
        for i in np.flatnonzero(mask):
            self._obs[i], infos[i] = self.envs[i].reset(seed=seeds[i], options=options or None)
        self._ended[mask] = False
        self._started = True
        return self.observations(), batch_infos(infos)

    def step(
        self, actions: Sequence[Any]
    ) -> tuple[Obs, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise EnvError("the envs have not started: call reset() first")
        actions = self._actions(actions)
        n, mode = self.num_envs, self.autoreset_mode
        rewards = np.zeros(n, dtype=np.float64)
        terms, truncs = np.zeros(n, dtype=np.bool_), np.zeros(n, dtype=np.bool_)
        infos: list[dict[str, Any] | None] = [None] * n
        if self._ended.any() and mode == AutoresetMode.DISABLED:
            i = int(np.flatnonzero(self._ended)[0])
            raise EnvError(f"env {i}'s episode has ended; with autoreset_mode DISABLED reset it "
                           "first: reset(options={'reset_mask': mask})")
        for i, (env, action) in enumerate(zip(self.envs, actions, strict=True)):
            if self._ended[i]:
                self._obs[i], infos[i] = env.reset()
                continue
            obs, rewards[i], terms[i], truncs[i], info = env.step(action)
            if mode == AutoresetMode.SAME_STEP and (terms[i] or truncs[i]):
                final = {"final_obs": obs, "final_info": info}
                obs, info = env.reset()
                info = {**final, **info}
            self._obs[i], infos[i] = obs, info
        self._ended = (terms | truncs) if mode != AutoresetMode.SAME_STEP else np.zeros(n, np.bool_)
        return self.observations(), rewards, terms, truncs, batch_infos(infos)

    def observations(self) -> Obs:
        """The current batch of observations (a fresh dict of fresh lists)."""
        if not self._started:
            raise EnvError("the envs have not started: call reset() first")
        out: Obs = {k: [o[k] for o in self._obs] for k in self._keys}
        if "screenshot" in out:
            out["screenshot"] = np.stack(out["screenshot"])
        return out

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode is None:
            return None
        return tuple(e.render() for e in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        for e in self.envs:
            e.close()

    # ------------------------------------------------------------------ helpers

    def _seeds(self, seed: int | Sequence[int | None] | None) -> list[int | None]:
        if seed is None:
            return [None] * self.num_envs
        if isinstance(seed, (int, np.integer)):
            return [int(seed) + i for i in range(self.num_envs)]
        seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise EnvError(f"reset got {len(seeds)} seeds for {self.num_envs} envs: pass one "
                           "seed per env, one int (env i gets seed + i) or None")
        return seeds

    def _actions(self, actions: Sequence[Any]) -> list[Any]:
        if isinstance(actions, (str, bytes, dict)):
            raise EnvError(f"step takes a sequence of {self.num_envs} actions, one per env, "
                           f"got one {type(actions).__name__}")
        acts = list(actions)
        if len(acts) != self.num_envs:
            raise EnvError(f"step got {len(acts)} actions for {self.num_envs} envs")
        return acts


def _make_envs(app: AppSpec | str | Path | None, num_envs: int,
               envs: Sequence[PhoneEnv] | None, env_kwargs: dict[str, Any]) -> list[PhoneEnv]:
    if envs is not None:
        if app is not None or env_kwargs:
            raise EnvError("VectorPhoneEnv takes an app (with PhoneEnv settings) or envs, not both")
        out = list(envs)
        if not out:
            raise EnvError("VectorPhoneEnv(envs=...) needs at least one env")
        spaces = (out[0].observation_space, out[0].action_space)
        for i, e in enumerate(out):
            if (e.observation_space, e.action_space) != spaces:
                raise EnvError(f"env {i}'s spaces differ from env 0's: a VectorPhoneEnv steps envs "
                               "of one app with the same settings (fork one env: fork(env, n))")
        return out
    if app is None:
        raise EnvError("VectorPhoneEnv needs an app (a folder, an app.json or an AppSpec) or envs")
    if not isinstance(num_envs, int) or num_envs < 1:
        raise EnvError(f"num_envs must be at least 1, got {num_envs!r}")
    first = PhoneEnv(app, **env_kwargs)
    return [first, *first.fork(num_envs - 1)] if num_envs > 1 else [first]


def _reset_mask(mask: Any, n: int) -> np.ndarray | None:
    if mask is None:
        return None
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (n,):
        raise EnvError(f"options['reset_mask'] must be a numpy bool array of shape ({n},), got "
                       f"{mask!r}")
    if not mask.any():
        raise EnvError("options['reset_mask'] resets no env: set at least one True")
    return mask


def batch_infos(infos: Sequence[dict[str, Any] | None]) -> dict[str, Any]:
    """The envs' infos (None: that env has none) as gymnasium's dict of arrays: for each key an
    (N,) array and an `_<key>` mask of the envs that have it; nested dicts batched alike, except
    `state` and `final_obs` (object arrays of the envs' values, see the module docstring)."""
    n, out = len(infos), {}
    have = [i for i, info in enumerate(infos) if info]
    first = infos[have[0]].keys() if have else {}.keys()  # type: ignore[union-attr]
    uniform = len(have) == n and all(info.keys() == first for info in infos)  # type: ignore[union-attr]
    keys = first if uniform else dict.fromkeys(k for i in have for k in infos[i])  # type: ignore[union-attr]
    everyone = list(range(n))
    for key in keys:
        if uniform:  # the common case: every env has every key
            idx, values = everyone, [info[key] for info in infos]  # type: ignore[index]
            mask = np.ones(n, dtype=np.bool_)
        else:
            idx = [i for i in have if key in infos[i]]  # type: ignore[operator]
            values = [infos[i][key] for i in idx]  # type: ignore[index]
            mask = np.zeros(n, dtype=np.bool_)
            mask[idx] = True
        if key not in _WHOLE and all(isinstance(v, dict) for v in values):
            nested: list[dict[str, Any] | None] = [None] * n
            for i, v in zip(idx, values, strict=True):
                nested[i] = v
            out[key] = batch_infos(nested)
        else:
            out[key] = _column(key, values, idx, n)
        out[f"_{key}"] = mask
    return out


_WHOLE = frozenset({"state", "final_obs"})
_SCALARS = frozenset({bool, int, float})


def _column(key: str, values: list[Any], idx: list[int], n: int) -> np.ndarray:
    """One key's values at positions `idx` of an (N,) array typed as gymnasium types it (by the
    value's type), or an object array when the values' types differ."""
    first, kinds = values[0], {type(v) for v in values}
    if key not in _WHOLE and len(kinds) == 1:
        if kinds <= _SCALARS or isinstance(first, np.number):
            arr = np.zeros(n, dtype=type(first))
            arr[idx] = values
            return arr
        if isinstance(first, np.ndarray) and all(v.shape == first.shape for v in values):
            arr = np.zeros((n, *first.shape), dtype=first.dtype)
            arr[idx] = values
            return arr
    arr = np.full(n, None, dtype=object)
    for i, v in zip(idx, values, strict=True):
        arr[i] = v
    return arr
