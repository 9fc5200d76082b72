"""Scrolled lists (`state.windows`): a list longer than the screen holds every record a scroll
showed, not only the first screenful. Before, the mock's list was its first window (7 of 12
records), a scroll showed nothing new and a tap on the eighth record opened the third."""

from __future__ import annotations

from phoneworld.fidelity import teacher_forced
from phoneworld.ir.trace import Observation, Scroll
from phoneworld.runtime.sim import Simulator
from phoneworld.state.windows import join, scrolled, spliced
from tests.compiler_support import (
    TEXT, b, back, compile_app, episode, on_row, row_list, screen, traces, view,
)

ITEMS = ["Apples", "Bread", "Butter", "Cheese", "Eggs", "Flour", "Honey", "Jam", "Milk", "Oats",
         "Rice", "Salt"]
DOWN = Scroll(direction="down", x=540, y=900)
UP = Scroll(direction="up", x=540, y=900)


def home(first: int, items: list[str] = ITEMS) -> Observation:
    """The list from record `first` on, the seven rows a screen shows."""
    return screen(view(TEXT, b(40, 80, 1040, 160), id="heading", text="Items"),
                  row_list(*items[first:first + 7]), activity=".MainActivity")


def detail(name: str) -> Observation:
    return screen(view(TEXT, b(40, 200, 1040, 300), id="name", text=name),
                  activity=".DetailActivity")


def titles(sim: Simulator) -> list[str]:
    return [n.text for n in sim.view().walk() if n.resource_id.endswith("id/title")]


def test_join_scrolled_and_spliced_windows() -> None:
    assert join([1, 2, 3], [3, 4]) == [1, 2, 3, 4]
    assert join([1, 2], [5]) == [1, 2, 5]
    assert scrolled([1, 2, 3], 0, [3, 4, 5], 1) == ([1, 2, 3, 4, 5], 2)
    assert scrolled([3, 4, 5], 0, [1, 2, 3], -1) == ([1, 2, 3, 4, 5], 0)
    assert scrolled([1, 2, 3, 4, 5], 2, [2, 3, 4], -1) == ([1, 2, 3, 4, 5], 1)
    assert scrolled([1, 2, 3], 0, [7, 8, 9], 1) is None  # nothing in common: no join
    # a deleted record's place taken by the next one; the records out of view stay
    assert spliced([1, 2, 3, 4, 5, 6], (0, 3), [1, 3, 4]) == [1, 3, 4, 5, 6]
    assert spliced([1, 2, 3, 4, 5, 6], (3, 3), [3, 5, 6]) == [1, 2, 3, 5, 6]
    assert spliced([1, 2, 3, 4, 5, 6], (0, 3), [1]) is None  # the list fits the screen now
    assert spliced([1, 2, 3, 4, 5, 6], (0, 3), [7, 8, 9]) is None  # another list (a tab)
    assert spliced([1, 2, 3, 4, 5, 6], (0, 3), [1, 2, 6]) is None  # sorted anew: 6 twice


def test_a_row_cut_at_the_edge_showing_its_first_lines_is_the_whole_row() -> None:
    """A Flutter tile merges its row's texts into one; cut at the window's edge it shows only
    the lines inside: the same record, the fuller kept."""
    def row(text: str) -> dict[str, str]:
        return {"tile": text}
    top = [row("Clocks\nColdplay"), row("Dreams\nFleetwood Mac"), row("Heroes")]
    below = [row("Heroes\nDavid Bowie"), row("Jolene\nDolly Parton")]
    assert join(top, below) == [*top[:2], *below]
    assert scrolled(top, 0, below, 1) == ([*top[:2], *below], 2)
    # a line that only starts the other's is another record
    assert join([row("Heroes")], [row("Heroes forever")]) == [row("Heroes"), row("Heroes forever")]


def test_a_scrolled_list_holds_every_record_and_taps_open_the_one_hit() -> None:
    c = compile_app(traces(
        episode("e0", home(0), on_row(1), detail("Bread"), back(), home(0), DOWN, home(5),
                on_row(2), detail("Jam"), back(), home(5), UP, home(0)),
        episode("e1", home(0), DOWN, home(5), on_row(6), detail("Salt"), back(), home(5))))
    assert [r["title"] for r in c.model.initial_state["list_items"]] == ITEMS
    scrolls = [t for t in c.spec.transitions if t.action.startswith("scroll")]
    assert scrolls and all(not t.effects for t in scrolls)  # a scroll changes no records
    sim = Simulator(c.spec)
    sim.reset()
    assert titles(sim) == ITEMS[:7]
    sim.step(DOWN)
    assert titles(sim) == ITEMS[5:]
    sim.step(on_row(2))
    assert sim.state["list_items_selected"] == 7  # the eighth record, not the third
    replay = teacher_forced(c.spec, c.schema, c.abstraction, c.traces, built_on=True)
    assert all(r.transition_match for r in replay.steps)
    assert [r.change_f1 for r in replay.steps if r.step in (5, 1)
            and r.episode in ("e0", "e1") and r.recorded_screen == "s00_main"] == [1.0, 1.0]


def test_a_row_deleted_from_a_scrolled_list_keeps_the_records_below() -> None:
    """The list scrolled to its end and back, then a record was removed (a long press deletes
    it): the window shows the next record in its place and the last records stay."""
    rest = [t for t in ITEMS if t != "Bread"]
    c = compile_app(traces(episode(
        "e0", home(0), DOWN, home(5), UP, home(0), back(), home(0),
        on_row(1), detail("Bread"), back(), home(0, rest))))
    sim = Simulator(c.spec)
    sim.reset()
    assert len(sim.state["list_items"]) == 12
    tracked_end = [r["title"] for r in
                   teacher_forced(c.spec, c.schema, c.abstraction, c.traces,
                                  built_on=True).ends["e0"].state["list_items"]]
    assert tracked_end == rest  # 11 records: "Milk" moved into view, the last three kept


def test_a_list_never_scrolled_reads_each_window_as_all_of_it() -> None:
    """Without a scroll nothing is joined: a list that lost its last record lost it."""
    short = ITEMS[:7]
    c = compile_app(traces(episode(
        "e0", home(0, short), on_row(1), detail("Bread"), back(), home(0, short[:6]))))
    ends = teacher_forced(c.spec, c.schema, c.abstraction, c.traces, built_on=True).ends
    assert [r["title"] for r in ends["e0"].state["list_items"]] == short[:6]
    assert not ends["e0"].windows


def test_a_scroll_moves_the_list_by_as_many_records_as_the_recorded_ones_did() -> None:
    """The recording's scrolls moved the list by three records (the last one less: it hit the
    end); the mock's do the same, where before they moved it by a screenful less one (six)."""
    c = compile_app(traces(episode(
        "e0", home(0), DOWN, home(3), DOWN, home(5), on_row(0), detail("Flour"), back(), home(5),
        UP, home(2), UP, home(0))))
    (binding,) = c.model.lists
    assert binding.scroll == 3
    sim = Simulator(c.spec)
    sim.reset()
    sim.step(DOWN)
    assert titles(sim) == ITEMS[3:10]
    sim.step(DOWN)
    assert titles(sim) == ITEMS[5:]  # clamped at the end
    replay = teacher_forced(c.spec, c.schema, c.abstraction, c.traces, built_on=True)
    assert all(r.change_f1 == 1.0 for r in replay.steps if r.step in (0, 1, 5, 6))
