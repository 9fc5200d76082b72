"""A list the app hides while it is empty, showing a message in its place ("No notes yet"), is one
screen with the list empty (`abstract.shape.learn_empty_slots`). Before, the empty page and the
filled page were two screens: saving the first note moved to the filled page with the note taken
as part of the initial state (the mock opened on "No notes yet" with a note behind it), and
deleting the last note was a rule on that note's title."""

from __future__ import annotations

from phoneworld.abstract import read
from phoneworld.ir.trace import Observation
from phoneworld.runtime.sim import Simulator
from tests.compiler_support import (
    BUTTON, EDIT, FRAME, RECYCLER, TEXT, b, click, compile_app, episode, on_row, row_list, screen,
    traces, type_, view,
)

FAB, SAVE, FIELD = click(960, 1720), click(920, 1720), click(500, 260)


def notes(items: list[str], *, message: str | None = None, keep_list: bool = False,
          button_in_message: bool = False, inside: bool = False) -> Observation:
    """The notes page: its records, or while there are none a message in the list's place (or
    beside the emptied list with `keep_list`, or as the list's one row with `inside`)."""
    if items:
        body = [row_list(*items, removable=True)]
    elif inside:
        body = [view(RECYCLER, b(0, 200, 1080, 1600),
                     view(TEXT, b(40, 700, 1040, 800), id="empty_text", text="No notes yet"),
                     id="list", scrollable=True)]
    else:
        inner = [view(TEXT, b(40, 700, 1040, 800), id="empty_text", text=message or "No notes yet")]
        if button_in_message:
            inner.append(view(BUTTON, b(300, 850, 780, 950), id="empty_add", text="Add one",
                              clickable=True))
        placeholder = view(FRAME, b(0, 600, 1080, 1000), *inner, id="empty")
        body = ([view(RECYCLER, b(0, 200, 1080, 1600), id="list", scrollable=True)]
                if keep_list else []) + [placeholder]
    return screen(view(TEXT, b(40, 80, 1040, 160), id="heading", text="Notes"), *body,
                  view(BUTTON, b(880, 1650, 1040, 1800), id="fab", desc="Add note",
                       clickable=True))



def editor(text: str = "") -> Observation:
    return screen(view(EDIT, b(40, 200, 1040, 320), id="title_input", text=text, clickable=True,
                       focusable=True),
                  view(BUTTON, b(800, 1650, 1040, 1800), id="save", text="Save", clickable=True),
                  activity=".EditActivity")


def recording(**page: bool) -> object:
    return traces(episode(
        "e0", notes([], **page), FAB, editor(), FIELD, editor(), type_("Milk"), editor("Milk"),
        SAVE, notes(["Milk"]), FAB, editor(), FIELD, editor(), type_("Eggs"), editor("Eggs"),
        SAVE, notes(["Milk", "Eggs"]), on_row(0, 780), notes(["Eggs"]), on_row(0, 780),
        notes([], **page)))


def message(sim: Simulator) -> bool:
    return any(n.text == "No notes yet" for n in sim.view().walk())


def has_list(sim: Simulator) -> bool:
    return any(n.cls == RECYCLER for n in sim.view().walk())


def titles(sim: Simulator) -> list[str]:
    return [n.text for n in sim.view().walk() if n.resource_id.endswith("/title")]


def test_the_empty_page_is_the_list_page_with_no_records() -> None:
    c = compile_app(recording())
    pages = [s for s in c.spec.screens if s.activity and s.activity.endswith(".MainActivity")]
    assert len(pages) == 1
    assert c.spec.initial_state["list_items"] == []
    sim = Simulator(c.spec)
    sim.reset()
    assert titles(sim) == [] and message(sim)  # the page as recorded: the message, no records
    assert not has_list(sim)  # and no list: the app hides it while it is empty
    for action in (FAB, FIELD):
        sim.tap(action.x, action.y)
    sim.type_text("Tea")
    sim.tap(SAVE.x, SAVE.y)
    assert sim.screen == pages[0].id and titles(sim) == ["Tea"]  # the first save appends
    assert not message(sim) and has_list(sim)
    sim.tap(on_row(0, 780).x, on_row(0, 780).y)
    assert sim.screen == pages[0].id and titles(sim) == []  # deleting the last one stays
    assert message(sim)


def test_a_message_beside_the_emptied_list_is_a_placeholder_too() -> None:
    c = compile_app(recording(keep_list=True))
    pages = [s for s in c.spec.screens if s.activity and s.activity.endswith(".MainActivity")]
    assert len(pages) == 1 and c.spec.initial_state["list_items"] == []
    sim = Simulator(c.spec)
    sim.reset()
    assert message(sim) and has_list(sim)  # as recorded: the emptied list and the message


def test_held_out_readings_see_the_empty_list() -> None:
    c = compile_app(recording())
    reading = read(c.abstraction, notes([], message="Nothing here yet"))
    page = c.abstraction.readings[0][-1]
    assert reading.screen == page.screen
    assert page.lists and all(records == () for records in reading.lists.values())


def test_a_message_with_something_to_tap_is_a_page_of_its_own() -> None:
    # "Add one" inside the message does something the filled page cannot: dropping it would lose
    # the taps on it, so the two pages stay apart
    c = compile_app(recording(button_in_message=True))
    pages = [s for s in c.spec.screens if s.activity and s.activity.endswith(".MainActivity")]
    assert len(pages) == 2


def test_a_text_shown_beside_records_is_no_placeholder() -> None:
    # "Swipe to delete" stands in the list's place on one page and beside records on another:
    # a hint the app shows, not what it shows for an empty list
    def page(records: bool, hint: bool) -> Observation:
        body = [row_list("Milk", removable=True)] if records else []
        if hint:
            body.append(view(TEXT, b(40, 1610, 1040, 1640), id="hint", text="Swipe to delete"))
        return screen(view(TEXT, b(40, 80, 1040, 160), id="heading", text="Notes"), *body,
                      view(BUTTON, b(880, 1650, 1040, 1800), id="fab", desc="Add note",
                           clickable=True))

    c = compile_app(traces(episode("e0", page(True, False), click(40, 90), page(False, True),
                                   click(40, 90), page(True, True))))
    assert not c.abstraction.empty_slots


def test_no_results_of_a_search_is_a_page_of_its_own() -> None:
    # a list emptied by what was typed into a field is a search with no results, not an empty
    # list: the records are all still there, the typed text hides them; taken for the list
    # page with no records, the mock would show every record under "HelloWorld"
    def search(query: str) -> Observation:
        shown = [t for t in ("Milk", "Eggs") if query.lower() in t.lower()]
        body = row_list(*shown) if shown else view(TEXT, b(40, 700, 1040, 800), id="no_results",
                                                   text="No results found")
        return screen(view(EDIT, b(40, 60, 1040, 180), id="search", text=query,
                           clickable=True, focused=True), body)

    c = compile_app(traces(episode("e0", search(""), type_("HelloWorld"), search("HelloWorld"),
                                   type_(""), search(""))))
    assert not c.abstraction.empty_slots
    assert len(c.spec.screens) == 2


def test_a_message_inside_the_list_is_no_record() -> None:
    # an adapter that shows "No notes yet" as the list's one row while there are none: read as
    # a record, it was a note with no title in the initial state, and deleting the last note
    # was a rename to "" of that one title
    c = compile_app(recording(inside=True))
    assert c.spec.initial_state["list_items"] == []
    sim = Simulator(c.spec)
    sim.reset()
    assert titles(sim) == [] and message(sim) and has_list(sim)
    for action in (FAB, FIELD):
        sim.tap(action.x, action.y)
    sim.type_text("Tea")
    sim.tap(SAVE.x, SAVE.y)
    assert titles(sim) == ["Tea"] and not message(sim)
    sim.tap(on_row(0, 780).x, on_row(0, 780).y)
    assert titles(sim) == [] and message(sim)
