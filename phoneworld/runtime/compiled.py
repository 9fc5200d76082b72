"""Runtime precompilation: an `AppSpec` turned once into plain Python structures.

Every Simulator of one spec shares one `CompiledApp` (looked up by object identity), which holds the
widget trees as `CNode`s with their static XML attribute runs pre-escaped, expressions as small
tuples, the (screen, action kind, wid) -> transitions table, the state schema, and a bounded cache of
rendered frames keyed by content (so two envs in the same state render once).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

from phoneworld.errors import AppSpecError
from phoneworld.ir.app import AppSpec, ScreenSpec, StateVar, Transition, Widget
from phoneworld.runtime import validate
from phoneworld.runtime.semantics import (
    E_COUNT, E_LIT, E_SEL, E_VAR, CExpr, CTransition, compile_expr, compile_transition,
)
from phoneworld.runtime.xmltext import escape_attr, sanitize

LAUNCHER = "@launcher"
LAUNCHER_PACKAGE = "com.android.launcher3"
LAUNCHER_ICON = "app_icon"
FRAME_CACHE_SIZE = 1024


@dataclass(slots=True)
class CList:
    collection: str
    item: CNode
    pitch: int
    max_visible: int


@dataclass(slots=True)
class CNode:
    """One widget of a screen, ready to render. `xa`/`xb`/`xc` are the static XML attribute runs."""

    wid: str
    cls: str
    resource_id: str
    content_desc: str
    text: CExpr
    checked: CExpr
    x1: int
    y1: int
    x2: int
    y2: int
    checkable: bool
    clickable: bool
    long_clickable: bool
    scrollable: bool
    focusable: bool
    enabled: bool
    password: bool
    selected: bool
    editable: bool
    children: tuple[CNode, ...]
    lst: CList | None
    xa: str = ""
    xb: str = ""
    xc: str = ""
    static_text: str | None = None
    static_checked: bool | None = None


@dataclass(slots=True)
class CScreen:
    id: str
    package: str
    activity: str | None
    root: CNode
    reads: tuple[str, ...]  # state variables whose value the rendering depends on
    lists: tuple[tuple[str, str, int], ...]  # (wid, collection, max_visible) in document order
    nodes: dict[str, CNode]  # wid -> node (template nodes for list items)


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


_CACHE: dict[int, tuple[weakref.ref[AppSpec], CompiledApp]] = {}


def compile_app(spec: AppSpec) -> CompiledApp:
    """The shared compiled form of `spec` (built on first use, then reused while `spec` lives)."""
    hit = _CACHE.get(id(spec))
    if hit is not None and hit[0]() is spec:
        return hit[1]
    app = _build(spec)
    key = id(spec)
    _CACHE[key] = (weakref.ref(spec), app)
    weakref.finalize(spec, _CACHE.pop, key, None)
    return app


def _build(spec: AppSpec) -> CompiledApp:
    problems = validate.check_spec(spec)
    if problems:
        raise AppSpecError(
            f"app spec of {spec.package} is inconsistent ({len(problems)} problems):\n  "
            + "\n  ".join(problems)
        )
    selections: dict[str, list[str]] = {}
    for v in spec.state:
        if v.kind == "selection" and v.collection:
            selections.setdefault(v.collection, []).append(v.name)
    trans: dict[tuple[str, str, str | None], list[Transition]] = {}
    for t in spec.transitions:
        trans.setdefault((t.screen, t.action, t.widget), []).append(t)
    screens = {s.id: _compile_screen(s, spec) for s in spec.screens}
    screens[LAUNCHER] = _compile_screen(launcher_screen(spec), spec)
    app = CompiledApp(
        spec=spec,
        package=spec.package,
        label=spec.label,
        width=spec.device.width,
        height=spec.device.height,
        start=spec.start_screen,
        screens=screens,
        # Guarded transitions are tried before unguarded ones (stable: spec order otherwise).
        transitions={
            k: tuple(compile_transition(t) for t in sorted(v, key=lambda t: t.guard is None))
            for k, v in trans.items()
        },
        writes={t.id: validate.written_vars(t, selections) for t in spec.transitions},
        vars={v.name: v for v in spec.state},
        field_defaults={
            v.name: {f.name: validate.field_default(f) for f in v.fields} for v in spec.state if v.kind == "collection"
        },
        field_kinds={
            v.name: {f.name: f.kind for f in v.fields} for v in spec.state if v.kind == "collection"
        },
        selection_of={c: names[0] for c, names in selections.items()},
        selections_of={c: tuple(names) for c, names in selections.items()},
        initial_state={},
    )
    try:
        app.initial_state = validate.normalize_state(app, spec.initial_state)
    except Exception as exc:  # re-raised as a spec problem: the initial state is part of the spec
        raise AppSpecError(f"initial_state of {spec.package}: {exc}") from exc
    return app


def _compile_screen(s: ScreenSpec, spec: AppSpec) -> CScreen:
    nodes: dict[str, CNode] = {}
    reads: set[str] = set()
    lists: list[tuple[str, str, int]] = []
    sel_of = {v.collection: v.name for v in spec.state if v.kind == "selection" and v.collection}
    root = _compile_widget(s.root, s.package, nodes, reads, lists, sel_of)
    return CScreen(
        id=s.id, package=s.package, activity=s.activity, root=root,
        reads=tuple(sorted(reads)), lists=tuple(lists), nodes=nodes,
    )


def _reads_of(e: CExpr, sel_of: dict[str, str], reads: set[str]) -> None:
    tag, a = e[0], e[1]
    if tag == E_VAR or tag == E_COUNT:
        reads.add(a)
    elif tag == E_SEL:
        reads.add(a)
        if a in sel_of:
            reads.add(sel_of[a])


def _compile_widget(
    w: Widget, package: str, nodes: dict[str, CNode], reads: set[str],
    lists: list[tuple[str, str, int]], sel_of: dict[str, str],
) -> CNode:
    text, checked = compile_expr(w.text), compile_expr(w.checked)
    _reads_of(text, sel_of, reads)
    _reads_of(checked, sel_of, reads)
    children = tuple(_compile_widget(c, package, nodes, reads, lists, sel_of) for c in w.children)
    lst = None
    if w.list is not None:
        reads.add(w.list.collection)
        lists.append((w.wid, w.list.collection, w.list.max_visible))
        item = _compile_widget(w.list.item, package, nodes, reads, lists, sel_of)
        lst = CList(w.list.collection, item, w.list.pitch, max(0, w.list.max_visible))
    b = w.bounds
    node = CNode(
        wid=w.wid, cls=w.cls, resource_id=w.resource_id, content_desc=w.content_desc,
        text=text, checked=checked, x1=b.x1, y1=b.y1, x2=b.x2, y2=b.y2,
        checkable=w.checkable, clickable=w.clickable, long_clickable=w.long_clickable,
        scrollable=w.scrollable, focusable=w.focusable, enabled=w.enabled, password=w.password,
        selected=w.selected,
        editable=w.editable or w.cls.endswith(("EditText", "AutoCompleteTextView")),
        children=children, lst=lst,
    )
    if text[0] == E_LIT and not w.password:
        node.static_text = sanitize(_lit_text(text[1]))
    if checked[0] == E_LIT:
        node.static_checked = bool(checked[1])
    node.xa, node.xb, node.xc = _static_attrs(w, package)
    nodes[w.wid] = node
    return node


def _lit_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _static_attrs(w: Widget, package: str) -> tuple[str, str, str]:
    def tf(v: bool) -> str:
        return "true" if v else "false"

    xa = (
        f'" resource-id="{escape_attr(sanitize(w.resource_id))}" class="{escape_attr(sanitize(w.cls))}"'
        f' package="{escape_attr(sanitize(package))}"'
        f' content-desc="{escape_attr(sanitize(w.content_desc))}" checkable="{tf(w.checkable)}" checked="'
    )
    xb = f'" clickable="{tf(w.clickable)}" enabled="{tf(w.enabled)}" focusable="{tf(w.focusable)}" focused="'
    xc = (
        f'" scrollable="{tf(w.scrollable)}" long-clickable="{tf(w.long_clickable)}"'
        f' password="{tf(w.password)}" selected="{tf(w.selected)}" bounds="'
    )
    return xa, xb, xc


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
