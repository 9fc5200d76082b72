"""A list row's optional child that always says the same (a to-do's "High" badge) is a flag of the
record: the mock draws it only on the records that hold it, and the editor's switch that set it
is what a new or edited record takes. Before, the badge was a literal of the row template, drawn
on every row, and the switch a variable of the editor alone."""

from __future__ import annotations

from phoneworld.ir.trace import Observation
from phoneworld.runtime.sim import Simulator
from tests.compiler_support import (
    BUTTON, EDIT, LINEAR, RECYCLER, TEXT, W, b, back, click, compile_app, episode, screen, tap,
    traces, type_, view,
)

SWITCH = "android.widget.Switch"
TOP, PITCH = 200, 200
ADD = view(BUTTON, b(880, 1700, 1040, 1860), id="add", desc="Add", clickable=True)


def todos(*rows: tuple[str, bool], count: int | None = None) -> Observation:
    """The to-do list: a row per (title, high) under the heading, a "High" badge under the title
    of the high ones; `count` rows fit (the next is cut at the list's edge to its title)."""
    shown = []
    for k, (title, high) in enumerate(rows):
        y = TOP + k * PITCH
        kids = [view(TEXT, b(40, y + 20, 900, y + 100), id="title", text=title)]
        if high and (count is None or k < count):
            kids.append(view(TEXT, b(40, y + 110, 200, y + 170), id="badge", text="High"))
        shown.append(view(LINEAR, b(0, y, W, y + PITCH), *kids, id="row", clickable=True))
    return screen(view(TEXT, b(40, 60, 1040, 160), id="heading", text="Tasks"),
                  view(RECYCLER, b(0, TOP, W, 1600), *shown, id="list", scrollable=True), ADD,
                  activity=".TodoActivity")


def editor(title: str, high: bool) -> Observation:
    return screen(view(EDIT, b(40, 200, 1040, 320), id="input", text=title or "What needs doing?",
                       clickable=True, focused=True),
                  view(SWITCH, b(40, 400, 1040, 520), id="priority", text="High priority",
                       checkable=True, clickable=True, checked=high),
                  view(BUTTON, b(800, 600, 1040, 720), id="save", text="Save", clickable=True),
                  activity=".EditActivity")


PRIORITY, SAVE, INPUT = click(500, 460), click(900, 660), click(500, 260)


def badged(sim: Simulator) -> list[str]:
    """The titles of the rows the mock draws with their badge."""
    rows = [n for n in sim.frame().nodes if n.c.wid == "row"]
    return [next(c.text for c in r.children if c.c.wid == "title") for r in rows
            if any(c.c.wid == "badge" for c in r.children)]


def test_a_badge_some_rows_show_is_drawn_only_on_the_records_that_hold_it() -> None:
    start = todos(("Book flights", True), ("Renew passport", False), ("Call mum", True))
    run = episode("run#1", start, tap(ADD), editor("", False), back(), start)
    c = compile_app(traces(run))
    fields = {f.name: f.kind for v in c.spec.state if v.kind == "collection" for f in v.fields}
    assert fields.get("high") == "flag"
    records = next(v for k, v in c.spec.initial_state.items() if isinstance(v, list))
    assert [r["high"] for r in records] == [True, False, True]
    sim = Simulator(c.spec)
    sim.reset()
    assert badged(sim) == ["Book flights", "Call mum"]
    # the report's widget table says when the badge shows
    from phoneworld.report.screen_cards import widget_rows

    rows = widget_rows(c.spec.screens[0], list(c.spec.transitions))
    assert [r.flags for r in rows if r.wid == "badge"] == ["shown while {item.high}"]


def test_a_new_record_takes_the_switch_that_set_its_badge() -> None:
    one = todos(("Book flights", True), ("Renew passport", False))
    two = todos(("Book flights", True), ("Renew passport", False), ("Call mum", True))
    three = todos(("Book flights", True), ("Renew passport", False), ("Call mum", True),
                  ("Pay rent", False))
    run = episode("run#1", one, tap(ADD), editor("", False), INPUT, editor("", False),
                  type_("Call mum"), editor("Call mum", False), PRIORITY,
                  editor("Call mum", True), SAVE, two,
                  tap(ADD), editor("", False), INPUT, editor("", False), type_("Pay rent"),
                  editor("Pay rent", False), SAVE, three)
    c = compile_app(traces(run))
    sim = Simulator(c.spec)
    sim.reset()
    for title, high in (("Water plants", True), ("Buy milk", False)):
        sim.step(tap(ADD))
        sim.step(INPUT)
        sim.step(type_(title))
        if high:
            sim.step(PRIORITY)
        sim.step(SAVE)
    assert badged(sim) == ["Book flights", "Water plants"]


def test_a_row_cut_at_the_lists_edge_is_no_evidence_that_it_leaves_the_badge_out() -> None:
    # every row shows the badge but the last, which the list's edge cut to its title: nothing
    # says a record can be without it, so it stays part of the row as recorded
    start = todos(("Book flights", True), ("Renew passport", True), ("Call mum", True), count=2)
    run = episode("run#1", start, tap(ADD), editor("", False), back(), start)
    c = compile_app(traces(run))
    fields = {f.name for v in c.spec.state if v.kind == "collection" for f in v.fields}
    assert "high" not in fields
    sim = Simulator(c.spec)
    sim.reset()
    assert badged(sim) == ["Book flights", "Renew passport", "Call mum"]
