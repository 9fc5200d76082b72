"""Judge calibration: the rubric judge scored against rule verifiers on mock-app episodes.

For every task of the configured apps it builds scripted episodes whose true outcome the
verifier knows: the oracle's solution (mostly passes), the oracle's solution cut before its last
action (a near miss, mostly fails) and a random walk (fails). The judge scores each; the report
gives agreement with the verifier, the false-positive rate (judge passes, verifier fails: the
error that rewards doing nothing), the false-negative rate and the unscorable rate.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from phoneworld.rl.assembly import app_tasks
from phoneworld.rl.config import JudgeConfig, check, h, to_dict
from phoneworld.rl.judge import RubricJudge
from phoneworld.rl.rewards import JudgeReward
from phoneworld.rl.rollout import Episode, StepRecord
from phoneworld.rl.sources import sim_env
from phoneworld.rl.tasks import RLTask, move_action

KINDS = ("oracle", "near_miss", "random")


@dataclass
class CalibrationConfig:
    """Which mock apps to calibrate on, and the judge."""

    apps: list[str] = h("Built app folders whose tasks give the episodes.", factory=list)
    judge: JudgeConfig = h("The judge under test.", factory=JudgeConfig)
    kinds: list[str] = h("Episode kinds: oracle, near_miss, random.", factory=lambda: list(KINDS))
    max_tasks: int = h("Tasks per app at most.", 50)
    random_steps: int = h("Steps of a random episode.", 8)
    output: str = h("JSON file for the report.", "runs/judge_calibration.json")
    seed: int = h("Seed of parameter draws and random walks.", 0)

    def __post_init__(self) -> None:
        check(bool(self.apps), "list the mock apps to calibrate on under `apps`")
        bad = [k for k in self.kinds if k not in KINDS]
        check(not bad, f"unknown kinds {bad}; choose from {', '.join(KINDS)}")


def scripted_episode(task: RLTask, actions: list[dict[str, Any]]) -> Episode:
    """Run `actions` in the simulator; the verifier decides success."""
    env = sim_env(task.app)
    obs = env.reset(task)
    ep = Episode(task, "calibration", "mock")
    for a in actions:
        text = json.dumps(a, separators=(",", ":"))
        ep.steps.append(StepRecord([], [], [], 0, "", text, obs["text"]))
        obs = env.step(a)
        if obs.get("done"):
            ep.answer = obs.get("answer")
            break
    ep.final_text, ep.final_state = obs["text"], obs.get("state")
    ep.success = bool(task.verify and ep.final_state is not None
                      and task.verify(ep.final_state, ep.answer))
    env.close()
    return ep


def _episodes(app_dir: str, cfg: CalibrationConfig, rng: random.Random) -> list[tuple[str, Episode]]:
    from phoneworld.runtime import random_action

    tasks = app_tasks(app_dir)
    dev = tasks.app.device
    out = []
    for tid in tasks.ids()[:cfg.max_tasks]:
        solved = tasks.demo(tid, cfg.seed)
        if solved is not None and {"oracle", "near_miss"} & set(cfg.kinds):
            task, moves = solved
            env = sim_env(app_dir)
            env.reset(task)
            actions = []
            for m in moves:  # element ids need the screen each move is made on
                actions.append(move_action(m, env.elements, dev.width, dev.height))  # type: ignore[attr-defined]
                env.step(actions[-1])
            if "oracle" in cfg.kinds:
                out.append(("oracle", scripted_episode(task, actions)))
            if "near_miss" in cfg.kinds and len(actions) > 1:
                out.append(("near_miss", scripted_episode(task, actions[:-1])))
        if "random" in cfg.kinds:
            task = tasks.draw(tid, cfg.seed)
            env = sim_env(app_dir)
            env.reset(task)
            walk = []
            for _ in range(cfg.random_steps):
                walk.append(random_action(env.elements, rng))  # type: ignore[attr-defined]
                env.step(walk[-1])
            out.append(("random", scripted_episode(task, walk)))
    return out


def agreement(pairs: list[tuple[bool, bool | None]]) -> dict[str, Any]:
    """Metrics of (verifier, judge) outcomes; judge None = unscorable."""
    scored = [(v, j) for v, j in pairs if j is not None]
    neg = [j for v, j in scored if not v]
    pos = [j for v, j in scored if v]
    return {
        "episodes": len(pairs), "scored": len(scored),
        "agreement": sum(v == j for v, j in scored) / len(scored) if scored else 0.0,
        "false_positive_rate": sum(neg) / len(neg) if neg else 0.0,
        "false_negative_rate": sum(not j for j in pos) / len(pos) if pos else 0.0,
        "unscorable_rate": 1 - len(scored) / len(pairs) if pairs else 0.0,
        "verifier_passes": len(pos), "verifier_fails": len(neg),
    }


def run_calibration(cfg: CalibrationConfig, judge: RubricJudge | None = None) -> dict[str, Any]:
    judge = judge or RubricJudge(cfg.judge)
    reward = JudgeReward(judge)
    rng = random.Random(cfg.seed)
    rows = []
    for app_dir in cfg.apps:
        for kind, ep in _episodes(app_dir, cfg, rng):
            r = reward(ep)
            rows.append({"app": app_dir, "task": ep.task.task_id, "kind": kind,
                         "verifier": ep.success, "judge": None if r is None else r > 0})
    result = agreement([(r["verifier"], r["judge"]) for r in rows])
    result["by_kind"] = {k: agreement([(r["verifier"], r["judge"]) for r in rows
                                       if r["kind"] == k]) for k in cfg.kinds}
    result["judge_stats"] = dict(judge.stats)
    result["episodes_detail"] = rows
    result["config"] = {**to_dict(cfg), "judge": repr(cfg.judge)}
    out = Path(cfg.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    return result
