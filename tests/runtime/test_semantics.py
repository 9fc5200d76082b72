"""Expressions, guards and effects, one rule at a time."""

from __future__ import annotations

from typing import Any

import pytest

from phoneworld.ir.app import (
    AddEffect, AppendEffect, Count, Expr, Guard, Input, ItemField, Lit, RecordRef, RemoveEffect,
    RemoveWhereEffect, Selected, SelectEffect, SetEachEffect, SetEffect, ToggleEffect, Transition,
    Var, VarRef,
)
from phoneworld.runtime import semantics as sem
from phoneworld.runtime.compiled import compile_app

from .notes_app import five_notes, notes_app

APP = compile_app(notes_app())


def state(**kw: Any) -> dict[str, Any]:
    return {**five_notes(), **kw}


@pytest.mark.parametrize(("value", "fmt", "text"), [
    ("abc", "{}", "abc"), (3, "{} / 50", "3 / 50"), (True, "{}", "true"), (False, "x={}", "x=false"),
    (None, "{}", ""), ([{}, {}], "{} items", "2 items"), ("a", "{0.__class__}", "{0.__class__}"),
    ("v", "{}{}", "vv"),
], ids=["str", "int-fmt", "true", "false-fmt", "none", "list-len", "no-format-injection", "twice"])
def test_fmt_text(value: Any, fmt: str, text: str) -> None:
    assert sem.fmt_text(value, fmt) == text


@pytest.mark.parametrize(("value", "truth"), [
    (True, True), (False, False), (0, False), (2, True), ("", False), (" False ", False), ("0", False),
    ("no", True), ([], False), ([{}], True), (None, False),
])
def test_truthy(value: Any, truth: bool) -> None:
    assert sem.truthy(value) is truth


@pytest.mark.parametrize(("op", "left", "right", "holds"), [
    ("nonempty", Var(name="editor_title"), None, False),
    ("empty", Var(name="editor_title"), None, True),
    ("nonempty", Var(name="notes"), None, True),
    ("eq", Count(collection="notes"), Lit(value="5"), True),
    ("ne", Count(collection="notes"), Lit(value=5), False),
    ("eq", Selected(collection="notes", field="title"), Lit(value="Note 1"), True),
    ("true", Var(name="dark_mode"), None, False),
    ("false", Var(name="dark_mode"), None, True),
    ("true", ItemField(field="done"), None, True),
    ("nonempty", Input(), None, True),
    ("eq", Var(name="editor_title"), None, True),
], ids=["nonempty-false", "empty", "nonempty-collection", "eq-count-text", "ne-count-int",
        "eq-selected", "true", "false", "item-field", "input", "eq-missing-right-is-empty"])
def test_guards(op: str, left: Expr, right: Expr | None, holds: bool) -> None:
    t = sem.compile_transition(Transition(id="t", screen="s00_list", action="click",
                                          guard=Guard(op=op, left=left, right=right)))  # type: ignore[arg-type]
    s = state(selected_note=1)
    assert sem.guard_holds(APP, s, t, ("notes", 3), "typed") is holds


def run(effects: tuple[Any, ...], s: dict[str, Any], hit: tuple[str, int] | None = None,
        inp: str = "") -> dict[str, Any]:
    t = sem.compile_transition(Transition(id="t", screen="s00_list", action="click",
                                          effects=effects))
    sem.apply_effects(APP, s, t, hit, inp)
    return s


def test_set_coerces_to_the_target_kind() -> None:
    s = run((SetEffect(ref=VarRef(name="saves"), value=Input()),
             SetEffect(ref=VarRef(name="editor_title"), value=Count(collection="notes")),
             SetEffect(ref=VarRef(name="dark_mode"), value=Lit(value="true"))), state(), inp=" 42 ")
    assert (s["saves"], s["editor_title"], s["dark_mode"]) == (42, "5", True)


def test_set_of_non_number_text_leaves_a_number_unchanged() -> None:
    s = run((SetEffect(ref=VarRef(name="saves"), value=Input()),), state(saves=7), inp="seven")
    assert s["saves"] == 7


def test_add_and_toggle() -> None:
    s = run((AddEffect(ref=VarRef(name="saves"), delta=3), AddEffect(ref=VarRef(name="saves"), delta=-1),
             ToggleEffect(ref=VarRef(name="dark_mode"))), state(saves=1))
    assert (s["saves"], s["dark_mode"]) == (3, True)


def test_record_refs_item_and_selected() -> None:
    item = RecordRef(collection="notes", target="item", field="title")
    sel = RecordRef(collection="notes", target="selected", field="done")
    s = run((SetEffect(ref=item, value=Input()), ToggleEffect(ref=sel)), state(selected_note=0),
            hit=("notes", 2), inp="renamed")
    assert s["notes"][2]["title"] == "renamed" and s["notes"][0]["done"] is True


@pytest.mark.parametrize(("hit", "selected"), [(None, 0), (("other", 1), None)],
                         ids=["no-hit", "hit-in-another-collection"])
def test_refs_without_a_target_are_no_ops(hit: tuple[str, int] | None, selected: int | None) -> None:
    before = state(selected_note=None)
    s = run((SetEffect(ref=RecordRef(collection="notes", target="item", field="title"),
                       value=Lit(value="x")),
             ToggleEffect(ref=RecordRef(collection="notes", target="selected", field="done")),
             SelectEffect(collection="notes")), state(selected_note=None), hit=hit)
    assert s == before


def test_append_uses_defaults_and_item_binding() -> None:
    s = run((AppendEffect(collection="notes", record={"title": ItemField(field="title")}),),
            state(), hit=("notes", 1))
    assert s["notes"][-1] == {"title": "Note 1", "done": False}


@pytest.mark.parametrize(("target", "hit", "sel_before", "sel_after", "removed"), [
    ("item", ("notes", 0), 2, 1, "Note 0"),
    ("item", ("notes", 3), 2, 2, "Note 3"),
    ("item", ("notes", 2), 2, None, "Note 2"),
    ("selected", None, 4, None, "Note 4"),
    ("selected", None, None, None, None),
], ids=["before-selection-shifts", "after-selection-keeps", "the-selection-clears",
        "remove-selected", "nothing-selected"])
def test_remove_keeps_selections_consistent(target: str, hit: tuple[str, int] | None,
                                            sel_before: int | None, sel_after: int | None,
                                            removed: str | None) -> None:
    s = run((RemoveEffect(collection="notes", target=target),), state(selected_note=sel_before),
            hit=hit)  # type: ignore[arg-type]
    titles = [n["title"] for n in s["notes"]]
    assert s["selected_note"] == sel_after
    assert (removed not in titles) if removed else len(titles) == 5


def test_select_binds_the_hit_record() -> None:
    assert run((SelectEffect(collection="notes"),), state(), hit=("notes", 4))["selected_note"] == 4


@pytest.mark.parametrize(("terms", "holds"), [
    ((Guard(op="nonempty", left=Var(name="editor_title")), Guard(op="true", left=Var(name="dark_mode"))),
     True),
    ((Guard(op="nonempty", left=Var(name="editor_title")), Guard(op="false", left=Var(name="dark_mode"))),
     False),
    ((), True),
], ids=["all-hold", "one-fails", "empty-conjunction"])
def test_all_guard(terms: tuple[Guard, ...], holds: bool) -> None:
    t = sem.compile_transition(Transition(id="t", screen="s00_list", action="click",
                                          guard=Guard(op="all", terms=terms)))
    assert sem.guard_holds(APP, state(editor_title="x", dark_mode=True), t, None, "") is holds


def test_append_at_the_start_keeps_the_selection_on_its_record() -> None:
    s = run((AppendEffect(collection="notes", record={"title": Input()}, position="start"),),
            state(selected_note=2), inp="first")
    assert s["notes"][0] == {"title": "first", "done": False}
    assert s["notes"][s["selected_note"]]["title"] == "Note 2"


@pytest.mark.parametrize(("sel_before", "sel_after"), [(0, 0), (2, 1), (3, None), (4, 2)],
                         ids=["before-the-removed", "between", "removed", "after-both"])
def test_remove_where_drops_every_matching_record_and_keeps_selections_on_theirs(
        sel_before: int, sel_after: int | None) -> None:
    # five_notes: "Note 1" and "Note 3" are done
    s = run((RemoveWhereEffect(collection="notes", field="done", value=True),),
            state(selected_note=sel_before))
    assert [n["title"] for n in s["notes"]] == ["Note 0", "Note 2", "Note 4"]
    assert s["selected_note"] == sel_after


def test_set_each_sets_the_field_on_every_record_coerced_to_its_kind() -> None:
    s = run((SetEachEffect(collection="notes", field="done", value="true"),), state())
    assert [n["done"] for n in s["notes"]] == [True] * 5
    assert run((SetEachEffect(collection="notes", field="done", value=False),),
               state(notes=[]))["notes"] == []
