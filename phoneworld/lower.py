"""The `lower` pass: screens, graph and state model -> the app spec (`AppSpec`).

Widget trees come from the screen templates with their texts and checked flags bound to state
where the state model says so (literal otherwise); list containers get their item template bound
to the collection's fields; rules become named transitions. The defaults for unobserved input are
the app-spec semantics (see `phoneworld.ir.app`), so nothing is added for them here. A screen the
app leaves by itself (`graph.moves`: a splash) gets a `wait` transition that replaces it with the
screen it went on to. The app starts on the recording's first screen unless a session recorded
afresh elsewhere opens where more of the app is reachable (`_start_screen`).
"""

from __future__ import annotations

from phoneworld.ir.app import (
    AppSpec, Expr, FieldSpec, ItemField, ListSpec, Lit, ScreenSpec, Transition, Widget,
)
from phoneworld.ir.base import traits_of
from phoneworld.ir.graph import TransitionGraph
from phoneworld.ir.model import Binding, StateModel
from phoneworld.ir.screens import Abstraction, TemplateNode
from phoneworld.ir.trace import TraceSet

__all__ = ["lower"]


def lower(traces: TraceSet, abstraction: Abstraction, graph: TransitionGraph,
          model: StateModel) -> AppSpec:
    bindings = {(b.screen, b.widget): b for b in model.bindings}
    lists = {(lb.screen, lb.widget): lb.collection for lb in model.lists}
    shown = {(lb.screen, lb.widget): lb.shown for lb in model.lists}
    scrolls = {(lb.screen, lb.widget): lb.scroll for lb in model.lists}
    fields = {v.name: {f.name: f for f in v.fields} for v in model.variables
              if v.kind == "collection"}
    acting = {(r.screen, r.widget) for r in model.rules if r.effects or r.target is not None}
    screens = tuple(
        ScreenSpec(
            id=t.id, name=t.name, package=t.package, activity=t.activity,
            root=_widget(t.id, t.root, bindings, lists, fields, acting, scrolls=scrolls,
                         shown=shown),
            observations=t.observations, sources=t.sources,
        )
        for t in abstraction.screens
    )
    transitions = tuple(
        Transition(
            id=_transition_id(n, r.screen, r.action, r.widget), screen=r.screen,
            action=r.action,  # type: ignore[arg-type]
            widget=r.widget, guard=r.guard, effects=r.effects, target=r.target,
            nav=r.nav,  # type: ignore[arg-type]
            support=r.support, sources=r.sources,
        )
        for n, r in enumerate(model.rules)
    ) + tuple(
        Transition(id=_transition_id(n, m.screen, "wait", None), screen=m.screen, action="wait",
                   target=m.target, nav="replace", support=m.count, sources=m.sources)
        for n, m in enumerate(graph.moves, start=len(model.rules))
    )
    device = traces.episodes[0].device
    spec = AppSpec(
        package=abstraction.app, label=_label(traces), device=device,
        start_screen=graph.start_screen, screens=screens, transitions=transitions,
        state=model.variables, initial_state=model.initial_state,
    )
    return spec.model_copy(update={"start_screen": _start_screen(spec, traces, abstraction)})


def _start_screen(spec: AppSpec, traces: TraceSet, abstraction: Abstraction) -> str:
    """Where the app starts: the recording's first screen, unless a session the recording
    starts afresh on another screen (after a gap or a lost state file; not where the app moved by
    itself, nor a return from another app) opens where the mock reaches more screens; the first
    such, on a tie. A recording cut out of a longer run can open on a screen it never leaves on the
    record (a captcha solved while the recorder was not reading), and every task would be shut in
    there with it."""
    reach = {spec.start_screen: len(spec.distances())}
    for ep, readings in zip(traces.episodes, abstraction.readings):
        fresh = not ep.moved_by_itself and (ep.handoff is None or ep.handoff.previous_app is None)
        if fresh and readings and readings[0].screen not in reach:
            start = readings[0].screen
            reach[start] = len(spec.model_copy(update={"start_screen": start}).distances())
    return max(reach, key=lambda s: reach[s])  # the first of the largest (dicts keep order)


def _widget(screen: str, t: TemplateNode, bindings: dict[tuple[str, str], Binding],
            lists: dict[tuple[str, str], str], fields: dict[str, dict[str, FieldSpec]],
            acting: set[tuple[str, str | None]],
            item_fields: dict[str, tuple[Expr | None, Expr | None, Expr | None]] | None = None,
            scrolls: dict[tuple[str, str], int] | None = None,
            shown: dict[tuple[str, str], dict[str, str]] | None = None) -> Widget:
    text: Expr = Lit(value=t.text)
    checked: Expr = Lit(value=t.checked)
    drawn: Expr | None = None
    if item_fields is not None:
        bound_text, bound_checked, drawn = item_fields.get(t.wid, (None, None, None))
        text, checked = bound_text or text, bound_checked or checked
    else:
        b = bindings.get((screen, t.wid))
        if b is not None:
            text = b.text or text
            checked = b.checked or checked
    list_spec = None
    if t.item is not None and (screen, t.wid) in lists:
        coll = lists[(screen, t.wid)]
        item = _widget(screen, t.item, bindings, lists, fields, acting,
                       _field_map(t.item, fields.get(coll, {}),
                                  (shown or {}).get((screen, t.wid), {})))
        empty = None if t.empty is None else _widget(screen, t.empty, {}, {}, {}, set())
        list_spec = ListSpec(collection=coll, item=item, pitch=max(1, t.pitch),
                             max_visible=max(1, t.max_visible),
                             scroll=(scrolls or {}).get((screen, t.wid), 0), empty=empty,
                             empty_replaces=t.empty_replaces)
    children = tuple(_widget(screen, c, bindings, lists, fields, acting, item_fields, scrolls,
                             shown) for c in t.children)
    traits = traits_of(t)
    # A widget never seen enabled that a recorded action on it still made act (a WebView's
    # controls report enabled="false") is enabled: the recording shows it takes the action.
    traits["enabled"] = traits["enabled"] or (screen, t.wid) in acting
    return Widget(
        wid=t.wid, cls=t.cls, resource_id=t.resource_id, content_desc=t.content_desc, text=text,
        checked=checked, bounds=t.bounds, **traits, children=children, list=list_spec,
        shown=drawn,
    )


def _field_map(item: TemplateNode, specs: dict[str, FieldSpec], shown: dict[str, str]
               ) -> dict[str, tuple[Expr | None, Expr | None, Expr | None]]:
    """item widget -> (text, checked, shown expression) reading the record's fields (`shown`:
    item widget -> the flag field a row shows it by)."""
    out: dict[str, tuple[Expr | None, Expr | None, Expr | None]] = {}
    for n in item.walk():
        text: Expr | None = None
        checked: Expr | None = None
        spec = specs.get(n.wid)
        if spec is not None and spec.kind != "flag":
            text = ItemField(field=n.wid, fmt=spec.fmt)
        flag = f"{n.wid}_on" if f"{n.wid}_on" in specs else n.wid
        if flag in specs and specs[flag].kind == "flag":
            checked = ItemField(field=flag)
        drawn = ItemField(field=shown[n.wid]) if shown.get(n.wid) in specs else None
        out[n.wid] = (text, checked, drawn)
    return out


def _transition_id(n: int, screen: str, action: str, widget: str | None) -> str:
    return f"t{n:03d}_{screen}_{action}" + (f"_{widget}" if widget else "")


def _label(traces: TraceSet) -> str:
    app = traces.episodes[0].app
    return app.rsplit(".", 1)[-1].replace("_", " ").title()

