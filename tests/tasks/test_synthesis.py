"""Task synthesis and the sanity check: the example's figures (issue 3), what gets rejected and
why, and synthesis on every real trace set."""

from __future__ import annotations

from collections import Counter

import pytest

from phoneworld.ir.app import AppSpec
from phoneworld.pipeline import BuildConfig, BuildResult, build
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks import sanity
from phoneworld.tasks.catalog import load_catalog
from phoneworld.tasks.episodes import evaluate
from phoneworld.tasks.oracle import OracleConfig
from phoneworld.tasks.spec import TaskSpec
from phoneworld.tasks.synthesis import synthesize
from tests.conftest import real_set


def test_the_example_has_20_tasks_across_kinds_all_passing(example_build: BuildResult) -> None:
    t = example_build.apps[0].report.tasks
    assert t.kept >= 20
    # the only rejection: a verifier a near miss passes ("add A and rename B to C": a renamed
    # note and an added one differ only in the done flag the rule cannot tie to either; the
    # recorded "Tick off ... the note about the keys" is kept: "keys" is a word of one note)
    assert t.rejected == t.gameable == t.rejection_reasons.get("gameable: a near miss passes", 0)
    assert t.gameable <= 1 and t.adversarial["rejected"] == t.adversarial["tried"] > 0
    kinds = set(t.kinds)
    assert {"create", "edit", "toggle", "delete", "answer"} <= kinds
    assert t.kinds["answer"] >= 3 and t.kinds.get("pair", 0) >= 3


def test_the_oracle_solves_every_task_with_redrawn_parameters(notes: AppSpec, example_dir) -> None:
    tasks = [t.spec for t in load_catalog(example_dir).tasks]
    res = evaluate(notes, tasks, "oracle", episodes=2, seed=7)
    assert res.rate == 1.0, {k: v for k, v in res.per_task.items() if v[0] < v[1]}


def test_a_random_policy_solves_under_10_percent_in_30_steps(notes: AppSpec, example_dir) -> None:
    tasks = [t.spec for t in load_catalog(example_dir).tasks]
    res = evaluate(notes, tasks, "random", episodes=12, max_steps=30, seed=0)
    print(f"random policy: {res.successes}/{res.episodes} = {res.rate:.3f}")
    assert res.rate < 0.10


def test_synthesized_tasks_are_distinct(notes: AppSpec) -> None:
    tasks = synthesize(notes).tasks
    assert len({t.id for t in tasks}) == len(tasks)
    keys = Counter((t.instruction, t.model_dump_json(include={"rule", "initial_state"}))
                   for t in tasks)
    assert max(keys.values()) == 1


def _spec(rule: dict, **kw: object) -> TaskSpec:
    return TaskSpec.model_validate({"id": "probe", "app": "com.example.notes",
                                    "instruction": "probe", "rule": rule, **kw})


REJECTS = {
    "already_satisfied": (_spec({"equals": {"var": "dark_mode_switch", "value": False}}),
                          sanity.ALREADY),
    "done_passes": (_spec({"equals": {"answer": True, "value": {"lookup": {
        "collection": "note_list_items", "where": {"note_title": "nope"},
        "field": "note_title"}}}}, category="info_retrieval"), sanity.DONE_PASSES),
    "unreachable": (_spec({"equals": {"var": "title_input", "value": "never typed"}}),
                    "oracle: search cap reached"),
    "over_budget": (_spec({"all_of": [{"equals": {"var": "dark_mode_switch", "value": True}},
                                      {"equals": {"var": "sort_switch", "value": True}}]},
                          budget={"train": 2}), "oracle: no solution within the step budget"),
}
SMALL = OracleConfig(max_states=60, max_guided=60)


@pytest.mark.parametrize(("spec", "reason"), REJECTS.values(), ids=REJECTS.keys())
def test_the_sanity_check_rejects_with_a_reason(notes: AppSpec, spec: TaskSpec,
                                                reason: str) -> None:
    check = sanity.check_one(Simulator(notes), spec, notes, SMALL)
    assert not check.kept and check.reason == reason, check.detail


@pytest.mark.parametrize("name", ["habitica-droidbot", "autodroid-utgs", "llamatouch"])
def test_every_real_set_gets_tasks_or_reasons(name: str, tmp_path) -> None:
    result = build(BuildConfig(traces=real_set(name), out=tmp_path, write=False))
    for app in result.apps:
        t = app.report.tasks
        assert t.synthesized == t.kept + t.rejected, app.report.app
        assert sum(t.rejection_reasons.values()) == t.rejected, app.report.app
        assert t.kept >= 1, app.report.app
