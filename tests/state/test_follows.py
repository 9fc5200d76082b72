"""An episode that follows another (a recording cut by a gap) starts from where that one ended:
the opened record and the back stack carry over; one that follows nothing (a new session) starts
afresh, but with the records and switches the app kept from the session before; the first
session starts with them as first shown."""

from __future__ import annotations

from phoneworld.ir.trace import Episode
from phoneworld.runtime.sim import Simulator
from phoneworld.state import prepare
from tests.compiler_support import (
    BUTTON, CHECKBOX, TEXT, W, b, back, compile_app, episode, on_row, row_list, screen, tap,
    traces, view,
)
from tests.state.notes import home


def detail():  # type: ignore[no-untyped-def]
    return screen(view(TEXT, b(0, 0, W, 150), id="body"), activity=".DetailActivity")


def two_parts(follows: str | None) -> tuple[Episode, Episode]:
    first = episode("run#1", home("a", "b"), on_row(1), detail())
    # the recording goes on on the detail screen after a gap
    second = episode("run#2", detail(), on_row(0), detail())
    return first, second.model_copy(update={"follows": follows})


def test_a_following_episode_starts_where_the_one_before_ended() -> None:
    compiled = compile_app(traces(*two_parts("run#1")))
    assert compiled.abstraction.follows == (None, 0)
    _, tracked = prepare(compiled.abstraction, compiled.graph)
    start = tracked[1][0]
    assert start.state["notes_selected"] == 1
    assert start.stack == tracked[0][-1].stack and len(start.stack) == 2


def test_an_episode_that_follows_nothing_starts_afresh() -> None:
    compiled = compile_app(traces(*two_parts(None)))
    assert compiled.abstraction.follows == (None, None)
    _, tracked = prepare(compiled.abstraction, compiled.graph)
    assert tracked[1][0].state["notes_selected"] is None and len(tracked[1][0].stack) == 1


def test_a_new_session_keeps_the_records_the_one_before_ended_with() -> None:
    # the second session starts on the detail screen, which does not show the list
    compiled = compile_app(traces(*two_parts(None)))
    _, tracked = prepare(compiled.abstraction, compiled.graph)
    assert [r["title"] for r in tracked[1][0].state["notes"]] == ["a", "b"]


def test_the_first_session_starts_with_each_list_as_first_shown() -> None:
    # a menu's entries: before the first visit the app has them too, so opening it is no append
    # of records
    menu = screen(row_list("Edit", "Delete", list_id="menu"), activity=".MenuActivity")
    compiled = compile_app(traces(episode("run#1", detail(), back(), menu)))
    _, tracked = prepare(compiled.abstraction, compiled.graph)
    assert [r["title"] for r in tracked[0][0].state["menu_items"]] == ["Edit", "Delete"]
    assert not any(r.effects for r in compiled.model.rules)


def test_the_first_session_starts_with_each_switch_as_first_shown() -> None:
    # a settings page opened later shows a switch on: the app had it on before the page opened,
    # so opening the page toggles nothing, and the reset app shows it on there (it showed it off
    # when the tracker started the switch at its default and the opener "toggled" it on)
    setting = view(CHECKBOX, b(0, 300, W, 480), id="wifi", text="Wi-Fi", checkable=True,
                   checked=True, clickable=True)
    more = view(BUTTON, b(0, 300, W, 480), id="more", text="Settings", clickable=True)
    settings = screen(setting, activity=".SettingsActivity")
    compiled = compile_app(traces(episode("run#1", screen(more), tap(more), settings, back(),
                                          screen(more), tap(more), settings)))
    _, tracked = prepare(compiled.abstraction, compiled.graph)
    flag = next(v.name for v in compiled.spec.state if v.kind == "flag")
    assert tracked[0][0].state[flag] is True
    assert not any(t.effects for t in compiled.spec.transitions if t.action == "click")
    sim = Simulator(compiled.spec)
    sim.reset()
    sim.step(tap(more))
    assert sim.state[flag] is True
