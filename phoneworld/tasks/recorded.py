"""Tasks the recording states (task synthesis): a session recorded for an instruction (a
LlamaTouch trace's instruction.txt, a native episode's `instruction`) is a task of its own.

The instruction is the one recorded; the goal is where the session ended, as the compiled app
replays its actions: the screen it ends on and what it changed. A flag or a number must end as
the session left it; a text only where the instruction says it (what was typed into a search
box the instruction does not name is not asked for). A list must end with as many records, and
with each record the session added, changed or removed so: an added record by the texts the
instruction says and its flags, a changed one by its name (its id field, as it was) and what
changed, a removed one no longer there under its name; an existing record is named where the
instruction names it, in any case ("Add eggs" names "Eggs"). A text the instruction says is a
parameter with the instruction's spelling as its one value, so the oracle types it as an agent
reading the instruction would; a text the session typed counts as said in any case or spacing
(LlamaTouch's instructions are often lower case), one the app filled in only as it is (the
verifier compares texts in any case). The task starts
in the state the session began in (a session that goes on from the one before starts where that
one left the app, as training replay tracked it).

Only whole sessions give a task: one that starts on the app's start screen, that the app
replays onto the screen the recording shows after every action (a replay that goes astray on
the way and ends on the right screen has another goal than the session's) and whose replay
changes on screen something of what the session changed, or nothing where it changed nothing
(a replay that misses the session's effect would ask for none of it), and that is not a
part of a recording cut in two
(its tail held out for the fidelity figures, or the rest after another app); and whose
instruction holds no brace, which a task template reads as a parameter. How a screen was
entered and which record is selected are the app's bookkeeping, not part of the goal. Pins keep
the rest of the app as it was (`drafts.pins`); the sanity check decides, as for every
synthesized task, whether the goal is solvable and asks for everything the session did.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from phoneworld.errors import EnvError
from phoneworld.ir.app import AppSpec
from phoneworld.fidelity import on_widget
from phoneworld.ir.graph import ObservedStep
from phoneworld.ir.screens import Abstraction, ScreenReading
from phoneworld.ir.trace import Episode, TraceSet, TypeText, ViewNode
from phoneworld.runtime.sim import Simulator
from phoneworld.state.track import Tracked, Window, absolute_item
from phoneworld.tasks import naming as nm
from phoneworld.tasks.drafts import AppFacts, Draft, Raw

RECORDED = "recorded"


@dataclass(frozen=True)
class Goal:
    """What one recorded session achieved: its instruction, the screen it ended on, the values
    of the variables it changed before and after (`before` / `after`, by variable), and the state
    it began in."""

    instruction: str
    screen: str
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    start: dict[str, Any] = field(default_factory=dict)  # the whole state the session began in
    typed: tuple[str, ...] = ()  # the texts the session typed


def recorded_goals(app: AppSpec, traces: TraceSet, abstraction: Abstraction,
                   tracked: list[list[Tracked]] | None = None, others: TraceSet | None = None,
                   steps: tuple[ObservedStep, ...] = ()) -> list[Goal]:
    """The goal of every session of `traces` with an instruction that the app replays (see the
    module docstring); `abstraction.readings` places each recorded screen, `tracked` gives the
    state and list windows before each step as training replay tracked them (a session that
    goes on from the one before starts where that one left the app; None: from the app's
    initial state). `steps` (the graph's, of `traces`) name the widget each tap hit, which
    the replay taps where the app draws it (a popup anchored to the row that opened it).
    `others` (the held-out sessions) tell which sessions were cut."""
    goals = []
    cut = _cut(traces, others)
    hit: dict[int, dict[int, ObservedStep]] = {}
    for s in steps:
        hit.setdefault(s.episode, {})[s.step] = s
    for e, ep in enumerate(traces.episodes):
        readings = abstraction.readings[e] if e < len(abstraction.readings) else []
        if not ep.instruction or not ep.instruction.strip() or "{" in ep.instruction \
                or "}" in ep.instruction or ep.id in cut or not readings \
                or readings[0].screen != app.start_screen:
            continue
        before = tracked[e] if tracked is not None and e < len(tracked) else []
        sim = Simulator(app)
        try:
            sim.reset(before[0].state if before else None)
        except EnvError:
            continue
        start = sim.state
        aims = {i: (s, before[i].windows if i < len(before) else {})
                for i, s in hit.get(e, {}).items()}
        if not _replays(sim, ep, readings, aims):
            continue
        end = sim.state
        changed = [v.name for v in app.state if v.kind != "selection"
                   and not v.name.startswith("entered_") and end.get(v.name) != start.get(v.name)]
        typed = tuple(dict.fromkeys(s.action.text for s in ep.steps
                                    if isinstance(s.action, TypeText)))
        goals.append(Goal(" ".join(ep.instruction.split()), sim.screen,
                          {n: start.get(n) for n in changed}, {n: end.get(n) for n in changed},
                          start, typed))
    return goals


def _replays(sim: Simulator, episode: Episode, readings: list[ScreenReading],
             hit: dict[int, tuple[ObservedStep, dict[tuple[str, str], Window]]]) -> bool:
    """Whether the app, from where `sim` stands, replays the session's actions onto the screen
    the recording shows after each of them (a replay that goes astray on the way, a popup's
    Delete where the recording tapped Edit, can still end on the last screen); a tap on a
    widget the app draws elsewhere (`hit`: the step's widget and the list windows before it)
    lands where the app draws it, as in the fidelity replay."""
    shown = {r.step: r.screen for r in readings}
    first = sim.view()
    try:
        for step in episode.steps:
            if step.action is not None:
                action = step.action
                if step.index in hit:
                    seen, windows = hit[step.index]
                    action = on_widget(sim, action, seen, absolute_item(seen, windows))
                sim.step(action)
                if shown.get(step.index + 1, sim.screen) != sim.screen:
                    return False
    except EnvError:
        return False
    return sim.screen == readings[-1].screen and _agrees(
        _change(first, sim.view()),
        _change(episode.steps[0].observation.root, episode.steps[-1].observation.root))


def _change(before: ViewNode, after: ViewNode) -> tuple[Counter[Any], Counter[Any]]:
    """What appeared and what went from `before` to `after`: visible texts and checkable views'
    flags, counted (a badge the session put on one more row is a change a set would miss)."""
    a, b = _shown(before), _shown(after)
    return b - a, a - b


def _agrees(mock: tuple[Counter[Any], Counter[Any]],
            recorded: tuple[Counter[Any], Counter[Any]]) -> bool:
    """Whether the replay changed what the session changed on screen, between its first and
    last screens: nothing where the recording shows nothing changed, else some of what the
    recording shows appear or go (the edges of a list window may differ; a replay that shows
    no change where the session put a badge on a record has missed what it did)."""
    if not (recorded[0] or recorded[1]):
        return not (mock[0] or mock[1])
    return bool(mock[0] & recorded[0]) or bool(mock[1] & recorded[1])


def _shown(root: ViewNode) -> Counter[Any]:
    return Counter((n.text, n.checked if n.checkable else None) for n in root.walk()
                   if n.bounds.area > 0 and (n.text or n.checkable))


def _cut(traces: TraceSet, others: TraceSet | None) -> set[str]:
    """The sessions that are part of a recording for their instruction, not all of it: one a
    later part goes on from (a held-out tail, the rest after another app or a gap), and one that
    goes on from an earlier part; both carry the recording's instruction."""
    episodes = [*traces.episodes, *(others.episodes if others is not None else ())]
    said = {ep.id: ep.instruction for ep in episodes}
    out = set()
    for ep in episodes:
        if ep.follows is not None and ep.instruction and said.get(ep.follows) == ep.instruction:
            out |= {ep.id, ep.follows}
    return out


def drafts(facts: AppFacts, goals: list[Goal] | tuple[Goal, ...]) -> Iterator[Draft]:
    """A draft per goal (see the module docstring): the instruction as recorded, its first letter
    capitalised, from the state the session began in (no seeded records)."""
    initial = facts.app.initial_state
    variables = {v.name for v in facts.app.state}
    for g in goals:
        start = {n: v for n, v in g.start.items() if n in variables
                 and (n in facts.seeded or v != initial.get(n))}
        text = g.instruction[:1].upper() + g.instruction[1:]
        said = _Said(text, g.typed)
        clauses: list[Raw] = [{"screen": g.screen}]
        deltas: dict[str, tuple[int, int]] = {}
        touches: dict[str, tuple[Raw, ...] | None] = {}
        edits: dict[str, tuple[str, ...]] = {}
        targets = []
        for name, value in g.after.items():
            coll = facts.collections.get(name)
            if coll is not None:
                before = [r for r in g.before.get(name) or [] if isinstance(r, dict)]
                after = [r for r in value or [] if isinstance(r, dict)]
                named, wheres, fields = _records(said, name, coll.id_field, before, after)
                clauses += [{"count": {"collection": name, "equals": len(after)}}, *named]
                if fields:
                    edits[name] = tuple(sorted(fields))
                deltas[name] = (len(after) - len(before),) * 2
                for flag in coll.flags:
                    d = sum(bool(r.get(flag)) for r in after) - sum(
                        bool(r.get(flag)) for r in before)
                    deltas[f"{name}.{flag}"] = (d, d)
                # a record no condition names (a text the instruction does not say): the list
                # is pinned by its counts only
                touches[name] = tuple(wheres) if wheres and all(
                    any(isinstance(v, (dict, str)) for v in w.values()) for w in wheres) else None
            elif isinstance(value, str):
                typed = said.param(value)
                if typed is not None:
                    clauses.append({"equals": {"var": name, "value": typed}})
                    targets.append(name)
            else:
                clauses.append({"equals": {"var": name, "value": value}})
                targets.append(name)
        yield Draft(RECORDED, nm.slug(text), said.template, clauses, said.params, deltas=deltas,
                    initial_state=start, targets=tuple(targets), touches=touches, edits=edits)


def _records(said: _Said, coll: str, id_field: str | None, before: list[Raw],
             after: list[Raw]) -> tuple[list[Raw], list[Raw], set[str]]:
    """The clauses naming the records a session added, changed or removed; the conditions that
    name them (the records the rest of the list is pinned around); the fields changed in place."""
    clauses: list[Raw] = []
    named: list[Raw] = []
    edited: set[str] = set()
    if len(before) == len(after):
        for old, new in zip(before, after):
            if old == new:
                continue
            changed = {f: v for f, v in new.items() if v != old.get(f)}
            edited |= set(changed)
            where = said.where(changed)
            was = said.record(id_field, old, before) if id_field is not None else {}
            if was:  # the record as it was named (pinned around), and as it ends
                named.append(was)
                if id_field in changed and where.get(id_field):
                    named.append({id_field: where[id_field]})
            if id_field is not None and id_field not in changed:
                where = {**was, **where}
            if where:
                clauses.append({"exists": {"collection": coll, "where": where}})
            if not was:
                named.append(where)  # names no record as it was: the counts pin the list
        return clauses, named, edited
    left = list(before)
    for new in after:
        if new in left:
            left.remove(new)
            continue
        where = said.where({f: v for f, v in new.items() if v not in ("", None, False)})
        if where:
            clauses.append({"exists": {"collection": coll, "where": where}})
            named.append(where)
    for old in left:
        where = said.record(id_field, old, before) if id_field is not None else {}
        if where:
            clauses.append({"not": {"exists": {"collection": coll, "where": where}}})
            named.append(where)
    return clauses, named, edited


class _Said:
    """The instruction as a template: each text a clause asks for that the instruction says
    becomes a parameter with that one value; texts it does not say are left out. `typed`: the
    texts the session typed, which the instruction may say in another case or spacing."""

    def __init__(self, text: str, typed: tuple[str, ...] = ()) -> None:
        self.template = text
        self.params: dict[str, Raw] = {}
        self.names: dict[str, str] = {}
        self.typed = {_plain(t) for t in typed if t.strip()}

    def spot(self, value: str) -> str | None:
        """The words of the instruction that say `value`: as it is, or, for a text the session
        typed, in another case or spacing as whole words (LlamaTouch's "search for hotels in
        paris" where "Hotels in Paris" was typed; "eggs" is not said by "legs"); None where
        it does not say it. A text the app filled in (a title an opened record shows) is said
        only as it is."""
        if not value.strip():
            return None
        if value in self.names or value in self.template:
            return value
        if _plain(value) not in self.typed:
            return None
        words = r"\s+".join(re.escape(w) for w in value.split())
        found = re.search(rf"(?<!\w){words}(?!\w)", self.template, re.IGNORECASE)
        return found.group(0) if found else None

    def param(self, value: str) -> Raw | None:
        """A parameter for `value` where the instruction says it (`spot`), with the
        instruction's spelling as its one value, which the oracle types as an agent reading
        the instruction would (the verifier compares texts in any case); None where it does
        not say it."""
        if value not in self.names:
            words = self.spot(value)
            if words is None:
                return None
            name = f"text{len(self.names) + 1}"
            self.names[value] = name
            self.template = self.template.replace(words, "{" + name + "}", 1)
            self.params[name] = {"type": "text", "from": "choice", "choices": [words]}
        return {"param": self.names[value]}

    def name(self, key: str, value: Any) -> Raw:
        """The condition that a record's text field `key` holds `value`, where the instruction
        says it: as a parameter (`param`: which the oracle may type), or in another case where
        the session did not type it ("Add eggs" for the existing record "Eggs": a literal,
        which a list to pick from gives); {} where it does not say it."""
        if not isinstance(value, str) or not value.strip():
            return {}
        said = self.param(value)
        if said is not None:
            return {key: said}
        found = re.search(rf"(?<!\w){re.escape(value.casefold())}(?!\w)", self.template.casefold())
        return {key: value} if found else {}

    def record(self, key: str, record: Raw, records: list[Raw]) -> Raw:
        """The condition naming an existing `record` of `records` by its field `key`: as `name`
        reads it, or, where the instruction says only part of it, by a word of it that no other
        record's `key` has ("Flights are urgent" for "Book flights to Lisbon": a literal)."""
        value = record.get(key)
        named = self.name(key, value)
        if named or not isinstance(value, str):
            return named
        others = {w for r in records if r is not record and isinstance(r.get(key), str)
                  for w in _words(r[key])}
        said = set(_words(self.template))
        return {key: value} if any(w in said and w not in others for w in _words(value)) \
            else {}

    def where(self, fields: Raw) -> Raw:
        """The condition on a record's fields: texts as `name` reads them (left out where the
        instruction does not say them), other values as they are."""
        out: Raw = {}
        for f, v in fields.items():
            out.update(self.name(f, v) if isinstance(v, str) else {f: v})
        return out


def _words(text: str) -> list[str]:
    """The words of a text that can tell a record (three letters or more, no function word)."""
    return [w for w in re.findall(r"\w+", text.casefold())
            if len(w) >= 3 and w not in nm.FUNCTION_WORDS]


def _plain(text: str) -> str:
    """A text compared in any case and spacing."""
    return " ".join(text.split()).casefold()
