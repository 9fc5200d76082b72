"""A screen that leaving dismisses (a menu, a dialog): once back from a screen it opened went
below it, and never back to it, what it opens replaces it, so back from a screen the recording
never backed out of skips it too."""

from __future__ import annotations

import pytest

from phoneworld.ir.trace import Observation
from phoneworld.runtime.sim import Simulator
from phoneworld.state import prepare
from tests.compiler_support import (
    BUTTON, TEXT, W, b, back, compile_app, episode, screen, tap, traces, view,
)


def button(text: str, k: int):  # type: ignore[no-untyped-def]
    return view(BUTTON, b(0, 300 + 200 * k, W, 480 + 200 * k), text=text, clickable=True)


def page(name: str, *buttons: str) -> Observation:
    return screen(view(TEXT, b(0, 0, W, 150), id="title", text=name),
                  *(button(t, k) for k, t in enumerate(buttons)), activity=f".{name}Activity")


HOME = page("Home", "More")
MENU = page("Menu", "Settings", "About")
SETTINGS = page("Settings")
ABOUT = page("About")


def ids(c):  # type: ignore[no-untyped-def]
    return {s.activity.rsplit(".", 1)[-1].removesuffix("Activity"): s.id for s in c.spec.screens}


def test_back_from_a_screen_a_menu_opened_skips_the_menu() -> None:
    run = episode("run#1", HOME, tap(button("More", 0)), MENU, tap(button("Settings", 0)),
                  SETTINGS, back(), HOME, tap(button("More", 0)), MENU,
                  tap(button("About", 1)), ABOUT)
    c = compile_app(traces(run))
    s = ids(c)
    schema, tracked = prepare(c.abstraction, c.graph)
    assert schema.transient == {s["Menu"]}
    assert tracked[0][-1].stack == (s["Home"], s["About"])
    about = next(t for t in c.spec.transitions if t.target == s["About"])
    assert about.nav == "replace"
    sim = Simulator(c.spec)
    sim.reset()
    for action in (tap(button("More", 0)), tap(button("About", 1)), back()):
        sim.step(action)
    assert sim.screen == s["Home"]  # the recording never backed out of About


def test_a_screen_back_returned_to_stays_on_the_stack() -> None:
    run = episode("run#1", HOME, tap(button("More", 0)), MENU, tap(button("Settings", 0)),
                  SETTINGS, back(), HOME, tap(button("More", 0)), MENU,
                  tap(button("About", 1)), ABOUT, back(), MENU)
    c = compile_app(traces(run))
    schema, _ = prepare(c.abstraction, c.graph)
    assert schema.transient == frozenset()
    assert all(t.nav != "replace" for t in c.spec.transitions)


def test_back_that_always_went_to_the_screen_below_is_plain_back() -> None:
    home, a, bb, detail = page("Home", "A", "B"), page("A", "Open"), page("B", "Open"), page("Detail")
    run = episode("run#1", home, tap(button("A", 0)), a, tap(button("Open", 0)), detail, back(), a,
                  back(), home, tap(button("B", 1)), bb, tap(button("Open", 0)), detail)
    c = compile_app(traces(run))
    s = {k: v for k, v in ids(c).items()}
    rule = next(t for t in c.spec.transitions if t.screen == s["Detail"] and t.action == "back")
    assert (rule.nav, rule.target) == ("pop", None)
    sim = Simulator(c.spec)
    sim.reset()
    for action in (tap(button("B", 1)), tap(button("Open", 0)), back()):
        sim.step(action)
    assert sim.screen == s["B"]  # the recording only ever backed out of Detail to A


def test_a_cancel_that_skipped_a_menu_marks_it_and_returns_to_the_opener() -> None:
    menu = page("Menu", "Rename")
    rename = page("Rename", "Cancel")
    home, a, bb = page("Home", "A", "B"), page("A", "More"), page("B", "More")
    run = episode("run#1", home, tap(button("A", 0)), a, tap(button("More", 0)), menu,
                  tap(button("Rename", 0)), rename, tap(button("Cancel", 0)), a, back(), home,
                  tap(button("B", 1)), bb, tap(button("More", 0)), menu,
                  tap(button("Rename", 0)), rename)
    c = compile_app(traces(run))
    s = ids(c)
    schema, _ = prepare(c.abstraction, c.graph)
    assert s["Menu"] in schema.transient
    cancel = next(t for t in c.spec.transitions if t.screen == s["Rename"] and t.support > 0)
    assert (cancel.nav, cancel.target) == ("pop", None)
    sim = Simulator(c.spec)
    sim.reset()
    for action in (tap(button("B", 1)), tap(button("More", 0)), tap(button("Rename", 0)),
                   tap(button("Cancel", 0))):
        sim.step(action)
    assert sim.screen == s["B"]  # Cancel returns to where the menu was opened from


def test_a_cancel_back_to_the_page_shown_anew_returns_to_what_the_page_was_opened_from() -> None:
    # the page gained an entry while the dialog over it was open, so the recording shows it as
    # another screen: Cancel still closed the dialog, and back from the page leaves it
    settings, dialog = page("Settings", "Size"), page("Size", "Cancel")
    grown = page("Settings", "Size", "Clear cache")
    run = episode("run#1", page("Home", "Settings"), tap(button("Settings", 0)), settings,
                  tap(button("Size", 0)), dialog, tap(button("Cancel", 0)), grown)
    c = compile_app(traces(run))
    home, opened, shown = (c.abstraction.readings[0][k].screen for k in (0, 1, 3))
    assert opened != shown
    _, tracked = prepare(c.abstraction, c.graph)
    assert tracked[0][-1].stack == (home, shown)
    cancel = next(t for t in c.spec.transitions if t.target == shown)
    assert (cancel.nav, cancel.target) == ("pop", shown)
    sim = Simulator(c.spec)
    sim.reset()
    for action in (tap(button("Settings", 0)), tap(button("Size", 0)), tap(button("Cancel", 0))):
        sim.step(action)
    assert (sim.screen, sim.stack) == (shown, (home,))
    sim.step(back())
    assert sim.screen == home


OVERFLOW = view("android.widget.ImageView", b(900, 0, W, 150), desc="More options",
                clickable=True)
LIST = screen(view(TEXT, b(0, 0, 800, 150), id="title", text="Inbox"), OVERFLOW,
              activity=".InboxActivity")


def test_what_the_overflow_button_opens_is_a_menu_without_any_back_through_it() -> None:
    # the recording never backed out of Settings: the overflow convention alone says the popup
    # closed when its item was chosen
    run = episode("run#1", LIST, tap(OVERFLOW), MENU, tap(button("Settings", 0)), SETTINGS)
    c = compile_app(traces(run))
    s = ids(c)
    schema, tracked = prepare(c.abstraction, c.graph)
    assert schema.transient == {s["Menu"]}
    assert tracked[0][-1].stack == (s["Inbox"], s["Settings"])
    sim = Simulator(c.spec)
    sim.reset()
    for action in (tap(OVERFLOW), tap(button("Settings", 0)), back()):
        sim.step(action)
    assert sim.screen == s["Inbox"]


@pytest.mark.parametrize("desc", ["Weitere Optionen", "更多选项", "その他のオプション"],
                         ids=["german", "chinese", "japanese"])
def test_the_overflow_button_is_read_in_any_language_appcompat_speaks(desc: str) -> None:
    # the app run in German, Chinese or Japanese: the framework's label in that language
    more = view("android.widget.ImageView", b(900, 0, W, 150), desc=desc, clickable=True)
    inbox = screen(view(TEXT, b(0, 0, 800, 150), id="title", text="Inbox"), more,
                   activity=".InboxActivity")
    c = compile_app(traces(episode("run#1", inbox, tap(more), MENU,
                                   tap(button("Settings", 0)), SETTINGS)))
    schema, _ = prepare(c.abstraction, c.graph)
    assert schema.transient == {ids(c)["Menu"]}


def test_an_overflow_popup_back_returned_to_is_not_a_menu() -> None:
    run = episode("run#1", LIST, tap(OVERFLOW), MENU, tap(button("Settings", 0)), SETTINGS,
                  back(), MENU)
    c = compile_app(traces(run))
    schema, _ = prepare(c.abstraction, c.graph)
    assert schema.transient == frozenset()
