"""Tracking the recorded state through each episode: what the app state was before every step.

The state before step i is everything read off the screens up to i (the latest value of each
variable wins), plus what the screens cannot show: which list record was opened (selection), how
the current screen was entered, and the screen stack. An episode that follows another (a recording
cut by a gap, a lost state file or a visit to another app) starts from where that one ended; one
that follows none (a new session) starts with the records and switches the one before it ended
with (its scrolled lists at the top), and the first one with each list as first shown (as the
reset state has it). A list the recording scrolled holds the records of every window a scroll
joined (`state.windows`), and the tracked state keeps where each such list's window is.
Teacher-forced replay starts every step from this state; effect inference compares it with the
state after the step.
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from phoneworld.ir.graph import ObservedStep, TransitionGraph
from phoneworld.ir.screens import Abstraction, ScreenReading
from phoneworld.state.schema import Schema
from phoneworld.state.windows import SCROLLS, Window, runs_at, scrolled, spliced

STACK_LIMIT = 16


@dataclass(frozen=True)
class Tracked:
    """The state and screen stack before one step (and, for the last step, after the episode)."""

    state: dict[str, Any]
    stack: tuple[str, ...]
    # (screen, list wid) -> where its window is, for the lists a scroll joined windows of
    windows: dict[tuple[str, str], Window] = field(default_factory=dict)


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
        windows = dict(before.windows) if before is not None else {}
        episode: list[Tracked] = []
        _read(schema, state, windows, readings[0], None, episode)
        episode.append(Tracked(copy.deepcopy(state), stack, dict(windows)))
        for i in range(1, len(readings)):
            step = by_step.get((e, i - 1))
            if step is not None:
                _remember(schema, state, step, windows)
                nav = navigation(stack, step.screen, step.next_screen, schema.transient,
                                 closes(schema, step))
                stack = apply_navigation(stack, nav, step.next_screen)
            _read(schema, state, windows, readings[i], step, episode)
            episode.append(Tracked(copy.deepcopy(state), stack, dict(windows)))
        out.append(episode)
    return out


def absolute_item(step: ObservedStep, windows: dict[tuple[str, str], Window]) -> int | None:
    """The index of the record a step's tap hit: its row in the window plus where the window
    of a scrolled list is (`windows`: the tracked state's before the step)."""
    if step.item is None:
        return None
    at = windows.get((step.screen, step.list_widget or ""))
    return step.item + (at[0] if at is not None else 0)


def _read(schema: Schema, state: dict[str, Any], windows: dict[tuple[str, str], Window],
          reading: ScreenReading, step: ObservedStep | None, episode: list[Tracked]) -> None:
    """Update `state` with what `reading` (after `step`, None at an episode's start) shows: each
    list's window read against the records it holds, `windows` kept up to date
    (`state.windows`)."""
    values = schema.values(reading)
    for (screen, wid), coll in schema.list_vars.items():
        known, window = state.get(coll), values.get(coll)
        if screen != reading.screen or not isinstance(known, list) \
                or not isinstance(window, list):
            continue
        key, at = (screen, wid), windows.get((screen, wid))
        direction = SCROLLS.get(step.action or "") if step is not None \
            and step.screen == step.next_screen == screen else None
        if direction is not None:
            got = scrolled(known, at[0] if at is not None else 0, window, direction)
            if got is not None:
                if got[0] != known:
                    _backdate(episode, coll, key, known, got[0])
                values[coll], windows[key] = got[0], (got[1], len(window))
                continue
        if at is None:
            continue
        entered = step is None or step.screen != screen
        if runs_at(known, window, at[0]):
            values[coll], windows[key] = known, (at[0], len(window))
        elif entered and runs_at(known, window, 0):
            values[coll], windows[key] = known, (0, len(window))
        elif (joined := spliced(known, at, window)) is not None:
            values[coll], windows[key] = joined, (at[0], len(window))
        else:
            del windows[key]
    state.update(values)


def _backdate(episode: list[Tracked], coll: str, key: tuple[str, str], known: list[Any],
              merged: list[Any]) -> None:
    """A scroll showed records of `coll` beyond `known`: they were there all along, since the
    list last changed (no step added them)."""
    ahead = next((i for i in range(len(merged) - len(known) + 1)
                  if runs_at(merged, known, i)), 0)
    for tracked in reversed(episode):
        if tracked.state.get(coll) != known:
            break
        tracked.state[coll] = copy.deepcopy(merged)
        at = tracked.windows.get(key)
        tracked.windows[key] = (at[0] + ahead, at[1]) if at is not None else (ahead, len(known))


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
    return Tracked({**defaults(schema), **copy.deepcopy(kept)}, (),
                   {key: (0, shown) for key, (_, shown) in last.windows.items()})


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


def _remember(schema: Schema, state: dict[str, Any], step: ObservedStep,
              windows: dict[tuple[str, str], Window]) -> None:
    """Update what the screens do not show: the selected record and how a screen was entered."""
    if step.next_screen != step.screen and step.list_widget is not None \
            and step.item is not None:
        coll = schema.list_vars.get((step.screen, step.list_widget))
        if coll is not None:
            state[f"{coll}_selected"] = absolute_item(step, windows)
    entry = schema.entry_vars.get(step.next_screen)
    if entry is not None and enters(step, schema.closed_over):
        state[entry] = entry_label(step)


def initial_state(schema: Schema, abstraction: Abstraction,
                  tracked: list[list[Tracked]] | None = None) -> dict[str, Any]:
    """The reset state: each variable as it was first shown (the first episode's first screen
    first), defaults for what no screen shows; with `tracked`, a list as its records were then
    (with those a scroll showed later, before the list changed)."""
    state = defaults(schema)
    seen: set[str] = set()
    for e, readings in enumerate(abstraction.readings):
        for i, reading in enumerate(readings):
            for name, value in schema.values(reading).items():
                if name not in seen:
                    if tracked is not None and isinstance(value, list):
                        value = tracked[e][i].state.get(name, value)
                    state[name] = copy.deepcopy(value)
                    seen.add(name)
    return state


def shown(schema: Schema, reading: ScreenReading, tracked: Tracked) -> dict[str, Any]:
    """The state `reading` shows, each scrolled list's records as `tracked` holds them (the
    window is only part of them)."""
    values = schema.values(reading)
    for (screen, wid), coll in schema.list_vars.items():
        if screen == reading.screen and coll in values and (screen, wid) in tracked.windows:
            values[coll] = copy.deepcopy(tracked.state[coll])
    return values
