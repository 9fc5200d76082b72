"""The RL reward of a navigation task: the rollout's verifier reads the env's state, which carries
the screen the app is on, so an episode that ends on the asked-for screen earns 1 and one that
ends elsewhere 0."""

from __future__ import annotations

import shutil
from pathlib import Path

from phoneworld.rl.policy import Decision
from phoneworld.rl.rewards import VerifierReward
from phoneworld.rl.rollout import Runner
from phoneworld.rl.sources import sim_env
from phoneworld.rl.tasks import AppTasks, move_action

SPEC = Path(__file__).resolve().parents[2] / "task_specs" / "com.example.notes" / "open_settings.yaml"


def _decision(action: dict[str, object]) -> Decision:
    return Decision([], [], [], "", action, None, 0)  # type: ignore[arg-type]


def test_a_navigation_episode_is_rewarded_where_it_ends(app_dir: str, tmp_path: Path) -> None:
    shutil.copy(SPEC, tmp_path / SPEC.name)
    tasks = AppTasks(app_dir, [tmp_path])
    demo = tasks.demo("open_settings", 0)
    assert demo is not None and tasks.category("open_settings") == "navigation"
    task, moves = demo
    rewards = []
    for wrong in (False, True):
        env = sim_env(app_dir)
        runner = Runner(env, task, 3, terminate_on_success=False)
        runner.start()
        assert runner.obs["state"]["@screen"] == "s00_main"
        for m in moves:
            runner.apply(_decision(move_action(m, env.elements, env.env.width, env.env.height)))  # type: ignore[attr-defined]
        if wrong:  # and back to the list: the right screen seen on the way, not the end
            runner.apply(_decision({"type": "back"}))
        runner.apply(_decision({"type": "done"}))
        rewards.append(VerifierReward()(runner.ep))
    assert rewards == [1.0, 0.0]
