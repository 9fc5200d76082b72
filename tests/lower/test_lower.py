"""`lower`: screens, graph and state model -> the app spec.

The first tests hand `lower` a state model written here, so they pin what lower itself decides
(widget trees from the templates, bound texts and flags, list item fields, transition ids); the
last ones lower the tiny notes app end to end and check that the spec is byte-stable.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from phoneworld.abstract import abstract
from phoneworld.ir.app import (
    AppendEffect, FieldSpec, Guard, ItemField, Lit, SelectEffect, StateVar, Var, Widget,
)
from phoneworld.ir.base import SourceRef
from phoneworld.ir.graph import TransitionGraph
from phoneworld.ir.model import Binding, ListBinding, Rule, StateModel
from phoneworld.lower import lower
from tests.compiler_support import DEVICE, b, compile_app
from tests.lower.tiny_app import notes_traces, spec_json

REPO = Path(__file__).resolve().parents[2]
SOURCE = SourceRef(file="add/0003.xml", episode="add", step=3)

VARIABLES = (
    StateVar(name="notes", kind="collection", fields=(
        FieldSpec(name="done", kind="flag", default=False), FieldSpec(name="title", kind="text"))),
    StateVar(name="notes_selected", kind="selection", collection="notes"),
    StateVar(name="title_input", kind="text"),
)
MODEL = StateModel(
    variables=VARIABLES,
    bindings=(Binding(screen="s01_editor", widget="title_input", text=Var(name="title_input")),),
    lists=(ListBinding(screen="s00_main", widget="notes", collection="notes"),),
    rules=(
        Rule(screen="s00_main", action="click", widget="row",
             effects=(SelectEffect(collection="notes"),), target="s01_editor", nav="push",
             support=2),
        Rule(screen="s01_editor", action="click", widget="save",
             guard=Guard(op="nonempty", left=Var(name="title_input")),
             effects=(AppendEffect(collection="notes", record={"title": Var(name="title_input")}),),
             target="s00_main", nav="pop", support=1, sources=(SOURCE,)),
        Rule(screen="s01_editor", action="back", target="s00_main", nav="pop", support=1),
        Rule(screen="s01_editor", action="type", widget="title_input", target=None, nav="stay"),
    ),
    initial_state={"notes": [{"title": "a", "done": False}], "notes_selected": None,
                   "title_input": ""},
)
GRAPH = TransitionGraph(start_screen="s00_main", steps=(), edges=(), reachable=())


def lowered(model: StateModel = MODEL):  # type: ignore[no-untyped-def]
    trace_set = notes_traces()
    return lower(trace_set, abstract(trace_set), GRAPH, model)


def child(widget: Widget, wid: str) -> Widget:
    return next(c for c in widget.children if c.wid == wid)


def test_the_spec_has_one_screen_per_template_in_order() -> None:
    spec = lowered()
    assert (spec.package, spec.label, spec.device, spec.start_screen) == (
        "com.example.tiny", "Tiny", DEVICE, "s00_main")
    assert [(s.id, s.name, s.activity, s.observations) for s in spec.screens] == [
        ("s00_main", "main", "com.example.tiny/.MainActivity", 4),
        ("s01_editor", "editor", "com.example.tiny/.EditorActivity", 4),
    ]
    main = spec.screen("s00_main").root
    assert [w.wid for w in main.children] == ["header", "notes", "add"]
    assert child(main, "add").bounds == b(740, 1620, 1040, 1740)
    assert child(main, "add").clickable and not child(main, "header").clickable
    assert spec.state == VARIABLES and spec.initial_state == MODEL.initial_state


def test_unbound_texts_are_literals_of_the_first_observation_and_bound_ones_expressions() -> None:
    spec = lowered()
    main, edit = spec.screen("s00_main").root, spec.screen("s01_editor").root
    assert child(main, "header").text == Lit(value="Notes")
    assert child(main, "add").text == Lit(value="Add")
    assert child(edit, "title_input").text == Var(name="title_input")
    assert child(edit, "title_input").editable
    assert child(edit, "save").checked == Lit(value=False)


def test_a_bound_list_lays_out_the_collection_with_its_item_fields() -> None:
    notes = child(lowered().screen("s00_main").root, "notes")
    assert notes.children == ()
    assert notes.list is not None
    assert (notes.list.collection, notes.list.pitch, notes.list.max_visible) == ("notes", 200, 7)
    row = notes.list.item
    assert [w.wid for w in row.children] == ["title", "done"]
    assert (row.wid, row.text, row.clickable) == ("row", Lit(value=""), True)
    assert child(row, "title").text == ItemField(field="title")
    assert child(row, "done").checked == ItemField(field="done")
    assert child(row, "done").text == Lit(value="")


def test_a_list_without_a_collection_is_drawn_empty() -> None:
    spec = lowered(MODEL.model_copy(update={"lists": ()}))
    notes = child(spec.screen("s00_main").root, "notes")
    assert (notes.list, notes.children) == (None, ())


def test_rules_become_transitions_named_by_position_screen_action_and_widget() -> None:
    spec = lowered()
    assert [(t.id, t.target, t.nav, t.support) for t in spec.transitions] == [
        ("t000_s00_main_click_row", "s01_editor", "push", 2),
        ("t001_s01_editor_click_save", "s00_main", "pop", 1),
        ("t002_s01_editor_back", "s00_main", "pop", 1),
        ("t003_s01_editor_type_title_input", None, "stay", 0),
    ]
    save = spec.transitions[1]
    rule = MODEL.rules[1]
    assert (save.screen, save.action, save.widget, save.guard, save.effects, save.sources) == (
        rule.screen, rule.action, rule.widget, rule.guard, rule.effects, (SOURCE,))


def test_the_tiny_app_lowers_to_its_screens_transitions_and_navigation() -> None:
    spec = compile_app(notes_traces()).spec
    assert [s.id for s in spec.screens] == ["s00_main", "s01_editor"]
    assert [(t.id, t.target, t.nav, t.guard is not None, [e.kind for e in t.effects])
            for t in spec.transitions] == [
        ("t000_s00_main_click_add", "s01_editor", "push", False, ["set"]),
        ("t001_s00_main_click_row", "s01_editor", "push", False, ["select", "set", "set"]),
        ("t002_s01_editor_click_save", "s00_main", "pop", True, ["append"]),
        ("t003_s01_editor_click_save", "s00_main", "pop", False, ["set"]),
        ("t004_s01_editor_type_title_input", None, "stay", False, ["set"]),
    ]
    assert [v.name for v in spec.state] == ["entered_editor", "notes", "notes_selected",
                                            "title_input"]


def test_lowering_is_byte_stable_across_runs() -> None:
    assert spec_json() == spec_json()


def test_lowering_is_byte_stable_across_hash_seeds() -> None:
    here = spec_json()
    for seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-m", "tests.lower.tiny_app"], cwd=REPO, env=env,
                             capture_output=True, text=True, check=True).stdout
        assert out == here, f"PYTHONHASHSEED={seed} lowers the tiny app differently"
