"""Tracking the recorded state through each episode: what the app state was before every step.

The state before step i is everything read off the screens up to i (the latest value of each
variable wins), plus what the screens cannot show: which list record was opened (selection), how
the current screen was entered, and the screen stack. An episode that follows another (a recording
cut by a gap, a lost state file or a visit to another app) starts from where that one ended; one
that follows none (a new session) starts with the records and switches the one before it ended
with, and the first one with each list as first shown (as the reset state has it).
Teacher-forced replay starts every step from this state; effect inference compares it with the
state after the step.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from phoneworld.ir.graph import ObservedStep, TransitionGraph
from phoneworld.ir.screens import Abstraction
from phoneworld.state.schema import Schema

STACK_LIMIT = 16


@dataclass(frozen=True)
class Tracked:
    """The state and screen stack before one step (and, for the last step, after the episode)."""

    state: dict[str, Any]
    stack: tuple[str, ...]


def default_value(kind: str) -> Any:
    return {"text": "", "number": 0, "flag": False, "collection": [], "selection": None}[kind]


def entry_label(step: ObservedStep) -> str:
    """How a screen was entered, as recorded in `entered_<screen>` variables."""
    return f"{step.screen}:{step.action}:{step.widget or ''}"


def enters(step: ObservedStep, closed_over: frozenset[str] = frozenset()) -> bool:
    """Whether a step (re-)enters its next screen: it went to another screen, or it is back that
    stayed on one of the `closed_over` screens, having closed what was over it."""
    return bool(step.next_screen) and step.action is not None and (
        step.next_screen != step.screen or (step.action == "back" and step.screen in closed_over))


def closed_over(steps: Sequence[ObservedStep]) -> frozenset[str]:
    """Screens that back both stayed on and left: the first back closed what was over the screen
    (the keyboard, a popup the tree does not show) and the next one left. Such a back that
    stays counts as entering the screen again (`enters`), so the back after it, which leaves,
    is told from it by how the screen was last entered."""
    outcomes: dict[str, set[bool]] = defaultdict(set)
    for step in steps:
        if step.action == "back" and step.screen and step.next_screen:
            outcomes[step.screen].add(step.next_screen == step.screen)
    return frozenset(screen for screen, stayed in outcomes.items() if len(stayed) == 2)


def defaults(schema: Schema) -> dict[str, Any]:
    return {name: default_value(info.kind) for name, info in sorted(schema.variables.items())}


def navigation(stack: tuple[str, ...], here: str, there: str,
               transient: frozenset[str] = frozenset(), closes: bool = False) -> str:
    """`pop` when the next screen is below on the stack (popping down to it), else `push`, or
    `replace` from a `transient` screen (one that leaving dismisses); `stay` on the screen on top
    of the stack (also back from a screen the app does not know). A step that `closes` what it is
    on (back, a dismiss button) never opens a screen: where the next one is not on the stack, it
    is the screen below shown anew (a settings page that gained an entry while a dialog over it
    was open), so it pops one and the next screen takes the place of the one below."""
    if not there or there == here or (not here and stack[-1:] == (there,)):
        return "stay"
    if there in stack[:-1] or (closes and here):
        return "pop"
    return "replace" if here in transient else "push"


def closes(schema: Schema, step: ObservedStep) -> bool:
    """Whether a step closes what it is on: back, or a click on a dismiss button."""
    return step.action == "back" or (
        step.action == "click" and (step.screen, step.widget or "") in schema.dismissing)


def below(stack: tuple[str, ...], screen: str) -> tuple[str, ...]:
    """The back stack under `screen`: a tracked stack ends with the current screen."""
    return stack[:-1] if stack[-1:] == (screen,) else stack


def transient_screens(graph: TransitionGraph, tracked: list[list[Tracked]],
                      dismissing: frozenset[tuple[str, str]] = frozenset(),
                      menus: frozenset[tuple[str, str]] = frozenset()) -> frozenset[str]:
    """Screens that leaving dismisses, as a menu or a dialog is when one of its entries opens
    another screen: back (or a click on a `dismissing` widget) from where they led went below
    them at least once and never back to them. So are the popups the `menus` widgets (an
    overflow button) open, unless back from where they led returned to them. Their pushes become
    replaces, so back from a screen they opened that the recording never backed out of skips
    them too."""
    skipped: set[str] = set()
    returned: set[str] = set()
    for step in graph.steps:
        if step.action == "click" and (step.screen, step.widget or "") in menus \
                and step.next_screen not in ("", step.screen):
            skipped.add(step.next_screen)
        closes = step.action == "back" or (
            step.action == "click" and (step.screen, step.widget or "") in dismissing)
        if not closes or not step.screen or step.next_screen in ("", step.screen):
            continue
        under = below(tracked[step.episode][step.step].stack, step.screen)
        if not under:
            continue
        if step.next_screen == under[-1]:
            returned.add(under[-1])
        elif step.next_screen in under:
            skipped.add(under[-1])
    return frozenset(skipped - returned)


def apply_navigation(stack: tuple[str, ...], nav: str, there: str) -> tuple[str, ...]:
    if nav == "stay":
        return stack
    if nav == "pop":
        if there in stack[:-1]:
            return stack[: len(stack) - 1 - stack[:-1][::-1].index(there)]
        return stack[:-2] + (there,)
    if nav == "replace":
        return stack[:-1] + (there,)
    return (stack + (there,))[-STACK_LIMIT:]


def track(schema: Schema, abstraction: Abstraction, graph: TransitionGraph,
          outside: Sequence[Tracked | None] = ()) -> list[list[Tracked]]:
    """Per episode, the tracked state before each step (one more entry than actions).
    `outside`: per episode, where an episode not among these readings that it follows ended (a
    held-out tail starts where its training head ended)."""
    by_step = {(s.episode, s.step): s for s in graph.steps}
    follows = abstraction.follows or (None,) * len(abstraction.readings)
    out: list[list[Tracked]] = []
    first = first_kept(schema, abstraction)
    for e, readings in enumerate(abstraction.readings):
        before = out[follows[e]][-1] if follows[e] is not None else (
            outside[e] if e < len(outside) else None)
        if before is None and e > 0:
            before = _next_session(schema, out[e - 1][-1])
        if before is None and first:
            before = Tracked({**defaults(schema), **copy.deepcopy(first)}, ())
        state, stack = _start(schema, before, readings[0].screen)
        state.update(schema.values(readings[0]))
        episode = [Tracked(copy.deepcopy(state), stack)]
        for i in range(1, len(readings)):
            step = by_step.get((e, i - 1))
            if step is not None:
                _remember(schema, state, step)
                nav = navigation(stack, step.screen, step.next_screen, schema.transient,
                                 closes(schema, step))
                stack = apply_navigation(stack, nav, step.next_screen)
            state.update(schema.values(readings[i]))
            episode.append(Tracked(copy.deepcopy(state), stack))
        out.append(episode)
    return out


PERSISTENT = ("collection", "flag")  # what an app keeps between sessions: records, switches


def first_kept(schema: Schema, abstraction: Abstraction) -> dict[str, Any]:
    """What the app keeps (`PERSISTENT`) as it was first shown, as the reset state has it
    (`initial_state`): what the first session starts with, so that first seeing a list (a menu's
    entries, the records already there) is no append of records, and first seeing a switch on a
    screen opened later (a settings page, a choice dialog) is no toggle by its opener."""
    return {name: value for name, value in initial_state(schema, abstraction).items()
            if schema.variables[name].kind in PERSISTENT
            and (value or schema.variables[name].kind == "flag")}


def _next_session(schema: Schema, last: Tracked) -> Tracked:
    """Where a recording session that follows no other starts: with the records and switches the
    one before it (in recording order) ended with, as an app keeps its data between sessions;
    what was typed, opened or entered, and the back stack, start afresh."""
    kept = {k: v for k, v in last.state.items()
            if k in schema.variables and schema.variables[k].kind in PERSISTENT}
    return Tracked({**defaults(schema), **copy.deepcopy(kept)}, ())


def _start(schema: Schema, before: Tracked | None, screen: str
           ) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The state and stack an episode starts from: the defaults on its first screen, or where the
    episode it follows ended (its stack navigated to this first screen)."""
    if before is None:
        return defaults(schema), (screen,)
    top = before.stack[-1] if before.stack else ""
    stack = apply_navigation(before.stack, navigation(before.stack, top, screen, schema.transient),
                             screen)
    return copy.deepcopy(before.state), stack or (screen,)


def _remember(schema: Schema, state: dict[str, Any], step: ObservedStep) -> None:
    """Update what the screens do not show: the selected record and how a screen was entered."""
    if step.next_screen != step.screen and step.list_widget is not None \
            and step.item is not None:
        coll = schema.list_vars.get((step.screen, step.list_widget))
        if coll is not None:
            state[f"{coll}_selected"] = step.item
    entry = schema.entry_vars.get(step.next_screen)
    if entry is not None and enters(step, schema.closed_over):
        state[entry] = entry_label(step)


def initial_state(schema: Schema, abstraction: Abstraction) -> dict[str, Any]:
    """The reset state: each variable as it was first shown (the first episode's first screen
    first), defaults for what no screen shows."""
    state = defaults(schema)
    seen: set[str] = set()
    for readings in abstraction.readings:
        for reading in readings:
            for name, value in schema.values(reading).items():
                if name not in seen:
                    state[name] = copy.deepcopy(value)
                    seen.add(name)
    return state
