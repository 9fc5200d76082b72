"""The runtime: compiled apps as Gymnasium environments over swappable backends (DESIGN section 5).

Public API: `PhoneEnv` (the env), `Simulator` (the in-process state machine), the `Backend`
protocol with `SimBackend`, `Obs`, `StepResult`, `load_app`. The env is also registered with
Gymnasium as `phoneworld/Phone-v0` (`gymnasium.make("phoneworld/Phone-v0", app="path/to/app")`).
"""

from __future__ import annotations

import gymnasium

from phoneworld.runtime.appdir import load_app
from phoneworld.runtime.backend import Backend, Obs, SimBackend
from phoneworld.runtime.env import PhoneEnv
from phoneworld.runtime.render import Element
from phoneworld.runtime.sim import SimSnapshot, Simulator, StepResult

ENV_ID = "phoneworld/Phone-v0"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="phoneworld.runtime.env:PhoneEnv")

__all__ = [
    "ENV_ID", "Backend", "Element", "Obs", "PhoneEnv", "SimBackend", "SimSnapshot", "Simulator",
    "StepResult", "load_app",
]
