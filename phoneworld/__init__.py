"""phoneworld: compile recorded Android GUI traces into runnable mock apps, and run them.

The public API (httpx is the model: small modules behind these names)::

    import phoneworld

    result = phoneworld.build(phoneworld.BuildConfig(traces="examples/traces", out="out"))
    env = phoneworld.PhoneEnv(result.apps[0].path)    # a Gymnasium env over the simulator
    obs, info = env.reset(seed=0)

- compile: `build(config)` -> `BuildResult`, `BuildConfig`;
- run: `PhoneEnv` (one app), `load_app` (an app spec from a built folder or `app.json`);
- worlds (several apps on one device): `load_world`, `World`, `world_env`;
- errors: `PhoneworldError` and its subclasses (`InputError`, `UsageError`, `OutputError`,
  `ToolchainError`, `EnvError`, `AppSpecError`, `ActionBlocked`, `DeviceError` and its family);
- `__version__`.

Everything but the errors loads on first use (PEP 562), so `import phoneworld` pulls in none of
gymnasium, numpy, lxml, jinja2, torch, transformers or trl. The packages behind these names have
public APIs of their own: `phoneworld.runtime`, `phoneworld.tasks`, `phoneworld.world`,
`phoneworld.devices`; training is `phoneworld.rl` (the `rl` extra).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from phoneworld.errors import (
    ActionBlocked, AppCrashedError, AppSpecError, DeviceError, DeviceLostError, DeviceTimeoutError,
    DumpError, EnvError, InputError, InstallError, OutputError, PhoneworldError, ToolchainError,
    UsageError,
)

if TYPE_CHECKING:
    from phoneworld.pipeline import BuildConfig, BuildResult, build
    from phoneworld.runtime.appdir import load_app
    from phoneworld.runtime.env import PhoneEnv
    from phoneworld.world.device import World
    from phoneworld.world.env import world_env
    from phoneworld.world.load import load_world

_EXPORTS = {
    "build": "phoneworld.pipeline", "BuildConfig": "phoneworld.pipeline",
    "BuildResult": "phoneworld.pipeline", "PhoneEnv": "phoneworld.runtime",
    "load_app": "phoneworld.runtime", "World": "phoneworld.world",
    "world_env": "phoneworld.world", "load_world": "phoneworld.world",
}
_ERRORS = [
    "ActionBlocked", "AppCrashedError", "AppSpecError", "DeviceError", "DeviceLostError",
    "DeviceTimeoutError", "DumpError", "EnvError", "InputError", "InstallError", "OutputError",
    "PhoneworldError", "ToolchainError", "UsageError",
]
__all__ = sorted([*_EXPORTS, *_ERRORS, "__version__"])

# The version of a source tree that was never installed (no package metadata to read).
_UNKNOWN_VERSION = "0+unknown"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(__name__)
    except PackageNotFoundError:
        return _UNKNOWN_VERSION


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value: Any = _version()
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return list(__all__)
