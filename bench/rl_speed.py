"""Speed probes of the rl backend: rollout agent steps per second and seconds per update.

Used by `bench/rl_gpu_run.py`. Definitions follow `research/rl-h200-anchor.md`: rollout agent
steps/s = agent steps taken / rollout wall time (CUDA synchronised at both ends), all episodes in
lock-step; seconds per update = rollout + training of one update at 64 episodes x 10 steps.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import statistics
import time
from typing import Any

import torch

from phoneworld.rl.rollout import Runner, run_episodes
from phoneworld.rl.sources import sim_env
from phoneworld.rl.tasks import TaskSource


def _sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


class BenchRunner(Runner):
    """A runner that still steps the env when the output does not parse (a random-weights model
    never writes a valid action): a random on-screen action stands in, so env time is counted."""

    rng = random.Random(0)

    def apply(self, d: Any) -> None:
        if d.action is None:
            from phoneworld.runtime.episode import random_action

            d = dataclasses.replace(d, action=random_action(self.env.elements, self.rng))
        super().apply(d)


def _runners(tasks: list[tuple[TaskSource, list[str]]], episodes: int, steps: int,
             seed: int) -> list[Runner]:
    pairs = [(src, tid) for src, ids in tasks for tid in ids]
    random.Random(seed).shuffle(pairs)
    out = []
    for i, (src, tid) in zip(range(episodes), itertools.cycle(pairs)):
        task = src.draw(tid, seed * 100_000 + i)
        out.append(BenchRunner(sim_env(task.app), task, steps, terminate_on_success=False))
    return out


def rollout_speed(policy: Any, tasks: list[tuple[TaskSource, list[str]]], episodes: int,
                  steps: int, seed: int = 0, repeats: int = 2) -> dict[str, Any]:
    """Agent steps/s of `episodes` lock-step episodes of at most `steps` steps (after a warm-up
    run of the same shape)."""
    runs = []
    for r in range(repeats + 1):
        runners = _runners(tasks, episodes, steps, seed + r)
        _sync()
        before = dict(policy.gen.timing)
        t0 = time.perf_counter()
        eps = run_episodes(policy, runners)
        _sync()
        dt = time.perf_counter() - t0
        spent = {k: v - before.get(k, 0) for k, v in policy.gen.timing.items()}
        n_steps = sum(len(e.steps) for e in eps)
        tokens = sum(len(s.completion_ids) for e in eps for s in e.steps)
        prompt = sum(len(s.suffix_ids) for e in eps for s in e.steps) / max(1, n_steps)
        runs.append({"seconds": dt, "agent_steps": n_steps, "steps_per_s": n_steps / dt,
                     "generated_tokens_per_s": tokens / dt,
                     "mean_action_tokens": tokens / max(1, n_steps),
                     "mean_prompt_tokens": prompt + len(policy.prefix_ids),
                     "breakdown_s": {k: round(spent.get(k, 0.0), 3) for k in
                                     ("prompt_s", "prefill_s", "decode_s")},
                     "other_s (env, parsing, python)": round(dt - sum(
                         spent.get(k, 0.0) for k in ("prompt_s", "prefill_s", "decode_s")), 3),
                     "decode_steps": spent.get("decode_steps", 0),
                     "padded_rows": spent.get("padded_rows", 0), "rows": spent.get("rows", 0)})
    steady = runs[1:]
    return {"episodes": episodes, "max_steps": steps, "warmup": runs[0], "runs": steady,
            "steps_per_s": statistics.mean(r["steps_per_s"] for r in steady),
            "mean_action_tokens": statistics.mean(r["mean_action_tokens"] for r in steady),
            "mean_prompt_tokens": statistics.mean(r["mean_prompt_tokens"] for r in steady)}


def first_suffixes(policy: Any, tasks: list[tuple[TaskSource, list[str]]], rows: int,
                   seed: int) -> list[list[int]]:
    """Prompt suffixes of the first step of `rows` freshly started episodes."""
    views = []
    for r in _runners(tasks, rows, 1, seed):
        r.start()
        views.append(r.view())
    return policy.builder.suffixes(views)


def decode_check(policy: Any, tasks: list[tuple[TaskSource, list[str]]], rows: int = 64,
                 new_tokens: int = 24) -> dict[str, Any]:
    """The static decoder (CUDA graphs on a GPU) against transformers' plain loop on the same
    greedy batch: how many rows agree token for token, and the largest log-prob gap."""
    from phoneworld.rl.sampling import BatchGenerator

    suffixes = first_suffixes(policy, tasks, rows, 7)
    m, tok = policy.rollout_model, policy.tok
    out = {}
    for static in (True, False):
        cfg = dataclasses.replace(policy.gen.cfg, static_decode=static)
        gen = BatchGenerator(m, tok.eos_token_id, tok.pad_token_id, cfg, new_tokens)
        out[static] = gen.generate(policy.prefix_ids, suffixes, greedy=True)
    pairs = list(zip(out[True], out[False]))
    agree = [next((i for i, (x, y) in enumerate(zip(a.ids, b.ids)) if x != y),
                  min(len(a.ids), len(b.ids))) for a, b in pairs]
    gap = max((abs(x - y) for (a, b), k in zip(pairs, agree)
               for x, y in zip(a.logprobs[:k], b.logprobs[:k])), default=0.0)
    return {"rows": rows, "identical_rows": sum(a.ids == b.ids for a, b in pairs),
            "mean_agreeing_prefix": statistics.mean(k / max(1, len(b.ids))
                                                    for (_, b), k in zip(pairs, agree)),
            "max_logprob_gap_on_agreeing_tokens": gap}


def update_speed(trainer: Any, updates: int = 3) -> dict[str, Any]:
    """Seconds per update of a GRPOTrainer (its sources decide the workload); the first update
    is the warm-up."""
    recs = []
    for u in range(updates + 1):
        _sync()
        recs.append(trainer._one_update(u))
        _sync()
    steady = recs[1:]
    keys = ("update_s", "rollout_s", "train_s", "rows", "tokens", "steps_sampled")
    return {"warmup_update_s": recs[0]["update_s"],
            "updates": [{k: r.get(k) for k in keys} for r in steady],
            "update_s": statistics.mean(r["update_s"] for r in steady),
            "rollout_s": statistics.mean(r["rollout_s"] for r in steady),
            "train_s": statistics.mean(r["train_s"] for r in steady)}


def anchor_trainer(base: dict[str, Any], policy: Any, out: Any, group_size: int, groups: int,
                   steps: int) -> Any:
    """A GRPO trainer on the anchor's workload (groups x G episodes of exactly `steps` steps),
    with coin-flip rewards: random weights never succeed, and timing needs rows to train on."""
    from phoneworld.rl.assembly import build_sources
    from phoneworld.rl.config import load_config
    from phoneworld.rl.grpo_config import GRPOConfig
    from phoneworld.rl.grpo_trainer import GRPOTrainer

    over = {**base, "real_ratio": 0.0, "group_size": group_size, "resume": False,
            "groups_per_update": groups, "output_dir": str(out), "micro_batch_tokens": 32768,
            "drop_zero_variance": False, "max_staleness": 0,
            "sources": [{"name": "mock", "kind": "sim", "groups_per_batch": groups}]}
    over["tasks"] = {**base["tasks"], "train_max_steps": steps, "terminate_on_success": False}
    cfg = load_config(GRPOConfig, None, over)
    sources = build_sources(cfg, None)
    rng = random.Random(0)
    for s in sources:
        s.reward = lambda ep: float(rng.random() < 0.5)
    return GRPOTrainer(cfg, policy=policy, sources=sources)
