"""The report's state section: the inferred state schema, what writes each variable, the guards."""

from __future__ import annotations

import json
from dataclasses import dataclass

from phoneworld.ir.app import AppSpec
from phoneworld.report.exprs import action_text, effect_text, effect_vars, guard_text, guard_vars

INITIAL_CHARS = 160  # an initial value longer than this is cut in the table


@dataclass(frozen=True)
class Write:
    transition: str
    screen: str
    action: str
    effect: str


@dataclass(frozen=True)
class VarRow:
    name: str
    kind: str
    fields: str
    initial: str
    description: str
    source: str
    writes: tuple[Write, ...]
    guarded_by: tuple[str, ...]  # transition ids whose guard reads the variable


@dataclass(frozen=True)
class GuardRow:
    transition: str
    screen: str
    action: str
    guard: str
    target: str


@dataclass(frozen=True)
class StateView:
    variables: tuple[VarRow, ...]
    guards: tuple[GuardRow, ...]
    unexplained: tuple[str, ...]


def _initial(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= INITIAL_CHARS else text[: INITIAL_CHARS - 1] + "…"


def state_view(spec: AppSpec, unexplained: tuple[str, ...]) -> StateView:
    selections = {v.collection: v.name for v in spec.state
                  if v.kind == "selection" and v.collection is not None}
    writes: dict[str, list[Write]] = {}
    guarded: dict[str, list[str]] = {}
    guards = []
    for t in spec.transitions:
        for e in t.effects:
            for name in effect_vars(e, selections):
                writes.setdefault(name, []).append(
                    Write(t.id, t.screen, action_text(t), effect_text(e)))
        if t.guard is not None:
            guards.append(GuardRow(t.id, t.screen, action_text(t), guard_text(t.guard),
                                   t.target or t.screen))
            for name in sorted(guard_vars(t.guard)):
                guarded.setdefault(name, []).append(t.id)
    rows = tuple(
        VarRow(v.name, v.kind, ", ".join(f"{f.name}: {f.kind}" for f in v.fields)
               or (f"selects a record of {v.collection}" if v.collection else ""),
               _initial(spec.initial_state.get(v.name)), v.description,
               v.source.render() if v.source else "", tuple(writes.get(v.name, ())),
               tuple(guarded.get(v.name, ())))
        for v in spec.state
    )
    return StateView(rows, tuple(guards), unexplained)
