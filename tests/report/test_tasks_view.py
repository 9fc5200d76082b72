"""The tasks section: each synthesized task with its sanity verdict and, when kept, the oracle's
solution drawn as a strip of the mock's screens (replayed from the task's start state)."""

from __future__ import annotations

import dataclasses
import re

from phoneworld.pipeline import BuildResult
from phoneworld.report.page import build_page, render_page
from phoneworld.report.tasks_view import NO_TASKS, move_text
from phoneworld.tasks.oracle import Move, OracleResult
from phoneworld.tasks.params import TaskInstance
from phoneworld.tasks.sanity import TaskCheck
from phoneworld.tasks.spec import TaskSpec

# ep_0001 of the example: open the editor, focus the title, type it, save
MOVES = (Move("click", 964, 1678, element="add_note"), Move("click", 540, 325),
         Move("type", text="Water plants"), Move("click", 540, 504), Move("done"))


def _checks(initial: dict) -> tuple[TaskCheck, ...]:  # type: ignore[type-arg]
    rule = {"exists": {"collection": "note_list_items", "where": {"note_title": {"param": "t"}}}}
    task = TaskSpec.model_validate({"id": "add_note", "app": "com.example.notes",
                                    "instruction": 'Add a note titled "{t}"', "rule": rule,
                                    "params": {"t": {"from": "phrase"}}, "tags": ["create"]})
    inst = TaskInstance(task, {"t": "Water plants"}, initial, 'Add a note titled "Water plants"', 0)
    kept = TaskCheck(task, True, "", "oracle: 5 steps", OracleResult(True, MOVES, 40), inst)
    rejected = TaskCheck(task.model_copy(update={"id": "toggle_dark"}), False,
                         "already satisfied at start", "doing nothing passes", None, inst)
    return kept, rejected


def test_kept_task_shows_its_solution_strip(example_build: BuildResult) -> None:
    inputs = example_build.apps[0].inputs
    assert inputs is not None
    inputs = dataclasses.replace(inputs, tasks=_checks(inputs.spec.initial_state))
    page = build_page(inputs)
    kept, rejected = page.tasks.tasks
    assert kept.sane and not rejected.sane and page.tasks.sane == 1
    assert [f.screen for f in kept.strip] == ["s00_main", "s01_editor", "s01_editor",
                                              "s01_editor", "s00_main"]
    assert kept.strip[-1].action == "done"
    assert "already satisfied at start" in rejected.verdict and rejected.strip == ()
    html = render_page(page)
    assert len(re.findall(r'<tr class="task"', html)) == 2
    assert "1 of 2 passed the sanity check" in html


def test_build_without_tasks_says_so(example_build: BuildResult) -> None:
    inputs = example_build.apps[0].inputs
    assert inputs is not None
    page = build_page(dataclasses.replace(inputs, tasks=None))
    assert not page.tasks.available and page.tasks.note == NO_TASKS


def test_move_text() -> None:
    assert move_text(Move("type", text="hi")) == 'type "hi"'
    assert move_text(Move("scroll", direction="down")) == "scroll down"
    assert move_text(Move("click", 1, 2, element="Save")) == "click Save"
    assert move_text(Move("done", text="42")) == 'done "42"'
