"""Resource ids a shrinker gave (R8 and AndResGuard rename them "a", "re", "b3", as QQ Music
ships them): they tell views apart but say nothing of what a view is, so widgets, variables
and the tasks built on them are named by class, description and the texts around them.

Before: the title field was variable "re" and its task "Type ... into the re field"; the list
was "bx_items" and its records "bx"s ("Add a bx titled ...")."""

from __future__ import annotations

from phoneworld.ir.base import ids_shrunk
from phoneworld.ir.trace import Observation
from phoneworld.tasks.synthesis import synthesize
from tests.compiler_support import (
    BUTTON, EDIT, LINEAR, RECYCLER, TEXT, W, b, compile_app, episode, rid, screen, tap, traces,
    type_, view,
)

SHRUNK = {"title": "a", "field": "re", "save": "b3", "list": "bx", "row": "c", "name": "d"}
NAMED = {"title": "toolbar_title", "field": "note_title", "save": "save_button",
         "list": "note_list", "row": "note_row", "name": "note_name"}


def notes(rows: list[str], typed: str, ids: dict[str, str]) -> Observation:
    kids = [view(LINEAR, b(0, 600 + 150 * k, W, 750 + 150 * k),
                 view(TEXT, b(40, 620 + 150 * k, 900, 730 + 150 * k), id=ids["name"], text=t),
                 id=ids["row"], clickable=True) for k, t in enumerate(rows)]
    return screen(view(TEXT, b(40, 60, 800, 160), id=ids["title"], text="Notes"),
                  view(EDIT, b(40, 250, 800, 400), id=ids["field"], text=typed or "Title",
                       clickable=True, focusable=True),
                  view(BUTTON, b(850, 250, 1040, 400), id=ids["save"], text="Save",
                       clickable=True),
                  view(RECYCLER, b(0, 600, W, 1800), *kids, id=ids["list"], scrollable=True))


def recording(ids: dict[str, str]) -> object:
    field, save = (view(EDIT, b(40, 250, 800, 400)), view(BUTTON, b(850, 250, 1040, 400)))
    return traces(episode(
        "e0", notes(["Milk"], "", ids), tap(field), notes(["Milk"], "", ids), type_("Eggs"),
        notes(["Milk"], "Eggs", ids), tap(save), notes(["Milk", "Eggs"], "", ids), tap(field),
        notes(["Milk", "Eggs"], "", ids), type_("Tea"), notes(["Milk", "Eggs"], "Tea", ids),
        tap(save), notes(["Milk", "Eggs", "Tea"], "", ids)))


def test_shrunk_ids_name_nothing() -> None:
    compiled = compile_app(recording(SHRUNK))
    names = {w.wid for s in compiled.abstraction.screens for w in s.root.walk()}
    assert not names & set(SHRUNK.values())
    said = " | ".join(t.instruction for t in synthesize(compiled.spec, None).tasks)
    assert "Add an item titled" in said or "Add a note" in said
    for shrunk in SHRUNK.values():
        assert f" {shrunk} " not in f" {said} " and f"{shrunk}s" not in said.split()


def test_named_ids_still_name_widgets() -> None:
    compiled = compile_app(recording(NAMED))
    names = {w.wid for s in compiled.abstraction.screens for w in s.root.walk()}
    assert {"note_title", "note_list", "save_button"} <= names
    said = [t.instruction for t in synthesize(compiled.spec, None).tasks]
    assert any(s.startswith("Add a note") for s in said)


def test_which_ids_are_shrunk() -> None:
    assert ids_shrunk(rid(n) for n in SHRUNK.values())
    assert not ids_shrunk(rid(n) for n in NAMED.values())
    # a few short names among many named ones, as the corpus's apps show ("fab", "add")
    assert not ids_shrunk([rid("fab"), rid("add"), rid("bar"), *map(rid, NAMED.values())])
    assert not ids_shrunk(rid(n) for n in ("a", "b", "c"))  # too few to judge
    assert not ids_shrunk(f"android:id/{n}" for n in ("a", "b", "c", "d", "e", "f"))
