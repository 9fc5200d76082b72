"""The `graph` pass: hit-test every recorded action against its screen's widgets (-> `TransitionGraph`).

An edge is (screen, action, widget) -> next screen. networkx stays inside this pass: it orders the
screens by reachability from the start screen.

A screen no recorded step left for another one, from which the recording saw the app move on by
itself (a chain break: the next episode starts elsewhere with no action between) always to the
same screen, is a `Move` to it: a splash or a loading page goes on by itself. Without it such a
screen is a dead end, and when it is the start screen the whole app is out of reach.
"""

from __future__ import annotations

from collections import Counter, defaultdict

import networkx as nx

from phoneworld.abstract.shape import content_keys
from phoneworld.ir.base import SourceRef
from phoneworld.ir.graph import Edge, Move, ObservedStep, TransitionGraph
from phoneworld.ir.screens import Abstraction, HitBox, ScreenReading
from phoneworld.ir.trace import Action, Step, TraceSet
from phoneworld.runtime.semantics import takes

__all__ = ["graph", "hit_test", "action_kind"]

_Focus = tuple[str | None, int | None, str | None]  # wid, item, list wid of the focused field
_KEYS = {"back": "back", "enter": "enter", "menu": "menu"}


def graph(traces: TraceSet, abstraction: Abstraction) -> TransitionGraph:
    steps: list[ObservedStep] = []
    for e, ep in enumerate(traces.episodes):
        readings = abstraction.readings[e]
        focus: _Focus = (None, None, None)
        for i, step in enumerate(ep.steps[:-1]):
            nxt = ep.steps[i + 1]
            changed = content_keys(step.observation.root) != content_keys(nxt.observation.root)
            observed, focus = _observe(step, readings[i], readings[i + 1], focus, changed)
            steps.append(observed)
    start = abstraction.readings[0][0].screen if abstraction.readings else ""
    edges = _edges(steps)
    moves = _moves(traces, abstraction, edges)
    return TransitionGraph(start_screen=start, steps=tuple(steps), edges=edges,
                           reachable=_reachable(start, edges, moves), moves=moves)


def action_kind(action: Action | None) -> str | None:
    """The app-spec action kind of a trace action (None: it leaves the app or changes nothing)."""
    if action is None:
        return None
    if action.type == "scroll":
        return f"scroll_{action.direction}"
    if action.type in ("click", "double_click", "long_press", "type"):
        return action.type
    return _KEYS.get(action.type)


def hit_test(boxes: tuple[HitBox, ...], x: float, y: float, kind: str) -> HitBox | None:
    """The widget an action at (x, y) lands on: the deepest box under the point that can take it."""
    under = [b for b in boxes if b.bounds.contains(x, y)]
    if not under:
        return None
    for box in reversed(under):
        if takes(box, kind):
            return box
    return under[-1]


def _observe(step: Step, here: ScreenReading, there: ScreenReading, focus: _Focus, changed: bool
             ) -> tuple[ObservedStep, _Focus]:
    action = step.action
    kind = action_kind(action)
    widget = item = list_widget = text = None
    if action is not None and kind in ("click", "double_click", "long_press"):
        box = hit_test(here.boxes, action.x, action.y, kind)  # type: ignore[union-attr]
        if box is not None:
            widget, item, list_widget = box.wid, box.item, box.list_wid
            if box.editable:
                focus = (box.wid, box.item, box.list_wid)
    elif action is not None and action.type == "scroll" and action.x is not None:
        box = hit_test(here.boxes, action.x, action.y or 0, kind or "")
        if box is not None and box.scrollable:
            widget, item, list_widget = box.wid, box.item, box.list_wid
    elif action is not None and action.type == "type":
        widget, item, list_widget = _focused(here, focus)
        text = action.text
    if here.screen != there.screen:
        focus = (None, None, None)
    return ObservedStep(episode=here.episode, step=here.step, screen=here.screen,
                        next_screen=there.screen, action=kind, widget=widget, item=item,
                        list_widget=list_widget, input=text, changed=changed,
                        source=step.source), focus


def _focused(here: ScreenReading, focus: _Focus) -> _Focus:
    for box in here.boxes:
        if box.editable and box.focused:
            return box.wid, box.item, box.list_wid
    if focus[0] is not None:
        return focus
    for box in here.boxes:
        if box.editable:
            return box.wid, box.item, box.list_wid
    return None, None, None


def _edges(steps: list[ObservedStep]) -> tuple[Edge, ...]:
    counts: Counter[tuple[str, str, str, str]] = Counter()
    for s in steps:
        if s.action is not None and s.screen and s.next_screen:
            counts[(s.screen, s.action, s.widget or "", s.next_screen)] += 1
    return tuple(
        Edge(screen=a, action=b, widget=c or None, target=d, count=n)
        for (a, b, c, d), n in sorted(counts.items())
    )


def _moves(traces: TraceSet, abstraction: Abstraction, edges: tuple[Edge, ...]
           ) -> tuple[Move, ...]:
    """The screens the app leaves by itself (see the module docstring)."""
    left = {e.screen for e in edges if e.target != e.screen}
    seen: defaultdict[str, list[tuple[str, SourceRef]]] = defaultdict(list)
    for e, before in enumerate(traces.follows()):
        ep = traces.episodes[e]
        if before is None or not ep.moved_by_itself:
            continue
        here, there = abstraction.readings[before][-1].screen, abstraction.readings[e][0].screen
        if here and there and here != there:
            seen[here].append((there, ep.steps[0].source))
    out = []
    for screen, went in sorted(seen.items()):
        targets = {t for t, _ in went}
        if screen not in left and len(targets) == 1:
            out.append(Move(screen=screen, target=went[0][0], count=len(went),
                            sources=tuple(s for _, s in went)))
    return tuple(out)


def _reachable(start: str, edges: tuple[Edge, ...], moves: tuple[Move, ...]) -> tuple[str, ...]:
    g = nx.DiGraph()
    g.add_node(start)
    g.add_edges_from((edge.screen, edge.target) for edge in edges)
    g.add_edges_from((m.screen, m.target) for m in moves)
    return tuple([start] + [v for _, v in nx.bfs_edges(g, start)])
