"""Parameter draws mean what the instruction says (issue 16): a value the agent is asked to
create or write is never already there, two placeholders never draw the same value, and a task
whose draws cannot satisfy this is rejected with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from phoneworld.errors import InputError
from phoneworld.ir.app import AppSpec
from phoneworld.tasks.catalog import load_catalog
from phoneworld.tasks.codegen import compile_verifier
from phoneworld.tasks.params import instantiate
from phoneworld.tasks.spec import TaskSpec


def _titles(state: dict) -> set[str]:  # type: ignore[type-arg]
    return {r["note_title"] for r in state["note_list_items"]}


def _task(example_dir: Path, task_id: str) -> TaskSpec:
    return next(t.spec for t in load_catalog(example_dir).tasks if t.spec.id == task_id)


def test_a_rename_never_draws_a_new_title_that_is_already_a_note(notes: AppSpec,
                                                                 example_dir: Path) -> None:
    """The issue's draw: "rename "Call Alice" to "Drop off the dry cleaning"", a seeded note."""
    task = _task(example_dir, "edit_note_title")
    verifier = compile_verifier(task, notes)
    for seed in range(60):
        inst = instantiate(task, notes, seed, verify=verifier)
        titles = _titles(inst.state)
        assert inst.params["new"] not in titles and inst.params["old"] in titles, seed


def test_two_fresh_placeholders_never_draw_the_same_value(notes: AppSpec) -> None:
    """"Add a note titled {title} and rename {old} to {new}": {title} and {new} differ."""
    exists = [{"exists": {"collection": "note_list_items", "where": {"note_title": {"param": p}}}}
              for p in ("title", "new")]
    task = TaskSpec.model_validate({
        "id": "add_and_rename", "app": notes.package,
        "instruction": 'Add a note titled "{title}" and rename "{old}" to "{new}"',
        "params": {"title": {"from": "choice", "choices": ["Walk the dog", "Feed the cat"]},
                   "new": {"from": "choice", "choices": ["Walk the dog", "Feed the cat"]},
                   "old": {"from": "app_data", "source": "note_list_items.note_title"}},
        "rule": {"all_of": exists},
    })
    verifier = compile_verifier(task, notes)
    for seed in range(30):
        inst = instantiate(task, notes, seed, verify=verifier)
        assert inst.params["title"] != inst.params["new"], seed


def test_marking_done_never_draws_a_note_that_is_done(notes: AppSpec, example_dir: Path) -> None:
    task = _task(example_dir, "toggle_note_done")
    verifier = compile_verifier(task, notes)
    for seed in range(40):
        inst = instantiate(task, notes, seed, verify=verifier)
        (name,) = inst.params
        done = {r["note_title"]: r["note_done"] for r in inst.state["note_list_items"]}
        assert done[inst.params[name]] is False, (seed, inst.params)


def test_a_task_no_draw_can_satisfy_is_rejected_with_the_reason(notes: AppSpec) -> None:
    # the only phrase the generator can give is already a seeded note's title
    task = TaskSpec.model_validate({
        "id": "add_existing", "app": notes.package, "instruction": 'Add a note titled "{title}"',
        "params": {"title": {"from": "choice", "choices": ["Buy milk"]}},
        "rule": {"all_of": [
            {"exists": {"collection": "note_list_items", "where": {"note_title": {"param": "title"}}}},
            {"equals": {"var": "dark_mode_switch", "value": False}},
        ]},
    })
    with pytest.raises(InputError, match="already holds at the start"):
        instantiate(task, notes, verify=compile_verifier(task, notes))


def test_a_clause_that_keeps_app_data_as_it_is_does_not_block_a_draw(notes: AppSpec) -> None:
    """"The note {old} still exists" holds for every draw: it is not the task being done."""
    task = TaskSpec.model_validate({
        "id": "done_and_keep", "app": notes.package, "instruction": 'Mark "{old}" as done',
        "params": {"old": {"from": "app_data", "source": "note_list_items.note_title"}},
        "rule": {"all_of": [
            {"exists": {"collection": "note_list_items", "where": {"note_title": {"param": "old"}}}},
            {"exists": {"collection": "note_list_items",
                        "where": {"note_title": {"param": "old"}, "note_done": True}}},
        ]},
    })
    inst = instantiate(task, notes, verify=compile_verifier(task, notes))
    done = {r["note_title"]: r["note_done"] for r in inst.state["note_list_items"]}
    assert done[inst.params["old"]] is False
