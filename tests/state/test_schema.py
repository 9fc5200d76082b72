"""`state`: which widgets are bound to state variables, of which kind, and the initial state."""

from __future__ import annotations

from phoneworld.fidelity import recorded_contents, teacher_forced
from phoneworld.ir.app import StateVar, Var
from phoneworld.ir.trace import Observation
from phoneworld.state import prepare
from tests.compiler_support import (
    BUTTON, TEXT, W, b, back, click, compile_app, episode, on_row, row_list, screen, tap,
    traces, view,
)
from tests.state.notes import ADD, editor, home

REFRESH = view(BUTTON, b(40, 1700, 520, 1850), id="refresh", text="Refresh", clickable=True)


def status(title: str, count: str, *, sent: bool = False) -> Observation:
    """A mailbox; the Sent box has one more button (so it is another screen)."""
    extra = (view(BUTTON, b(560, 1700, 1040, 1850), id="resend", clickable=True),) if sent else ()
    return screen(view(TEXT, b(0, 0, W, 150), id="title", text=title),
                  view(TEXT, b(0, 150, W, 300), text="Inbox"),
                  view(TEXT, b(0, 300, W, 450), id="unread", text=count), REFRESH, *extra,
                  activity=".SentActivity" if sent else ".MainActivity")


def kinds(variables: tuple[StateVar, ...]) -> dict[str, str]:
    return {v.name: v.kind for v in variables}


def test_texts_that_vary_are_variables_and_texts_that_do_not_are_literals() -> None:
    model = compile_app(traces(episode(
        "e0", status("Mail", "3 unread"), tap(REFRESH), status("Mail (1)", "10 unread"),
    ))).model
    assert kinds(model.variables) == {"title": "text", "unread": "number"}
    texts = {bd.widget: bd.text for bd in model.bindings}
    assert texts == {"title": Var(name="title"), "unread": Var(name="unread", fmt="{} unread")}
    assert model.initial_state == {"title": "Mail", "unread": 3}


def test_numbers_in_different_layouts_stay_text() -> None:
    model = compile_app(traces(episode(
        "e0", status("Mail", "3 unread"), tap(REFRESH), status("Mail", "none: 0"),
    ))).model
    assert kinds(model.variables) == {"unread": "text"}


def test_an_editable_field_is_a_variable_even_if_it_never_changes() -> None:
    model = compile_app(traces(episode("e0", editor(), click(100, 1000), editor()))).model
    assert kinds(model.variables) == {"title_input": "text"}
    assert model.initial_state == {"title_input": ""}


def test_widgets_with_one_resource_id_on_two_screens_share_their_variable() -> None:
    model = compile_app(traces(episode(
        "e0", status("Mail", "3 unread"), tap(REFRESH), status("Mail", "4 unread"), back(),
        status("Mail", "4 unread", sent=True), tap(REFRESH), status("Mail", "6 unread", sent=True),
    ))).model
    assert kinds(model.variables) == {"unread": "number"}
    bound = {(bd.screen, bd.widget): bd.text for bd in model.bindings}
    assert bound == {("s00_main", "unread"): Var(name="unread", fmt="{} unread"),
                     ("s01_sent", "unread"): Var(name="unread", fmt="{} unread")}


def test_a_shared_variable_is_read_on_a_screen_where_its_widget_was_seen_once() -> None:
    model = compile_app(traces(episode(
        "e0", status("Mail", "3 unread"), tap(REFRESH), status("Mail", "4 unread"), back(),
        status("Mail", "4 unread", sent=True),
    ))).model
    bound = {(bd.screen, bd.widget): bd.text for bd in model.bindings}
    assert bound.get(("s01_sent", "unread")) == Var(name="unread", fmt="{} unread")


def test_a_list_is_a_collection_of_its_varying_item_fields_with_a_selection() -> None:
    model = compile_app(traces(episode(
        "e0", home("eggs", "milk", checked=(False, True)), on_row(0),
        home("eggs", "milk", checked=(False, True)),
    ))).model
    notes = next(v for v in model.variables if v.name == "notes")
    assert notes.kind == "collection"
    assert [(f.name, f.kind, f.default) for f in notes.fields] == [
        ("done", "flag", False), ("title", "text", "")]  # the row's own text never varies
    selection = next(v for v in model.variables if v.name == "notes_selected")
    assert (selection.kind, selection.collection) == ("selection", "notes")
    assert [(lb.screen, lb.widget, lb.collection) for lb in model.lists] == [
        ("s00_main", "notes", "notes")]
    assert model.initial_state == {
        "notes": [{"title": "eggs", "done": False}, {"title": "milk", "done": True}],
        "notes_selected": None,
    }


def test_the_initial_state_is_each_value_as_first_shown_in_the_first_episode() -> None:
    model = compile_app(traces(
        episode("e0", status("Mail", "3 unread"), tap(REFRESH), status("Mail", "5 unread")),
        episode("e1", status("Spam", "9 unread")),
    )).model
    assert model.initial_state == {"title": "Mail", "unread": 3}


def test_tracking_remembers_the_opened_record_until_another_is_opened() -> None:
    detail = screen(view(TEXT, b(0, 0, W, 150), id="body"), activity=".DetailActivity")
    compiled = compile_app(traces(episode(
        "e0", home("a", "b"), on_row(1), detail, back(), home("a", "b"), tap(ADD), editor(),
        back(), home("a", "b"), on_row(0), detail,
    )))
    _, tracked = prepare(compiled.abstraction, compiled.graph)
    # The state before each step: main, detail, main, editor, main, detail.
    assert [t.state["notes_selected"] for t in tracked[0]] == [None, 1, 1, 1, 1, 0]
    assert [t.stack for t in tracked[0][:4]] == [
        ("s00_main",), ("s00_main", "s01_detail"), ("s00_main",), ("s00_main", "s02_editor")]


def test_a_number_outside_the_learned_layout_leaves_the_state_a_number() -> None:
    """A held-out reading shows "4.5 unread" where training only showed whole counts: the state
    keeps the number it held (a number variable holds numbers), and replaying it does not fail."""
    compiled = compile_app(traces(episode(
        "e0", status("Mail", "3 unread"), tap(REFRESH), status("Mail", "4 unread"),
    )))
    held = traces(episode(
        "e1", status("Mail", "4 unread"), tap(REFRESH), status("Mail", "4.5 unread"),
        tap(REFRESH), status("Mail", "6 unread"),
    ))
    replay = teacher_forced(compiled.spec, compiled.schema, compiled.abstraction, held,
                            shown=recorded_contents(compiled.abstraction, compiled.traces))
    assert [t.state["unread"] for t in replay.tracked[0]] == [4, 4, 6]
    assert len(replay.steps) == 2


def test_a_list_field_is_a_number_only_where_every_screen_showing_the_list_shows_numbers() -> None:
    """One list (one resource-id) on two screens: counts on one, names on the other. The field is
    text, whichever screen was seen first."""
    names = screen(row_list("ann", "bob"), REFRESH, activity=".NamesActivity")
    compiled = compile_app(traces(episode(
        "e0", screen(row_list("1", "2"), REFRESH), tap(REFRESH), screen(row_list("3", "4"), REFRESH),
        back(), names, tap(REFRESH), screen(row_list("cy", "dee"), REFRESH, activity=".NamesActivity"),
    )))
    items = next(v for v in compiled.model.variables if v.kind == "collection")
    assert [(f.name, f.kind) for f in items.fields] == [("title", "text")]
    replay = teacher_forced(compiled.spec, compiled.schema, compiled.abstraction,
                            compiled.traces, built_on=True)
    assert len(replay.steps) == 3
