"""One meaning of effects: inference (`state.effects`) and the simulator (`runtime.semantics`).

The same schema is described twice, independently: as the inference pass's `Schema` and as an
`AppSpec`'s state compiled for the simulator. Every generated state, effect and guard must give
the same result on both sides. The named tests are the cases where the two used to disagree.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phoneworld.ir.app import (
    AddEffect, AppendEffect, AppSpec, Choose, Count, Effect, Expr, FieldSpec, Guard, Input,
    ItemField, Lit, RecordRef, Ref, RemoveEffect, ScreenSpec, Selected, SelectEffect, SetEffect,
    StateVar, ToggleEffect, Transition, Var, VarRef, Widget,
)
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device
from phoneworld.runtime import semantics as sem
from phoneworld.runtime.compiled import CompiledApp, compile_app, state_layout
from phoneworld.state import effects
from phoneworld.state.schema import Schema, VarInfo
from phoneworld.tasks import verdict

FIELDS = {"name": "text", "n": "number", "done": "flag"}


def inference_schema() -> Schema:
    notes = VarInfo("notes", "collection", fields={f: (k, "{}") for f, k in FIELDS.items()})
    return Schema(variables={
        "title": VarInfo("title", "text"), "count": VarInfo("count", "number"),
        "on": VarInfo("on", "flag"), "notes": notes,
        "notes_selected": VarInfo("notes_selected", "selection"),
    })


def simulator_app() -> CompiledApp:
    defaults = {"text": "", "number": 0, "flag": False}
    state = (
        StateVar(name="title", kind="text"), StateVar(name="count", kind="number"),
        StateVar(name="on", kind="flag"),
        StateVar(name="notes", kind="collection", fields=tuple(
            FieldSpec(name=f, kind=k, default=defaults[k])  # type: ignore[arg-type]
            for f, k in FIELDS.items())),
        StateVar(name="notes_selected", kind="selection", collection="notes"),
    )
    root = Widget(wid="root", cls="android.widget.FrameLayout",
                  bounds=Bounds(x1=0, y1=0, x2=1080, y2=1920))
    return compile_app(AppSpec(
        package="com.example.semantics", label="Semantics", device=Device(width=1080, height=1920),
        start_screen="s00_main", state=state, initial_state={}, transitions=(),
        screens=(ScreenSpec(id="s00_main", name="main", package="com.example.semantics",
                            root=root),),
    ))


SCHEMA = inference_schema()
LAYOUT = effects.layout(SCHEMA)
APP = simulator_app()

# ----------------------------------------------------------------------------- both sides


def infer_apply(effs: tuple[Effect, ...], state: dict[str, Any], hit: sem.Hit | None,
                text: str | None) -> dict[str, Any]:
    ctx = effects.Context(LAYOUT, collection=hit[0] if hit else None,
                          item=hit[1] if hit else None, text=text)
    return effects.apply(effs, state, ctx)


def sim_apply(effs: tuple[Effect, ...], state: dict[str, Any], hit: sem.Hit | None,
              text: str | None) -> dict[str, Any]:
    t = sem.compile_transition(Transition(id="t", screen="s00_main", action="click", effects=effs))
    out = copy.deepcopy(state)
    sem.apply_effects(APP, out, t, hit, text or "")
    return out


def infer_holds(guard: Guard, state: dict[str, Any], hit: sem.Hit | None, text: str | None) -> bool:
    ctx = effects.Context(LAYOUT, collection=hit[0] if hit else None,
                          item=hit[1] if hit else None, text=text)
    return effects.holds(guard, state, ctx)


def sim_holds(guard: Guard, state: dict[str, Any], hit: sem.Hit | None, text: str | None) -> bool:
    t = sem.compile_transition(Transition(id="t", screen="s00_main", action="click", guard=guard))
    return sem.guard_holds(APP, state, t, hit, text or "")


# ----------------------------------------------------------------------------- generators

# Inference states hold what the screens showed: a number shown outside its layout stays text.
texts = st.sampled_from(["", "a", "4", " 7 ", "no", "false", "0", "true", "x y"])
numbers = st.one_of(st.integers(-3, 9), texts)
flags = st.one_of(st.booleans(), texts)
records = st.fixed_dictionaries({"name": texts, "n": numbers, "done": flags})
states = st.fixed_dictionaries({
    "title": texts, "count": numbers, "on": flags,
    "notes": st.lists(records, max_size=4),
    "notes_selected": st.one_of(st.none(), st.integers(-1, 4)),
})
hits = st.one_of(st.none(), st.tuples(st.just("notes"), st.integers(-1, 4)),
                 st.tuples(st.just("other"), st.integers(0, 2)))
typed = st.one_of(st.none(), texts)

scalar_names = st.sampled_from(["title", "count", "on"])
field_names = st.sampled_from(sorted(FIELDS))
leaf_exprs: st.SearchStrategy[Expr] = st.one_of(
    st.builds(Lit, value=st.one_of(texts, st.integers(-3, 9), st.booleans())),
    st.builds(Var, name=st.sampled_from(["title", "count", "on", "notes", "missing"])),
    st.builds(ItemField, field=field_names),
    st.builds(Selected, collection=st.just("notes"), field=field_names),
    st.builds(Input), st.builds(Count, collection=st.just("notes")),
)
exprs = st.one_of(leaf_exprs, st.builds(Choose, cond=leaf_exprs, then=st.just("yes"),
                                         otherwise=st.just("no")))
refs: st.SearchStrategy[Ref] = st.one_of(
    st.builds(VarRef, name=scalar_names),
    st.builds(RecordRef, collection=st.just("notes"), target=st.sampled_from(["item", "selected"]),
              field=field_names),
)
effect_kinds: st.SearchStrategy[Effect] = st.one_of(
    st.builds(SetEffect, ref=refs, value=exprs),
    st.builds(AddEffect, ref=refs, delta=st.integers(-2, 2)),
    st.builds(ToggleEffect, ref=refs),
    st.builds(AppendEffect, collection=st.just("notes"),
              record=st.dictionaries(field_names, exprs, max_size=3),
              position=st.sampled_from(["end", "start"])),
    st.builds(RemoveEffect, collection=st.just("notes"),
              target=st.sampled_from(["item", "selected"])),
    st.builds(SelectEffect, collection=st.just("notes")),
)
ops = st.sampled_from(["nonempty", "empty", "eq", "ne", "true", "false"])
leaf_guards = st.builds(Guard, op=ops, left=st.one_of(st.none(), exprs),
                        right=st.one_of(st.none(), exprs))
guards = st.one_of(leaf_guards, st.builds(Guard, op=st.just("all"),
                                          terms=st.lists(leaf_guards, max_size=3).map(tuple)))


@settings(max_examples=200, deadline=None)
@given(states, st.lists(effect_kinds, max_size=4).map(tuple), hits, typed)
def test_inference_applies_effects_as_the_simulator_does(
        state: dict[str, Any], effs: tuple[Effect, ...], hit: sem.Hit | None,
        text: str | None) -> None:
    before = copy.deepcopy(state)
    assert infer_apply(effs, state, hit, text) == sim_apply(effs, state, hit, text)
    assert state == before  # `apply` works on a copy


@settings(max_examples=200, deadline=None)
@given(states, guards, hits, typed)
def test_inference_evaluates_guards_as_the_simulator_does(
        state: dict[str, Any], guard: Guard, hit: sem.Hit | None, text: str | None) -> None:
    assert infer_holds(guard, state, hit, text) is sim_holds(guard, state, hit, text)


@settings(max_examples=200, deadline=None)
@given(states, exprs, hits, typed)
def test_inference_evaluates_expressions_as_the_simulator_does(
        state: dict[str, Any], expr: Expr, hit: sem.Hit | None, text: str | None) -> None:
    ctx = effects.Context(LAYOUT, collection=hit[0] if hit else None,
                          item=hit[1] if hit else None, text=text)
    rec = sem.hit_record(state, hit)
    assert effects.evaluate(expr, state, ctx) == sem.eval_expr(
        APP, state, sem.compile_expr(expr), rec, text or "")


def test_the_inference_layout_is_the_compiled_apps() -> None:
    def kinds(vars: dict[str, StateVar]) -> dict[str, tuple[str, str | None]]:
        return {name: (v.kind, v.collection) for name, v in vars.items()}

    assert kinds(LAYOUT.vars) == kinds(APP.vars)
    assert (LAYOUT.field_kinds, LAYOUT.field_defaults, LAYOUT.selection_of, LAYOUT.selections_of
            ) == (APP.field_kinds, APP.field_defaults, APP.selection_of, APP.selections_of)


# ----------------------------------------------------------------------------- former disagreements


def notes(*names: str) -> list[dict[str, Any]]:
    return [{"name": n, "n": 0, "done": False} for n in names]


def both_sides(effs: tuple[Effect, ...], state: dict[str, Any], hit: sem.Hit | None = None,
               text: str | None = None) -> dict[str, Any]:
    inferred = infer_apply(effs, state, hit, text)
    assert inferred == sim_apply(effs, state, hit, text)
    return inferred


def test_removing_a_record_before_the_selected_one_keeps_the_selection_on_that_record() -> None:
    state = {"title": "", "count": 0, "on": False, "notes": notes("a", "b", "c", "d"),
             "notes_selected": 3}
    after = both_sides((RemoveEffect(collection="notes", target="item"),), state, hit=("notes", 0))
    assert after["notes_selected"] == 2
    assert after["notes"][after["notes_selected"]]["name"] == "d"


def test_adding_to_a_number_shown_as_text_counts_from_that_number() -> None:
    state = {"title": "", "count": "4", "on": False, "notes": [], "notes_selected": None}
    after = both_sides((AddEffect(ref=VarRef(name="count"), delta=1),), state)
    assert after["count"] == 5


def test_setting_a_flag_coerces_the_value_to_a_flag() -> None:
    state = {"title": "", "count": 0, "on": True, "notes": [], "notes_selected": None}
    after = both_sides((SetEffect(ref=VarRef(name="on"), value=Lit(value="false")),), state)
    assert after["on"] is False


def test_the_selection_variable_is_found_by_kind_not_by_name() -> None:
    layout = state_layout((
        StateVar(name="notes", kind="collection", fields=(FieldSpec(name="name", kind="text"),)),
        StateVar(name="picked", kind="selection", collection="notes"),
        StateVar(name="notes_selected", kind="number"),  # named like a selection, but is none
    ))
    ctx = effects.Context(layout, collection="notes", item=1)
    state = {"notes": [{"name": "a"}, {"name": "b"}], "picked": 0, "notes_selected": 1}
    assert effects.evaluate(Selected(collection="notes", field="name"), state, ctx) == "a"
    assert effects.selection(state, "notes", ctx) == 0
    after = effects.apply((SelectEffect(collection="notes"),), state, ctx)
    assert (after["picked"], after["notes_selected"]) == (1, 1)


@pytest.mark.parametrize(("value", "expected", "passes"), [
    ("no", False, False), ("No", "false", False), ("off", False, False), (False, "false", True),
    (True, "true", True), ("no", "no", True),
], ids=["text-no-is-no-flag", "text-no-is-not-false", "text-off", "flag", "flag-text", "same-text"])
def test_verifiers_read_state_values_as_the_runtime_does(value: Any, expected: Any,
                                                         passes: bool) -> None:
    assert verdict.equals(value, expected, "clause", "v").passed is passes
    # the runtime's own guard on the same values
    guard = Guard(op="eq", left=Lit(value=value), right=Lit(value=expected))
    assert sim_holds(guard, {}, None, None) is passes


def test_only_answers_read_yes_and_no_as_flags() -> None:
    assert verdict.answer_equals("no", False, "clause").passed
    assert verdict.answer_equals("Yes.", True, "clause").passed
    assert not verdict.answer_equals("no", True, "clause").passed
    assert not verdict.equals("no", False, "clause", "v").passed
    assert sem.truthy("no")
