"""The `state` pass: writable state, bindings, effects and guards from observed diffs (-> `StateModel`)."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from phoneworld.ir.app import Choose, Count, Expr, Guard, Lit, Selected, SetEffect, Var, VarRef
from phoneworld.ir.graph import ObservedStep, TransitionGraph
from phoneworld.ir.model import Binding, ListBinding, Rule, StateModel
from phoneworld.ir.screens import Abstraction
from phoneworld.runtime.compiled import StateLayout
from phoneworld.runtime.semantics import selected_record
from phoneworld.state.effects import Context, apply, both, layout, state_vars
from phoneworld.state.infer import (
    Branch, Sample, guard_candidates, infer_effects, negation, split, structural_effects,
    typed_guards,
)
from phoneworld.state.schema import Schema, discover
from phoneworld.state.sentences import Sentences
from phoneworld.state.radio import radio_rules
from phoneworld.state.untried import dismiss_widgets, overflow_widgets, untried_rules
from phoneworld.state.windows import scroll_steps
from phoneworld.state.track import (
    Tracked, absolute_item, below, closed_over, closes, enters, entry_label, initial_state,
    navigation, shown, track, transient_screens,
)

__all__ = ["infer_state", "prepare"]

MAX_SOURCES = 3
MAX_SPLITS = 2  # conditions one trigger's effects may be split by, one inside the other


def prepare(abstraction: Abstraction, graph: TransitionGraph
            ) -> tuple[Schema, list[list[Tracked]]]:
    """The schema and the tracked state of every step (shared with fidelity replay)."""
    entries: dict[str, set[str]] = defaultdict(set)
    reentered = closed_over(graph.steps)
    for step in graph.steps:
        if enters(step, reentered):
            entries[step.next_screen].add(entry_label(step))
    schema = discover(abstraction, entries)
    schema.closed_over = reentered
    schema.dismissing = dismiss_widgets(abstraction)
    tracked = track(schema, abstraction, graph)
    schema.transient = transient_screens(graph, tracked, schema.dismissing,
                                         overflow_widgets(abstraction))
    return schema, track(schema, abstraction, graph) if schema.transient else tracked


def infer_state(abstraction: Abstraction, graph: TransitionGraph) -> StateModel:
    schema, tracked = prepare(abstraction, graph)
    kinds = layout(schema)
    selected = _selected_bindings(schema, kinds, abstraction, tracked)
    selected.update(_count_bindings(schema, abstraction, tracked, selected))
    # A variable every widget of which reads the selected record instead is not state of its own.
    hidden = {schema.text_vars[k] for k in selected} - {
        v for k, v in schema.text_vars.items() if k not in selected}
    samples = _samples(schema, kinds, abstraction, graph, tracked, hidden)
    groups: dict[tuple[str, str, str], list[Sample]] = defaultdict(list)
    for s in samples:
        groups[(s.step.screen, s.step.action or "", s.step.widget or "")].append(s)
    rules: list[Rule] = []
    dropped: list[str] = []
    outvoted: list[Sample] = []
    for (screen, action, widget), group in sorted(groups.items()):
        screen_vars = {v for (sc, _), v in schema.text_vars.items() if sc == screen}
        for branch in _plan(schema, screen_vars, group, dropped, outvoted):
            rules.append(_rule(schema, branch, tracked))
    rules = _fresh_entries(rules + untried_rules(abstraction, graph, rules), schema)
    rules = radio_rules(abstraction, schema, rules)
    steps = scroll_steps(schema.list_vars, graph, tracked)
    return StateModel(
        variables=state_vars(schema, hidden),
        bindings=_bindings(schema, selected),
        lists=tuple(ListBinding(screen=s, widget=w, collection=c, scroll=steps.get((s, w), 0),
                                shown={wid: f for f, (wid, what)
                                       in schema.item_fields[(s, w)].items() if what == "shown"})
                    for (s, w), c in sorted(schema.list_vars.items())),
        rules=tuple(rules),
        initial_state={k: v for k, v in initial_state(schema, abstraction, tracked).items()
                       if k not in hidden},
        dropped=tuple(dropped),
        outvoted=tuple(sorted((s.step.episode, s.step.step) for s in outvoted)),
    )


def _opens(rule: Rule) -> bool:
    return bool(rule.target) and rule.target != rule.screen and rule.nav != "pop"


def _fresh_entries(rules: list[Rule], schema: Schema) -> list[Rule]:
    """An untried rule that opens a screen (`untried_rules`: no effects of its own) takes the
    literal values every recorded way into that screen sets, where two or more were recorded: a
    form each recorded opener showed fresh (its field back to its hint) opens fresh the untried
    way too, not with what was typed the last time. How the screen was entered is its own
    (`entered_<screen>`), never shared."""
    ways: dict[str, list[Rule]] = defaultdict(list)
    for r in rules:
        if r.support > 0 and _opens(r):
            ways[r.target or ""].append(r)
    entry = set(schema.entry_vars.values())
    out = []
    for r in rules:
        seen = ways.get(r.target or "", [])
        if r.support == 0 and _opens(r) and not r.effects and len(seen) >= 2:
            common = tuple(e for e in seen[0].effects
                           if isinstance(e, SetEffect) and isinstance(e.value, Lit)
                           and isinstance(e.ref, VarRef) and e.ref.name not in entry
                           and all(e in w.effects for w in seen[1:]))
            r = r.model_copy(update={"effects": common}) if common else r
        out.append(r)
    return out


def _samples(schema: Schema, kinds: StateLayout, abstraction: Abstraction,
             graph: TransitionGraph, tracked: list[list[Tracked]], hidden: set[str]
             ) -> list[Sample]:
    unseen = _unseen(schema, abstraction)
    out = []
    for step in graph.steps:
        if step.action is None or not step.screen or not step.next_screen:
            continue
        ctx = _context(schema, kinds, step, tracked[step.episode][step.step])
        guarded = tracked[step.episode][step.step].state
        before = apply(structural_effects(schema, step), guarded, ctx)
        after = shown(schema, abstraction.readings[step.episode][step.step + 1],
                      tracked[step.episode][step.step + 1])
        out.append(Sample(step=step, guarded=_visible(guarded, hidden),
                          before=_visible(before, hidden), after=_visible(after, hidden), ctx=ctx,
                          unseen=unseen[step.episode][step.step]))
    return out


def _unseen(schema: Schema, abstraction: Abstraction) -> list[list[frozenset[str]]]:
    """Per episode and step, the variables some screen shows but none had shown yet, in recording
    order (the step's own screen included)."""
    shown = [[frozenset(schema.values(r)) for r in readings] for readings in abstraction.readings]
    left = frozenset().union(*(s for ep in shown for s in ep))
    out = []
    for ep in shown:
        row = []
        for keys in ep:
            left = left - keys
            row.append(left)
        out.append(row)
    return out


def _visible(state: dict[str, Any], hidden: set[str]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k not in hidden}


def _context(schema: Schema, kinds: StateLayout, step: ObservedStep, before: Tracked) -> Context:
    coll = schema.list_vars.get((step.screen, step.list_widget or ""))
    return Context(kinds, collection=coll, item=absolute_item(step, before.windows) if coll else None,
                   text=step.input)


def _plan(schema: Schema, screen_vars: set[str], samples: list[Sample],
          dropped: list[str], outvoted: list[Sample]) -> list[Branch]:
    by_target: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        by_target[s.step.next_screen].append(s)
    if len(by_target) == 1:
        return _effect_branches(schema, screen_vars, next(iter(by_target)), samples, None)
    guard = _target_guard(schema, screen_vars, samples)
    if guard is not None:
        yes, no = split(guard, samples)
        target = _majority(yes)
        if {s.step.next_screen for s in yes} != {target}:  # a guard that holds but for no-ops
            lost = [s for s in yes if s.step.next_screen != target]
            outvoted += lost
            first = samples[0].step
            dropped.append(
                f"{first.screen} {first.action} {first.widget or ''}: {len(lost)} step(s) "
                f"changed nothing where the step went to {target} (read too early?)")
            yes = [s for s in yes if s.step.next_screen == target]
        return (_effect_branches(schema, screen_vars, target, yes, guard)
                + _plan(schema, screen_vars, no, dropped, outvoted))
    target = _majority(samples)
    kept = by_target[target]
    first = samples[0].step
    for other, lost in sorted(by_target.items()):
        if other != target:
            outvoted += lost
            dropped.append(
                f"{first.screen} {first.action} {first.widget or ''}: {len(lost)} step(s) went to "
                f"{other} instead of {target}; no state condition tells them apart")
    return _effect_branches(schema, screen_vars, target, kept, None)


def _target_guard(schema: Schema, screen_vars: set[str], samples: list[Sample]) -> Guard | None:
    """A guard that holds on the steps going to one screen: the first that holds on all of them
    and on no other step; else the one (or its negation) that holds on the most steps of one
    screen other than the majority's and on no step of another, so that guarding them gets
    right every step the majority alone gets right, and more. The rest are planned again.
    Failing those, what a field held (`typed_guards`), only where one text tells one outcome
    from all others exactly: a guard per text would learn a random outcome by heart. Last, one
    that would tell one outcome from all others exactly but for steps that changed nothing at all
    (`_but_for_noops`): DroidBot reads some screens before the app drew the change, so a tap on
    a menu's "Delete" reads now and then as staying put, and those few must not hide that the
    entry tapped decides where the tap leads."""
    majority = _majority(samples)
    best: tuple[int, Guard] | None = None
    lenient: Guard | None = None
    for guard in guard_candidates(schema, screen_vars, samples):
        for g in (guard, negation(guard)):
            yes, no = split(g, samples)
            targets = {s.step.next_screen for s in yes}
            if lenient is None and g is guard and _but_for_noops(yes, no):
                lenient = g
            if not yes or not no or len(targets) != 1:
                continue
            if g is guard and all(s.step.next_screen not in targets for s in no):
                return g
            if majority not in targets and _majority(no) == majority and (
                    best is None or len(yes) > best[0]):
                best = (len(yes), g)
    for typed in typed_guards(schema, screen_vars, samples):
        for g in (typed, negation(typed)):
            yes, no = split(g, samples)
            targets = {s.step.next_screen for s in yes}
            if g is typed and len(targets) == 1 and all(
                    s.step.next_screen not in targets for s in no):
                return g
            if lenient is None and _but_for_noops(yes, no):
                lenient = g
    return best[1] if best is not None else lenient


def _noop(sample: Sample) -> bool:
    """A step that changed nothing at all: it stayed, its screen unchanged (a tap the app never
    took, or a screen read before the app drew the change)."""
    return sample.step.next_screen == sample.step.screen and not sample.step.changed


def _but_for_noops(yes: list[Sample], no: list[Sample]) -> bool:
    """Whether a split tells one outcome from all others exactly once the steps that changed
    nothing are set aside: the steps where it holds that did something all went to one screen,
    more of them than set aside, and none of the others went there."""
    took = [s for s in yes if not _noop(s)]
    targets = {s.step.next_screen for s in took}
    return len(targets) == 1 and len(took) > len(yes) - len(took) > 0 and bool(no) \
        and all(s.step.next_screen not in targets for s in no)


def _majority(samples: list[Sample]) -> str:
    """The screen most of `samples` go to. Ties go to an outcome where the step did something (a
    tap that changed nothing may not have been taken), then to the greatest id."""
    counts = Counter(s.step.next_screen for s in samples)
    took = {s.step.next_screen for s in samples
            if s.step.changed or s.step.next_screen != s.step.screen}
    return max(counts.items(), key=lambda kv: (kv[1], kv[0] in took, kv[0]))[0]


def _effect_branches(schema: Schema, screen_vars: set[str], target: str, samples: list[Sample],
                     guard: Guard | None, depth: int = 0) -> list[Branch]:
    """The steps of one trigger and target as branches, each with the effects that explain its
    steps: split by the condition under which the effects explain the most steps, and each side
    split again, up to `MAX_SPLITS` conditions deep (an editor's exit appends a new note and
    updates an open one; of the new ones, a blank one is not kept)."""
    effects, explained = infer_effects(schema, samples)
    if explained < len(samples) and depth < MAX_SPLITS:
        best: tuple[int, Guard, list[Sample], list[Sample]] | None = None
        # and what a field held: a form left blank shows its hint where typing shows a text
        for g in (*guard_candidates(schema, screen_vars, samples),
                  *typed_guards(schema, screen_vars, samples)):
            yes, no = split(g, samples)
            if not yes or not no:
                continue
            x = infer_effects(schema, yes)[1] + infer_effects(schema, no)[1]
            if x > explained and (best is None or x > best[0]):
                best = (x, g, yes, no)
        took = [s for s in samples if not _noop(s)]
        if (best is None or best[0] < len(samples)) and len(took) > len(samples) - len(took):
            # what explains every step that did something beats a condition that explains only
            # some of those that changed nothing (read too early): that one fits the noise
            e_took, x_took = infer_effects(schema, took)
            if x_took == len(took):
                return [Branch(guard, target, samples, e_took, x_took)]
        if best is not None:
            _, g, yes, no = best
            return (_effect_branches(schema, screen_vars, target, yes, both(guard, g), depth + 1)
                    + _effect_branches(schema, screen_vars, target, no, guard, depth + 1))
    return [Branch(guard, target, samples, effects, explained)]


def _rule(schema: Schema, branch: Branch, tracked: list[list[Tracked]]) -> Rule:
    first = branch.samples[0].step
    navs = Counter(
        navigation(tracked[s.step.episode][s.step.step].stack, s.step.screen, s.step.next_screen,
                   schema.transient, closes(schema, s.step))
        for s in branch.samples
    )
    nav = navs.most_common(1)[0][0]
    # back (or a dismiss button) that went to the screen below every time is plain back: wherever
    # the screen was opened from, it returns there (a pop to a named screen only where it skipped
    # screens)
    relative = closes(schema, first) and nav == "pop" and all(
        below(tracked[s.step.episode][s.step.step].stack, s.step.screen)[-1:]
        == (s.step.next_screen,) for s in branch.samples)
    return Rule(
        screen=first.screen, action=first.action or "", widget=first.widget, guard=branch.guard,
        effects=structural_effects(schema, first) + branch.effects,
        target=None if nav == "stay" or relative else branch.target, nav=nav,
        support=len(branch.samples),
        sources=tuple(s.step.source for s in branch.samples[:MAX_SOURCES]),
    )


def _selected_bindings(schema: Schema, kinds: StateLayout, abstraction: Abstraction,
                       tracked: list[list[Tracked]]) -> dict[tuple[str, str], Expr]:
    """Widgets that always show the selected record (a detail screen) read it directly: a text
    field as is, a flag field as one of two labels ("Done" / "Open"), or, on a widget one cannot
    type into, a text field inside a sentence ("Remove “{}”?")."""
    votes: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    labels: dict[tuple[str, str, str, str], dict[bool, set[str]]] = defaultdict(
        lambda: defaultdict(set))
    sentences = Sentences()
    seen: Counter[tuple[str, str]] = Counter()
    exprs: dict[str, Expr] = {}
    for e, readings in enumerate(abstraction.readings):
        for i, r in enumerate(readings):
            state = tracked[e][i].state
            for (screen, wid), var in schema.text_vars.items():
                if screen != r.screen or var not in state or wid not in r.texts:
                    continue
                # Every reading counts, those with no record selected too: a field that showed
                # a text while none was (typed into on the way to adding one) is not a view.
                seen[(screen, wid)] += 1
                for coll, info in schema.variables.items():
                    rec = selected_record(kinds, state, coll) if info.kind == "collection" else None
                    if rec is None:
                        continue
                    for f, (kind, _) in info.fields.items():
                        if kind == "flag" and isinstance(rec.get(f), bool):
                            labels[(screen, wid, coll, f)][rec[f]].add(str(state[var]))
                        elif rec.get(f) == state[var] and state[var] != "":
                            expr = Selected(collection=coll, field=f)
                            votes[(screen, wid)][expr.model_dump_json()] += 1
                            exprs[expr.model_dump_json()] = expr
                        elif kind != "flag":
                            sentences.vote((screen, wid), coll, f, rec.get(f), r.texts[wid])
    out: dict[tuple[str, str], Expr] = {}
    for key, counter in votes.items():
        best, n = counter.most_common(1)[0]
        if n == seen[key]:
            out[key] = exprs[best]
    typed = {(s.id, n.wid) for s in abstraction.screens for n in s.root.walk() if n.editable}
    for key, expr in sentences.bindings(seen).items():
        if key not in out and key not in typed:
            out[key] = expr
    for (screen, wid, coll, f), by_flag in sorted(labels.items()):
        on, off = by_flag.get(True, set()), by_flag.get(False, set())
        if (screen, wid) not in out and len(on) == 1 and len(off) == 1 and on != off:
            out[(screen, wid)] = Choose(cond=Selected(collection=coll, field=f),
                                        then=on.pop(), otherwise=off.pop())
    return out


def _count_bindings(schema: Schema, abstraction: Abstraction, tracked: list[list[Tracked]],
                    taken: dict[tuple[str, str], Expr]) -> dict[tuple[str, str], Expr]:
    """Numbers that always show how many records a list holds ("3 notes", "Cart (2)") read the
    count: the number of every reading equals the collection's tracked length, and the number
    changed. Before, such a number was state of its own, moved by the add and delete taps the
    recording showed (-1 on "Delete") and by nothing else (adding a record on a path the
    recording never took left it behind), and it gave tasks of its own ("Decrease the heading
    by 1")."""
    collections = [name for name, info in schema.variables.items() if info.kind == "collection"]
    fits: dict[tuple[str, str], set[str]] = {}
    shown: dict[tuple[str, str], set[int]] = defaultdict(set)
    for e, readings in enumerate(abstraction.readings):
        for i, r in enumerate(readings):
            state = tracked[e][i].state
            for (screen, wid), var in schema.text_vars.items():
                if screen != r.screen or wid not in r.texts or (screen, wid) in taken \
                        or schema.variables[var].kind != "number":
                    continue
                value = state.get(var)
                if not isinstance(value, int) or isinstance(value, bool):
                    fits[(screen, wid)] = set()
                    continue
                shown[(screen, wid)].add(value)
                equal = {c for c in collections if isinstance(state.get(c), list)
                         and len(state[c]) == value}
                fits[(screen, wid)] = fits.get((screen, wid), equal) & equal
    out: dict[tuple[str, str], Expr] = {}
    for key, colls in fits.items():
        if len(colls) == 1 and len(shown[key]) > 1:
            var = schema.text_vars[key]
            out[key] = Count(collection=colls.pop(), fmt=schema.variables[var].fmt)
    return out


def _bindings(schema: Schema, selected: dict[tuple[str, str], Expr]) -> tuple[Binding, ...]:
    keys = sorted(set(schema.text_vars) | set(schema.flag_vars))
    out = []
    for key in keys:
        text: Expr | None = None
        if key in selected:
            text = selected[key]
        elif key in schema.text_vars:
            var = schema.text_vars[key]
            text = Var(name=var, fmt=schema.variables[var].fmt)
        flag = schema.flag_vars.get(key)
        out.append(Binding(screen=key[0], widget=key[1], text=text,
                           checked=Var(name=flag) if flag else None))
    return tuple(out)

