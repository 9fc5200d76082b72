"""Evaluating expressions, guards and effects on a plain state dict, during inference.

The state pass uses this to score candidate effects against recorded steps, on the uncompiled
IR. The meaning of every construct is the runtime's (`phoneworld.runtime.semantics`, whose
conventions for truthiness, emptiness and text comparison are imported here, not restated).
"""

from __future__ import annotations

import copy
from typing import Any

from phoneworld.ir.app import (
    AddEffect, AppendEffect, Choose, Count, Effect, Expr, Guard, Input, ItemField, Lit, RecordRef,
    RemoveEffect, Selected, SelectEffect, SetEffect, ToggleEffect, Var, VarRef,
)

from phoneworld.runtime.semantics import truthy, value_text

__all__ = ["Context", "apply", "apply_one", "evaluate", "holds", "both"]


def both(first: Guard | None, second: Guard) -> Guard:
    """`first and second` (either may already be a conjunction)."""
    if first is None:
        return second
    terms = (first.terms if first.op == "all" else (first,)) + (
        second.terms if second.op == "all" else (second,))
    return Guard(op="all", terms=terms)


class Context:
    """What an expression can see besides the state: the hit record and the typed text."""

    def __init__(self, collection: str | None = None, item: int | None = None,
                 text: str | None = None) -> None:
        self.collection = collection
        self.item = item
        self.text = text


def _record(state: dict[str, Any], collection: str, index: int | None) -> dict[str, Any] | None:
    records = state.get(collection)
    if not isinstance(records, list) or index is None or not 0 <= index < len(records):
        return None
    return records[index]


def evaluate(expr: Expr, state: dict[str, Any], ctx: Context) -> Any:
    if isinstance(expr, Lit):
        return expr.value
    if isinstance(expr, Var):
        return state.get(expr.name)
    if isinstance(expr, Input):
        return ctx.text
    if isinstance(expr, ItemField):
        rec = _record(state, ctx.collection or "", ctx.item)
        return None if rec is None else rec.get(expr.field)
    if isinstance(expr, Selected):
        rec = _record(state, expr.collection, state.get(f"{expr.collection}_selected"))
        return None if rec is None else rec.get(expr.field)
    if isinstance(expr, Count):
        records = state.get(expr.collection)
        return len(records) if isinstance(records, list) else 0
    if isinstance(expr, Choose):
        return expr.then if truthy(evaluate(expr.cond, state, ctx)) else expr.otherwise
    raise TypeError(expr)


def holds(guard: Guard, state: dict[str, Any], ctx: Context) -> bool:
    if guard.op == "all":
        return all(holds(term, state, ctx) for term in guard.terms)
    left = evaluate(guard.left, state, ctx) if guard.left is not None else None
    right = evaluate(guard.right, state, ctx) if guard.right is not None else None
    empty = left is None or left == "" or left == []
    return {
        "nonempty": lambda: not empty,
        "empty": lambda: empty,
        "eq": lambda: value_text(left) == value_text(right),
        "ne": lambda: value_text(left) != value_text(right),
        "true": lambda: truthy(left),
        "false": lambda: not truthy(left),
    }[guard.op]()


def _read_ref(ref: VarRef | RecordRef, state: dict[str, Any], ctx: Context) -> Any:
    if isinstance(ref, VarRef):
        return state.get(ref.name)
    rec = _target_record(ref, state, ctx)
    return None if rec is None else rec.get(ref.field)


def _target_record(ref: RecordRef, state: dict[str, Any], ctx: Context) -> dict[str, Any] | None:
    index = ctx.item if ref.target == "item" else state.get(f"{ref.collection}_selected")
    return _record(state, ref.collection, index)


def _write_ref(ref: VarRef | RecordRef, value: Any, state: dict[str, Any], ctx: Context) -> None:
    if isinstance(ref, VarRef):
        state[ref.name] = value
        return
    rec = _target_record(ref, state, ctx)
    if rec is not None:
        rec[ref.field] = value


def apply(effects: tuple[Effect, ...], state: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """A new state: `effects` applied in order to a copy of `state`."""
    out = copy.deepcopy(state)
    for effect in effects:
        apply_one(effect, out, ctx)
    return out


def apply_one(effect: Effect, state: dict[str, Any], ctx: Context) -> None:
    if isinstance(effect, SetEffect):
        _write_ref(effect.ref, evaluate(effect.value, state, ctx), state, ctx)
    elif isinstance(effect, AddEffect):
        old = _read_ref(effect.ref, state, ctx)
        if isinstance(old, int) and not isinstance(old, bool):
            _write_ref(effect.ref, old + effect.delta, state, ctx)
    elif isinstance(effect, ToggleEffect):
        _write_ref(effect.ref, not _read_ref(effect.ref, state, ctx), state, ctx)
    elif isinstance(effect, AppendEffect):
        record = {k: evaluate(v, state, ctx) for k, v in effect.record.items()}
        records = state.setdefault(effect.collection, [])
        if effect.position == "start":
            records.insert(0, record)
        else:
            records.append(record)
    elif isinstance(effect, RemoveEffect):
        _remove(effect, state, ctx)
    elif isinstance(effect, SelectEffect):
        if ctx.collection == effect.collection and ctx.item is not None:
            state[f"{effect.collection}_selected"] = ctx.item


def _remove(effect: RemoveEffect, state: dict[str, Any], ctx: Context) -> None:
    sel_name = f"{effect.collection}_selected"
    index = ctx.item if effect.target == "item" else state.get(sel_name)
    records = state.get(effect.collection)
    if isinstance(records, list) and index is not None and 0 <= index < len(records):
        del records[index]
        if effect.target == "selected":
            state[sel_name] = None
