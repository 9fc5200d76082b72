"""Cross-app worlds: several compiled apps on one simulated device, with a launcher, recents, a
clipboard, a share sheet, a shared files area and notifications, and tasks that span apps.

    spec.py     the world spec (YAML), load.py loading it (PW4xx diagnostics)
    system.py   the device's own screens; wiring.py which widgets use which service
    device.py   `World`, the runtime; env.py `world_env`, the Gymnasium env
    schema.py   the world's state schema and task draws; check.py world task specs; oracle.py

Public API (names load lazily, as in `phoneworld.runtime` and `phoneworld.tasks`): `load_world`,
`WorldDef`, `World`, `WorldBackend`, `world_env`; for world tasks `schema_of(world)` ->
`WorldSchema`, `load_world_tasks(paths, schema)`, `instantiate_world_task(spec, schema, seed)`
and `solve_world_task(world, schema, instance, verifier)` (the one-app counterparts are
`phoneworld.tasks.instantiate` and `phoneworld.tasks.solve`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from phoneworld.world.check import load_world_tasks
    from phoneworld.world.device import World
    from phoneworld.world.env import WorldBackend, world_env
    from phoneworld.world.load import WorldDef, load_world
    from phoneworld.world.oracle import solve as solve_world_task
    from phoneworld.world.schema import WorldSchema, schema_of
    from phoneworld.world.schema import instantiate as instantiate_world_task

# public name -> (module, name there)
_EXPORTS = {
    "World": ("device", "World"), "WorldBackend": ("env", "WorldBackend"),
    "world_env": ("env", "world_env"), "WorldDef": ("load", "WorldDef"),
    "load_world": ("load", "load_world"), "WorldSchema": ("schema", "WorldSchema"),
    "schema_of": ("schema", "schema_of"), "load_world_tasks": ("check", "load_world_tasks"),
    "instantiate_world_task": ("schema", "instantiate"), "solve_world_task": ("oracle", "solve"),
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _EXPORTS[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), attr)
