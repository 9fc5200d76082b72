"""rl sources run cross-app world tasks and mix them with single-app tasks at a set ratio."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")

from phoneworld.rl.config import ConfigError, SourceConfig, TaskConfig  # noqa: E402
from phoneworld.rl.grpo_config import GRPOConfig  # noqa: E402
from phoneworld.rl.rewards import VerifierReward  # noqa: E402
from phoneworld.rl.sources import Mix, Source, sim_env  # noqa: E402
from phoneworld.rl.tasks import AppTasks, WorldTasks, move_action  # noqa: E402


@pytest.fixture(scope="module")
def sources(mini_world_dir: Path):  # type: ignore[no-untyped-def]
    app = AppTasks(mini_world_dir / "com.example.notes")
    world = WorldTasks(mini_world_dir)
    return app, world


@pytest.mark.parametrize("ratio", [0.0, 0.25, 0.5, 0.7, 1.0])
def test_observed_ratio_is_within_ten_percent_over_100_groups(sources, ratio: float) -> None:  # type: ignore[no-untyped-def]
    app, world = sources
    src = Source(SourceConfig(name="mock"), [(app, app.ids())], VerifierReward(0.0), 2, 30, True,
                 seed=3, world_tasks=[(world, world.ids())], world_ratio=ratio)
    tasks = src.next_tasks(100)
    cross = sum(t.category == "cross_app" for t in tasks) / len(tasks)
    assert abs(cross - ratio) <= 0.10
    assert all(Path(t.app).joinpath("world.yaml").is_file() == (t.category == "cross_app")
               for t in tasks)


def test_mix_holds_the_ratio_over_every_window() -> None:
    mix = Mix(0.3)
    picks = [mix.next() for _ in range(1000)]
    for start in range(0, 900, 37):
        assert abs(sum(picks[start:start + 100]) - 30) <= 1


def test_a_world_task_runs_in_the_sim_env_and_its_oracle_earns_the_reward(sources) -> None:  # type: ignore[no-untyped-def]
    _, world = sources
    tid = next(t for t in world.ids() if t.startswith("stale_clipboard"))
    got = world.demo(tid, seed=5)
    assert got is not None
    task, moves = got
    env = sim_env(task.app)
    obs = env.reset(task)
    assert obs["screen"] == "@home" and task.initial_state is not None
    assert obs["state"]["@clipboard"] == task.initial_state["@clipboard"]
    assert task.verify is not None and not task.verify(obs["state"], None)
    for m in moves:
        obs = env.step(move_action(m, env.elements, 1080, 1920))
        json.dumps(obs["state"])
    assert task.verify(obs["state"], None)


def test_world_mix_config_is_validated() -> None:
    with pytest.raises(ConfigError, match="tasks.worlds is empty"):
        GRPOConfig(real_ratio=0.0, tasks=TaskConfig(apps=["a"]), cross_app_ratio=0.5)
    with pytest.raises(ConfigError, match=r"\[0, 1\]"):
        GRPOConfig(real_ratio=0.0, tasks=TaskConfig(apps=["a"], worlds=["w"]),
                   cross_app_ratio=1.5)
    cfg = GRPOConfig(real_ratio=0.0, tasks=TaskConfig(apps=["a"], worlds=["w"]),
                     cross_app_ratio=0.5)
    assert cfg.cross_app_ratio == 0.5
    assert "help" in GRPOConfig.__dataclass_fields__["cross_app_ratio"].metadata
    assert "help" in TaskConfig.__dataclass_fields__["worlds"].metadata


def test_world_tasks_feed_sft_demos_and_the_cross_app_eval_split(mini_world_dir: Path,
                                                                  tmp_path: Path) -> None:
    """tasks.worlds: training cross-app tasks become oracle demonstrations (SFT rows that replay
    in the world), held-out ones the heldout_cross_app eval split; the two never overlap."""
    from phoneworld.rl.assembly import load_policy, world_splits
    from phoneworld.rl.config import ModelConfig, PromptConfig, SamplingConfig
    from phoneworld.rl.eval_config import EvalConfig
    from phoneworld.rl.evaluate import evaluate
    from phoneworld.rl.sft_config import SFTConfig
    from phoneworld.rl.sft_trainer import demo_jobs
    from phoneworld.rl.sft_data import oracle_steps

    tasks = TaskConfig(worlds=[str(mini_world_dir)], heldout_fraction=0.3)
    sp = {s.name: s.ids for s in world_splits(tasks)}
    assert sp["train_cross_app"] and sp["heldout_cross_app"]
    assert not set(sp["train_cross_app"]) & set(sp["heldout_cross_app"])
    jobs = demo_jobs(SFTConfig(tasks=tasks, demos_per_task=1))
    assert {tid for _, tid, _ in jobs} == set(sp["train_cross_app"])
    steps = oracle_steps(*jobs[0])
    assert steps and steps[-1]["action"].startswith('{"type":"done"')
    prompt = PromptConfig(system="Act.", max_screen_tokens=96, history=2, max_new_tokens=4)
    policy = load_policy(ModelConfig(name_or_path="tiny", device="cpu"), prompt,
                         SamplingConfig(batch_bucket=8, length_bucket=16))
    res = evaluate(EvalConfig(tasks=TaskConfig(worlds=[str(mini_world_dir)], heldout_fraction=0.3,
                                               eval_max_steps=2),
                              prompt=prompt, splits=["heldout_cross_app"], episodes_per_task=1,
                              output=str(tmp_path / "eval.json")), policy)
    split = res["splits"]["heldout_cross_app"]
    assert split["overall"]["episodes"] == len(sp["heldout_cross_app"])
    assert set(split["categories"]) == {"cross_app"}
