"""The hand-written task specs of the example (task_specs/com.example.notes/): they pass the
sanity check, together they use every operator of the rule language, and each verifier fails on
each clause it checks when (only) that clause is broken."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from phoneworld.ir.app import AppSpec
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks import rules as r
from phoneworld.tasks.codegen import compile_verifier
from phoneworld.tasks.load import LoadedTask
from phoneworld.tasks.sanity import check_one

NOTES = "note_list_items"
State = dict[str, Any]
Mutation = Callable[[State, dict[str, Any]], str | None]  # edits the state, returns the answer


def _solved(task: LoadedTask, app: AppSpec) -> tuple[State, dict[str, Any], str | None]:
    """The state (and answer) the oracle's solution ends in."""
    check = check_one(Simulator(app), task.spec, app)
    assert check.kept, check.detail
    assert check.oracle is not None and check.instance is not None
    sim = Simulator(app)
    sim.reset(check.instance.state)
    answer = None
    for m in check.oracle.moves:
        if m.kind == "done":
            answer = m.text
        else:
            sim.step(m.trace_action())
    return sim.read_state(), check.instance.params, answer


def _find(state: State, title: str) -> dict[str, Any]:
    return next(rec for rec in state[NOTES] if rec["note_title"] == title)


def _append(state: State, title: str, done: bool = False) -> None:
    state[NOTES].append({"note_title": title, "note_done": done})


def _flip_other(state: State, title: str) -> None:
    other = next(x for x in state[NOTES] if x["note_title"] != title)
    other["note_done"] = not other["note_done"]


def test_every_hand_written_task_passes_the_sanity_check(notes: AppSpec,
                                                         hand_tasks: dict[str, LoadedTask]) -> None:
    assert len(hand_tasks) >= 5
    for task in hand_tasks.values():
        assert check_one(Simulator(notes), task.spec, notes).kept, task.spec.id


def test_the_hand_written_tasks_use_every_operator(hand_tasks: dict[str, LoadedTask]) -> None:
    used = {node.OP for t in hand_tasks.values() for node in r.walk(t.spec.rule)}
    assert used == set(r.RULE_OPS)
    matches = [m for t in hand_tasks.values() for node in r.walk(t.spec.rule)
               for v in r.rule_values(node) for m in r.nested_values(v)]
    assert any(isinstance(m, r.ContainsMatch) for m in matches)
    assert any(isinstance(m, r.CountValue) for m in matches)


BREAKS: list[tuple[str, str, Mutation]] = [
    ("add_and_finish", "rule.all_of[0]", lambda s, p: _find(s, p["title"]).update(note_done=False)),
    ("add_and_finish", "rule.all_of[1]", lambda s, p: _append(s, "Extra")),
    ("rename_note", "rule.all_of[0]", lambda s, p: _find(s, p["new"]).update(note_title="zzz")),
    ("rename_note", "rule.all_of[1]",
     lambda s, p: next(x for x in s[NOTES] if x["note_title"] != p["new"]).update(
         note_title=p["old"])),
    ("rename_note", "rule.all_of[2]", lambda s, p: _append(s, "Extra")),
    ("night_setup", "rule.all_of[0]", lambda s, p: s.update(dark_mode_switch=False)),
    ("night_setup", "rule.all_of[1]", lambda s, p: s.update(sort_switch=True)),
    ("open_notes_count", "rule.all_of[0]", lambda s, p: "2"),
    ("open_notes_count", "rule.all_of[1]",
     lambda s, p: (_find(s, "Buy milk").update(note_done=True), "2")[1]),
    ("open_by_topic", "rule.all_of[0]",
     lambda s, p: s.update(note_list_items_selected=next(
         i for i, x in enumerate(s[NOTES]) if p["topic"].lower() not in x["note_title"].lower()))),
    ("clear_topic", "rule.all_of[0]", lambda s, p: _append(s, "More milk")),
    ("clear_topic", "rule.all_of[1]", lambda s, p: s[NOTES].clear()),
    ("done_or_gone", "rule.all_of[0]", lambda s, p: (
        [x for x in s[NOTES] if x["note_title"] == p["title"]] or [_append(s, p["title"])],
        _find(s, p["title"]).update(note_done=False))[-1]),
    ("done_or_gone", "rule.all_of[1]", lambda s, p: s[NOTES].clear()),
    ("open_settings", "rule.all_of[0]", lambda s, p: s.update({"@screen": "s00_main"})),
    # the pins: another note edited, a switch flipped
    ("add_and_finish", "rule.all_of[2]", lambda s, p: _find(s, "Buy milk").update(note_title="X")),
    ("rename_note", "rule.all_of[3]", lambda s, p: _flip_other(s, p["new"])),
    ("night_setup", "rule.all_of[2]", lambda s, p: _find(s, "Call Alice").update(note_done=False)),
    ("open_by_topic", "rule.all_of[1]", lambda s, p: _find(s, "Call Alice").update(note_done=False)),
    ("clear_topic", "rule.all_of[2]", lambda s, p: _find(s, "Call Alice").update(note_done=False)),
    ("open_settings", "rule.all_of[3]", lambda s, p: _find(s, "Call Alice").update(note_done=False)),
    ("done_or_gone", "rule.all_of[2]", lambda s, p: (  # deleted (the ticked branch pins its own)
        s.update({NOTES: [x for x in s[NOTES] if x["note_title"] != p["title"]]}),
        _find(s, "Call Alice").update(note_done=False))[-1]),
    *[(t, f"rule.all_of[{i}]", lambda s, p: s.update(dark_mode_switch=True))
      for t, i in (("add_and_finish", 3), ("rename_note", 4), ("open_by_topic", 2),
                   ("open_notes_count", 2), ("clear_topic", 3), ("done_or_gone", 3),
                   ("open_settings", 1))],
    *[(t, f"rule.all_of[{i}]", lambda s, p: s.update(sort_switch=True))
      for t, i in (("add_and_finish", 4), ("rename_note", 5), ("open_by_topic", 3),
                   ("open_notes_count", 3), ("clear_topic", 4), ("done_or_gone", 4),
                   ("open_settings", 2))],
]


@pytest.mark.parametrize(("task_id", "clause", "mutate"), BREAKS,
                         ids=[f"{t}:{c}" for t, c, _ in BREAKS])
def test_each_clause_fails_when_broken(notes: AppSpec, hand_tasks: dict[str, LoadedTask],
                                       task_id: str, clause: str, mutate: Mutation) -> None:
    task = hand_tasks[task_id]
    verify = compile_verifier(task.spec, notes)
    state, params, answer = _solved(task, notes)
    assert verify(state, params, answer).passed
    new_answer = mutate(state, params)
    verdict = verify(state, params, new_answer if new_answer is not None else answer)
    assert not verdict.passed
    assert verdict.clause.split(":")[0] == clause, verdict


def test_every_top_level_clause_of_every_task_is_broken_by_some_test(
        hand_tasks: dict[str, LoadedTask]) -> None:
    covered = {(t, c) for t, c, _ in BREAKS}
    for tid, task in hand_tasks.items():
        rule = task.spec.rule
        clauses = ([f"rule.all_of[{i}]" for i in range(len(rule.all_of))]
                   if isinstance(rule, r.AllOf) else ["rule"])
        assert {(tid, c) for c in clauses} <= covered, tid
