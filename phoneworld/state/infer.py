"""Effect and guard inference: explain each recorded state change by a symbolic effect.

Steps are grouped by trigger (screen, action, widget). For every variable or collection that a
step changed, candidate effects are proposed from that step (typed input, another variable's value,
the hit or selected record's field, a toggle, a numeric step, a constant; append / remove / update
for collections) and each candidate is scored on all the group's steps where the result is visible.
A trigger whose steps go to different screens, or whose steps need different effects, is split by
a guard: a condition on the state before the step (before its structural effects too: the
simulator checks a guard before it runs any effect) that separates them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from phoneworld.ir.app import (
    AddEffect, AppendEffect, Effect, Expr, Guard, Input, ItemField, Lit, RecordRef, RemoveEffect,
    RemoveWhereEffect, Selected, SelectEffect, SetEachEffect, SetEffect, ToggleEffect, Var, VarRef,
)
from phoneworld.ir.graph import ObservedStep
from phoneworld.runtime.frame import masked
from phoneworld.runtime.semantics import hit_record
from phoneworld.state.effects import Context, apply, holds, selection
from phoneworld.state.schema import Schema
from phoneworld.state.track import enters, entry_label

_SCALARS = ("text", "number", "flag")


@dataclass
class Sample:
    """One recorded step: the state its guard reads (before the step, as the simulator checks
    guards before running effects), the state its inferred effects start from (after the step's
    structural effects: the opened record selected, how the next screen was entered), and the
    state visible after it."""

    step: ObservedStep
    guarded: dict[str, Any]
    before: dict[str, Any]
    after: dict[str, Any]  # only what the next screen shows
    ctx: Context
    # variables no screen had shown yet (in recording order): `guarded` holds their defaults,
    # not what the app held, so no guard reads them
    unseen: frozenset[str] = frozenset()


@dataclass
class Branch:
    guard: Guard | None
    target: str
    samples: list[Sample]
    effects: tuple[Effect, ...]
    explained: int


def infer_effects(schema: Schema, samples: list[Sample]) -> tuple[tuple[Effect, ...], int]:
    """The effects that best explain `samples` (all of one trigger and target), and how many
    samples they explain completely."""
    targets = sorted({name for s in samples for name in s.after
                      if s.after[name] != s.before.get(name)})
    chosen: list[Effect] = []
    for name in targets:
        chosen += _best_effects(schema, name, samples)
    effects = tuple(sorted(chosen, key=_effect_order))
    return effects, sum(_explains(schema, effects, s) for s in samples)


def _effect_order(effect: Effect) -> int:
    return {"select": 0, "append": 1, "remove": 2, "remove_where": 2, "set": 3, "add": 3,
            "toggle": 3, "set_each": 3}[effect.kind]


def _explains(schema: Schema, effects: tuple[Effect, ...], sample: Sample) -> bool:
    predicted = apply(effects, sample.before, sample.ctx)
    return all(_same(schema, k, predicted.get(k), v) for k, v in sample.after.items())


def _same(schema: Schema, name: str, predicted: Any, shown: Any) -> bool:
    """Whether a predicted value is the one the screen showed: for a password field, as the
    field shows both (typed "secret" is the "••••••" recorded)."""
    if predicted == shown:
        return True
    info = schema.variables.get(name)
    return (info is not None and info.masked and isinstance(predicted, str)
            and isinstance(shown, str) and masked(predicted) == masked(shown))


def _best_effects(schema: Schema, name: str, samples: list[Sample]) -> list[Effect]:
    """The effect on `name` that matches the most samples where it shows, if more than leaving
    it alone does. A collection's record may take more than one: each further effect is kept
    while it matches more samples and none that matched before stops matching (an editor that
    keeps both its fields sets both of the record's: a sample that changed the title and one
    that changed the text each show one)."""
    candidates: Counter[str] = Counter()
    by_key: dict[str, Effect] = {}
    for s in samples:
        if name in s.after and s.after[name] != s.before.get(name):
            for effect in _candidates(schema, name, s):
                key = effect.model_dump_json()
                by_key[key] = effect
                candidates[key] += 1
    visible = [s for s in samples if name in s.after]
    matched = {i for i, s in enumerate(visible) if s.after[name] == s.before.get(name)}
    chosen: list[Effect] = []
    while True:
        best: tuple[int, int, str, set[int]] | None = None
        for rank, (key, _) in enumerate(candidates.most_common()):
            effects = tuple(sorted([*chosen, by_key[key]], key=_effect_order))
            hits = {i for i, s in enumerate(visible) if _matches(schema, effects, name, s)}
            if len(hits) > len(matched) and (not chosen or hits >= matched) \
                    and (best is None or len(hits) > best[0]):
                best = (len(hits), rank, key, hits)
        if best is None:
            return chosen
        chosen.append(by_key.pop(best[2]))
        del candidates[best[2]]
        matched = best[3]
        if schema.variables[name].kind != "collection":
            return chosen


def _matches(schema: Schema, effects: tuple[Effect, ...], name: str, s: Sample) -> bool:
    return _same(schema, name, apply(effects, s.before, s.ctx).get(name), s.after[name])


def _candidates(schema: Schema, name: str, s: Sample) -> list[Effect]:
    info = schema.variables[name]
    if info.kind == "collection":
        return _collection_candidates(schema, name, s)
    if info.kind not in _SCALARS:
        return []
    new, old = s.after[name], s.before.get(name)
    ref = VarRef(name=name)
    out: list[Effect] = [SetEffect(ref=ref, value=e)
                         for e in _sources(schema, new, s, exclude=name, masks=info.masked)]
    if info.kind == "flag" and isinstance(old, bool) and new == (not old):
        out.insert(0, ToggleEffect(ref=ref))
    if info.kind == "number" and isinstance(new, int) and isinstance(old, int):
        out.append(AddEffect(ref=ref, delta=new - old))
    return out


def _sources(schema: Schema, value: Any, s: Sample, exclude: str = "", masks: bool = False
             ) -> list[Expr]:
    """Expressions that evaluate to `value` before the step, most specific first (`masks`: the
    value is a password field's, shown masked)."""
    out: list[Expr] = []
    if isinstance(value, str) and value and isinstance(s.ctx.text, str) and (
            s.ctx.text == value or masks and masked(s.ctx.text) == masked(value)):
        out.append(Input())
    if value not in ("", None, False, 0):
        if s.ctx.collection and s.ctx.item is not None:
            rec = _nth(s.before.get(s.ctx.collection), s.ctx.item)
            out += [ItemField(field=f) for f, v in sorted(rec.items()) if v == value]
        for coll, info in sorted(schema.variables.items()):
            if info.kind == "collection":
                rec = _nth(s.before.get(coll), selection(s.before, coll, s.ctx))
                out += [Selected(collection=coll, field=f) for f, v in sorted(rec.items())
                        if v == value]
        out += [Var(name=n) for n, v in sorted(s.before.items())
                if n != exclude and v == value and schema.variables[n].kind in _SCALARS]
    if isinstance(value, (str, int, bool)):
        out.append(Lit(value=value))
    return out


def _nth(records: Any, index: Any) -> dict[str, Any]:
    if isinstance(records, list) and isinstance(index, int) and 0 <= index < len(records):
        return records[index]
    return {}


def _collection_candidates(schema: Schema, name: str, s: Sample) -> list[Effect]:
    old, new = s.before.get(name) or [], s.after[name]
    if len(new) == len(old) + 1:
        return _append_candidates(schema, name, old, new, s)
    out: list[Effect] = []
    if len(new) == len(old) - 1:
        index = next((i for i in range(len(new)) if new[i] != old[i]), len(new))
        if s.ctx.collection == name and s.ctx.item == index:
            out.append(RemoveEffect(collection=name, target="item"))
        if selection(s.before, name, s.ctx) == index:
            out.append(RemoveEffect(collection=name, target="selected"))
    if len(new) < len(old):
        return out + _remove_where_candidates(schema, name, old, new)
    if len(new) == len(old):
        diff = [i for i in range(len(new)) if new[i] != old[i]]
        if len(diff) == 1:
            out = _record_candidates(schema, name, diff[0], old[diff[0]], new[diff[0]], s)
        return (out + _set_each_candidates(schema, name, old, new)) if diff else out
    return []


def _flags(schema: Schema, name: str) -> list[str]:
    return sorted(f for f, (kind, _) in schema.variables[name].fields.items() if kind == "flag")


def _remove_where_candidates(schema: Schema, name: str, old: list[Any], new: list[Any]
                             ) -> list[Effect]:
    """A list that lost every record whose flag held one value and kept the others, in order:
    "Clear completed", "Delete checked items". Read on flags only: a text that the removed
    records happened to share would name one record, not the rule."""
    out: list[Effect] = []
    for f in _flags(schema, name):
        for value in (True, False):
            if [r for r in old if r.get(f) != value] == new:
                out.append(RemoveWhereEffect(collection=name, field=f, value=value))
    return out


def _set_each_candidates(schema: Schema, name: str, old: list[Any], new: list[Any]
                         ) -> list[Effect]:
    """A list whose records all hold one value of a flag afterwards, nothing else changed:
    "Uncheck all", "Mark all as read"."""
    out: list[Effect] = []
    for f in _flags(schema, name):
        for value in (True, False):
            if [{**r, f: value} for r in old] == new:
                out.append(SetEachEffect(collection=name, field=f, value=value))
    return out


def _append_candidates(schema: Schema, name: str, old: list[Any], new: list[Any], s: Sample
                       ) -> list[Effect]:
    position = "end" if new[:-1] == old else "start" if new[1:] == old else None
    if position is None:
        return []
    record = new[-1] if position == "end" else new[0]
    fields = {f: _sources(schema, v, s)[0] for f, v in sorted(record.items())}
    return [AppendEffect(collection=name, record=fields, position=position)]


def _record_candidates(schema: Schema, name: str, index: int, old: dict[str, Any],
                       new: dict[str, Any], s: Sample) -> list[Effect]:
    targets = []
    if s.ctx.collection == name and s.ctx.item == index:
        targets.append("item")
    if selection(s.before, name, s.ctx) == index:
        targets.append("selected")
    kinds = schema.variables[name].fields
    out: list[Effect] = []
    for target in targets:
        for f in sorted(k for k in new if new[k] != old.get(k)):
            ref = RecordRef(collection=name, target=target, field=f)  # type: ignore[arg-type]
            if isinstance(new[f], bool) and old.get(f) == (not new[f]):
                out.append(ToggleEffect(ref=ref))
            out += [SetEffect(ref=ref, value=e) for e in _sources(schema, new[f], s)]
            # a stepper in a row (+ / −) counts the record's number, as a plain counter's does
            if kinds.get(f, ("", ""))[0] == "number" and _ints(old.get(f), new[f]):
                out.append(AddEffect(ref=ref, delta=new[f] - old[f]))
    return out


def _ints(*values: Any) -> bool:
    return all(isinstance(v, int) and not isinstance(v, bool) for v in values)


def guard_candidates(schema: Schema, screen_vars: set[str], samples: list[Sample]) -> list[Guard]:
    """Conditions worth trying, those on the current screen's variables first."""
    names: set[str] = set()
    values: dict[str, set[Any]] = defaultdict(set)
    unseen = frozenset().union(*(s.unseen for s in samples))
    for s in samples:
        for n, v in s.guarded.items():
            kind = schema.variables[n].kind
            if kind in ("text", "flag") and n not in unseen:
                names.add(n)
                values[n].add(v)
    guards: list[Guard] = []
    for n in sorted(names, key=lambda n: (n not in screen_vars, n)):
        kind = schema.variables[n].kind
        if n in schema.entry_vars.values():
            guards += [Guard(op="eq", left=Var(name=n), right=Lit(value=v))
                       for v in sorted(values[n]) if isinstance(v, str)]
        elif kind == "flag":
            guards.append(Guard(op="true", left=Var(name=n)))
        else:
            guards.append(Guard(op="nonempty", left=Var(name=n)))
    return guards + _entry_guards(samples)


def typed_guards(schema: Schema, screen_vars: set[str], samples: list[Sample]) -> list[Guard]:
    """What a field of this screen held, one guard per text it held (`eq`): a form's submit that
    went somewhere only when a field held one text (the account that signs in, the code that is
    accepted), an exit that keeps nothing while the fields show their hints. Tried for targets
    only as a condition that tells one outcome from all others exactly, for effects where it
    explains more steps."""
    values: dict[str, set[str]] = defaultdict(set)
    for s in samples:
        for n in screen_vars:
            v = s.guarded.get(n)
            if schema.variables[n].typed and isinstance(v, str) and v:
                values[n].add(v)
    return [Guard(op="eq", left=Var(name=n), right=Lit(value=v))
            for n in sorted(values) if len(values[n]) > 1 for v in sorted(values[n])]


def _entry_guards(samples: list[Sample]) -> list[Guard]:
    """Which row was tapped, by a text of its own: the entries of a menu ("Edit", "Delete") lead
    to different screens, as a folder and a file of one list do."""
    values: dict[str, set[str]] = defaultdict(set)
    for s in samples:
        rec = hit_record(s.guarded, s.ctx.hit)
        for f, v in (rec or {}).items():
            if isinstance(v, str) and v:
                values[f].add(v)
    return [Guard(op="eq", left=ItemField(field=f), right=Lit(value=v))
            for f in sorted(values) if len(values[f]) > 1 for v in sorted(values[f])]


_NEGATED = {"nonempty": "empty", "empty": "nonempty", "eq": "ne", "ne": "eq", "true": "false",
            "false": "true"}


def negation(guard: Guard) -> Guard:
    """`not guard` (of a single condition; a conjunction is returned as is)."""
    op = _NEGATED.get(guard.op)
    return guard if op is None else guard.model_copy(update={"op": op})


def split(guard: Guard, samples: list[Sample]) -> tuple[list[Sample], list[Sample]]:
    yes = [s for s in samples if holds(guard, s.guarded, s.ctx)]
    no = [s for s in samples if not holds(guard, s.guarded, s.ctx)]
    return yes, no


def structural_effects(schema: Schema, step: ObservedStep) -> tuple[Effect, ...]:
    """Effects the screens cannot show: opening a record selects it; entering a screen that can
    be entered in several ways records which."""
    out: list[Effect] = []
    if step.next_screen != step.screen:
        coll = schema.list_vars.get((step.screen, step.list_widget or ""))
        if coll is not None and step.item is not None:
            out.append(SelectEffect(collection=coll))
    entry = schema.entry_vars.get(step.next_screen)
    if entry is not None and enters(step, schema.closed_over):
        out.append(SetEffect(ref=VarRef(name=entry), value=Lit(value=entry_label(step))))
    return tuple(out)
