"""Evaluating expressions, guards and effects on a plain state dict, during inference.

The state pass scores candidate effects against recorded steps, on the uncompiled IR. It does so
with the simulator's own evaluator (`phoneworld.runtime.semantics`), against a `StateLayout` of its
schema (variable kinds, record fields, selection variables): each IR expression, guard and effect
is compiled once into the runtime's form and run by the code the simulator runs, so the effect
inference picks is the effect that runs. No rule of the semantics is restated here.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from phoneworld.ir.app import Effect, Expr, FieldSpec, Guard, StateVar
from phoneworld.runtime import semantics as sem
from phoneworld.runtime.compiled import StateLayout, state_layout
from phoneworld.runtime.validate import copy_state
from phoneworld.state.schema import Schema

__all__ = [
    "Context", "apply", "apply_one", "evaluate", "holds", "both", "layout", "selection",
    "state_vars",
]

_IR = TypeVar("_IR")
_Form = TypeVar("_Form")
_CACHE_SIZE = 1 << 16


def both(first: Guard | None, second: Guard) -> Guard:
    """`first and second` (either may already be a conjunction)."""
    if first is None:
        return second
    terms = (first.terms if first.op == "all" else (first,)) + (
        second.terms if second.op == "all" else (second,))
    return Guard(op="all", terms=terms)


def state_vars(schema: Schema, hidden: Set[str] = frozenset()) -> tuple[StateVar, ...]:
    """The schema's variables as the app spec declares them, those in `hidden` left out."""
    out = []
    for name, info in sorted(schema.variables.items()):
        if name in hidden:
            continue
        fields = tuple(
            FieldSpec(name=f, kind=k, default=False if k == "flag" else 0 if k == "number" else "",
                      fmt=fmt)  # type: ignore[arg-type]
            for f, (k, fmt) in sorted(info.fields.items())
        )
        coll = name.removesuffix("_selected") if info.kind == "selection" else None
        out.append(StateVar(name=name, kind=info.kind, fields=fields,  # type: ignore[arg-type]
                            collection=coll, description=info.description))
    return tuple(out)


def layout(schema: Schema) -> StateLayout:
    """What the semantics needs to know of the schema's variables (all of them)."""
    return state_layout(state_vars(schema))


@dataclass(frozen=True, slots=True)
class Context:
    """What an expression can see besides the state: the schema's layout, the hit record (its
    collection and index) and the typed text."""

    layout: StateLayout
    collection: str | None = None
    item: int | None = None
    text: str | None = None

    @property
    def hit(self) -> sem.Hit | None:
        if self.collection is None or self.item is None:
            return None
        return (self.collection, self.item)

    @property
    def typed(self) -> str:
        """The text `Input` reads: the typed text, or "" when nothing was typed."""
        return self.text or ""


class _Compiled(Generic[_IR, _Form]):
    """Runtime forms of IR objects, built once per object: a candidate is scored on every sample
    of its trigger. Keyed by identity (IR models are frozen; some, like an append's record, are
    unhashable); an entry holds its object, so no other object can take its id meanwhile."""

    def __init__(self, build: Callable[[_IR], _Form]) -> None:
        self._build = build
        self._entries: dict[int, tuple[_IR, _Form]] = {}

    def __call__(self, obj: _IR) -> _Form:
        entry = self._entries.get(id(obj))
        if entry is None:
            if len(self._entries) >= _CACHE_SIZE:
                self._entries.clear()
            entry = self._entries[id(obj)] = (obj, self._build(obj))
        return entry[1]


def _guard_transition(guard: Guard) -> sem.CTransition:
    return sem.CTransition("", sem.compile_guard(guard), (), None, "stay")


_expr = _Compiled(sem.compile_expr)
_effect = _Compiled(sem.compile_effect)
_guard = _Compiled(_guard_transition)


def evaluate(expr: Expr, state: dict[str, Any], ctx: Context) -> Any:
    """The raw value of `expr` in `state`."""
    rec = sem.hit_record(state, ctx.hit)
    return sem.eval_expr(ctx.layout, state, _expr(expr), rec, ctx.typed)


def holds(guard: Guard, state: dict[str, Any], ctx: Context) -> bool:
    return sem.guard_holds(ctx.layout, state, _guard(guard), ctx.hit, ctx.typed)


def selection(state: dict[str, Any], collection: str, ctx: Context) -> Any:
    """The value of `collection`'s selection variable: its selected record's index, or None."""
    sel = ctx.layout.selection_of.get(collection)
    return state.get(sel) if sel is not None else None


def apply(effects: tuple[Effect, ...], state: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """A new state: `effects` applied in order to a copy of `state`."""
    out: dict[str, Any] = copy_state(state)
    _run(effects, out, ctx)
    return out


def apply_one(effect: Effect, state: dict[str, Any], ctx: Context) -> None:
    """Apply `effect` to `state` in place."""
    _run((effect,), state, ctx)


def _run(effects: tuple[Effect, ...], state: dict[str, Any], ctx: Context) -> None:
    t = sem.CTransition("", None, tuple(_effect(e) for e in effects), None, "stay")
    sem.apply_effects(ctx.layout, state, t, ctx.hit, ctx.typed)
