"""The graph IR (output of `graph`): every recorded step as widget + action -> next screen."""

from __future__ import annotations

from phoneworld.ir.base import Frozen, SourceRef


class ObservedStep(Frozen):
    """One recorded step, hit-tested against its screen's widgets."""

    episode: int
    step: int
    screen: str
    next_screen: str
    action: str | None  # an ir.app.ActionKind, or None for actions that leave the app or do nothing
    widget: str | None = None
    item: int | None = None  # the list item hit, when `widget` lies in a list's item template
    list_widget: str | None = None
    input: str | None = None  # the text of a `type` action
    changed: bool  # the recorded next screen's content differs from this one's
    source: SourceRef


class Edge(Frozen):
    screen: str
    action: str
    widget: str | None
    target: str
    count: int


class Move(Frozen):
    """A screen the app leaves by itself: no recorded step left `screen` for another screen, and
    every time the recording saw the app move on from it without an action (`Episode.
    moved_by_itself`) it went to `target` (a splash screen, a loading page)."""

    screen: str
    target: str
    count: int
    sources: tuple[SourceRef, ...]  # the first step of each episode that arrived by itself


class TransitionGraph(Frozen):
    start_screen: str
    steps: tuple[ObservedStep, ...]
    edges: tuple[Edge, ...]
    reachable: tuple[str, ...]  # screens reachable from the start screen, in BFS order
    moves: tuple[Move, ...] = ()
