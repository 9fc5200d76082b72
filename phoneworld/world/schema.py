"""The world as the task system sees it: one state schema with every app's variables namespaced
(`<package>:<variable>`) plus the device services, the screens a rule's `screen` clause may name
(`<package>:<screen id>`, and the system's), and task instances drawn in it.

`WorldSchema` has the attributes the task checker and the verifier generator read from an app spec
(`package`, `label`, `state`, `initial_state`), so rules, verifiers and diagnostics work on worlds
unchanged. Parameter sources name namespaced data: `<package>:<collection>.<field>`,
`<package>:<variable>`, or a service (`@files.text`, `@notifications.text`, `@clipboard`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from phoneworld.errors import EnvError, InputError
from phoneworld.ir.app import FieldSpec, StateVar
from phoneworld.tasks import spec as s
from phoneworld.tasks.params import TaskInstance, draw_instance
from phoneworld.world.device import CLIPBOARD, FILES, NOTIFICATIONS, World

if TYPE_CHECKING:
    from phoneworld.tasks.codegen import Verifier


@dataclass(frozen=True)
class WorldSchema:
    package: str  # "world:<name>", what a world task's `app` names
    label: str
    state: tuple[StateVar, ...]
    initial_state: dict[str, Any]
    # the screens a `screen` clause names: `<package>:<screen id>` of every app, and the system's
    screens: tuple[str, ...] = ()


def world_package(name: str) -> str:
    return f"world:{name}"


def _text(*names: str) -> tuple[FieldSpec, ...]:
    return tuple(FieldSpec(name=n, kind="text") for n in names)


def schema_of(world: World) -> WorldSchema:
    out: list[StateVar] = []
    for pkg, sim in world.sims.items():
        for v in sim.spec.state:
            out.append(v.model_copy(update={
                "name": f"{pkg}:{v.name}",
                "collection": f"{pkg}:{v.collection}" if v.collection else None}))
    out += [StateVar(name=CLIPBOARD, kind="text", description="the clipboard's text"),
            StateVar(name=FILES, kind="collection", fields=_text("app", "name", "text")),
            StateVar(name=NOTIFICATIONS, kind="collection", fields=_text("app", "package", "text"))]
    world.reset()
    screens = [f"{pkg}:{sc.id}" for pkg, sim in world.sims.items() for sc in sim.spec.screens]
    screens += [sc.id for sc in world.system_spec.screens]
    return WorldSchema(world_package(world.defn.spec.name), world.defn.spec.name, tuple(out),
                       world.state, tuple(screens))


def split_source(source: str) -> tuple[str, str]:
    """(variable, field) of a parameter source; field is "" for a scalar variable."""
    head, colon, rest = source.rpartition(":")
    var, _, field = rest.partition(".")
    return (f"{head}{colon}{var}", field)


def source_values(source: str, state: Mapping[str, Any]) -> list[Any]:
    var, field = split_source(source)
    raw = state.get(var)
    values = [r.get(field) for r in raw if isinstance(r, dict)] if field and isinstance(raw, list) \
        else [raw]
    out: list[Any] = []
    for v in values:
        if v is not None and v != "" and v not in out:
            out.append(v)
    return out


def task_state(spec: s.TaskSpec, schema: WorldSchema,
               params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The world's initial state with the task's overrides. An override may be `{param: NAME}`
    (the stale-clipboard distractor starts the clipboard with another record's text); it takes
    the drawn value (before the draw: nothing)."""
    unknown = [k for k in spec.initial_state if k not in {v.name for v in schema.state}]
    if unknown:
        raise EnvError(f"initial_state sets {unknown[0]!r}, which is no variable of the world")
    out = {**schema.initial_state}
    for k, v in spec.initial_state.items():
        if isinstance(v, dict) and set(v) == {"param"}:
            v = (params or {}).get(v["param"], "")
        out[k] = v
    return out


def instantiate(spec: s.TaskSpec, schema: WorldSchema, seed: int | None = None,
                verify: Verifier | None = None) -> TaskInstance:
    """A draw of a world task (as `phoneworld.tasks.params.instantiate` for one app); the start
    state depends on the draw where an override names a parameter."""
    try:
        task_state(spec, schema)
    except EnvError as exc:
        raise InputError(f"task {spec.id}: {exc}") from exc
    return draw_instance(spec, seed, lambda params: task_state(spec, schema, params),
                         source_values, verify)
