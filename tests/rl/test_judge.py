"""The rubric judge over real HTTP (the `openai` client against a loopback server): scoring,
cache, a judge that times out, one that answers nonsense; mixed training with judge rewards;
calibration against rule verifiers."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

import pytest

from phoneworld.rl.config import JudgeConfig, load_config
from phoneworld.rl.judge import RubricJudge
from phoneworld.rl.rewards import JudgeReward
from phoneworld.rl.rollout import Episode, StepRecord
from phoneworld.rl.tasks import RLTask

from .conftest import grpo_overrides

KEY_ENV = "PW_TEST_JUDGE_KEY"
SECRET = "sk-test-never-log-me"


def episode(final: str, instruction: str = 'Add a note titled "Milk"') -> Episode:
    ep = Episode(RLTask("add", "app", "create", instruction), domain="real")
    ep.steps = [StepRecord([], [], [], 0, "", '{"type":"click","element":3}', "[0] Notes")]
    ep.final_text, ep.ended = final, "done"
    return ep


def judge(server: Any, model: str, monkeypatch: pytest.MonkeyPatch, **kw: Any) -> RubricJudge:
    monkeypatch.setenv(KEY_ENV, SECRET)
    return RubricJudge(JudgeConfig(base_url=server.base_url, model=model, api_key_env=KEY_ENV,
                                   **{"timeout_s": 5.0, "retries": 1, **kw}))


def test_good_judge_scores_and_caches(judge_server: Any, monkeypatch: pytest.MonkeyPatch,
                                      caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    j = judge(judge_server, "good", monkeypatch)
    reward = JudgeReward(j)
    assert reward(episode("[0] Notes\n[1] TextView \"Milk\"")) == 1.0
    assert reward(episode("[0] Notes\n[1] TextView \"Bread\"")) == 0.0
    n = len(judge_server.requests)
    assert reward(episode("[0] Notes\n[1] TextView \"Milk\"")) == 1.0
    assert len(judge_server.requests) == n and j.stats["cache_hits"] >= 2
    assert all(auth == f"Bearer {SECRET}" for _, auth in judge_server.requests)
    assert SECRET not in caplog.text


def test_a_judge_that_times_out_leaves_the_episode_unscorable(
        judge_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    j = judge(judge_server, "slow", monkeypatch, timeout_s=0.5, retries=1)
    t0 = time.monotonic()
    assert JudgeReward(j)(episode("x")) is None
    assert time.monotonic() - t0 < 2.5  # two bounded attempts, no hang
    assert j.stats["timeout"] == 2 and j.stats["unscorable"] == 1


def test_a_judge_that_answers_nonsense_leaves_the_episode_unscorable(
        judge_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    j = judge(judge_server, "nonsense", monkeypatch, retries=2)
    verdict = j.score("Turn on Dark mode", [("[0] Settings", '{"type":"back"}')], "x", None)
    assert verdict.passed is None
    assert j.stats["unparseable"] == 3 and len(judge_server.requests) == 3


def test_mixed_training_with_a_judged_real_source(app_dir: str, tiny_policy: Any,
                                                  judge_server: Any, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A "real" source (the simulator standing in for a device) rewarded by the judge, mixed
    50/50 with the simulator source in one update."""
    from phoneworld.rl.assembly import build_sources
    from phoneworld.rl.grpo_config import GRPOConfig
    from phoneworld.rl.grpo_trainer import GRPOTrainer
    from phoneworld.rl.sources import sim_env

    monkeypatch.setenv(KEY_ENV, SECRET)
    tasks_file = tmp_path / "real_tasks.yaml"
    tasks_file.write_text(f'- {{id: add_milk, app: {app_dir}, instruction: "Add a note titled '
                          f'\\"Milk\\""}}\n')
    over = grpo_overrides(app_dir, tmp_path / "run", real_ratio=0.5, groups_per_update=2,
                          max_refills=12)
    over["sources"] = [{"name": "mock", "kind": "sim", "groups_per_batch": 2},
                       {"name": "phone", "kind": "real", "tasks_file": str(tasks_file),
                        "serials": ["virtual-1"], "groups_per_batch": 1}]
    over["judge"] = {"base_url": judge_server.base_url, "model": "coin", "api_key_env": KEY_ENV}
    cfg = load_config(GRPOConfig, None, over)
    sources = build_sources(cfg, RubricJudge(cfg.judge),
                            factories={"phone": lambda task, slot: sim_env(task.app)})
    from .test_grpo import coin_rewards

    coin_rewards([sources[0]])
    (rec,) = GRPOTrainer(cfg, policy=tiny_policy, sources=sources).train()
    assert rec["real_groups"] == 1 and rec["groups"] == 2 and rec["rows"] > 0
    assert any(model == "coin" for model, _ in judge_server.requests)


def test_calibration_against_rule_verifiers(app_dir: str, judge_server: Any,
                                            monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    from phoneworld.rl.calibrate import CalibrationConfig, run_calibration

    monkeypatch.setenv(KEY_ENV, SECRET)
    cfg = CalibrationConfig(apps=[app_dir], max_tasks=6, random_steps=3,
                            judge=JudgeConfig(base_url=judge_server.base_url, model="good",
                                              api_key_env=KEY_ENV),
                            output=str(tmp_path / "cal.json"))
    res = run_calibration(cfg)
    assert res["episodes"] >= 12 and res["scored"] == res["episodes"]
    assert res["verifier_passes"] >= 1 and res["verifier_fails"] >= 1
    for key in ("agreement", "false_positive_rate", "false_negative_rate"):
        assert 0.0 <= res[key] <= 1.0
    assert res["by_kind"]["oracle"]["verifier_passes"] >= 1
    assert (tmp_path / "cal.json").is_file() and SECRET not in (tmp_path / "cal.json").read_text()
