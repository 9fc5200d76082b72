"""The oracle: shortest solutions, answers given where they can be read, the guided fallback."""

from __future__ import annotations

from pathlib import Path

import pytest

from phoneworld.ir.app import AppSpec
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks.catalog import load_catalog
from phoneworld.tasks.codegen import compile_verifier
from phoneworld.tasks.oracle import OracleConfig, solve
from phoneworld.tasks.params import instantiate
from phoneworld.tasks.relevance import relevant


def _solve(app: AppSpec, example_dir: Path, task_id: str, config: OracleConfig | None = None):  # type: ignore[no-untyped-def]
    task = load_catalog(example_dir).find(task_id).spec
    verifier = compile_verifier(task, app)
    inst = instantiate(task, app, verify=verifier)
    return solve(Simulator(app), inst, verifier, config), inst


@pytest.mark.parametrize(("task_id", "steps"), [
    ("setting_dark_mode_on", 2), ("toggle_note_done", 1), ("delete_note", 2), ("create_note", 3),
    ("answer_count_note", 1), ("answer_is_dark_mode_turned_on", 2),
], ids=lambda x: str(x))
def test_the_oracle_finds_the_shortest_solution(notes: AppSpec, example_dir: Path, task_id: str,
                                                steps: int) -> None:
    res, _ = _solve(notes, example_dir, task_id)
    assert res.solved and res.shortest
    assert len(res.moves) == steps


def test_answers_are_given_where_they_can_be_read(notes: AppSpec, example_dir: Path) -> None:
    res, _ = _solve(notes, example_dir, "answer_is_dark_mode_turned_on")
    assert [m.kind for m in res.moves] == ["click", "done"]
    assert res.moves[-1].text == "no"
    assert "settings" in res.moves[0].target.lower()


def test_moves_are_in_the_papers_action_format(notes: AppSpec, example_dir: Path) -> None:
    res, inst = _solve(notes, example_dir, "create_note")
    actions = [m.json_action(notes.device.width, notes.device.height) for m in res.moves]
    assert [a["type"] for a in actions] == ["click", "type", "click"]
    assert actions[1]["text"] == inst.params["title"]
    assert all(0 <= a[k] <= 1000 for a in actions for k in ("x", "y") if k in a)


def test_a_capped_search_falls_back_to_best_first(notes: AppSpec, example_dir: Path) -> None:
    res, _ = _solve(notes, example_dir, "create_note_done", OracleConfig(max_states=5,
                                                                        max_cheaper=0))
    assert res.solved and not res.shortest
    short, _ = _solve(notes, example_dir, "create_note_done")
    assert len(res.moves) >= len(short.moves)
    # the search after it sees every shorter path: the best-first solution is proven shortest
    proven, _ = _solve(notes, example_dir, "create_note_done", OracleConfig(max_states=5))
    assert proven.solved and proven.shortest and len(proven.moves) == len(short.moves)
    assert proven.cheaper is not None and proven.cheaper.complete


def test_the_search_keys_on_what_the_task_reads(notes: AppSpec, example_dir: Path) -> None:
    task = load_catalog(example_dir).find("setting_dark_mode_on").spec
    keys = relevant(notes, task.rule)
    assert "dark_mode_switch" in keys and "note_list_items" in keys
    assert "entered_main" not in keys  # written on every way back, read by nothing
