"""`graph`: every recorded step as (screen, action, widget) -> next screen, its edges and the screens
reachable from the start."""

from __future__ import annotations

import pytest

from phoneworld.abstract import abstract
from phoneworld.graph import action_kind, graph
from phoneworld.ir.graph import Edge, ObservedStep, TransitionGraph
from phoneworld.ir.trace import (
    Action, Back, Click, CloseApp, Done, DoubleClick, Drag, Enter, Home, LongPress, Menu,
    Observation, OpenApp, Scroll, TraceSet, TypeText, Wait,
)
from tests.compiler_support import (
    BUTTON, CHECKBOX, EDIT, TEXT, W, b, back, click, episode, on_row, row_list, screen, tap,
    traces, type_, view,
)

ADD = view(BUTTON, b(40, 1700, 520, 1850), id="add", text="Add", clickable=True)
HEADER = view(TEXT, b(0, 0, W, 150), id="header", text="Notes")


def home(*titles: str, checked: tuple[bool, ...] = ()) -> Observation:
    return screen(HEADER, row_list(*titles, checked=checked), ADD)


def editor(title: str = "", note: str = "", focused: str = "") -> Observation:
    return screen(
        view(EDIT, b(40, 200, 1040, 320), id="title_input", text=title,
             focused=focused == "title"),
        view(EDIT, b(40, 400, 1040, 900), id="note_input", text=note, focused=focused == "note"),
        activity=".EditorActivity")


def steps_of(trace_set: TraceSet) -> tuple[ObservedStep, ...]:
    return graph(trace_set, abstract(trace_set)).steps


def hits(trace_set: TraceSet) -> list[tuple[str | None, str | None, int | None, str | None]]:
    return [(s.action, s.widget, s.item, s.list_widget) for s in steps_of(trace_set)]


def test_taps_map_to_the_widget_and_list_item_they_land_on() -> None:
    rows = home("a", "b", "c", checked=(False, False, False))
    assert hits(traces(episode(
        "e0", rows, on_row(2), rows, on_row(1, x=970), rows, click(500, 50), rows,
        click(500, 1900), rows, tap(ADD), editor(),
    ))) == [
        ("click", "row", 2, "list"),       # the row's label: the clickable row takes it
        ("click", "done", 1, "list"),      # the CheckBox inside row 1
        ("click", "header", None, None),   # nothing takes it: the topmost widget under the point
        ("click", "frame_layout", None, None),  # the bare root
        ("click", "add", None, None),
    ]


def test_a_tap_outside_every_widget_has_no_widget_and_no_edge() -> None:
    trace_set = traces(episode("e0", home(), click(1500, 50), home()))
    result = graph(trace_set, abstract(trace_set))
    (step,) = result.steps
    assert (step.action, step.widget, step.item) == ("click", None, None)
    assert result.edges == (Edge(screen="s00_main", action="click", widget=None,
                                 target="s00_main", count=1),)


def test_typing_goes_to_the_focused_field_else_the_last_tapped_one_else_the_first() -> None:
    assert [s.widget for s in steps_of(traces(
        episode("e0", editor(focused="note"), type_("x"), editor(note="x", focused="note")),
        episode("e1", editor(), click(500, 600), editor(), type_("y"), editor(note="y")),
        episode("e2", editor(), type_("z"), editor(title="z")),
    ))] == ["note_input", "note_input", "note_input", "title_input"]
    step = steps_of(traces(episode("e0", editor(), type_("milk"), editor(title="milk"))))[0]
    assert (step.action, step.widget, step.input) == ("type", "title_input", "milk")


def test_a_scroll_with_a_point_goes_to_the_list_under_it_and_without_one_to_no_widget() -> None:
    rows = home("a", "b")
    assert hits(traces(episode(
        "e0", rows, Scroll(direction="down", x=500, y=800), rows, Scroll(direction="up"), rows,
        Scroll(direction="down", x=500, y=50), rows,
    ))) == [("scroll_down", "list", None, None), ("scroll_up", None, None, None),
            ("scroll_down", None, None, None)]


KINDS: dict[str, tuple[Action, str | None]] = {
    "click": (Click(x=1, y=1), "click"),
    "double_click": (DoubleClick(x=1, y=1), "double_click"),
    "long_press": (LongPress(x=1, y=1), "long_press"),
    "type": (TypeText(text="a"), "type"),
    "scroll": (Scroll(direction="left"), "scroll_left"),
    "back": (Back(), "back"),
    "enter": (Enter(), "enter"),
    "menu": (Menu(), "menu"),
    "home": (Home(), None),
    "open_app": (OpenApp(package="x"), None),
    "close_app": (CloseApp(), None),
    "wait": (Wait(), None),
    "done": (Done(), None),
    "drag": (Drag(x1=0, y1=0, x2=1, y2=1), None),
}


@pytest.mark.parametrize("action,kind", KINDS.values(), ids=KINDS.keys())
def test_action_kind(action: Action, kind: str | None) -> None:
    assert action_kind(action) == kind


def test_changed_compares_the_visible_content_of_the_two_screens() -> None:
    assert [s.changed for s in steps_of(traces(episode(
        "e0", home("a"), click(500, 50), home("a"), on_row(0), home("b"), back(), editor(),
    )))] == [False, True, True]


def test_a_step_that_ticks_a_checkbox_changes_the_screen() -> None:
    def settings(on: bool) -> Observation:
        return screen(view(CHECKBOX, b(40, 200, 1040, 320), id="dark", text="Dark mode",
                           checkable=True, clickable=True, checked=on))

    (step,) = steps_of(traces(episode("e0", settings(False), click(500, 250), settings(True))))
    assert step.changed


def app_graph() -> TransitionGraph:
    """main -add-> editor -back-> main (twice), main -row-> detail, editor -help-> about; splash
    (the second episode's start) -go-> main, and settings never left."""
    help_ = view(BUTTON, b(40, 1000, 520, 1100), id="help", text="Help", clickable=True)
    edit = screen(view(EDIT, b(40, 200, 1040, 320), id="title_input"), help_,
                  activity=".EditorActivity")
    detail = screen(view(TEXT, b(0, 0, W, 150), id="body"), activity=".DetailActivity")
    about = screen(view(TEXT, b(0, 0, W, 150), id="version"), activity=".AboutActivity")
    go = view(BUTTON, b(0, 0, W, 150), id="go", clickable=True)
    splash = screen(go, activity=".SplashActivity")
    settings = screen(view(TEXT, b(0, 0, W, 150), id="theme"), activity=".SettingsActivity")
    trace_set = traces(
        episode("e0", home("a"), tap(ADD), edit, back(), home("a"), tap(ADD), edit, back(),
                home("a"), on_row(0), detail, Home(), detail),
        episode("e1", splash, tap(go), home("a"), tap(ADD), edit, tap(help_), about),
        episode("e2", settings, back(), settings),
    )
    return graph(trace_set, abstract(trace_set))


def test_edges_count_the_steps_of_each_screen_action_widget_and_target() -> None:
    result = app_graph()
    assert result.start_screen == "s00_main"
    assert result.edges == (
        Edge(screen="s00_main", action="click", widget="add", target="s01_editor", count=3),
        Edge(screen="s00_main", action="click", widget="row", target="s02_detail", count=1),
        Edge(screen="s01_editor", action="back", widget=None, target="s00_main", count=2),
        Edge(screen="s01_editor", action="click", widget="help", target="s04_about", count=1),
        Edge(screen="s03_splash", action="click", widget="go", target="s00_main", count=1),
        Edge(screen="s05_settings", action="back", widget=None, target="s05_settings", count=1),
    )
    assert len(result.steps) == 10  # the `home` step is kept, with no action kind and no edge
    assert result.steps[5].action is None


def test_reachable_lists_the_screens_reachable_from_the_start_in_bfs_order() -> None:
    assert app_graph().reachable == ("s00_main", "s01_editor", "s02_detail", "s04_about")
