"""Near-miss end states: every task's verifier is attacked before the task ships (issue 16).

A binary reward is the whole training signal, so a verifier that passes a state the instruction does
not describe teaches the agent to exploit it. From a drawn instance's start state and the end state
the oracle's solution reaches, `near_misses` makes end states that each differ from that solution
in one way a careless or exploiting agent would:

- `swap`: two drawn values exchanged wherever they appear ("rename A to B" done as B to A);
- `undone`: one of the solution's changes left out (partial completion);
- `wrong record`: the solution's change made to another record instead;
- `side effect`: something else changed as well: another record edited, deleted or duplicated,
  another setting flipped or counter moved;
- `wrong field`: the right text written into another field of the record;
- `wrong answer`: another answer (a count off by one, the opposite yes/no);
- `replaced`: an edited record deleted and added again (the same records in another order: a
  rule that identifies records by their place, `unchanged` with `edit`, tells them apart);
- `wrong screen` (for a rule that reads where the agent ends, `screen`): the end on the start
  screen, on a screen the solution passes through, on a sibling of the end screen (another
  screen the screens opening it open) or one step past it.

Only what the app lets a user change is mutated (`Writable`: the variables and record fields some
transition writes, the lists some transition grows or shrinks), so every near miss is a state an
agent could reach. The verifier must reject each one; `attack` says which it accepted.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from phoneworld.ir.app import AppSpec
from phoneworld.runtime.validate import SCREEN
from phoneworld.tasks.verdict import norm

CHANGED = " (changed)"
MAX_MISSES = 200  # per instance; every class gets its first cases before any is cut
MAX_SCREENS = 16  # wrong-screen ends per instance


@dataclass(frozen=True)
class Writable:
    """What the app lets a user change."""

    vars: frozenset[str] = frozenset()
    fields: frozenset[tuple[str, str]] = frozenset()  # (collection, field)
    grows: frozenset[str] = frozenset()  # collections a transition appends to
    shrinks: frozenset[str] = frozenset()  # collections a transition removes from
    # per flag variable, what the first tap that writes it does to the flags: (variable, the
    # value it sets, or None for a toggle); a radio button's tap clears its neighbours too
    taps: tuple[tuple[str, tuple[tuple[str, bool | None], ...]], ...] = ()
    counters: frozenset[str] = frozenset()  # number variables a transition adds to
    # per screen, the screens its transitions lead to (where a wrong-screen end can be)
    links: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @staticmethod
    def of(app: AppSpec) -> Writable:
        """What the transitions on screens reachable from the start write."""
        from phoneworld.tasks.drafts import reachable_screens

        reachable = reachable_screens(app)
        vars_: set[str] = set()
        fields: set[tuple[str, str]] = set()
        grows: set[str] = set()
        shrinks: set[str] = set()
        flags = {v.name for v in app.state if v.kind == "flag"}
        counters: set[str] = set()
        taps: dict[str, tuple[tuple[str, bool | None], ...]] = {}
        links: dict[str, set[str]] = {}
        for t in (t for t in app.transitions if t.screen in reachable):
            if t.target is not None and t.target != t.screen:
                links.setdefault(t.screen, set()).add(t.target)
            tap = tuple((e.ref.name, None if e.kind == "toggle" else e.value.value)  # type: ignore[union-attr]
                        for e in t.effects if e.kind in ("set", "toggle") and e.ref.kind == "var"
                        and e.ref.name in flags and (e.kind == "toggle" or (
                            e.value.kind == "lit" and isinstance(e.value.value, bool))))
            for name, _ in tap:
                taps.setdefault(name, tap)
            for e in t.effects:
                if e.kind in ("set", "add", "toggle"):
                    ref = e.ref  # type: ignore[union-attr]
                    if ref.kind == "var":
                        vars_.add(ref.name)
                        if e.kind == "add":
                            counters.add(ref.name)
                    else:
                        fields.add((ref.collection, ref.field))
                elif e.kind == "append":
                    grows.add(e.collection)
                    fields.update((e.collection, f) for f in e.record)
                elif e.kind in ("remove", "remove_where"):
                    shrinks.add(e.collection)
                elif e.kind == "set_each":
                    fields.add((e.collection, e.field))
        kinds = {v.name: v.kind for v in app.state}
        return Writable(frozenset(v for v in vars_ if kinds.get(v) in ("text", "number", "flag")),
                        frozenset(fields), frozenset(grows), frozenset(shrinks),
                        tuple(sorted(taps.items())), frozenset(counters),
                        tuple((k, tuple(sorted(v))) for k, v in sorted(links.items())))


    def prefixed(self, prefix: str) -> Writable:
        """The same, with names as a world spells them (`<package>:<name>`)."""
        return Writable(frozenset(prefix + v for v in self.vars),
                        frozenset((prefix + c, f) for c, f in self.fields),
                        frozenset(prefix + c for c in self.grows),
                        frozenset(prefix + c for c in self.shrinks),
                        tuple((prefix + v, tuple((prefix + n, x) for n, x in tap))
                              for v, tap in self.taps),
                        frozenset(prefix + v for v in self.counters),
                        tuple((prefix + k, tuple(prefix + x for x in v)) for k, v in self.links))

    def __or__(self, other: Writable) -> Writable:
        return Writable(self.vars | other.vars, self.fields | other.fields,
                        self.grows | other.grows, self.shrinks | other.shrinks,
                        tuple(sorted({**dict(self.taps), **dict(other.taps)}.items())),
                        self.counters | other.counters,
                        tuple(sorted({**dict(self.links), **dict(other.links)}.items())))


@dataclass(frozen=True)
class NearMiss:
    kind: str
    what: str
    state: dict[str, Any]
    answer: Any = None
    on: str = ""  # the variable or collection it differs in
    fields: str = ""  # for a record replaced instead of edited: the fields the edit changes

    def hint(self) -> str:
        """The kind of clause that would reject this near miss."""
        if self.kind == "side effect" and isinstance(self.state.get(self.on), list):
            return (f"keep the other records: `unchanged: {{collection: {self.on}, except: "
                    "[<conditions naming the records the task changes>]}`")
        if self.kind == "side effect":
            return f"keep the variable: `equals: {{var: {self.on}, value: <its start value>}}`"
        if self.kind == "swap":
            return ("tell the values apart: tie each parameter to the field or record that "
                    "makes it different (`exists: {collection: C, where: {FIELD: {param: P}, "
                    "...}}`)")
        if self.kind == "wrong record":
            return (f"name the record (`exists` with its id field and the new value) and keep "
                    f"the rest (`unchanged: {{collection: {self.on}, except: [...]}}`)")
        if self.kind == "wrong field":
            return f"check the field the value belongs in (`exists` on {self.on} with that field)"
        if self.kind == "replaced":
            return (f"keep the record in its place: `unchanged: {{collection: {self.on}, except: "
                    f"[...], edit: [{self.fields}]}}` (the edit changes only those fields, "
                    "nothing is deleted)")
        if self.kind == "wrong answer":
            return "compare the answer: `equals: {answer: true, value: ...}`"
        if self.kind == "wrong screen":
            return "name the screen the task ends on: `screen: <its id>`"
        if isinstance(self.state.get(self.on), list):
            return (f"the rule does not tell this state from the oracle's: pin {self.on} "
                    f"(`count: {{collection: {self.on}, equals: N}}` for its size, `unchanged: "
                    f"{{collection: {self.on}, except: [...]}}` for the records the task does not "
                    "change)")
        return f"the rule does not check this change of {self.on}: add a clause on it"


@dataclass(frozen=True)
class Attack:
    """The near misses of one instance and those its verifier accepted."""

    tried: int = 0
    accepted: tuple[NearMiss, ...] = ()

    @property
    def rejected(self) -> int:
        return self.tried - len(self.accepted)


def _key(state: Any) -> str:
    """A state's identity for near misses: records compared as multisets (order aside)."""
    if isinstance(state, dict):
        state = {k: sorted(_rec_key(r) for r in v if isinstance(r, dict))
                 if isinstance(v, list) else v for k, v in state.items()}
    return json.dumps(state, sort_keys=True, default=str)


def _rec_key(rec: Mapping[str, Any]) -> str:
    return json.dumps({k: norm(v) for k, v in rec.items()}, sort_keys=True)


def _records(state: Mapping[str, Any], name: str) -> list[dict[str, Any]]:
    value = state.get(name)
    return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []


def _collections(start: Mapping[str, Any], end: Mapping[str, Any]) -> list[str]:
    return sorted(k for k in set(start) | set(end)
                  if isinstance(end.get(k, start.get(k)), list))


def _unmatched(records: list[dict[str, Any]], others: list[dict[str, Any]]) -> list[int]:
    """Indexes of `records` with no equal record left in `others` (each one matched once)."""
    pool = Counter(_rec_key(r) for r in others)
    out = []
    for i, r in enumerate(records):
        k = _rec_key(r)
        if pool[k]:
            pool[k] -= 1
        else:
            out.append(i)
    return out


def _diff_records(before: list[dict[str, Any]], after: list[dict[str, Any]]
                  ) -> tuple[list[int], list[int]]:
    """Indexes of `before`'s records missing from `after` and of `after`'s new ones (multisets)."""
    return _unmatched(before, after), _unmatched(after, before)


def near_misses(writable: Writable, start: Mapping[str, Any], end: Mapping[str, Any],
                params: Mapping[str, Any], answer: Any = None,
                reads: frozenset[str] = frozenset(), path: tuple[str, ...] = ()
                ) -> list[NearMiss]:
    """The near-miss end states of one solved instance, each different from `end` (`reads`: the
    variables and collections the rule reads; a change the solution made to another is
    incidental, such as a radio button cleared by its neighbour or a notification posted, and is
    not undone; `path`: the screens the solution passes through)."""
    out: list[NearMiss] = []
    seen = {_key(end) + "\0" + norm(answer)}
    for miss in _all(writable, start, end, params, answer, reads, path):
        k = _key(miss.state or end) + "\0" + norm(miss.answer)
        if miss.kind == "replaced":  # the same records as `end`, in another order
            k += "\0" + json.dumps(miss.state, sort_keys=True, default=str)
        if k not in seen:
            seen.add(k)
            out.append(miss)
        if len(out) >= MAX_MISSES:
            break
    return out


def _all(w: Writable, start: Mapping[str, Any], end: Mapping[str, Any],
         params: Mapping[str, Any], answer: Any, reads: frozenset[str],
         path: tuple[str, ...] = ()) -> Iterator[NearMiss]:
    yield from _swaps(end, params, answer)
    yield from _undone(w, start, end, answer, reads)
    yield from _wrong_records(start, end, answer)
    yield from _wrong_fields(w, start, end, params, answer)
    yield from _side_effects(w, start, end, answer)
    yield from _wrong_answers(answer)
    yield from _replaced(w, start, end, answer)
    yield from _wrong_screens(w, start, end, answer, reads, path)


def _swaps(end: Mapping[str, Any], params: Mapping[str, Any], answer: Any
           ) -> Iterator[NearMiss]:
    names = sorted(n for n, v in params.items() if isinstance(v, str) and v)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            va, vb = params[a], params[b]
            if norm(va) == norm(vb):
                continue
            swap = {norm(va): vb, norm(vb): va}

            def sub(v: Any) -> Any:
                if isinstance(v, str) and norm(v) in swap:
                    return swap[norm(v)]
                if isinstance(v, list):
                    return [sub(x) for x in v]
                if isinstance(v, dict):
                    return {k: sub(x) for k, x in v.items()}
                return v

            yield NearMiss("swap", f"{{{a}}} and {{{b}}} exchanged", sub(dict(end)),
                           sub(answer), f"{{{a}}}, {{{b}}}")


def _undone(w: Writable, start: Mapping[str, Any], end: Mapping[str, Any], answer: Any,
            reads: frozenset[str]) -> Iterator[NearMiss]:
    for name in sorted(w.vars & reads):
        if isinstance(end.get(name), str):
            continue  # a text variable: what a field shows, not the data the task is about
        if name in end and norm(start.get(name)) != norm(end.get(name)):
            state = copy.deepcopy(dict(end))
            state[name] = copy.deepcopy(start.get(name))
            yield NearMiss("undone", f"{name} left at {start.get(name)!r}", state, answer, name)
    for coll in (c for c in _collections(start, end) if c in reads):
        before, after = _records(start, coll), _records(end, coll)
        gone, new = _diff_records(before, after)
        if len(gone) == 1 and len(new) == 1:  # an edit: each changed field left as it was
            old, rec = before[gone[0]], after[new[0]]
            state = copy.deepcopy(dict(end))
            state[coll].insert(min(gone[0], len(state[coll])), copy.deepcopy(old))
            yield NearMiss("undone", f"{coll}: {_show(old)} kept, {_show(rec)} added beside it",
                           state, answer, coll)
            state = copy.deepcopy(dict(end))
            del state[coll][new[0]]
            yield NearMiss("undone", f"{coll}: {_show(old)} removed, {_show(rec)} not made",
                           state, answer, coll)
            for f in sorted(set(old) | set(rec)):
                if norm(old.get(f)) != norm(rec.get(f)):
                    state = copy.deepcopy(dict(end))
                    state[coll][new[0]][f] = copy.deepcopy(old.get(f))
                    yield NearMiss("undone", f"{coll}: {f} of {_show(rec)} left at "
                                   f"{old.get(f)!r}", state, answer, coll)
            continue
        for i in new:
            state = copy.deepcopy(dict(end))
            del state[coll][i]
            yield NearMiss("undone", f"{coll}: {_show(after[i])} not added", state, answer, coll)
        for i in gone:
            state = copy.deepcopy(dict(end))
            state[coll].insert(min(i, len(state[coll])), copy.deepcopy(before[i]))
            yield NearMiss("undone", f"{coll}: {_show(before[i])} not removed", state, answer, coll)


def _untouched(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[int]:
    """Indexes of `after`'s records that are as they were at the start."""
    _, new = _diff_records(before, after)
    return [i for i in range(len(after)) if i not in new]


def _wrong_records(start: Mapping[str, Any], end: Mapping[str, Any], answer: Any
                   ) -> Iterator[NearMiss]:
    for coll in _collections(start, end):
        before, after = _records(start, coll), _records(end, coll)
        gone, new = _diff_records(before, after)
        others = _untouched(before, after)
        if len(gone) == 1 and len(new) == 1:
            old, rec = before[gone[0]], after[new[0]]
            changed = {f: rec.get(f) for f in rec if norm(old.get(f)) != norm(rec.get(f))}
            for j in others[:2]:
                target = after[j]
                if all(norm(target.get(f)) == norm(v) for f, v in changed.items()):
                    continue
                state = copy.deepcopy(dict(end))
                state[coll][new[0]] = copy.deepcopy(old)
                state[coll][j].update(copy.deepcopy(changed))
                yield NearMiss("wrong record", f"{coll}: the change made to {_show(target)} "
                               f"instead of {_show(old)}", state, answer, coll)
        elif gone and not new:
            for j in others[:2]:
                state = copy.deepcopy(dict(end))
                victim = state[coll].pop(j)
                for i in gone:
                    state[coll].insert(min(i, len(state[coll])), copy.deepcopy(before[i]))
                yield NearMiss("wrong record", f"{coll}: {_show(victim)} removed instead of "
                               f"{', '.join(_show(before[i]) for i in gone)}", state, answer, coll)


def _wrong_fields(w: Writable, start: Mapping[str, Any], end: Mapping[str, Any],
                  params: Mapping[str, Any], answer: Any) -> Iterator[NearMiss]:
    drawn = {norm(v) for v in params.values() if isinstance(v, str) and v}
    for coll in _collections(start, end):
        before, after = _records(start, coll), _records(end, coll)
        _, new = _diff_records(before, after)
        texts = sorted(f for c, f in w.fields if c == coll)
        for i in new:
            rec = after[i]
            for f in texts:
                if norm(rec.get(f)) not in drawn:
                    continue
                for g in texts:
                    if g != f and isinstance(rec.get(g, ""), str) and norm(rec.get(g)) != norm(
                            rec.get(f)):
                        state = copy.deepcopy(dict(end))
                        state[coll][i][f], state[coll][i][g] = rec.get(g, ""), rec.get(f)
                        yield NearMiss("wrong field", f"{coll}: {rec.get(f)!r} written into "
                                       f"{g} instead of {f}", state, answer, coll)


def _side_effects(w: Writable, start: Mapping[str, Any], end: Mapping[str, Any], answer: Any
                  ) -> Iterator[NearMiss]:
    taps = dict(w.taps)
    for name in sorted(w.vars):
        value = end.get(name)
        if name not in end or norm(start.get(name)) != norm(value):
            continue
        state = copy.deepcopy(dict(end))
        if isinstance(value, bool):
            for var, set_to in taps.get(name, ((name, None),)):  # the tap, neighbours and all
                if var in state:
                    state[var] = (not state[var]) if set_to is None else set_to
            if norm(state[name]) == norm(value):  # this tap sets what it already is
                state[name] = not value
        elif isinstance(value, int) and name in w.counters:
            state[name] = value + 1
        else:
            continue  # a text or typed number: what the agent leaves in a field
        yield NearMiss("side effect", f"{name} also changed to {state[name]!r}", state, answer,
                       name)
    for coll in _collections(start, end):
        before, after = _records(start, coll), _records(end, coll)
        others = _untouched(before, after)
        if not others:
            continue
        j = others[0]
        victim = after[j]
        if coll in w.shrinks:
            state = copy.deepcopy(dict(end))
            del state[coll][j]
            yield NearMiss("side effect", f"{coll}: {_show(victim)} deleted too", state, answer, coll)
        if coll in w.grows:
            state = copy.deepcopy(dict(end))
            extra = copy.deepcopy(victim)
            for f, v in extra.items():
                if isinstance(v, str) and (coll, f) in w.fields:
                    extra[f] = v + CHANGED
            state[coll].append(extra)
            yield NearMiss("side effect", f"{coll}: an extra record {_show(extra)} added",
                           state, answer, coll)
        for c, f in sorted(w.fields):
            if c != coll or f not in victim:
                continue
            state = copy.deepcopy(dict(end))
            v = victim[f]
            state[coll][j][f] = (not v if isinstance(v, bool) else v + 1 if isinstance(v, int)
                                 else f"{v}{CHANGED}")
            yield NearMiss("side effect", f"{coll}: {f} of {_show(victim)} changed too", state,
                           answer)


def _replaced(w: Writable, start: Mapping[str, Any], end: Mapping[str, Any], answer: Any
              ) -> Iterator[NearMiss]:
    """An edited record deleted and added again instead (it lands at the end of the list): the
    same records, another order. Only where the app can both delete and add such records."""
    for coll in _collections(start, end):
        if coll not in w.grows or coll not in w.shrinks:
            continue
        before, after = _records(start, coll), _records(end, coll)
        gone, new = _diff_records(before, after)
        if len(gone) != 1 or len(new) != 1 or new[0] == len(after) - 1:
            continue
        old, rec = before[gone[0]], after[new[0]]
        state = copy.deepcopy(dict(end))
        state[coll].append(state[coll].pop(new[0]))
        fields = sorted(f for f in set(old) | set(rec) if norm(old.get(f)) != norm(rec.get(f)))
        yield NearMiss("replaced", f"{coll}: {_show(old)} deleted and {_show(rec)} added at the "
                       "end instead of edited in place", state, answer, coll,
                       ", ".join(fields))


def _wrong_screens(w: Writable, start: Mapping[str, Any], end: Mapping[str, Any], answer: Any,
                   reads: frozenset[str], path: tuple[str, ...]) -> Iterator[NearMiss]:
    """The solution's end state on another screen: where it started, a screen on its way, a
    sibling of its end screen, one step past it (only for a rule that reads the screen)."""
    there = end.get(SCREEN)
    if SCREEN not in reads or not isinstance(there, str):
        return
    links = dict(w.links)
    openers = sorted(k for k, v in links.items() if there in v)
    places = [(start.get(SCREEN), "the start screen"), *((p, "a screen on the way") for p in path),
              *((sib, f"a sibling screen (opened from {k})") for k in openers
                for sib in links[k]),
              *((nxt, "one step past it") for nxt in links.get(there, ()))]
    tried = {there}
    for screen, what in places:
        if isinstance(screen, str) and screen not in tried and len(tried) <= MAX_SCREENS:
            tried.add(screen)
            yield NearMiss("wrong screen", f"the end on {screen} ({what}) instead of {there}",
                           {**end, SCREEN: screen}, answer, SCREEN)


def _wrong_answers(answer: Any) -> Iterator[NearMiss]:
    if answer is None:
        return
    text = norm(answer)
    if text.lstrip("-").isdigit():
        for d in (-1, 1):
            yield NearMiss("wrong answer", f"the answer {int(text) + d}", {}, str(int(text) + d),
                           "the answer")
    elif text in ("true", "false", "yes", "no", "on", "off"):
        opposite = "no" if text in ("true", "yes", "on") else "yes"
        yield NearMiss("wrong answer", f"the answer {opposite!r}", {}, opposite, "the answer")


def _show(rec: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}: {v!r}" for k, v in sorted(rec.items())) + "}"


def attack(verify: Any, start: Mapping[str, Any], end: Mapping[str, Any],
           params: Mapping[str, Any], writable: Writable, answer: Any = None,
           reads: frozenset[str] = frozenset(), path: tuple[str, ...] = ()) -> Attack:
    """Every near miss of a solved instance through `verify(state, params, answer)` (a
    `codegen.Verifier`); a near miss with an empty state (a wrong answer) is checked on `end`.
    One that passes through another alternative of an `any_of` than `end` is another outcome
    the rule allows on purpose ("tick it off or delete it"), not a near miss. `path`: the
    screens the solution passes through (wrong-screen ends)."""
    branches = getattr(verify, "branches", lambda *_: ())
    mine = branches(dict(end), dict(params), answer)
    misses, accepted = [], []
    for m in near_misses(writable, start, end, params, answer, reads, path):
        state = m.state or dict(end)
        passed = verify(state, dict(params), m.answer).passed
        if passed and branches(state, dict(params), m.answer) != mine:
            continue
        misses.append(m)
        if passed:
            accepted.append(m)
    return Attack(len(misses), tuple(accepted))


def state_diff(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """How state `b` differs from `a`, one readable line per variable or record."""
    lines = []
    for name in sorted(set(a) | set(b)):
        x, y = a.get(name), b.get(name)
        if isinstance(x, list) or isinstance(y, list):
            before, after = _records(a, name), _records(b, name)
            gone, new = _diff_records(before, after)
            lines += [f"{name}: - {_show(before[i])}" for i in gone]
            lines += [f"{name}: + {_show(after[i])}" for i in new]
            if not gone and not new and list(map(_rec_key, before)) != list(map(_rec_key, after)):
                lines.append(f"{name}: the same records in another order: {_moved(before, after)}")
        elif _key(x) != _key(y):
            lines.append(f"{name}: {x!r} -> {y!r}")
    return lines


def changes(start: Mapping[str, Any], state: Mapping[str, Any], reads: frozenset[str]
            ) -> list[str]:
    """The changes from `start` to `state` in what the rule reads (`state_diff` lines: a
    variable changed, a record gone or new); a change elsewhere is no change the task asks for."""
    return state_diff({k: v for k, v in start.items() if k in reads},
                      {k: v for k, v in state.items() if k in reads})


def _moved(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str:
    """The first record of `before` that is not in its place in `after`, and where it is."""
    keys = [_rec_key(r) for r in after]
    for i, rec in enumerate(before):
        k = _rec_key(rec)
        if i >= len(keys) or keys[i] != k:
            j = keys.index(k)
            return f"{_show(rec)} moved from place {i + 1} to {j + 1}"
    return ""


@dataclass
class Tally:
    """Near misses tried and rejected over many tasks (report.json's `tasks.adversarial`)."""

    tried: int = 0
    rejected: int = 0
    gameable: list[str] = field(default_factory=list)

    def add(self, task_id: str, result: Attack) -> None:
        self.tried += result.tried
        self.rejected += result.rejected
        if result.accepted:
            self.gameable.append(task_id)
