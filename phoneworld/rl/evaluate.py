"""Evaluation: success per category on held-out tasks and held-out apps, with Wilson 95%
intervals, the mean steps and the parse-error rate, as JSON (and a table in the CLI).

All episodes of all splits run in lock-step batches through the same rollout code as training,
with the eval step budget (paper: 50) and greedy decoding by default. Evaluation draws use seeds
far from the training draws.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from phoneworld.rl.assembly import load_policy, splits, world_splits
from phoneworld.rl.config import to_dict
from phoneworld.rl.eval_config import EvalConfig
from phoneworld.rl.policy import Policy
from phoneworld.rl.rollout import Episode, Runner, run_episodes
from phoneworld.rl.sources import sim_env

log = logging.getLogger(__name__)
EVAL_SEED_BASE = 900_000_000


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a success rate."""
    if n == 0:
        return 0.0, 0.0
    p = successes / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def summarize(episodes: list[Episode]) -> dict[str, Any]:
    n = len(episodes)
    wins = sum(e.success for e in episodes)
    steps = sum(len(e.steps) for e in episodes)
    lo, hi = wilson(wins, n)
    return {"episodes": n, "successes": wins, "success_rate": wins / n if n else 0.0,
            "ci95": [lo, hi], "mean_steps": steps / n if n else 0.0,
            "parse_error_rate": sum(e.parse_errors for e in episodes) / steps if steps else 0.0,
            "errors": sum(e.ended == "error" for e in episodes)}


def _runners(cfg: EvalConfig) -> list[tuple[str, Runner]]:
    out = []
    for sp in splits(cfg.tasks, cfg.tasks.apps) + world_splits(cfg.tasks):
        if sp.name not in cfg.splits:
            continue
        for tid in sp.ids:
            for i in range(cfg.episodes_per_task):
                task = sp.source.draw(tid, EVAL_SEED_BASE + cfg.seed * 10_000 + i)
                env = sim_env(task.app)
                out.append((sp.name, Runner(env, task, cfg.tasks.eval_max_steps,
                                            cfg.tasks.terminate_on_success, "eval")))
    return out


def evaluate(cfg: EvalConfig, policy: Policy | None = None) -> dict[str, Any]:
    """Run the evaluation; returns (and writes to `cfg.output`) the results."""
    policy = policy or load_policy(cfg.model, cfg.prompt, cfg.sampling, cfg.init_from)
    tagged = _runners(cfg)
    t0 = time.perf_counter()
    for start in range(0, len(tagged), cfg.batch_episodes):
        chunk = [r for _, r in tagged[start:start + cfg.batch_episodes]]
        run_episodes(policy, chunk, greedy=cfg.greedy)
        for r in chunk:
            r.env.close()
    seconds = time.perf_counter() - t0
    by_split: dict[str, list[Episode]] = defaultdict(list)
    for name, r in tagged:
        by_split[name].append(r.ep)
    result: dict[str, Any] = {"model": cfg.init_from or cfg.model.name_or_path,
                              "greedy": cfg.greedy, "max_steps": cfg.tasks.eval_max_steps,
                              "seconds": seconds, "splits": {}}
    for name, eps in by_split.items():
        cats: dict[str, list[Episode]] = defaultdict(list)
        for e in eps:
            cats[e.task.category].append(e)
        result["splits"][name] = {"overall": summarize(eps),
                                  "categories": {c: summarize(v) for c, v in sorted(cats.items())}}
    result["config"] = to_dict(cfg)
    out = Path(cfg.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    return result


def rows_for_table(result: dict[str, Any]) -> list[list[str]]:
    """(split, category, episodes, success, ci95, mean steps, parse errors) rows."""
    rows = []
    for split, data in result["splits"].items():
        for cat, s in [*data["categories"].items(), ("ALL", data["overall"])]:
            lo, hi = s["ci95"]
            rows.append([split, cat, str(s["episodes"]), f"{s['success_rate']:.3f}",
                         f"[{lo:.2f}, {hi:.2f}]", f"{s['mean_steps']:.1f}",
                         f"{s['parse_error_rate']:.3f}"])
    return rows
