"""The simulator on the notes app: hit testing, guards, effects, defaults, lists, navigation."""

from __future__ import annotations

import pytest

from phoneworld.errors import EnvError
from phoneworld.ir.app import AppSpec
from phoneworld.ir.trace import (
    Back, Click, CloseApp, Done, Drag, Enter, Home, LongPress, OpenApp, Scroll, TypeText, Wait,
)
from phoneworld.runtime import Simulator
from phoneworld.runtime.compiled import LAUNCHER

from .notes_app import INITIAL, PKG, five_notes

ADD = Click(x=960, y=1800)
ROW0_LABEL, ROW1_LABEL = Click(x=200, y=330), Click(x=200, y=530)
ROW0_CHECK, ROW1_CHECK = Click(x=970, y=330), Click(x=970, y=530)
SETTINGS = Click(x=990, y=75)
SAVE, CANCEL, EDIT = Click(x=280, y=460), Click(x=800, y=460), Click(x=500, y=260)


def test_start_screen_and_initial_state(sim: Simulator) -> None:
    assert sim.screen == "s00_list" and sim.stack == () and sim.focus is None
    assert sim.state == INITIAL
    assert '"2 notes"' in sim.text()


def test_tap_on_a_label_reaches_the_rows_transition(sim: Simulator) -> None:
    r = sim.step(ROW1_LABEL)
    assert (r.transition, r.widget, r.changed) == ("t_open", "item_row", True)
    assert sim.screen == "s02_detail" and sim.stack == ("s00_list",)
    assert sim.state["selected_note"] == 1
    assert '"Call mom"' in sim.text()


@pytest.mark.parametrize(("tap", "index", "value"), [(ROW0_CHECK, 0, True), (ROW1_CHECK, 1, False)],
                         ids=["row0", "row1"])
def test_checkbox_inside_a_row_handles_its_own_tap(sim: Simulator, tap: Click, index: int,
                                                   value: bool) -> None:
    r = sim.step(tap)
    assert r.transition == "t_toggle_item"
    assert sim.state["notes"][index]["done"] is value
    assert sim.screen == "s00_list"


@pytest.mark.parametrize("action", [Click(x=500, y=1650), Click(x=5000, y=5), LongPress(x=990, y=75)],
                         ids=["empty-list-area", "off-screen", "long-press-without-transition"])
def test_taps_nothing_handles_do_nothing(sim: Simulator, action: Click) -> None:
    before = sim.snapshot()
    r = sim.step(action)
    assert not r.changed and r.transition is None
    assert sim.snapshot() == before


def test_guard_blocks_saving_an_empty_note(sim: Simulator) -> None:
    sim.step(ADD)
    r = sim.step(SAVE)
    assert r.transition is None and not r.changed
    assert sim.screen == "s01_editor" and len(sim.state["notes"]) == 2


def test_save_appends_a_record_counts_and_pops(sim: Simulator) -> None:
    assert sim.step(ADD).transition == "t_add"
    sim.step(TypeText(text="Buy eggs"))
    r = sim.step(SAVE)
    assert r.transition == "t_save"
    state = sim.state
    assert state["notes"][-1] == {"title": "Buy eggs", "done": False}
    assert state["saves"] == 1
    assert sim.screen == "s00_list" and sim.stack == ()
    assert '"3 notes"' in sim.text() and '"Buy eggs"' in sim.text()


def test_clicking_an_editable_field_focuses_it(sim: Simulator) -> None:
    sim.step(ADD)
    r = sim.step(EDIT)
    assert r.changed and sim.focus == ("edit_title", None)
    assert 'focused="true"' in sim.xml()
    assert "EditText id=title_input focused" in sim.text()


def test_type_without_focus_focuses_the_first_editable(sim: Simulator) -> None:
    sim.step(ADD)
    r = sim.step(TypeText(text="hi"))
    assert r.widget == "edit_title" and r.transition is None
    assert sim.focus == ("edit_title", None)
    assert sim.state["editor_title"] == "hi"


def test_type_replaces_the_text(sim: Simulator) -> None:
    sim.step(ADD)
    sim.step(TypeText(text="first"))
    sim.step(TypeText(text="second"))
    assert sim.state["editor_title"] == "second"


def test_type_with_no_editable_on_screen_does_nothing(sim: Simulator) -> None:
    assert not sim.step(TypeText(text="x")).changed


def test_type_transition_sets_var_from_input(sim: Simulator) -> None:
    sim.step(SETTINGS)
    r = sim.step(TypeText(text="Ann"))
    assert r.transition == "t_name"
    assert sim.state["user_name"] == "Ann"


def test_switch_transition_toggles_a_flag(sim: Simulator) -> None:
    sim.step(SETTINGS)
    assert sim.step(Click(x=500, y=260)).transition == "t_dark"
    assert sim.state["dark_mode"] is True
    assert '"Dark: true"' in sim.text() and "Switch id=dark \"Dark mode\" checked" in sim.text()


def test_unbound_tap_on_checkable_toggles_the_selected_record(sim: Simulator) -> None:
    sim.step(ROW0_LABEL)
    r = sim.step(Click(x=500, y=410))
    assert r.transition is None and r.changed
    assert sim.state["notes"][0]["done"] is True
    assert "CheckBox \"Done\" checked" in sim.text()


def test_delete_removes_the_selected_record(sim: Simulator) -> None:
    sim.step(ROW0_LABEL)
    r = sim.step(Click(x=280, y=560))
    assert r.transition == "t_delete"
    assert sim.state["notes"] == [{"title": "Call mom", "done": True}]
    assert sim.state["selected_note"] is None
    assert sim.screen == "s00_list" and '"1 notes"' in sim.text()


def test_back_pops_then_leaves_the_app_and_the_icon_reopens_it(sim: Simulator) -> None:
    sim.step(ADD)
    sim.step(TypeText(text="draft"))
    assert sim.step(Back()).changed and sim.screen == "s00_list"
    r = sim.step(Back())
    assert r.left_app and sim.screen == LAUNCHER and not sim.in_app
    assert 'package="com.android.launcher3"' in sim.xml() and '"Notes"' in sim.text()
    assert not sim.step(Back()).changed
    assert not sim.step(Click(x=5, y=5)).changed
    assert sim.step(Click(x=540, y=960)).changed
    assert sim.screen == "s00_list" and sim.state["editor_title"] == "draft"


@pytest.mark.parametrize("action", [Home(), CloseApp(), OpenApp(package="com.other")],
                         ids=["home", "close_app", "open_other_app"])
def test_leaving_the_app(sim: Simulator, action: Home) -> None:
    sim.step(ADD)
    r = sim.step(action)
    assert r.left_app and sim.screen == LAUNCHER and sim.stack == ()
    assert sim.step(OpenApp(package=PKG)).changed
    assert sim.screen == "s00_list"


def test_open_own_app_from_the_launcher_restarts_at_the_start_keeping_state(sim: Simulator) -> None:
    sim.step(ADD)
    sim.step(TypeText(text="kept"))
    sim.step(Home())
    r = sim.step(OpenApp(package=PKG))
    assert r.changed and not r.left_app
    assert sim.screen == "s00_list" and sim.stack == () and sim.state["editor_title"] == "kept"


def test_open_own_app_while_in_front_changes_nothing(sim: Simulator) -> None:
    sim.step(ADD)
    before = sim.snapshot()
    r = sim.step(OpenApp(package=PKG))
    assert not r.changed and not r.left_app
    assert sim.snapshot() == before


@pytest.mark.parametrize("action", [Wait(), Done(answer="x"), Enter(), Back.model_construct()],
                         ids=["wait", "done", "enter-unmatched", "noop-back-at-launcher"])
def test_inert_actions(sim: Simulator, action: Wait) -> None:
    if action.type == "back":
        sim.step(Home())
    before = sim.snapshot()
    assert not sim.step(action).changed
    assert sim.snapshot() == before


# ----------------------------------------------------------------------------- lists


def test_list_expands_visible_records_with_pitch_and_index(app: AppSpec) -> None:
    sim = Simulator(app)
    sim.reset(five_notes())
    lst = next(n for n in sim.view().walk() if n.resource_id.endswith(":id/list"))
    assert [c.index for c in lst.children] == [0, 1, 2]
    assert [c.bounds.y1 for c in lst.children] == [230, 430, 630]
    assert [c.children[0].text for c in lst.children] == ["Note 0", "Note 1", "Note 2"]
    assert [c.children[1].checked for c in lst.children] == [False, True, False]


def test_scroll_shifts_the_list_and_rebinds_items(app: AppSpec) -> None:
    sim = Simulator(app)
    sim.reset(five_notes())
    assert sim.step(Scroll(direction="down", x=540, y=800)).changed
    titles = [n.text for n in sim.view().walk() if n.resource_id.endswith("note_title")]
    assert titles == ["Note 2", "Note 3", "Note 4"]
    assert not sim.step(Scroll(direction="down")).changed  # clamped at the end
    sim.step(ROW1_LABEL)
    assert sim.state["selected_note"] == 3
    sim.step(Back())
    assert sim.step(Scroll(direction="up")).changed
    assert sim.offsets == {("s00_list", "list_notes"): 0}


@pytest.mark.parametrize(("action", "changed"), [
    (Scroll(direction="down", x=500, y=75), False),
    (Scroll(direction="left", x=500, y=800), False),
    (Drag(x1=500, y1=1500, x2=500, y2=500), True),
    (Drag(x1=500, y1=500, x2=503, y2=502), False),
], ids=["outside-any-list", "horizontal-on-vertical-list", "drag-up-scrolls-down", "tiny-drag"])
def test_scroll_variants(app: AppSpec, action: Scroll, changed: bool) -> None:
    sim = Simulator(app)
    sim.reset(five_notes())
    assert sim.step(action).changed is changed


def test_popping_back_keeps_the_list_offset(app: AppSpec) -> None:
    sim = Simulator(app)
    sim.set_position("s01_editor", five_notes(), stack=["s00_list"])
    sim.step(Back())
    sim.step(Scroll(direction="down"))
    sim.step(ADD)
    sim.step(Back())
    assert sim.offsets == {("s00_list", "list_notes"): 2}  # pop keeps it


# ----------------------------------------------------------------------------- position


def test_snapshot_restore_round_trip(sim: Simulator) -> None:
    snap = sim.snapshot()
    xml = sim.xml()
    sim.step(ADD)
    sim.step(TypeText(text="x"))
    sim.step(SAVE)
    assert sim.xml() != xml
    for _ in range(2):
        sim.restore(snap)
        assert sim.xml() == xml and sim.state == INITIAL and sim.stack == ()
        sim.step(ROW0_CHECK)


def test_set_position_with_stack_and_focus(app: AppSpec) -> None:
    sim = Simulator(app)
    sim.set_position("s01_editor", INITIAL, stack=["s00_list"], focus="edit_title")
    assert sim.focus == ("edit_title", None) and 'focused="true"' in sim.xml()
    sim.step(TypeText(text="typed"))
    assert sim.state["editor_title"] == "typed"
    sim.step(Back())
    assert sim.screen == "s00_list"


@pytest.mark.parametrize(("screen", "stack", "message"), [
    ("s01_edtor", None, "did you mean 's01_editor'"),
    ("s00_list", ["nowhere"], "no screen 'nowhere'"),
], ids=["typo", "bad-stack"])
def test_set_position_rejects_unknown_screens(sim: Simulator, screen: str, stack: list[str] | None,
                                              message: str) -> None:
    with pytest.raises(EnvError, match=message):
        sim.set_position(screen, None, stack=stack)


def test_reset_copies_the_given_state(app: AppSpec) -> None:
    state = five_notes()
    sim = Simulator(app)
    sim.reset(state)
    state["notes"][0]["title"] = "mutated"
    sim.state["notes"][1]["title"] = "mutated too"
    assert [n["title"] for n in sim.state["notes"]][:2] == ["Note 0", "Note 1"]


def test_reset_rejects_badly_typed_state(sim: Simulator) -> None:
    with pytest.raises(EnvError, match=r"notes\[0\].done must be a flag"):
        sim.reset({"notes": [{"title": "a", "done": "yes"}]})


def test_simulators_of_one_spec_share_rendered_frames(app: AppSpec) -> None:
    a, b = Simulator(app), Simulator(app)
    assert a.frame() is b.frame()
    a.step(ROW0_CHECK)
    b.step(ROW0_CHECK)
    assert a.frame() is b.frame()
