"""The simulator's touch dispatch lands a recorded action where the graph pass hit-tested it.

Each app here is compiled from hand-made episodes and replayed teacher-forced: a step whose
widget the graph pass found is a step the mock must reproduce.
"""

from __future__ import annotations

from phoneworld.fidelity import teacher_forced
from phoneworld.ir.trace import Observation, Scroll
from tests.compiler_support import (
    BUTTON, LINEAR, TEXT, W, Compiled, b, click, compile_app, episode, screen, tap, traces, view,
)

SCROLL = "android.widget.ScrollView"


def matches(compiled: Compiled) -> list[tuple[str, int, bool]]:
    replay = teacher_forced(compiled.spec, compiled.schema, compiled.abstraction,
                            compiled.traces, built_on=True)
    return [(s.episode, s.step, s.transition_match) for s in replay.steps]


def test_a_header_tapped_where_nothing_was_clickable_does_not_shadow_a_button_under_it() -> None:
    # The header bar is drawn over the page; a tap on its bare part still opened the menu (a
    # view whose click handler the dump does not show), a tap on the page's button opens help.
    help_ = view(BUTTON, b(900, 100, 1040, 200), id="help", text="?", clickable=True)
    header = view(TEXT, b(0, 0, W, 250), id="header", text="Home")

    def home() -> Observation:
        return screen(view(LINEAR, b(0, 0, W, 1600), help_, id="page"), header)

    menu = screen(view(TEXT, b(0, 0, W, 200), id="menu", text="Menu"), activity=".MenuActivity")
    helps = screen(view(TEXT, b(0, 0, W, 200), id="help_text", text="Help"),
                   activity=".HelpActivity")
    compiled = compile_app(traces(
        episode("menu", home(), click(100, 100), menu),
        episode("help", home(), tap(help_), helps),
    ))
    assert matches(compiled) == [("menu", 0, True), ("help", 0, True)]


def test_a_disabled_looking_control_that_a_recorded_tap_made_act_is_enabled() -> None:
    # WebView content reports enabled="false" on controls that do take taps.
    check = view(BUTTON, b(100, 400, 500, 500), id="anchor", text="I'm not a robot",
                 clickable=True, enabled=False)
    captcha = screen(check, activity=".CaptchaActivity")
    solved = screen(view(TEXT, b(0, 0, W, 200), id="done", text="Verified"),
                    activity=".DoneActivity")
    compiled = compile_app(traces(episode("solve", captcha, tap(check), solved)))
    assert [w.enabled for w in compiled.spec.screens[0].root.children if w.wid == "anchor"] == [True]
    assert matches(compiled) == [("solve", 0, True)]


def test_a_scroll_on_a_plain_list_inside_a_scroll_view_reaches_the_scroll_view() -> None:
    # The rows repeat in a LinearLayout (a list to the abstraction, not scrollable itself).
    def form(*titles: str) -> Observation:
        rows = [view(LINEAR, b(0, 200 + 200 * k, W, 400 + 200 * k),
                     view(TEXT, b(40, 220 + 200 * k, 600, 380 + 200 * k), id="title", text=t),
                     id="row", clickable=True) for k, t in enumerate(titles)]
        inner = view(LINEAR, b(0, 200, W, 1000), *rows, id="rows")
        return screen(view(SCROLL, b(0, 0, W, 1600), inner, id="scroll", scrollable=True))

    terms = screen(view(TEXT, b(0, 0, W, 200), id="terms", text="Terms"),
                   activity=".TermsActivity")
    compiled = compile_app(traces(
        episode("more", form("a", "b", "c"), Scroll(direction="up", x=500, y=500), terms),
    ))
    assert matches(compiled) == [("more", 0, True)]


def test_a_tap_on_a_view_drawn_outside_its_parent_reaches_that_view() -> None:
    # A WebView's popup menu, dumped as children of the short toolbar that opened it: its items
    # lie below the toolbar's bounds, and a recorded tap on one chose it.
    item = view(BUTTON, b(600, 400, W, 500), id="menu_delete", text="Delete", clickable=True)
    toolbar = view(LINEAR, b(0, 0, W, 200),
                   view(BUTTON, b(900, 50, W, 150), id="more", desc="More", clickable=True),
                   item, id="toolbar")
    page = screen(view(TEXT, b(0, 200, W, 1600), id="body", text="Location history"), toolbar)
    gone = screen(view(TEXT, b(0, 0, W, 200), id="done", text="History deleted"),
                  activity=".DoneActivity")
    compiled = compile_app(traces(episode("delete", page, tap(item), gone)))
    assert compiled.graph.steps[0].widget == "menu_delete"
    assert matches(compiled) == [("delete", 0, True)]
