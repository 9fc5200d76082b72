"""The report's transition graph: screens as nodes with thumbnails, one edge per (screen, target)
labelled with the widgets and actions that take it, laid out by `phoneworld.report.layout`."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from phoneworld.ir.app import AppSpec, Transition
from phoneworld.report.exprs import action_text, effect_text, guard_text
from phoneworld.report.images import Picture
from phoneworld.report.layout import LINE_HEIGHT, EdgeSpec, layout

THUMB_W = 72  # pixels of a node's thumbnail
LABEL_H = 20
MAX_LINES = 3


@dataclass(frozen=True)
class GraphNode:
    id: str
    name: str
    x: float
    y: float
    w: float
    h: float
    thumb_h: float
    picture: Picture
    start: bool


@dataclass(frozen=True)
class GraphEdge:
    id: str
    source: str
    target: str
    path: str
    arrow: str
    lx: float
    ly: float
    lines: tuple[str, ...]
    title: str  # every transition of the edge, one per line (the tooltip)
    loop: bool
    guarded: bool

    @property
    def labels(self) -> tuple[tuple[float, str], ...]:
        """(baseline y, text) of each label line, centred on the label position."""
        mid = (len(self.lines) - 1) / 2
        return tuple((round(self.ly + (i - mid) * LINE_HEIGHT + 3.5, 1), line)
                     for i, line in enumerate(self.lines))


@dataclass(frozen=True)
class GraphView:
    width: float
    height: float
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    engine: str


def _target(t: Transition) -> str:
    return t.target or t.screen


def _line(t: Transition) -> str:
    text = action_text(t)
    if t.nav == "pop" and t.target is None:
        text += " (pop)"
    return text + (" *" if t.guard is not None else "")


def _title(t: Transition) -> str:
    parts = [f"{action_text(t)} -> {_target(t)} ({t.nav})"]
    if t.guard is not None:
        parts.append(f"if {guard_text(t.guard)}")
    parts += [effect_text(e) for e in t.effects]
    return "; ".join(parts)


def _edge_specs(spec: AppSpec) -> tuple[list[EdgeSpec], dict[str, list[Transition]]]:
    groups: dict[tuple[str, str], list[Transition]] = defaultdict(list)
    for t in spec.transitions:
        groups[(t.screen, _target(t))].append(t)
    specs, members = [], {}
    for n, (key, ts) in enumerate(sorted(groups.items())):
        lines = [_line(t) for t in ts]
        if len(lines) > MAX_LINES:
            lines = lines[: MAX_LINES - 1] + [f"+{len(lines) - MAX_LINES + 1} more"]
        edge_id = f"e{n}"
        specs.append(EdgeSpec(edge_id, key[0], key[1], tuple(lines)))
        members[edge_id] = ts
    return specs, members


def transition_graph(spec: AppSpec, pictures: dict[str, Picture]) -> GraphView:
    """The graph of `spec`; `pictures` holds each screen's card picture (drawn as its thumbnail)."""
    thumb_h = round(THUMB_W * spec.device.height / max(1, spec.device.width))
    node_w, node_h = THUMB_W + 24, thumb_h + LABEL_H + 8
    specs, members = _edge_specs(spec)
    placed = layout([s.id for s in spec.screens], specs, node_w, node_h, spec.start_screen)
    nodes = tuple(
        GraphNode(s.id, s.name, p.x, p.y, p.w, p.h, thumb_h, pictures[s.id],
                  s.id == spec.start_screen)
        for s in spec.screens for p in (placed.nodes[s.id],)
    )
    edges = tuple(
        GraphEdge(e.id, e.source, e.target, p.path, p.arrow, p.lx, p.ly, e.lines,
                  "\n".join(_title(t) for t in members[e.id]), e.source == e.target,
                  any(t.guard is not None for t in members[e.id]))
        for e in specs for p in (placed.edges[e.id],)
    )
    return GraphView(placed.width, placed.height, nodes, edges, placed.engine)
