"""`state`: each kind of effect, inferred from the smallest episode whose diff shows it.

A rule is (screen, action, widget) -> effects, target, nav. Where one sample would leave a
constant as good an explanation as the effect (a toggle, a counter), the episode has two.
"""

from __future__ import annotations

from collections import Counter

import pytest

from phoneworld.ir.app import (
    AddEffect, AppendEffect, Input, ItemField, Lit, RecordRef, RemoveEffect, RemoveWhereEffect,
    Selected, SelectEffect, SetEachEffect, SetEffect, ToggleEffect, Var, VarRef,
)
from phoneworld.ir.trace import Click, Observation
from phoneworld.runtime.sim import Simulator
from phoneworld.state import infer_state
from phoneworld.state.sentences import Sentences
from tests.compiler_support import (
    BUTTON, CHECKBOX, EDIT, LINEAR, RECYCLER, ROW_PITCH, ROW_TOP, TEXT, W, b, back, click,
    compile_app, episode, on_row, row_list, screen, tap, traces, type_, view,
)
from tests.state.notes import ADD, DELETE, detail, editor, home, rule_for


def test_typed_text_sets_the_field_from_the_input() -> None:
    model = compile_app(traces(episode("e0", editor(), type_("milk"), editor("milk")))).model
    rule = rule_for(model, "s00_editor", "type", "title_input")
    assert rule.effects == (SetEffect(ref=VarRef(name="title_input"), value=Input()),)
    assert (rule.target, rule.nav, rule.support) == (None, "stay", 1)


def test_typing_into_a_password_field_sets_it_from_the_input_the_recording_shows_masked() -> None:
    # The dump shows what was typed as bullets (the last character for a moment in clear): the
    # typed input explains it, so the mock holds the password and shows it masked.
    def login(shown: str) -> Observation:
        return screen(view(EDIT, b(40, 300, 1040, 420), id="password", text=shown, password=True),
                      activity=".LoginActivity")

    compiled = compile_app(traces(episode(
        "e0", login(""), type_("hunter2"), login("\u2022" * 6 + "2"),
        type_("swordfish"), login("\u2022" * 9))))
    rule = rule_for(compiled.model, "s00_login", "type", "password")
    assert rule.effects == (SetEffect(ref=VarRef(name="password"), value=Input()),)
    sim = Simulator(compiled.spec)
    sim.step(type_("abc"))
    assert sim.state["password"] == "abc" and 'text="\u2022\u2022\u2022"' in sim.xml()


def test_tapping_a_checkbox_twice_toggles_its_flag() -> None:
    def settings(on: bool) -> Observation:
        return screen(view(CHECKBOX, b(40, 200, 1040, 320), id="dark", text="Dark mode",
                           checkable=True, clickable=True, checked=on),
                      activity=".SettingsActivity")

    model = compile_app(traces(episode(
        "e0", settings(False), click(500, 250), settings(True), click(500, 250), settings(False),
    ))).model
    assert [(v.name, v.kind) for v in model.variables] == [("dark", "flag")]
    rule = rule_for(model, "s00_settings", "click", "dark")
    assert rule.effects == (ToggleEffect(ref=VarRef(name="dark")),)
    assert (rule.target, rule.nav, rule.support) == (None, "stay", 2)


def test_taps_read_before_the_switch_moved_do_not_make_a_condition_for_it() -> None:
    """Vibrate toggled four times; two taps read as changing nothing (read too early), one with
    Sound on and Vibrate on, one with both off. A condition on Sound explains one of them ("with
    Sound on, Vibrate sets itself on") and one more step than the toggle alone; it fits the
    noise, so the toggle, which explains every step that did something, is kept unguarded."""
    def page(sound: bool, vibrate: bool) -> Observation:
        return screen(view(CHECKBOX, b(40, 200, 1040, 320), id="sound", text="Sound",
                           checkable=True, clickable=True, checked=sound),
                      view(CHECKBOX, b(40, 400, 1040, 520), id="vibrate", text="Vibrate",
                           checkable=True, clickable=True, checked=vibrate),
                      activity=".SettingsActivity")

    vib, snd = click(500, 460), click(500, 260)
    model = compile_app(traces(
        episode("e0", page(False, False), vib, page(False, True), vib, page(False, False),
                vib, page(False, False),  # read too early
                vib, page(False, True)),
        episode("e1", page(True, False), vib, page(True, True), vib, page(True, True)),  # early
        episode("e2", page(False, True), snd, page(True, True)),
    )).model
    rule = rule_for(model, "s00_settings", "click", "vibrate")
    assert (rule.guard, rule.effects) == (None, (ToggleEffect(ref=VarRef(name="vibrate")),))


def test_a_plus_button_adds_one_to_a_counter_shown_in_a_text() -> None:
    plus = view(BUTTON, b(40, 400, 520, 520), id="plus", text="+", clickable=True)

    def counter(n: int) -> Observation:
        return screen(view(TEXT, b(40, 200, 1040, 320), id="count", text=f"{n} cups"), plus)

    model = compile_app(traces(episode(
        "e0", counter(3), tap(plus), counter(4), tap(plus), counter(5)))).model
    (count,) = model.variables
    assert (count.name, count.kind) == ("count", "number")
    assert model.initial_state == {"count": 3}
    assert rule_for(model, "s00_main", "click", "plus").effects == (
        AddEffect(ref=VarRef(name="count"), delta=1),)
    binding = next(bd for bd in model.bindings if bd.widget == "count")
    assert binding.text == Var(name="count", fmt="{} cups")


NEW_ITEM = view(EDIT, b(40, 1620, 700, 1740), id="new_item")
ADD_ITEM = view(BUTTON, b(740, 1620, 1040, 1740), id="add", text="Add", clickable=True)


def shopping(*titles: str, typed: str = "") -> Observation:
    return screen(row_list(*titles, list_id="items"),
                  NEW_ITEM.model_copy(update={"text": typed}), ADD_ITEM)


@pytest.mark.parametrize("after,position", [
    (("eggs", "milk"), "end"), (("milk", "eggs"), "start"),
], ids=["append_at_end", "insert_at_start"])
def test_add_appends_a_record_from_the_typed_field_and_clears_it(
        after: tuple[str, ...], position: str) -> None:
    model = compile_app(traces(episode(
        "e0", shopping("eggs"), type_("milk"), shopping("eggs", typed="milk"), tap(ADD_ITEM),
        shopping(*after),
    ))).model
    assert rule_for(model, "s00_main", "click", "add").effects == (
        AppendEffect(collection="items", record={"title": Var(name="new_item")},
                     position=position),  # type: ignore[arg-type]
        SetEffect(ref=VarRef(name="new_item"), value=Lit(value="")),
    )


def test_a_remove_button_in_a_row_removes_that_record() -> None:
    model = compile_app(traces(episode(
        "e0", home("a", "b", "c", removable=True), on_row(1, x=780), home("a", "c", removable=True),
    ))).model
    assert rule_for(model, "s00_main", "click", "remove").effects == (
        RemoveEffect(collection="notes", target="item"),)


def test_a_checkbox_in_a_row_toggles_that_records_flag() -> None:
    model = compile_app(traces(episode(
        "e0", home("a", "b", checked=(False, False)), on_row(1, x=970),
        home("a", "b", checked=(False, True)), on_row(0, x=970),
        home("a", "b", checked=(True, True)),
    ))).model
    notes = next(v for v in model.variables if v.name == "notes")
    assert [(f.name, f.kind) for f in notes.fields] == [("done", "flag"), ("title", "text")]
    assert rule_for(model, "s00_main", "click", "done").effects == (
        ToggleEffect(ref=RecordRef(collection="notes", target="item", field="done")),)


def test_opening_a_row_selects_its_record_and_the_detail_screen_reads_it() -> None:
    model = compile_app(traces(
        episode("e0", home("a", "b"), on_row(1), detail("b"), back(), home("a", "b")),
        episode("e1", home("a", "b"), on_row(0), detail("a")),
    )).model
    rule = rule_for(model, "s00_main", "click", "row")
    assert rule.effects == (SelectEffect(collection="notes"),)
    assert (rule.target, rule.nav, rule.support) == ("s01_detail", "push", 2)
    binding = next(bd for bd in model.bindings if bd.screen == "s01_detail")
    assert (binding.widget, binding.text) == ("note_title", Selected(collection="notes",
                                                                     field="title"))
    # The detail's title is no variable of its own: it is the selected record's field.
    assert "note_title" not in {v.name for v in model.variables}
    assert rule_for(model, "s01_detail", "back", None).nav == "pop"


def test_delete_on_the_detail_screen_removes_the_selected_record_and_pops() -> None:
    model = compile_app(traces(episode(
        "e0", home("a", "b"), on_row(1), detail("b"), tap(DELETE), home("a")))).model
    rule = rule_for(model, "s01_detail", "click", "delete")
    assert rule.effects == (RemoveEffect(collection="notes", target="selected"),)
    assert (rule.target, rule.nav) == ("s00_main", "pop")


def test_a_field_that_always_shows_the_opened_record_reads_the_selection() -> None:
    model = compile_app(traces(episode(
        "e0", home("a", "b"), on_row(1), editor("b"), back(), home("a", "b"), on_row(0),
        editor("a"),
    ))).model
    assert rule_for(model, "s00_main", "click", "row").effects == (
        SelectEffect(collection="notes"),)
    binding = next(bd for bd in model.bindings if bd.widget == "title_input")
    assert binding.text == Selected(collection="notes", field="title")


def test_opening_a_row_into_an_editor_copies_the_hit_records_field_into_the_input() -> None:
    model = compile_app(traces(episode(
        "e0", home("a", "b"), on_row(1), editor("b"), type_("bb"), editor("bb"), back(),
        home("a", "b"), on_row(0), editor("a"),
    ))).model
    assert rule_for(model, "s00_main", "click", "row").effects == (
        SelectEffect(collection="notes"),
        SetEffect(ref=VarRef(name="title_input"), value=ItemField(field="title")),
    )
    binding = next(bd for bd in model.bindings if bd.widget == "title_input")
    assert binding.text == Var(name="title_input")


def test_a_step_that_changes_nothing_has_no_effect() -> None:
    model = compile_app(traces(episode("e0", home("a"), tap(ADD), editor(), back(), home("a"),
                                       tap(ADD), editor()))).model
    rule = rule_for(model, "s00_main", "click", "add")
    assert (rule.effects, rule.target, rule.nav, rule.support) == ((), "s01_editor", "push", 2)
    assert model.dropped == ()


def test_one_trigger_going_to_two_screens_keeps_the_majority_and_says_so() -> None:
    other = screen(view(TEXT, b(0, 0, W, 150), id="oops"), activity=".ErrorActivity")
    compiled = compile_app(traces(
        episode("e0", home("a"), tap(ADD), editor()),
        episode("e1", home("a"), tap(ADD), editor()),
        episode("e2", home("a"), tap(ADD), other),
    ))
    rule = rule_for(compiled.model, "s00_main", "click", "add")
    assert (rule.target, rule.support, rule.guard) == ("s01_editor", 2, None)
    assert compiled.model.dropped == (
        "s00_main click add: 1 step(s) went to s02_error instead of s01_editor; no state "
        "condition tells them apart",)
    # The model is a pure function of the abstraction and graph.
    assert infer_state(compiled.abstraction, compiled.graph) == compiled.model


def test_a_tie_goes_to_the_outcome_where_the_step_did_something() -> None:
    # back once left the editor as it was (not taken) and once returned home
    compiled = compile_app(traces(
        episode("e0", home("a"), tap(ADD), editor(), back(), editor()),
        episode("e1", home("a"), tap(ADD), editor(), back(), home("a")),
    ))
    rule = rule_for(compiled.model, "s01_editor", "back", None)
    assert (rule.target, rule.nav, rule.support) == (None, "pop", 1)
    assert compiled.model.dropped == (
        "s01_editor back : 1 step(s) went to s01_editor instead of s00_main; no state "
        "condition tells them apart",)


def test_a_typed_field_is_not_bound_to_the_selected_record() -> None:
    model = compile_app(traces(
        episode("add", home("a"), tap(ADD), editor(), type_("b"), editor("b")),
        episode("open", home("a", "b"), on_row(1), editor("b")),
    )).model
    assert rule_for(model, "s01_editor", "type", "title_input").effects == (
        SetEffect(ref=VarRef(name="title_input"), value=Input()),)


def basket(*rows: tuple[str, int]) -> Observation:
    """A list of (item, quantity) rows, each with − and + buttons either side of its quantity."""
    views = []
    for k, (title, qty) in enumerate(rows):
        y = ROW_TOP + k * ROW_PITCH
        views.append(view(LINEAR, b(0, y, W, y + ROW_PITCH),
                          view(TEXT, b(40, y + 20, 500, y + 180), id="title", text=title),
                          view(BUTTON, b(560, y + 40, 680, y + 160), id="minus", text="−",
                               clickable=True),
                          view(TEXT, b(700, y + 40, 800, y + 160), id="qty", text=str(qty)),
                          view(BUTTON, b(820, y + 40, 940, y + 160), id="plus", text="+",
                               clickable=True),
                          id="row"))
    return screen(view(RECYCLER, b(0, ROW_TOP, W, 1600), *views, id="baskets", scrollable=True))


def on_button(k: int, x: int) -> Click:
    return Click(x=x, y=ROW_TOP + k * ROW_PITCH + ROW_PITCH // 2)


PLUS_X, MINUS_X = 880, 620
QTY = RecordRef(collection="baskets", target="item", field="qty")


def test_a_stepper_in_a_row_adds_to_that_records_number() -> None:
    model = compile_app(traces(episode(
        "e0", basket(("eggs", 1), ("milk", 3)), on_button(0, PLUS_X),
        basket(("eggs", 2), ("milk", 3)), on_button(1, PLUS_X), basket(("eggs", 2), ("milk", 4)),
        on_button(1, MINUS_X), basket(("eggs", 2), ("milk", 3)), on_button(0, MINUS_X),
        basket(("eggs", 1), ("milk", 3)),
    ))).model
    basket_var = next(v for v in model.variables if v.name == "baskets")
    assert [(f.name, f.kind) for f in basket_var.fields] == [("qty", "number"), ("title", "text")]
    assert rule_for(model, "s00_main", "click", "plus").effects == (AddEffect(ref=QTY, delta=1),)
    assert rule_for(model, "s00_main", "click", "minus").effects == (
        AddEffect(ref=QTY, delta=-1),)


def test_a_row_button_that_sets_one_number_from_any_is_a_set_not_a_step() -> None:
    # "−" took 3 and 5 to 0: a literal explains both steps, a step of −3 only the first
    model = compile_app(traces(episode(
        "e0", basket(("eggs", 3), ("milk", 5)), on_button(0, MINUS_X),
        basket(("eggs", 0), ("milk", 5)), on_button(1, MINUS_X), basket(("eggs", 0), ("milk", 0)),
    ))).model
    assert rule_for(model, "s00_main", "click", "minus").effects == (
        SetEffect(ref=QTY, value=Lit(value=0)),)


def test_a_stepped_row_number_runs_in_the_simulator() -> None:
    compiled = compile_app(traces(episode(
        "e0", basket(("eggs", 1), ("milk", 3)), on_button(0, PLUS_X),
        basket(("eggs", 2), ("milk", 3)), on_button(1, PLUS_X), basket(("eggs", 2), ("milk", 4)),
    )))
    sim = Simulator(compiled.spec)
    sim.reset()
    for _ in range(3):
        sim.step(on_button(1, PLUS_X))
    assert [r["qty"] for r in sim.state["baskets"]] == [1, 6]


CONFIRM = view(BUTTON, b(540, 1000, 1040, 1120), id="confirm", text="Remove", clickable=True)


def confirm(title: str) -> Observation:
    return screen(view(TEXT, b(40, 800, 1040, 920), id="message", text=f"Remove “{title}”?"),
                  CONFIRM, activity=".DetailActivity")


def test_a_sentence_around_the_opened_records_field_reads_the_selection() -> None:
    compiled = compile_app(traces(
        episode("e0", home("a", "b", "c"), on_row(1), detail("b"), tap(DELETE), confirm("b"),
                back(), detail("b")),
        episode("e1", home("a", "b", "c"), on_row(0), detail("a"), tap(DELETE), confirm("a")),
    ))
    binding = next(bd for bd in compiled.model.bindings if bd.widget == "message")
    assert binding.text == Selected(collection="notes", field="title", fmt="Remove “{}”?")
    assert "message" not in {v.name for v in compiled.model.variables}
    sim = Simulator(compiled.spec)
    sim.reset()
    sim.step(on_row(2))
    sim.step(tap(DELETE))
    assert "Remove “c”?" in sim.text()  # a record no recording opened the dialog on


def test_a_sentence_seen_with_one_value_only_is_no_layout() -> None:
    sentences = Sentences()
    key = ("s02_confirm", "message")
    for _ in range(2):
        sentences.vote(key, "notes", "title", "b", "Remove “b”?")
    assert sentences.bindings(Counter({key: 2})) == {}
    sentences.vote(key, "notes", "title", "a", "Remove “a”?")
    assert sentences.bindings(Counter({key: 3})) == {
        key: Selected(collection="notes", field="title", fmt="Remove “{}”?")}
    # a reading that the layout does not explain (no record open) keeps the widget a variable
    assert sentences.bindings(Counter({key: 4})) == {}


def test_a_field_one_types_into_is_not_bound_to_a_sentence() -> None:
    def copy_editor(title: str) -> Observation:
        return screen(view(EDIT, b(40, 200, 1040, 320), id="title_input", text=f"{title} copy"),
                      activity=".EditorActivity")

    model = compile_app(traces(
        episode("e0", home("a", "b"), on_row(1), copy_editor("b")),
        episode("e1", home("a", "b"), on_row(0), copy_editor("a")),
    )).model
    binding = next(bd for bd in model.bindings if bd.widget == "title_input")
    assert binding.text == Var(name="title_input")


CLEAR = view(BUTTON, b(40, 1700, 520, 1800), id="clear_done", text="Clear done", clickable=True)
UNCHECK = view(BUTTON, b(560, 1700, 1040, 1800), id="uncheck_all", text="Uncheck all",
               clickable=True)


def ticked(*rows: tuple[str, bool]) -> Observation:
    titles, flags = zip(*rows) if rows else ((), ())
    return screen(row_list(*titles, checked=tuple(flags), list_id="notes"), CLEAR, UNCHECK)


def test_a_button_that_drops_every_checked_row_removes_where_the_flag_holds() -> None:
    # Two clears, of different rows: only "the checked ones" explains both.
    compiled = compile_app(traces(episode(
        "e0", ticked(("a", True), ("b", False), ("c", True)), tap(CLEAR), ticked(("b", False)),
    ), episode(
        "e1", ticked(("d", False), ("e", True)), tap(CLEAR), ticked(("d", False)),
    )))
    assert rule_for(compiled.model, "s00_main", "click", "clear_done").effects == (
        RemoveWhereEffect(collection="notes", field="done", value=True),)
    sim = Simulator(compiled.spec)  # and it runs: a checked row the recording never cleared goes
    sim.reset({**sim.peek(), "notes": [{"title": "x", "done": True}, {"title": "y", "done": False},
                                       {"title": "z", "done": True}]})
    sim.step(tap(CLEAR))
    assert [n["title"] for n in sim.peek()["notes"]] == ["y"]


def test_a_button_that_unticks_every_row_sets_the_flag_on_each_record() -> None:
    model = compile_app(traces(episode(
        "e0", ticked(("a", True), ("b", False), ("c", True)), tap(UNCHECK),
        ticked(("a", False), ("b", False), ("c", False)),
    ))).model
    assert rule_for(model, "s00_main", "click", "uncheck_all").effects == (
        SetEachEffect(collection="notes", field="done", value=False),)


def test_rows_sharing_a_text_are_no_rule_to_remove_by() -> None:
    # The removed rows share a title, not a flag: no bulk remove is read from a text, which
    # would name records, not a rule (the one step is left unexplained instead).
    model = compile_app(traces(episode(
        "e0", ticked(("a", False), ("b", False), ("a", False)), tap(CLEAR), ticked(("b", False)),
    ))).model
    effects = rule_for(model, "s00_main", "click", "clear_done").effects
    assert not any(e.kind == "remove_where" for e in effects)
