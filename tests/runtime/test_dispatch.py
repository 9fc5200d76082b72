"""Touch dispatch and navigation on small purpose-built apps."""

from __future__ import annotations

import pytest

from phoneworld.ir.app import (
    FieldSpec, Guard, ListSpec, Lit, SetEffect, StateVar, Transition, Var, VarRef, Widget,
)
from phoneworld.ir.trace import Back, Click, DoubleClick, Enter, LongPress, Scroll
from phoneworld.runtime import Simulator
from phoneworld.runtime.compiled import LAUNCHER

from .notes_app import B, button, go, mini_app

TOP = B(0, 0, 1080, 300)


def label(wid: str, b: object, text: str = "label", clickable: bool = False) -> Widget:
    return Widget(wid=wid, cls="android.widget.TextView", text=Lit(value=text), bounds=b,
                  clickable=clickable)


def test_non_handling_overlay_passes_the_tap_to_the_sibling_below() -> None:
    app = mini_app({"a": [button("btn", TOP), label("overlay", TOP)], "b": []},
                   [go("t", "a", "btn", "b")])
    sim = Simulator(app)
    assert sim.step(Click(x=10, y=10)).transition == "t"


def test_topmost_sibling_with_a_transition_wins() -> None:
    app = mini_app({"a": [button("under", TOP), button("over", TOP)], "b": [], "c": []},
                   [go("t_under", "a", "under", "b"), go("t_over", "a", "over", "c")])
    sim = Simulator(app)
    assert sim.step(Click(x=10, y=10)).transition == "t_over"


def test_clickable_child_without_transition_bubbles_to_its_parent() -> None:
    row = Widget(wid="row", cls="android.widget.LinearLayout", clickable=True, bounds=TOP,
                 children=(label("child", B(0, 0, 500, 300), clickable=True),))
    app = mini_app({"a": [row], "b": []}, [go("t", "a", "row", "b")])
    assert Simulator(app).step(Click(x=10, y=10)).transition == "t"


def test_transition_on_a_non_clickable_leaf_fires() -> None:
    row = Widget(wid="row", cls="android.widget.LinearLayout", clickable=True, bounds=TOP,
                 children=(label("leaf", B(0, 0, 500, 300)),))
    app = mini_app({"a": [row], "b": [], "c": []},
                   [go("t_row", "a", "row", "b"), go("t_leaf", "a", "leaf", "c")])
    sim = Simulator(app)
    assert sim.step(Click(x=10, y=10)).transition == "t_leaf"
    sim.reset()
    assert sim.step(Click(x=700, y=10)).transition == "t_row"


def test_disabled_widget_swallows_the_tap() -> None:
    row = Widget(wid="row", cls="android.widget.LinearLayout", clickable=True, bounds=TOP,
                 children=(button("off", B(0, 0, 500, 300), enabled=False),))
    app = mini_app({"a": [row], "b": [], "c": []},
                   [go("t_row", "a", "row", "b"), go("t_off", "a", "off", "c")])
    r = Simulator(app).step(Click(x=10, y=10))
    assert (r.transition, r.widget, r.changed) == (None, "off", False)


@pytest.mark.parametrize(("action", "tid"), [
    (DoubleClick(x=10, y=10), "t_double"), (LongPress(x=10, y=10), "t_long"),
    (Enter(), "t_enter"), (Scroll(direction="down", x=10, y=10), "t_scroll"),
], ids=["double_click", "long_press", "enter", "screen-scroll"])
def test_action_kinds_select_their_transitions(action: object, tid: str) -> None:
    trans = [
        Transition(id="t_double", screen="a", action="double_click", widget="btn", target="b"),
        Transition(id="t_long", screen="a", action="long_press", widget="btn", target="b"),
        Transition(id="t_enter", screen="a", action="enter", target="b"),
        Transition(id="t_scroll", screen="a", action="scroll_down", target="b"),
        go("t_click", "a", "btn", "b"),
    ]
    sim = Simulator(mini_app({"a": [button("btn", TOP)], "b": []}, trans))
    assert sim.step(action).transition == tid


def test_guarded_transitions_are_tried_before_unguarded_ones() -> None:
    flag = StateVar(name="f", kind="flag")
    trans = [
        go("t_plain", "a", "btn", "b"),
        Transition(id="t_guarded", screen="a", action="click", widget="btn", target="c",
                   guard=Guard(op="true", left=Var(name="f"))),
    ]
    app = mini_app({"a": [button("btn", TOP)], "b": [], "c": []}, trans, (flag,), {"f": True})
    sim = Simulator(app)
    assert sim.step(Click(x=1, y=1)).transition == "t_guarded"
    sim.reset({"f": False})
    assert sim.step(Click(x=1, y=1)).transition == "t_plain"


def nav_app() -> Simulator:
    screens = {s: [button("btn", TOP), button("btn2", B(0, 400, 1080, 700)),
                   button("btn3", B(0, 800, 1080, 1100))] for s in ("a", "b", "c", "d")}
    trans = [
        go("ab", "a", "btn", "b"), go("bc", "b", "btn", "c"), go("cd", "c", "btn", "d"),
        go("self", "a", "btn2", "a"),
        go("pop_to_a", "d", "btn", "a", "pop"), go("pop_to_x", "c", "btn2", "a", "pop"),
        go("replace", "b", "btn2", "d", "replace"), go("stay", "b", "btn3", "c", "stay"),
        go("pop1", "d", "btn2", None, "pop"),
    ]
    return Simulator(mini_app(screens, trans))


@pytest.mark.parametrize(("taps", "screen", "stack"), [
    (["btn2"], "a", ()),
    (["btn", "btn", "btn", "btn"], "a", ()),
    (["btn", "btn2"], "d", ("a",)),
    (["btn", "btn3"], "b", ("a",)),
    (["btn", "btn", "btn", "btn2"], "c", ("a", "b")),
], ids=["push-self-stays", "pop-to-target-on-stack", "replace", "stay", "pop-one"])
def test_navigation(taps: list[str], screen: str, stack: tuple[str, ...]) -> None:
    sim = nav_app()
    ys = {"btn": 10, "btn2": 500, "btn3": 900}
    for t in taps:
        sim.step(Click(x=10, y=ys[t]))
    assert (sim.screen, sim.stack) == (screen, stack)


@pytest.mark.parametrize(("stack", "after"), [([], ()), (["d", "b"], ("d",))])
def test_pop_to_a_target_not_on_the_stack_takes_the_place_of_the_screen_below(
        stack: list[str], after: tuple[str, ...]) -> None:
    sim = nav_app()
    sim.set_position("c", None, stack=stack)
    sim.step(Click(x=10, y=500))
    assert (sim.screen, sim.stack) == ("a", after)


def test_pop_transition_at_the_bottom_leaves_the_app() -> None:
    sim = nav_app()
    sim.set_position("d", None)
    r = sim.step(Click(x=10, y=500))
    assert r.left_app and sim.screen == LAUNCHER


def test_back_transition_overrides_the_default_pop() -> None:
    trans = [Transition(id="t_back", screen="b", action="back", target="c", nav="replace")]
    sim = Simulator(mini_app({"a": [], "b": [], "c": []}, trans))
    sim.set_position("b", None, stack=["a"])
    assert sim.step(Back()).transition == "t_back"
    assert (sim.screen, sim.stack) == ("c", ("a",))


def test_item_widgets_bind_their_record_and_editable_items_take_focus() -> None:
    item = Widget(wid="cell", cls="android.widget.EditText", editable=True, clickable=True,
                  text=Lit(value=""), bounds=B(0, 0, 1080, 100))
    lst = Widget(wid="lst", cls="android.widget.ListView", bounds=B(0, 0, 1080, 1000),
                 list=ListSpec(collection="rows", item=item, pitch=100, max_visible=5))
    rows = StateVar(name="rows", kind="collection")
    sim = Simulator(mini_app({"a": [lst]}, [], (rows,), {"rows": [{}, {}, {}]}))
    sim.step(Click(x=10, y=150))
    assert sim.focus == ("cell", 1)
    assert [n.focused for n in sim.view().walk() if n.cls.endswith("EditText")] == [False, True, False]


def test_set_effect_reports_a_change_only_when_the_value_changes() -> None:
    var = StateVar(name="v", kind="text")
    t = Transition(id="t", screen="a", action="click", widget="btn", nav="stay",
                   effects=(SetEffect(ref=VarRef(name="v"), value=Lit(value="set")),))
    screen_kids = [button("btn", TOP), label("show", B(0, 400, 1080, 500))]
    app = mini_app({"a": screen_kids}, [t], (var,), {"v": ""})
    sim = Simulator(app)
    assert sim.step(Click(x=1, y=1)).changed and sim.state == {"v": "set"}
    assert not sim.step(Click(x=1, y=1)).changed


def test_an_overlay_that_cannot_take_a_tap_does_not_shadow_a_button_below_it() -> None:
    # The overlay's transition comes from a tap where nothing under it could take one.
    header = label("header", TOP)
    app = mini_app({"a": [button("btn", B(800, 0, 1000, 300)), header], "b": [], "c": []},
                   [go("t_btn", "a", "btn", "b"), go("t_header", "a", "header", "c")])
    sim = Simulator(app)
    assert sim.step(Click(x=900, y=10)).transition == "t_btn"
    sim.reset()
    assert sim.step(Click(x=10, y=10)).transition == "t_header"


def test_a_scroll_goes_to_the_scrollable_with_a_transition_not_the_list_inside_it() -> None:
    items = ListSpec(collection="rows", item=label("title", B(0, 0, 1080, 100)), pitch=100,
                     max_visible=5)
    inner = Widget(wid="rows", cls="android.widget.LinearLayout", bounds=B(0, 0, 1080, 600),
                   list=items)
    outer = Widget(wid="scroll", cls="android.widget.ScrollView", bounds=B(0, 0, 1080, 1200),
                   scrollable=True, children=(inner,))
    rows = StateVar(name="rows", kind="collection", fields=(FieldSpec(name="title", kind="text"),))
    trans = [Transition(id="t_more", screen="a", action="scroll_up", widget="scroll", target="b")]
    app = mini_app({"a": [outer], "b": []}, trans, (rows,), {"rows": [{"title": "x"}]})
    assert Simulator(app).step(Scroll(direction="up", x=10, y=10)).transition == "t_more"
