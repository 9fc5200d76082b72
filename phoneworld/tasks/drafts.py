"""Task drafts: what synthesis produces before it becomes a `TaskSpec`, and the facts about an app
that synthesis reads (reachable screens, typable fields, collections and their flag fields).

A draft keeps its rule as clauses plus the change it makes to what the rule pins, so that two
drafts combine into one task (their changes add up instead of conflicting). Pins are how a
synthesized verifier refuses collateral damage: every collection a user can change keeps its
record count and its number of set flags (up to the draft's own change), and every flag a user
can change (a switch, a checkbox, a radio button) that the draft neither targets nor moves with its
target (a radio button's neighbours) keeps its value; a neighbour that another tap also moves on
its own ends where the target's tap leaves it (`neighbour_values`). An agent that flips everything
in sight does not pass by accident. And every such collection is `unchanged` but for the records
the draft names (`touches`): editing, deleting or adding another record fails too.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field, replace
from typing import Any

from phoneworld.ir.app import AppSpec, StateVar
from phoneworld.tasks import naming as nm
from phoneworld.tasks.spec import TaskSpec

Raw = dict[str, Any]
Range = tuple[int, int]
MAX_SWITCH_PINS = 256  # flags pinned per task (every one a user can change, in practice)
SEED_RECORDS = 8  # records a synthesized task's lists start with (the recorded ones first)


@dataclass
class Draft:
    kind: str  # a kind of `synth*` (create, ..., answer, navigate) or pair
    slug: str
    instruction: str
    clauses: list[Raw]
    params: dict[str, Raw] = field(default_factory=dict)
    deltas: dict[str, Range] = field(default_factory=dict)  # "coll" or "coll.flag" -> change
    initial_state: Raw = field(default_factory=dict)
    category: str = "single_app"
    kinds: tuple[str, ...] = ()  # for pairs: the kinds combined
    targets: tuple[str, ...] = ()  # variables it sets on purpose (not pinned)
    # per collection, the `where` conditions naming the records it changes (None: it changes one
    # it cannot name, so that collection is pinned by its counts only)
    touches: dict[str, tuple[Raw, ...] | None] = field(default_factory=dict)
    # per collection, the fields of the named records it edits in place (a rename, a tick): their
    # `unchanged` pin identifies records by place, so deleting one and adding another fails
    edits: dict[str, tuple[str, ...]] = field(default_factory=dict)
    way: tuple[str, ...] = ()  # fields typed on the way (a sign-in's account), by variable

    def signature(self) -> str:
        """Equal for drafts that would make the same task (duplicates)."""
        return json.dumps([self.clauses, self.params, self.initial_state], sort_keys=True)

    def names(self) -> set[str]:
        """The variables and collections the draft's clauses, parameters and start state name."""
        return set(re.findall(r'"(?:var|collection)": "([^"]+)"', self.signature()))


@dataclass(frozen=True)
class Collection:
    var: StateVar
    noun: str
    id_field: str | None
    flags: tuple[str, ...]  # flag fields some input can change
    selectable: bool


@dataclass
class AppFacts:
    app: AppSpec
    reachable: set[str]
    typable: set[str]  # text variables a user can type into
    collections: dict[str, Collection]
    written: set[str]  # variables (and collections) some effect writes
    switches: tuple[str, ...] = ()  # flag variables a user can change (settings, boxes)
    # per flag variable, the flags the same tap also sets (a radio button's neighbours)
    coupled: dict[str, frozenset[str]] = field(default_factory=dict)
    counters: tuple[str, ...] = ()  # number variables a tap adds to
    seeded: Raw = field(default_factory=dict)  # initial-state overrides every task starts from

    @property
    def start(self) -> Raw:
        """The state synthesized tasks start from: the app's, with the seeded records."""
        return {**self.app.initial_state, **self.seeded}

    def changeable(self) -> list[Collection]:
        """Collections whose records a user can add, remove or flag."""
        return [c for c in self.collections.values() if c.var.name in self.written or c.flags]


def reachable_screens(app: AppSpec) -> set[str]:
    """Screens reachable from the start in the transition graph (guards ignored)."""
    out, todo = {app.start_screen}, [app.start_screen]
    while todo:
        sid = todo.pop()
        for t in app.transitions:
            if t.screen == sid and t.target is not None and t.target not in out:
                out.add(t.target)
                todo.append(t.target)
    return out


def _typable(app: AppSpec, reachable: set[str]) -> set[str]:
    out = set()
    for sid, w, _ in nm.widgets(app):
        if sid in reachable and (w.editable or w.cls.endswith("EditText")) and w.text.kind == "var":
            out.add(w.text.name)
    for t in app.transitions:
        for e in t.effects:
            if e.kind == "set" and e.ref.kind == "var" and e.value.kind == "input":
                out.add(e.ref.name)
    return out


def _flag_fields(app: AppSpec, coll: StateVar, reachable: set[str]) -> tuple[str, ...]:
    flags = {f.name for f in coll.fields if f.kind == "flag"}
    out: set[str] = set()
    for t in app.transitions:
        if t.screen in reachable:
            for e in t.effects:
                ref = getattr(e, "ref", None)
                if e.kind in ("toggle", "set") and ref is not None and ref.kind == "record" \
                        and ref.collection == coll.name and ref.field in flags:
                    out.add(ref.field)
                elif e.kind == "set_each" and e.collection == coll.name and e.field in flags:
                    out.add(e.field)  # "Mark all as read": a flag no row widget shows
    for sid, w, _ in nm.widgets(app):
        c = w.checked
        if sid in reachable and w.checkable and c.kind in ("item", "selected") and c.field in flags:
            if c.kind == "item" or c.collection == coll.name:
                out.add(c.field)
    return tuple(sorted(out))


def app_facts(app: AppSpec) -> AppFacts:
    reachable = reachable_screens(app)
    written: set[str] = set()
    selectable: set[str] = set()
    for t in app.transitions:
        for e in t.effects:
            if e.kind in ("set", "add", "toggle"):
                written.add(e.ref.name if e.ref.kind == "var" else e.ref.collection)
            elif e.kind in ("append", "remove", "remove_where", "set_each"):
                written.add(e.collection)
            elif e.kind == "select" and t.screen in reachable:
                selectable.add(e.collection)
    colls = {}
    for v in app.state:
        if v.kind == "collection":
            noun = nm.list_noun(app, v.name)
            fields = [(f.name, f.kind) for f in v.fields]
            colls[v.name] = Collection(v, noun, nm.id_field(fields),
                                       _flag_fields(app, v, reachable), v.name in selectable)
    colls = _told_apart(app, colls, reachable, written)
    switches = []
    for v in app.state:
        bound = nm.bound_widget(app, v.name, "checked") if v.kind == "flag" else None
        tappable = bound is not None and bound[0] in reachable and bound[1].checkable
        if v.kind == "flag" and (tappable or v.name in written):
            switches.append(v.name)
    coupled: dict[str, set[str]] = {}
    for t in app.transitions:
        flags = {e.ref.name for e in t.effects if e.kind in ("set", "toggle")
                 and e.ref.kind == "var" and e.ref.name in switches}
        for name in flags:
            coupled.setdefault(name, set()).update(flags - {name})
    counters = sorted({e.ref.name for t in app.transitions for e in t.effects
                       if e.kind == "add" and e.ref.kind == "var"})
    facts = AppFacts(app, reachable, _typable(app, reachable), colls, written,
                     tuple(switches[:MAX_SWITCH_PINS]),
                     {k: frozenset(v) for k, v in coupled.items()}, tuple(counters))
    facts.seeded = seed_records(facts)
    return facts


def _told_apart(app: AppSpec, colls: dict[str, Collection], reachable: set[str],
                written: set[str]) -> dict[str, Collection]:
    """Lists a user changes (records added, removed or flagged) whose records are named alike
    (two "item" lists: no resource id of the app's own names either, as in Compose and Flutter
    apps), named by the title of the first reachable screen showing each ("Wishlist item"), where
    that title is its own: else "Add an item titled ..." is one instruction for both, and all but
    one of their tasks go as duplicates. Lists named alike that never change are left out then:
    chrome read as a list (a tab bar, a dialog's row of buttons: "Open the item "Cancel"") whose
    tasks were the named lists' duplicates before, and dropped as such."""
    titles = {name: nm.list_title(app, name, reachable) or "" for name in colls}
    out = dict(colls)
    for noun in {c.noun for c in colls.values()}:
        changing = [name for name, c in colls.items() if c.noun == noun and c.var.fields
                    and (name in written or c.flags)]
        shown = [titles.get(name, "") for name in changing]
        told = [name for name, title in zip(changing, shown)
                if len(changing) > 1 and title and shown.count(title) == 1]
        for name in told:
            out[name] = replace(colls[name], noun=f"{titles[name]} {noun}")
        if told:  # what the named lists' tasks used to hide as their duplicates stays hidden
            for name, c in colls.items():
                if c.noun == noun and name not in changing:
                    del out[name]
    return out


def _visible(app: AppSpec, coll: str, reachable: set[str]) -> int:
    sizes = [w.list.max_visible for sid, w, _ in nm.widgets(app)
             if sid in reachable and w.list is not None and w.list.collection == coll]
    return min(sizes) if sizes else 0


def seed_records(facts: AppFacts) -> Raw:
    """Extra records for the lists a user can change, so that a task names one record among
    several (as android_world seeds its tasks' data): up to `SEED_RECORDS`, no more than the list
    shows at once, generated with a seed fixed by the app and collection."""
    from phoneworld.tasks.params import PHRASES, WORDS
    from phoneworld.tasks.synth import record_values

    out: Raw = {}
    for c in facts.changeable():
        name = c.var.name
        recs = [dict(r) for r in facts.app.initial_state.get(name) or [] if isinstance(r, dict)]
        want = min(SEED_RECORDS, _visible(facts.app, name, facts.reachable))
        if c.id_field is None or len(recs) >= want:
            continue
        rng = random.Random(f"{facts.app.package}:{name}")
        taken = {r.get(c.id_field) for r in recs}
        # values of the kind the app's own records hold (a person's name, a phone number); the
        # naming field's from the phrases where its kind has too few left to tell records apart
        kinds = {f.name: record_values(facts, c, f.name).get("choices") or
                 (PHRASES if f.name == c.id_field else [w.capitalize() for w in WORDS])
                 for f in c.var.fields}
        if len(set(kinds[c.id_field]) - taken) < want - len(recs):
            kinds[c.id_field] = PHRASES
        while len(recs) < want:
            rec: Raw = {}
            for f in c.var.fields:
                if f.kind == "flag":
                    rec[f.name] = rng.random() < 0.4
                elif f.kind == "number":
                    rec[f.name] = rng.randint(1, 20)
                else:
                    rec[f.name] = rng.choice(kinds[f.name])
            if rec[c.id_field] not in taken:
                taken.add(rec[c.id_field])
                recs.append(rec)
        out[name] = recs
    return out


def _bound(n: int, change: Range) -> Raw:
    lo, hi = n + change[0], n + change[1]
    return {"equals": lo} if lo == hi else {"at_least": lo, "at_most": hi}


def pins(d: Draft, facts: AppFacts) -> list[Raw]:
    """The clauses that keep what the draft does not mean to change (see the module docstring)."""
    state = {**facts.start, **d.initial_state}
    out: list[Raw] = []
    for c in facts.changeable():
        name = c.var.name
        recs = [r for r in state.get(name) or [] if isinstance(r, dict)]
        out.append({"count": {"collection": name, **_bound(len(recs), d.deltas.get(name, (0, 0)))}})
        named = d.touches.get(name, ())
        if named is not None:
            pin: Raw = {"collection": name, "except": list(named)}
            if d.edits.get(name) and d.deltas.get(name, (0, 0))[0] >= 0:  # none removed
                pin["edit"] = list(d.edits[name])
            out.append({"unchanged": pin})
        for flag in c.flags:
            k = sum(1 for r in recs if r.get(flag) is True)
            change = d.deltas.get(f"{name}.{flag}", (0, 0))
            out.append({"count": {"collection": name, "where": {flag: True}, **_bound(k, change)}})
    moved = set(d.targets).union(*(facts.coupled.get(t, frozenset()) for t in d.targets))
    follow = neighbour_values(d, facts, state)
    for var in facts.switches:
        if var not in moved or var in follow:
            value = follow.get(var, bool(state.get(var)))
            out.append({"equals": {"var": var, "value": value}})
    for var in facts.counters:
        value = state.get(var)
        if var not in d.targets and isinstance(value, int) and not isinstance(value, bool):
            out.append({"equals": {"var": var, "value": value}})
    return out


def _wanted(d: Draft) -> dict[str, bool]:
    """The flag values the draft's own clauses ask for, per target."""
    out: dict[str, bool] = {}
    for c in d.clauses:
        eq = c.get("equals") if isinstance(c, dict) else None
        if isinstance(eq, dict) and eq.get("var") in d.targets \
                and isinstance(eq.get("value"), bool):
            out[eq["var"]] = eq["value"]
    return out


def neighbour_values(d: Draft, facts: AppFacts, state: Raw) -> dict[str, bool]:
    """Where the draft sets a flag that one tap moves together with a neighbour and another tap
    moves that neighbour alone (two storage boxes a swap exchanges, one of which another button
    clears): the neighbour is state of its own, so the rule names the value it ends at, the one
    every tap that leaves the target as asked leaves it at. So is a neighbour every such tap sets
    to one value whatever it was (a radio group's other buttons, which the target's tap clears):
    left unpinned, a near miss that ticks one the solution never touched would pass. A neighbour
    only ever toggled with the target (a swap's other side) stays unpinned, as do those such
    taps disagree on."""
    taps = [(_flag_ends(t.effects, state), _set_to(t.effects)) for t in facts.app.transitions
            if t.screen in facts.reachable]
    seen: dict[str, set[bool]] = {}
    for target, want in _wanted(d).items():
        alone = {n for ends, _ in taps if target not in ends for n in ends}
        near = facts.coupled.get(target, frozenset()) - set(d.targets)
        ends_at: dict[str, set[bool]] = {}
        toggled: set[str] = set()
        for ends, fixed in taps:
            if ends.get(target) is want:
                for n in near & set(ends):
                    ends_at.setdefault(n, set()).add(ends[n])
                    if n not in fixed:
                        toggled.add(n)
        for n, values in ends_at.items():
            if n in alone or n not in toggled:
                seen.setdefault(n, set()).update(values)
    return {n: next(iter(v)) for n, v in seen.items() if len(v) == 1}


def _set_to(effects: Any) -> set[str]:
    """The flag variables a transition sets to a value whatever they were."""
    return {e.ref.name for e in effects if e.kind == "set" and getattr(e.ref, "kind", "") == "var"
            and e.value.kind == "lit" and isinstance(e.value.value, bool)}


def _flag_ends(effects: Any, state: Raw) -> dict[str, bool]:
    """The values a transition's set and toggle effects leave the flag variables at."""
    out: dict[str, bool] = {}
    for e in effects:
        ref = getattr(e, "ref", None)
        if ref is None or ref.kind != "var":
            continue
        if e.kind == "toggle":
            out[ref.name] = not out.get(ref.name, bool(state.get(ref.name)))
        elif e.kind == "set" and e.value.kind == "lit" and isinstance(e.value.value, bool):
            out[ref.name] = e.value.value
    return out


def to_spec(d: Draft, task_id: str, facts: AppFacts) -> TaskSpec:
    """The task spec of a draft: its clauses, then its pins (duplicates dropped)."""
    clauses: list[Raw] = []
    for c in [*d.clauses, *pins(d, facts)]:
        if c not in clauses:
            clauses.append(c)
    rule = clauses[0] if len(clauses) == 1 else {"all_of": clauses}
    tags = (d.kind, *d.kinds, "synthesized")
    return TaskSpec.model_validate({
        "id": task_id, "app": facts.app.package, "category": d.category,
        "instruction": d.instruction, "params": d.params,
        "initial_state": {**facts.seeded, **d.initial_state}, "rule": rule, "tags": tags,
    })
