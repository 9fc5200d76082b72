"""`synthesize(app)`: every task synthesis proposes for an app, as task specs.

Tasks the recording states come first (`recorded`: a session recorded for an instruction).
Single drafts come from `synth` (state-changing; one whose change lies past a sign-in says what
to type on the way, `synth_navigation.via_sign_in`), `synth_answers` (questions) and
`synth_navigation` (screens to open, last, so that they never crowd the others out); pairs combine
two state-changing drafts of different kinds ("Add a note titled "A" and turn on Dark mode"), with
their parameters renamed apart, drawn distinct where they come from the same data, and their
count pins added up. Duplicates are dropped, each synthesized kind is capped (every recorded
instruction is kept: it is what the user asked for), and ids are made unique.
Which of these tasks are kept is the sanity check's decision (`phoneworld.tasks.sanity`); the
build checks the single tasks first and pairs up only those it kept (`pair_from`).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from phoneworld.errors import UsageError
from phoneworld.ir.app import AppSpec
from phoneworld.tasks.drafts import Draft, app_facts, to_spec
from phoneworld.tasks.recorded import RECORDED, Goal
from phoneworld.tasks.recorded import drafts as recorded_drafts
from phoneworld.tasks.spec import TaskSpec
from phoneworld.tasks.synth import state_changing
from phoneworld.tasks.synth_answers import questions
from phoneworld.tasks.synth_navigation import given_texts, navigations, via_sign_in

PAIRABLE = ("create", "edit", "toggle", "delete", "setting", "counter", "fill")
DUPLICATE = "duplicate of another task"
CAPPED = "over the per-kind cap"


@dataclass(frozen=True)
class SynthConfig:
    """How many tasks synthesis proposes per app."""

    max_per_kind: int = field(default=12, metadata={
        "help": "Synthesized tasks per kind at most (every recorded instruction is kept)."})
    max_pairs: int = field(default=8, metadata={"help": "Combined (two-effect) tasks at most."})
    nav_min_steps: int = field(default=1, metadata={
        "help": "Fewest transitions from the start screen to a screen a navigate task opens "
                "(2: none of the screens one tap away)."})

    def __post_init__(self) -> None:
        if self.max_per_kind < 1 or self.max_pairs < 0 or self.nav_min_steps < 1:
            raise UsageError("max_per_kind and nav_min_steps must be >= 1 and max_pairs >= 0, "
                             f"got {self.max_per_kind}, {self.nav_min_steps}, {self.max_pairs}")


@dataclass
class Synthesis:
    tasks: list[TaskSpec]
    dropped: Counter[str]

    @property
    def proposed(self) -> int:
        return len(self.tasks) + sum(self.dropped.values())


def _rename(raw: Any, names: dict[str, str]) -> Any:
    if isinstance(raw, dict):
        if set(raw) == {"param"} and raw["param"] in names:
            return {"param": names[raw["param"]]}
        return {k: _rename(v, names) for k, v in raw.items()}
    if isinstance(raw, list):
        return [_rename(v, names) for v in raw]
    return raw


def combine(a: Draft, b: Draft) -> Draft | None:
    """One task doing `a` and then `b`, or None when they cannot go together: they start from
    different states, or one types on the way into a field the other sets (a sign-in's account
    field)."""
    if any(a.initial_state.get(k, v) != v for k, v in b.initial_state.items()) \
            or set(a.way) & set(b.targets) or set(b.way) & set(a.targets):
        return None
    if b.way and set(b.way) <= set(a.way):  # typed on the way to `a` already: said once
        b = replace(b, instruction=b.instruction.rsplit("; on the way, ", 1)[0], way=(),
                    params={k: v for k, v in b.params.items() if k not in b.way})
    names = {p: f"{p}_2" for p in b.params if p in a.params}
    params: dict[str, Any] = {k: dict(v) for k, v in a.params.items()}
    for p, spec in b.params.items():
        spec = dict(spec)
        same = [q for q, s in a.params.items() if s.get("source") and s.get("source") == spec.get("source")]
        if same:
            spec["distinct_from"] = same
        params[names.get(p, p)] = spec
    second = b.instruction
    for old, new in names.items():
        second = second.replace("{" + old + "}", "{" + new + "}")
    second = second[:1].lower() + second[1:] if not second[:2].isupper() else second
    deltas = dict(a.deltas)
    for k, (lo, hi) in b.deltas.items():
        lo0, hi0 = deltas.get(k, (0, 0))
        deltas[k] = (lo0 + lo, hi0 + hi)
    touches: dict[str, tuple[Any, ...] | None] = dict(a.touches)
    for coll, named in b.touches.items():
        mine = touches.get(coll, ())
        touches[coll] = None if mine is None or named is None else (
            *mine, *_rename(list(named), names))
    return Draft("pair", f"{a.slug}_and_{b.slug}", f"{a.instruction.rstrip('.')} and {second}",
                 a.clauses + _rename(b.clauses, names), params, deltas,
                 {**a.initial_state, **b.initial_state}, kinds=(a.kind, b.kind),
                 targets=a.targets + b.targets, touches=touches, way=a.way + b.way,
                 edits={c: tuple(sorted({*a.edits.get(c, ()), *b.edits.get(c, ())}))
                        for c in {*a.edits, *b.edits}})


def pairs(by_kind: dict[str, list[Draft]], limit: int) -> list[Draft]:
    kinds = [k for k in PAIRABLE if by_kind.get(k)]
    out: list[Draft] = []
    for ka, kb in itertools.combinations_with_replacement(kinds, 2):
        if len(out) >= limit:
            break
        if ka == kb and ka != "setting":
            continue
        for a, b in itertools.product(by_kind[ka], by_kind[kb]):
            if a is b or (a.kind == "setting" and a.names() & b.names()) or _rename_like(a, b):
                continue
            both = combine(a, b)
            if both is not None:
                out.append(both)
                break
    return out


def _rename_like(a: Draft, b: Draft) -> bool:
    """Adding one record and deleting another of the same list ends in the state a rename
    reaches: the oracle would rename, and the task would teach the wrong thing."""
    return {a.kind, b.kind} == {"create", "delete"} and bool(set(a.deltas) & set(b.deltas))


def _task_id(d: Draft, used: set[str]) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", f"{d.kind}_{d.slug}".lower()).strip("_")[:60] or "task"
    if not slug[0].isalpha():
        slug = "t_" + slug
    out, n = slug, 2
    while out in used:
        out, n = f"{slug}_{n}", n + 1
    used.add(out)
    return out


def synthesize(app: AppSpec, config: SynthConfig | None = None,
               pair_from: set[str] | None = None, goals: tuple[Goal, ...] = ()) -> Synthesis:
    """Task specs for `app` (not yet sanity-checked), and what was dropped, by reason. With
    `pair_from` (the ids of the single tasks the sanity check kept), pairs combine only those: a
    pair with an unsolvable half is never proposed in place of one that works. `goals`: what
    recorded sessions with an instruction achieved (`recorded.recorded_goals`), first."""
    config = config or SynthConfig()
    facts = app_facts(app)
    dropped: Counter[str] = Counter()
    seen: set[str] = set()
    by_kind: dict[str, list[Draft]] = {}
    given = given_texts(app, facts.typable)
    changing = [w for d in state_changing(facts) if (w := via_sign_in(facts, d, given))]
    for d in [*recorded_drafts(facts, goals), *changing, *questions(facts),
              *navigations(facts, config.nav_min_steps)]:
        keys = (d.signature(), d.instruction + repr(sorted(d.initial_state.items())))
        if any(k in seen for k in keys):  # same rule, or an instruction that reads the same
            dropped[DUPLICATE] += 1
            continue
        seen.update(keys)
        group = by_kind.setdefault(d.kind, [])
        if len(group) >= config.max_per_kind and d.kind != RECORDED:
            dropped[CAPPED] += 1
            continue
        group.append(d)
    singles = [d for k in by_kind for d in by_kind[k]]
    used: set[str] = set()
    tasks = [to_spec(d, _task_id(d, used), facts) for d in singles]
    ok = {id(d) for d, t in zip(singles, tasks) if pair_from is None or t.id in pair_from}
    pairable = {k: [d for d in v if id(d) in ok] for k, v in by_kind.items() if k in PAIRABLE}
    tasks += [to_spec(d, _task_id(d, used), facts) for d in pairs(pairable, config.max_pairs)]
    return Synthesis(tasks, dropped)
