"""Runtime precompilation: an `AppSpec` turned once into plain Python structures.

Every Simulator of one spec shares one `CompiledApp` (looked up by object identity), which holds the
screens as compiled widget trees (`widgets.CNode`), the (screen, action kind, wid) -> transitions
table with guards and effects as tuples, the state schema, and a bounded cache of rendered frames
keyed by content (so two envs in the same state render once).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from phoneworld.errors import AppSpecError
from phoneworld.ir.app import AppSpec, ScreenSpec, StateVar, Transition, Widget
from phoneworld.runtime import validate
from phoneworld.runtime.frame import share_static
from phoneworld.runtime.semantics import CTransition, compile_transition
from phoneworld.runtime.widgets import CNode, TreeCompiler

LAUNCHER = "@launcher"
LAUNCHER_PACKAGE = "com.android.launcher3"
LAUNCHER_ICON = "app_icon"
FRAME_CACHE_SIZE = 1024


@dataclass(slots=True)
class CScreen:
    id: str
    package: str
    activity: str | None
    root: CNode
    reads: tuple[str, ...]  # state variables whose value the rendering depends on
    lists: tuple[tuple[str, str, int], ...]  # (wid, collection, max_visible) in document order
    nodes: dict[str, CNode]  # wid -> node (template nodes for list items)


@dataclass(frozen=True, slots=True)
class StateLayout:
    """The state schema as the semantics reads it (`semantics.Layout`): variable kinds, record
    fields, and each collection's selection variables. `CompiledApp` carries the same fields;
    state inference, which has a schema but no app yet, evaluates against this alone."""

    vars: dict[str, StateVar]
    field_defaults: dict[str, dict[str, Any]]  # collection -> field -> default
    field_kinds: dict[str, dict[str, str]]
    selection_of: dict[str, str]  # collection -> its selection variable
    selections_of: dict[str, tuple[str, ...]]  # collection -> all its selection variables


def state_layout(state: Iterable[StateVar]) -> StateLayout:
    """The layout of a state schema (the spec's `state`, or inference's variables)."""
    variables = tuple(state)
    selections: dict[str, list[str]] = {}
    for v in variables:
        if v.kind == "selection" and v.collection:
            selections.setdefault(v.collection, []).append(v.name)
    collections = [v for v in variables if v.kind == "collection"]
    return StateLayout(
        vars={v.name: v for v in variables},
        field_defaults={v.name: {f.name: validate.field_default(f) for f in v.fields}
                        for v in collections},
        field_kinds={v.name: {f.name: f.kind for f in v.fields} for v in collections},
        selection_of={c: names[0] for c, names in selections.items()},
        selections_of={c: tuple(names) for c, names in selections.items()},
    )


@dataclass
class CompiledApp:
    spec: AppSpec
    package: str
    label: str
    width: int
    height: int
    start: str
    screens: dict[str, CScreen]
    transitions: dict[tuple[str, str, str | None], tuple[CTransition, ...]]
    writes: dict[str, frozenset[str]]  # transition id -> state variables it may write
    vars: dict[str, StateVar]
    field_defaults: dict[str, dict[str, Any]]  # collection -> field -> default
    field_kinds: dict[str, dict[str, str]]
    selection_of: dict[str, str]  # collection -> its selection variable
    selections_of: dict[str, tuple[str, ...]]  # collection -> all its selection variables
    initial_state: dict[str, Any]
    frames: dict[Any, Any] = field(default_factory=dict)

    def clear_caches(self) -> None:
        """Forget every rendered frame and list row (benchmarks; memory pressure)."""
        self.frames.clear()
        for screen in self.screens.values():
            for node in screen.nodes.values():
                if node.lst is not None:
                    node.lst.rows.clear()


# A compiled app refers to its spec, so a weak-keyed cache would never let go of either (every
# app ever loaded stayed in memory): the cache keeps the most recently used COMPILED_APPS instead.
COMPILED_APPS = 64
_CACHE: OrderedDict[int, tuple[weakref.ref[AppSpec], CompiledApp]] = OrderedDict()


def compile_app(spec: AppSpec) -> CompiledApp:
    """The shared compiled form of `spec` (built on first use, then reused while it is cached)."""
    key = id(spec)
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is spec:
        _CACHE.move_to_end(key)
        return hit[1]
    app = _build(spec)
    _CACHE[key] = (weakref.ref(spec), app)
    _CACHE.move_to_end(key)
    while len(_CACHE) > COMPILED_APPS:
        _CACHE.popitem(last=False)
    return app


def _build(spec: AppSpec) -> CompiledApp:
    problems = validate.check_spec(spec)
    if problems:
        raise AppSpecError(
            f"app spec of {spec.package} is inconsistent ({len(problems)} problems):\n  "
            + "\n  ".join(problems)
        )
    layout = state_layout(spec.state)
    selections = {c: list(names) for c, names in layout.selections_of.items()}
    screens = {s.id: _compile_screen(s, spec) for s in spec.screens}
    screens[LAUNCHER] = _compile_screen(launcher_screen(spec), spec)
    app = CompiledApp(
        spec=spec, package=spec.package, label=spec.label, width=spec.device.width,
        height=spec.device.height, start=spec.start_screen, screens=screens,
        transitions=_transition_table(spec.transitions),
        writes={t.id: validate.written_vars(t, selections) for t in spec.transitions},
        vars=layout.vars, field_defaults=layout.field_defaults, field_kinds=layout.field_kinds,
        selection_of=layout.selection_of, selections_of=layout.selections_of,
        initial_state={},
    )
    try:
        app.initial_state = validate.normalize_state(app, spec.initial_state)
    except Exception as exc:  # re-raised as a spec problem: the initial state is part of the spec
        raise AppSpecError(f"initial_state of {spec.package}: {exc}") from exc
    return app


def _transition_table(
    transitions: tuple[Transition, ...],
) -> dict[tuple[str, str, str | None], tuple[CTransition, ...]]:
    """(screen, action kind, wid) -> its transitions, guarded ones first (else in spec order)."""
    table: dict[tuple[str, str, str | None], list[Transition]] = {}
    for t in transitions:
        table.setdefault((t.screen, t.action, t.widget), []).append(t)
    return {
        k: tuple(compile_transition(t) for t in sorted(v, key=lambda t: t.guard is None))
        for k, v in table.items()
    }


def _compile_screen(s: ScreenSpec, spec: AppSpec) -> CScreen:
    sel_of = {v.collection: v.name for v in spec.state if v.kind == "selection" and v.collection}
    tc = TreeCompiler(s.package, sel_of)
    root = tc.widget(s.root)
    share_static(root)
    return CScreen(
        id=s.id, package=s.package, activity=s.activity, root=root,
        reads=tuple(sorted(tc.reads)), lists=tuple(tc.lists), nodes=tc.nodes,
    )


def launcher_screen(spec: AppSpec) -> ScreenSpec:
    """The home screen shown once the app is left: one icon, labelled with the app, that reopens it."""
    from phoneworld.ir.app import Lit
    from phoneworld.ir.base import Bounds

    w, h = spec.device.width, spec.device.height
    icon = Widget(
        wid=LAUNCHER_ICON, cls="android.widget.TextView", content_desc=spec.label,
        text=Lit(value=spec.label), clickable=True, focusable=True,
        bounds=Bounds(x1=w // 2 - w // 8, y1=h // 2 - w // 8, x2=w // 2 + w // 8, y2=h // 2 + w // 8),
    )
    root = Widget(
        wid="launcher_root", cls="android.widget.FrameLayout",
        bounds=Bounds(x1=0, y1=0, x2=w, y2=h), children=(icon,),
    )
    return ScreenSpec(id=LAUNCHER, name="launcher", package=LAUNCHER_PACKAGE, root=root)
