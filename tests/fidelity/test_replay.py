"""`fidelity.teacher_forced`: every recorded step replayed from its recorded screen and state.

An app compiled from its own episodes reproduces each of their steps: it lands on the recorded
next screen and shows the recorded content. A mock that ignores taps lands nowhere new and scores
0 on the steps that change the screen.
"""

from __future__ import annotations

import pytest

from phoneworld.fidelity import Replay, teacher_forced
from phoneworld.ir.trace import Observation
from tests.compiler_support import (
    BUTTON, CHECKBOX, EDIT, TEXT, W, Compiled, b, back, click, compile_app, episode, on_row,
    row_list, screen, tap, traces, type_, view,
)

HEADER = view(TEXT, b(0, 0, W, 150), id="header", text="Notes")
ADD = view(BUTTON, b(740, 1620, 1040, 1740), id="add", text="Add", clickable=True)
SAVE = view(BUTTON, b(40, 400, 520, 520), id="save", text="Save", clickable=True)


def home(*titles: str) -> Observation:
    return screen(HEADER, row_list(*titles, list_id="notes"), ADD)


def editor(title: str = "") -> Observation:
    return screen(view(EDIT, b(40, 200, 1040, 320), id="title_input", text=title), SAVE,
                  activity=".EditorActivity")


def notes(leave: bool = True) -> Compiled:
    """Add a note (Save is refused while the title is empty), then open the editor and (`leave`)
    go back: seven steps, one of which (the tap on the header) changes nothing."""
    cancel = (back(), home("a", "b")) if leave else ()
    return compile_app(traces(
        episode("add", home("a"), click(500, 50), home("a"), tap(ADD), editor(), tap(SAVE),
                editor(), type_("b"), editor("b"), tap(SAVE), home("a", "b")),
        episode("cancel", home("a", "b"), tap(ADD), editor(), *cancel),
    ))


def replay(compiled: Compiled) -> Replay:
    return teacher_forced(compiled.spec, compiled.schema, compiled.abstraction, compiled.traces,
                          built_on=True)


def test_an_app_reproduces_every_step_it_was_built_from() -> None:
    result = replay(notes())
    assert [(s.episode, s.step, s.mock_screen, s.recorded_screen) for s in result.steps] == [
        ("add", 0, "s00_main", "s00_main"),
        ("add", 1, "s01_editor", "s01_editor"),
        ("add", 2, "s01_editor", "s01_editor"),
        ("add", 3, "s01_editor", "s01_editor"),
        ("add", 4, "s00_main", "s00_main"),
        ("cancel", 0, "s01_editor", "s01_editor"),
        ("cancel", 1, "s00_main", "s00_main"),
    ]
    assert all(s.transition_match for s in result.steps)
    assert [s.observation_match for s in result.steps] == [1.0] * 7
    assert [s.changing for s in result.steps] == [False, True, False, True, True, True, True]
    assert [s.change_f1 for s in result.steps] == [None, 1.0, None, 1.0, 1.0, 1.0, 1.0]
    summary = result.summary()
    assert summary is not None
    assert (summary.steps, summary.changing_steps) == (7, 5)
    assert (summary.transition_match, summary.transition_match_changing,
            summary.observation_match, summary.change_f1) == (1.0, 1.0, 1.0, 1.0)


def test_a_mock_that_ignores_taps_scores_zero_on_the_steps_that_change_the_screen() -> None:
    compiled = notes(leave=False)
    no_op = compiled.spec.model_copy(update={"transitions": ()})
    result = teacher_forced(no_op, compiled.schema, compiled.abstraction, compiled.traces,
                            built_on=True)
    by_step = {(s.episode, s.step): s for s in result.steps}
    add = by_step[("add", 1)]  # the Add tap: the recording opened the editor, the mock stays
    assert (add.changing, add.transition_match, add.mock_screen, add.change_f1) == (
        True, False, "s00_main", 0.0)
    assert add.observation_match < 1.0
    save = by_step[("add", 4)]
    assert (save.transition_match, save.change_f1) == (False, 0.0)
    # The header tap changes nothing, so a mock that does nothing is right there.
    header = by_step[("add", 0)]
    assert (header.transition_match, header.observation_match, header.change_f1) == (
        True, 1.0, None)
    # Typing needs no transition: the simulator's default writes the focused field.
    assert by_step[("add", 3)].change_f1 == 1.0
    summary = result.summary()
    assert summary is not None
    assert (summary.steps, summary.changing_steps) == (6, 4)
    assert summary.change_f1 == 0.25  # typing alone
    assert summary.transition_match == 0.5  # the header tap, the refused Save, typing


def test_a_back_no_transition_handles_returns_to_the_screen_below() -> None:
    compiled = notes()
    spec = compiled.spec.model_copy(update={"transitions": tuple(
        t for t in compiled.spec.transitions if t.action != "back")})
    result = teacher_forced(spec, compiled.schema, compiled.abstraction, compiled.traces,
                            built_on=True)
    back_step = next(s for s in result.steps if (s.episode, s.step) == ("cancel", 1))
    assert back_step.mock_screen == "s00_main"


def test_a_replay_of_no_steps_has_no_summary() -> None:
    assert Replay().summary() is None


def test_ticking_a_checkbox_is_a_changing_step() -> None:
    def settings(on: bool) -> Observation:
        return screen(view(CHECKBOX, b(40, 200, 1040, 320), id="dark", text="Dark mode",
                           checkable=True, clickable=True, checked=on))

    compiled = compile_app(traces(episode(
        "e0", settings(False), click(500, 250), settings(True), click(500, 250), settings(False))))
    assert all(s.changing for s in replay(compiled).steps)


def test_an_app_with_add_and_open_reproduces_every_step_it_was_built_from() -> None:
    compiled = compile_app(traces(
        episode("add", home("a"), tap(ADD), editor(), tap(SAVE), editor(), type_("b"),
                editor("b"), tap(SAVE), home("a", "b")),
        episode("open", home("a", "b"), on_row(1), editor("b"), back(), home("a", "b")),
    ))
    result = replay(compiled)
    assert [s.transition_match for s in result.steps] == [True] * 6
    assert [s.observation_match for s in result.steps] == [1.0] * 6


def test_a_tap_is_replayed_on_the_widget_it_hit_where_the_mock_draws_it_elsewhere() -> None:
    # a popup anchored to what opened it: first drawn at the top, later lower down
    def popup(y: int) -> Observation:
        return screen(view(BUTTON, b(600, y, 1040, y + 120), id="rename", text="Rename",
                           clickable=True), activity=".PopupActivity")

    compiled = compile_app(traces(
        episode("top", home("a"), tap(ADD), popup(200), tap(popup(200).root.children[0]),
                editor("a")),
        episode("low", home("a"), tap(ADD), popup(900), tap(popup(900).root.children[0]),
                editor("a")),
    ))
    result = replay(compiled)
    assert [s.transition_match for s in result.steps] == [True, True, True, True]
