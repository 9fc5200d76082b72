"""Layout of the transition graph: Graphviz `dot` when it is installed, networkx otherwise.

`dot` gives the layered drawing people expect of a state machine (edges routed as splines, labels
placed clear of them); its JSON output is read back and turned into SVG geometry here, so the page
draws everything itself and stays one self-contained file. Without `dot` the screens are placed in
layers by breadth-first depth (networkx's multipartite layout) and edges are straight.
Coordinates are pixels, origin top-left; output is deterministic for one version of the layouter.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any

import networkx as nx

from phoneworld.errors import ToolchainError

log = logging.getLogger(__name__)

PAD = 12
LINE_HEIGHT = 12
DOT_TIMEOUT_S = 60


@dataclass(frozen=True)
class EdgeSpec:
    id: str
    source: str
    target: str
    lines: tuple[str, ...]  # the label, one line each


@dataclass(frozen=True)
class PlacedNode:
    id: str
    x: float  # top-left corner
    y: float
    w: float
    h: float


@dataclass(frozen=True)
class PlacedEdge:
    id: str
    path: str  # SVG path data
    arrow: str  # SVG polygon points of the arrowhead
    lx: float  # label centre
    ly: float


@dataclass(frozen=True)
class Layout:
    width: float
    height: float
    nodes: dict[str, PlacedNode]
    edges: dict[str, PlacedEdge]
    engine: str  # "dot" or "networkx"


def layout(nodes: list[str], edges: list[EdgeSpec], node_w: int, node_h: int,
           start: str | None = None) -> Layout:
    """Place `nodes` (boxes of node_w x node_h pixels) and route `edges`."""
    dot = shutil.which("dot")
    if dot is None:
        log.warning("graphviz `dot` is not installed; the transition graph is laid out by "
                    "networkx (install graphviz for a layered drawing)")
        return _nx_layout(nodes, edges, node_w, node_h, start)
    return _dot_layout(dot, nodes, edges, node_w, node_h)


def _label(lines: tuple[str, ...]) -> str:
    """A DOT label: `\\` and `\"` escaped, lines joined by `\\n` (centred)."""
    return '"' + "\\n".join(x.replace("\\", "\\\\").replace('"', '\\"') for x in lines) + '"'


def dot_source(nodes: list[str], edges: list[EdgeSpec], node_w: int, node_h: int) -> str:
    """The graph in DOT. Nodes are named `n<index>`: screen ids never enter DOT syntax."""
    lines = [
        "digraph G {",
        '  graph [rankdir=TB, nodesep=0.5, ranksep=0.7, fontname="Helvetica"];',
        f'  node [shape=box, fixedsize=true, width={node_w / 72:.3f}, height={node_h / 72:.3f}, '
        'label=""];',
        '  edge [fontsize=10, fontname="Helvetica"];',
    ]
    index = {n: i for i, n in enumerate(nodes)}
    lines += [f"  n{i};" for i in range(len(nodes))]
    lines += [f"  n{index[e.source]} -> n{index[e.target]} [id=e{i}, label={_label(e.lines)}];"
              for i, e in enumerate(edges)]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_layout(dot: str, nodes: list[str], edges: list[EdgeSpec], node_w: int, node_h: int
                ) -> Layout:
    cmd = [dot, "-Tjson"]
    try:
        proc = subprocess.run(cmd, input=dot_source(nodes, edges, node_w, node_h),
                              capture_output=True, text=True, timeout=DOT_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as exc:
        raise ToolchainError(f"{' '.join(cmd)} did not finish in {DOT_TIMEOUT_S} s") from exc
    if proc.returncode != 0:
        raise ToolchainError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-800:]}")
    return _read_dot_json(json.loads(proc.stdout), nodes, edges)


def _read_dot_json(data: dict[str, Any], names: list[str], specs: list[EdgeSpec]) -> Layout:
    _, _, bw, bh = (float(v) for v in data["bb"].split(","))

    def pt(text: str) -> tuple[float, float]:
        x, y = (float(v) for v in text.split(","))
        return round(x + PAD, 1), round(bh - y + PAD, 1)

    nodes: dict[str, PlacedNode] = {}
    for obj in data.get("objects", []):
        name = names[int(obj["name"][1:])]
        cx, cy = pt(obj["pos"])
        w, h = float(obj["width"]) * 72, float(obj["height"]) * 72
        nodes[name] = PlacedNode(name, round(cx - w / 2, 1), round(cy - h / 2, 1),
                                 round(w, 1), round(h, 1))
    edges: dict[str, PlacedEdge] = {}
    for edge in data.get("edges", []):
        tip, points = None, []
        for token in edge["pos"].split():
            if token.startswith("e,"):
                tip = pt(token[2:])
            elif not token.startswith("s,"):
                points.append(pt(token))
        lx, ly = pt(edge["lp"]) if "lp" in edge else points[len(points) // 2]
        path = f"M{points[0][0]},{points[0][1]}" + "".join(
            f" C{a[0]},{a[1]} {b[0]},{b[1]} {c[0]},{c[1]}"
            for a, b, c in zip(points[1::3], points[2::3], points[3::3], strict=False))
        edge_id = specs[int(edge["id"][1:])].id
        edges[edge_id] = PlacedEdge(edge_id, path, _arrow(points[-1], tip or points[-1]), lx, ly)
    return Layout(round(bw + 2 * PAD, 1), round(bh + 2 * PAD, 1), nodes, edges, "dot")


def _arrow(base: tuple[float, float], tip: tuple[float, float]) -> str:
    """A triangle from the spline's end (`base`) to the arrow tip."""
    dx, dy = tip[0] - base[0], tip[1] - base[1]
    length = (dx * dx + dy * dy) ** 0.5 or 1.0
    if length < 1.0:  # no room left by the router: a fixed-size head pointing along the spline
        dx, dy, length = 0.0, 8.0, 8.0
    nx_, ny_ = -dy / length * 4, dx / length * 4
    pts = [tip, (base[0] + nx_, base[1] + ny_), (base[0] - nx_, base[1] - ny_)]
    return " ".join(f"{round(x, 1)},{round(y, 1)}" for x, y in pts)


def _nx_layout(nodes: list[str], edges: list[EdgeSpec], node_w: int, node_h: int,
               start: str | None) -> Layout:
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    g.add_edges_from((e.source, e.target) for e in edges)
    depth = nx.single_source_shortest_path_length(g, start) if start in g else {}
    deepest = max(depth.values(), default=-1)
    for n in nodes:
        g.nodes[n]["layer"] = depth.get(n, deepest + 1)
    pos = nx.multipartite_layout(g, subset_key="layer", align="horizontal")
    xs = sorted({round(float(p[0]), 6) for p in pos.values()})
    ys = sorted({round(float(p[1]), 6) for p in pos.values()})
    col = {x: i for i, x in enumerate(xs)}
    row = {y: i for i, y in enumerate(ys)}
    gap_x, gap_y = node_w + 60, node_h + 80
    placed = {n: PlacedNode(n, PAD + col[round(float(pos[n][0]), 6)] * gap_x,
                            PAD + row[round(float(pos[n][1]), 6)] * gap_y, node_w, node_h)
              for n in nodes}
    return Layout(PAD * 2 + len(xs) * gap_x, PAD * 2 + len(ys) * gap_y, placed,
                  {e.id: _straight(e, placed) for e in edges}, "networkx")


def _straight(e: EdgeSpec, placed: dict[str, PlacedNode]) -> PlacedEdge:
    a, b = placed[e.source], placed[e.target]
    if e.source == e.target:
        x, y = a.x + a.w, a.y + a.h / 2
        path = f"M{x},{y - 10} C{x + 40},{y - 30} {x + 40},{y + 30} {x + 2},{y + 10}"
        return PlacedEdge(e.id, path, _arrow((x + 8, y + 14), (x, y + 10)), x + 46, y)
    x1, y1 = a.x + a.w / 2, a.y + a.h
    x2, y2 = b.x + b.w / 2, b.y if b.y > a.y else b.y + b.h
    if b.y <= a.y:
        y1 = a.y
    length = max(1.0, ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5)
    bx, by = x2 - (x2 - x1) / length * 8, y2 - (y2 - y1) / length * 8
    return PlacedEdge(e.id, f"M{x1},{y1} L{bx},{by}", _arrow((bx, by), (x2, y2)),
                      (x1 + x2) / 2, (y1 + y2) / 2)
