"""An editor with no Save button: leaving it (back) keeps what was typed. A note's editor keeps
both its fields, though each recorded step changed one; a new note left blank is not kept, its
fields showing their hints ("Title", "Note") as an empty field does in a dump."""

from __future__ import annotations

from phoneworld.ir.trace import Observation, ViewNode
from phoneworld.runtime.sim import Simulator
from tests.compiler_support import (
    BUTTON, EDIT, LINEAR, RECYCLER, ROW_PITCH, ROW_TOP, TEXT, W, b, back, compile_app, episode,
    on_row, screen, tap, traces, type_, view,
)

FAB = view(BUTTON, b(880, 1700, 1040, 1860), id="fab", desc="New note", clickable=True)


def notes(*rows: tuple[str, str]) -> Observation:
    items = []
    for k, (title, text) in enumerate(rows):
        y = ROW_TOP + k * ROW_PITCH
        items.append(view(LINEAR, b(0, y, W, y + ROW_PITCH),
                          view(TEXT, b(40, y + 20, 1000, y + 90), id="row_title", text=title),
                          view(TEXT, b(40, y + 100, 1000, y + 180), id="row_text", text=text),
                          id="row", clickable=True))
    return screen(view(RECYCLER, b(0, ROW_TOP, W, 1600), *items, id="notes", scrollable=True), FAB)


def title(text: str = "") -> ViewNode:
    return view(EDIT, b(40, 200, 1040, 320), id="title_input", text=text or "Title",
                clickable=True)


def body(text: str = "") -> ViewNode:
    return view(EDIT, b(40, 400, 1040, 800), id="text_input", text=text or "Note", clickable=True)


def editor(head: str = "", text: str = "") -> Observation:
    return screen(title(head), body(text), activity=".EditorActivity")


A, B, C = ("Groceries", "Eggs"), ("Ideas", "A shed"), ("Books", "Dune")


def _records(sim: Simulator) -> list[dict[str, str]]:
    (name,) = [k for k, v in sim.state.items() if isinstance(v, list)]
    return sim.state[name]


def test_leaving_the_editor_keeps_both_fields_though_each_step_changed_one() -> None:
    c = compile_app(traces(
        episode("e0", notes(A, B, C), on_row(0), editor(*A), tap(title()), editor(*A),
                type_("Food"), editor("Food", "Eggs"), back(), notes(("Food", "Eggs"), B, C)),
        episode("e1", notes(A, B, C), on_row(1), editor(*B), tap(body()), editor(*B),
                type_("A garden shed"), editor("Ideas", "A garden shed"), back(),
                notes(A, ("Ideas", "A garden shed"), C)),
        episode("e2", notes(A, B, C), on_row(2), editor(*C), back(), notes(A, B, C)),
    ))
    sim = Simulator(c.spec)
    sim.reset()
    sim.step(on_row(2))
    sim.step(tap(title()))
    sim.step(type_("Reading"))
    sim.step(tap(body()))
    sim.step(type_("Dune, Emma"))
    sim.step(back())
    assert sim.screen == c.spec.start_screen
    assert _records(sim)[2] == {"row_title": "Reading", "row_text": "Dune, Emma"}


def test_a_new_note_left_blank_is_not_kept() -> None:
    def new(head: str, text: str, before: tuple[tuple[str, str], ...]):  # type: ignore[no-untyped-def]
        return (notes(*before), tap(FAB), editor(), tap(title()), editor(), type_(head),
                editor(head), tap(body()), editor(head), type_(text), editor(head, text), back(),
                notes((head, text), *before))

    first = new("Gym", "Legs", (A,))
    second = new("Rent", "Pay", (("Gym", "Legs"), A))
    c = compile_app(traces(
        episode("e0", *first),
        episode("e1", notes(("Gym", "Legs"), A), tap(FAB), editor(), back(),
                notes(("Gym", "Legs"), A)),
        episode("e2", *second),
    ))
    sim = Simulator(c.spec)
    sim.reset()
    kept = len(_records(sim))
    sim.step(tap(FAB))
    sim.step(back())
    assert sim.screen == c.spec.start_screen and len(_records(sim)) == kept
    sim.step(tap(FAB))
    sim.step(tap(title()))
    sim.step(type_("Dentist"))
    sim.step(tap(body()))
    sim.step(type_("Tuesday"))
    sim.step(back())
    assert _records(sim)[0] == {"row_title": "Dentist", "row_text": "Tuesday"}
    assert len(_records(sim)) == kept + 1


def test_one_editor_for_new_and_open_notes_keeps_each_and_a_blank_one_is_not_kept() -> None:
    """Back from the editor appends where the FAB opened it and updates where a row did, and
    among the new ones a blank note is not kept: a condition inside a condition."""
    c = compile_app(traces(
        episode("e0", notes(A, B), tap(FAB), editor(), tap(title()), editor(), type_("Gym"),
                editor("Gym"), back(), notes(("Gym", ""), A, B)),
        episode("e1", notes(("Gym", ""), A, B), on_row(1), editor(*A), tap(body()), editor(*A),
                type_("Eggs, milk"), editor("Groceries", "Eggs, milk"), back(),
                notes(("Gym", ""), ("Groceries", "Eggs, milk"), B)),
        episode("e2", notes(("Gym", ""), ("Groceries", "Eggs, milk"), B), tap(FAB), editor(),
                back(), notes(("Gym", ""), ("Groceries", "Eggs, milk"), B)),
        episode("e3", notes(("Gym", ""), ("Groceries", "Eggs, milk"), B), tap(FAB), editor(),
                tap(title()), editor(), type_("Rent"), editor("Rent"), back(),
                notes(("Rent", ""), ("Gym", ""), ("Groceries", "Eggs, milk"), B)),
    ))
    sim = Simulator(c.spec)
    sim.reset()
    kept = len(_records(sim))
    sim.step(tap(FAB))
    sim.step(back())
    assert len(_records(sim)) == kept
    sim.step(on_row(kept - 1))
    sim.step(tap(body()))
    sim.step(type_("Dune, Emma"))
    sim.step(back())
    assert _records(sim)[kept - 1] == {"row_title": "Ideas", "row_text": "Dune, Emma"}
    assert len(_records(sim)) == kept
