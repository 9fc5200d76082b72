"""Property tests: every IR model survives a JSON round trip unchanged (and byte-stable)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from phoneworld.emit import dumps
from phoneworld.ir import app as A
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device

names = st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True)
texts = st.text(max_size=30)  # any unicode: traces are untrusted
scalars = st.one_of(texts, st.integers(-10**6, 10**6), st.booleans())

leaf_exprs = st.one_of(
    st.builds(A.Lit, value=scalars),
    st.builds(A.Var, name=names, fmt=texts),
    st.builds(A.ItemField, field=names, fmt=texts),
    st.builds(A.Selected, collection=names, field=names, fmt=texts),
    st.builds(A.Input),
    st.builds(A.Count, collection=names, fmt=texts),
)
exprs = st.recursive(
    leaf_exprs,
    lambda inner: st.builds(A.Choose, cond=inner, then=texts, otherwise=texts),
    max_leaves=4,
)
refs = st.one_of(
    st.builds(A.VarRef, name=names),
    st.builds(A.RecordRef, collection=names, target=st.sampled_from(["item", "selected"]),
              field=names),
)
effects = st.one_of(
    st.builds(A.SetEffect, ref=refs, value=exprs),
    st.builds(A.AddEffect, ref=refs, delta=st.integers(-100, 100)),
    st.builds(A.ToggleEffect, ref=refs),
    st.builds(A.AppendEffect, collection=names, record=st.dictionaries(names, exprs, max_size=3),
              position=st.sampled_from(["end", "start"])),
    st.builds(A.RemoveEffect, collection=names, target=st.sampled_from(["item", "selected"])),
    st.builds(A.SelectEffect, collection=names),
)
simple_guards = st.builds(
    A.Guard, op=st.sampled_from(["nonempty", "empty", "eq", "ne", "true", "false"]),
    left=exprs, right=st.none() | exprs)
guards = st.one_of(simple_guards,
                   st.builds(A.Guard, op=st.just("all"), left=st.none(),
                             terms=st.lists(simple_guards, max_size=3).map(tuple)))
bounds = st.builds(lambda x, y, w, h: Bounds(x1=x, y1=y, x2=x + w, y2=y + h),
                   st.integers(0, 1000), st.integers(0, 1900), st.integers(0, 80),
                   st.integers(0, 80))
widgets = st.recursive(
    st.builds(A.Widget, wid=names, cls=texts, resource_id=texts, content_desc=texts, text=exprs,
              checked=exprs, bounds=bounds, clickable=st.booleans(), editable=st.booleans()),
    lambda inner: st.builds(A.Widget, wid=names, cls=texts, bounds=bounds,
                            children=st.lists(inner, max_size=3).map(tuple)),
    max_leaves=6,
)
transitions = st.builds(
    A.Transition, id=names, screen=names,
    action=st.sampled_from(["click", "long_press", "type", "scroll_down", "back"]),
    widget=st.none() | names, guard=st.none() | guards,
    effects=st.lists(effects, max_size=4).map(tuple), target=st.none() | names,
    nav=st.sampled_from(["push", "pop", "replace", "stay"]), support=st.integers(0, 50))
apps = st.builds(
    A.AppSpec, package=names, label=texts, device=st.just(Device(width=1080, height=1920)),
    start_screen=names,
    screens=st.lists(st.builds(A.ScreenSpec, id=names, name=names, package=names, root=widgets),
                     min_size=1, max_size=3).map(tuple),
    transitions=st.lists(transitions, max_size=5).map(tuple),
    state=st.just(()), initial_state=st.dictionaries(names, scalars, max_size=4),
)


@settings(max_examples=60, deadline=None)
@given(apps)
def test_app_spec_json_round_trip(spec: A.AppSpec) -> None:
    text = dumps(spec)
    again = A.AppSpec.model_validate_json(text)
    assert again == spec
    assert dumps(again) == text
