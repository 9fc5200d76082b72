"""`phoneworld report --compare A B`: what changed between two builds of the same traces.

Screens are matched through the recorded observations each one merges (embedded in each build's
`report.html`): the bipartite graph of "A screen and B screen share an observation" falls into
components, and a component is the same screen (one to one), a merge (many A screens, one B
screen), a split (one to many) or a regrouping (many to many); a screen sharing nothing with the
other build was added or removed. Without that data (a page from another version), screens are
matched by id. Transitions are compared by (screen, action, widget, guard) after renaming A's
screens to their B counterparts; fidelity figures side by side with their change.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from phoneworld.ir.app import AppSpec, Transition
from phoneworld.ir.report import BuildReport, Fidelity
from phoneworld.report.appfiles import REPORT_PAGE, load_report
from phoneworld.report.data import read_page_data
from phoneworld.report.exprs import action_text, effect_text, guard_text
from phoneworld.report.fidelity_view import FIGURES
from phoneworld.report.page import environment
from phoneworld.runtime.appdir import load_app


@dataclass(frozen=True)
class ScreenChange:
    kind: str  # same, renamed, merged, split, regrouped, added, removed
    a: tuple[str, ...]
    b: tuple[str, ...]
    shared: int  # observations the two sides share


@dataclass(frozen=True)
class TransitionChange:
    kind: str  # added, removed, changed
    screen: str  # in B's names where the screen has a counterpart
    action: str
    before: str
    after: str


@dataclass(frozen=True)
class FigureChange:
    replay: str  # training, held-out
    label: str
    a: str
    b: str
    delta: str
    better: bool | None  # None: no change or not comparable


@dataclass(frozen=True)
class Comparison:
    a: str  # the folders as given
    b: str
    app: str
    matched_by: str  # "observations" or "screen id"
    counts: tuple[tuple[str, int, int], ...]
    screens: tuple[ScreenChange, ...]
    transitions: tuple[TransitionChange, ...]
    fidelity: tuple[FigureChange, ...]
    fixed: tuple[str, ...]  # training steps B gets right that A got wrong
    broken: tuple[str, ...]  # and the other way round

    def changed_screens(self) -> tuple[ScreenChange, ...]:
        return tuple(s for s in self.screens if s.kind != "same")


@dataclass(frozen=True)
class _Build:
    spec: AppSpec
    report: BuildReport
    data: dict[str, Any] | None


def _load(app_dir: Path) -> _Build:
    return _Build(load_app(app_dir), load_report(app_dir), read_page_data(app_dir / REPORT_PAGE))


def _members(build: _Build) -> dict[str, set[str]]:
    assert build.data is not None
    return {sid: set(s["observations"]) for sid, s in build.data["screens"].items()}


def _kind(a: list[str], b: list[str]) -> str:
    if len(a) == 1 and len(b) == 1:
        return "same" if a == b else "renamed"
    if len(b) == 1:
        return "merged"
    if len(a) == 1:
        return "split"
    return "regrouped"


def match_screens(a: dict[str, set[str]], b: dict[str, set[str]]) -> tuple[ScreenChange, ...]:
    """Screens of A and B matched through the observations they merge."""
    g = nx.Graph()
    g.add_nodes_from(("a", s) for s in a)
    g.add_nodes_from(("b", s) for s in b)
    owner = {o: s for s, obs in b.items() for o in obs}
    shared: dict[tuple[str, str], int] = defaultdict(int)
    for screen, obs in a.items():
        for o in obs:
            if o in owner:
                shared[(screen, owner[o])] += 1
    g.add_edges_from((("a", x), ("b", y)) for x, y in shared)
    out = []
    for comp in nx.connected_components(g):
        sa = sorted(s for side, s in comp if side == "a")
        sb = sorted(s for side, s in comp if side == "b")
        kind = "removed" if not sb else "added" if not sa else _kind(sa, sb)
        n = sum(c for (x, y), c in shared.items() if x in sa and y in sb)
        out.append(ScreenChange(kind, tuple(sa), tuple(sb), n))
    return tuple(sorted(out, key=lambda c: (c.b or c.a, c.a)))


def _by_id(a: AppSpec, b: AppSpec) -> tuple[ScreenChange, ...]:
    ids_a, ids_b = {s.id for s in a.screens}, {s.id for s in b.screens}
    out = [ScreenChange("same", (s,), (s,), 0) for s in sorted(ids_a & ids_b)]
    out += [ScreenChange("removed", (s,), (), 0) for s in sorted(ids_a - ids_b)]
    out += [ScreenChange("added", (), (s,), 0) for s in sorted(ids_b - ids_a)]
    return tuple(sorted(out, key=lambda c: (c.b or c.a, c.a)))


def _key(t: Transition, rename: dict[str, str]) -> tuple[str, str, str]:
    screen = rename.get(t.screen, t.screen)
    return screen, action_text(t), guard_text(t.guard) if t.guard is not None else ""


def _value(t: Transition, rename: dict[str, str]) -> str:
    target = t.target or t.screen
    parts = [f"-> {rename.get(target, target)} ({t.nav})"] + [effect_text(e) for e in t.effects]
    return "; ".join(parts)


def diff_transitions(a: AppSpec, b: AppSpec, rename: dict[str, str]
                     ) -> tuple[TransitionChange, ...]:
    """Transitions added, removed or changed, keyed by screen, action, widget and guard."""
    ta = {_key(t, rename): _value(t, rename) for t in a.transitions}
    tb = {_key(t, {}): _value(t, {}) for t in b.transitions}
    out = []
    for key in sorted(ta.keys() | tb.keys()):
        before, after = ta.get(key, ""), tb.get(key, "")
        if before == after:
            continue
        kind = "added" if not before else "removed" if not after else "changed"
        action = key[1] + (f" if {key[2]}" if key[2] else "")
        out.append(TransitionChange(kind, key[0], action, before, after))
    return tuple(out)


def _fmt(v: float | int | None) -> str:
    return "-" if v is None else (str(v) if isinstance(v, int) else f"{v:.3f}")


def diff_fidelity(a: BuildReport, b: BuildReport) -> tuple[FigureChange, ...]:
    out = []
    for name, fa, fb in (("training", a.fidelity.train, b.fidelity.train),
                         ("held-out", a.fidelity.heldout, b.fidelity.heldout)):
        if fa is None and fb is None:
            continue
        for key, label in FIGURES:
            va = getattr(fa, key) if isinstance(fa, Fidelity) else None
            vb = getattr(fb, key) if isinstance(fb, Fidelity) else None
            delta, better = "-", None
            if isinstance(va, (int, float)) and isinstance(vb, (int, float)) and va != vb:
                d = vb - va
                delta = f"{d:+d}" if isinstance(d, int) else f"{d:+.3f}"
                better = d > 0 if key not in ("steps", "changing_steps") else None
            out.append(FigureChange(name, label, _fmt(va), _fmt(vb), delta, better))
    return tuple(out)


def compare(a_dir: Path, b_dir: Path) -> Comparison:
    a, b = _load(a_dir), _load(b_dir)
    if a.data is not None and b.data is not None:
        screens, matched_by = match_screens(_members(a), _members(b)), "observations"
    else:
        screens, matched_by = _by_id(a.spec, b.spec), "screen id"
    rename = {c.a[0]: c.b[0] for c in screens if c.kind in ("same", "renamed")}
    wrong_a = set(a.data["mismatches"]["training"]) if a.data else set()
    wrong_b = set(b.data["mismatches"]["training"]) if b.data else set()
    counts = tuple((label, x, y) for label, x, y in (
        ("episodes", a.report.episodes, b.report.episodes),
        ("recorded steps", a.report.steps, b.report.steps),
        ("screens", len(a.spec.screens), len(b.spec.screens)),
        ("transitions", len(a.spec.transitions), len(b.spec.transitions)),
        ("state variables", len(a.spec.state), len(b.spec.state)),
        ("guards", a.report.guards, b.report.guards)))
    return Comparison(
        str(a_dir), str(b_dir), b.spec.package, matched_by, counts, screens,
        diff_transitions(a.spec, b.spec, rename), diff_fidelity(a.report, b.report),
        tuple(sorted(wrong_a - wrong_b)), tuple(sorted(wrong_b - wrong_a)))


def summary_lines(c: Comparison) -> list[str]:
    """The comparison in a few lines of plain text (what the CLI prints)."""
    kinds: dict[str, int] = defaultdict(int)
    for s in c.screens:
        kinds[s.kind] += 1
    lines = [f"{c.app}: {c.a} -> {c.b} (screens matched by {c.matched_by})"]
    lines += [f"  {label}: {x} -> {y}" for label, x, y in c.counts if x != y]
    lines.append("  screens: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())))
    for s in c.changed_screens():
        lines.append(f"    {s.kind}: {', '.join(s.a) or '-'} -> {', '.join(s.b) or '-'}")
    tk: dict[str, int] = defaultdict(int)
    for t in c.transitions:
        tk[t.kind] += 1
    lines.append("  transition changes: " + (", ".join(f"{n} {k}" for k, n in sorted(tk.items()))
                                      or "unchanged"))
    for f in c.fidelity:
        if f.delta != "-":
            lines.append(f"  {f.replay} {f.label}: {f.a} -> {f.b} ({f.delta})")
    lines.append(f"  training steps fixed: {len(c.fixed)}, newly wrong: {len(c.broken)}")
    return lines


def render_compare(c: Comparison) -> str:
    """The comparison as a self-contained HTML page."""
    return environment().get_template("compare.html.j2").render(c=c)
