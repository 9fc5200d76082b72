"""The runtime: compiled apps as Gymnasium environments over swappable backends (DESIGN section 5).

Public API: `PhoneEnv` (the env, with `EnvSnapshot`), `VectorPhoneEnv` (N envs batched in one
process, a gymnasium `VectorEnv`), `Simulator` (the in-process state machine), the `Backend`
protocol with `SimBackend`, `Obs`, `StepResult`, `SimSnapshot`, `Element`, `load_app`,
`random_action` (the random policy of `phoneworld run`).
Names load lazily, so `phoneworld.runtime.sim` (used by the compiler's fidelity pass) does not pull
in gymnasium. Importing `phoneworld.runtime.env` registers the env with Gymnasium as
`phoneworld/Phone-v0`: `gymnasium.make("phoneworld.runtime.env:phoneworld/Phone-v0", app=path)`;
`gymnasium.make_vec` of it, with `num_envs=N`, makes a `VectorPhoneEnv`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from phoneworld.runtime.appdir import load_app
    from phoneworld.runtime.backend import Backend, Obs, SimBackend
    from phoneworld.runtime.env import ENV_ID, EnvSnapshot, PhoneEnv
    from phoneworld.runtime.episode import random_action
    from phoneworld.runtime.render import Element
    from phoneworld.runtime.sim import SimSnapshot, Simulator, StepResult
    from phoneworld.runtime.vector import VectorPhoneEnv

_EXPORTS = {
    "load_app": "appdir", "Backend": "backend", "Obs": "backend", "SimBackend": "backend",
    "ENV_ID": "env", "EnvSnapshot": "env", "PhoneEnv": "env", "random_action": "episode",
    "Element": "render",
    "SimSnapshot": "sim", "Simulator": "sim", "StepResult": "sim", "VectorPhoneEnv": "vector",
}
__all__ = [
    "ENV_ID", "Backend", "Element", "EnvSnapshot", "Obs", "PhoneEnv", "SimBackend", "SimSnapshot",
    "Simulator", "StepResult", "VectorPhoneEnv", "load_app", "random_action",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
