"""One RL step changes the weights; rows are step-wise; checkpoints resume."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import torch

from phoneworld.rl.assembly import build_sources
from phoneworld.rl.config import load_config
from phoneworld.rl.grpo_config import GRPOConfig
from phoneworld.rl.grpo_trainer import GRPOTrainer, group_rows, micro_batches

from .conftest import grpo_overrides


def coin_rewards(sources: list[Any], seed: int = 0) -> None:
    """A random tiny model never completes a task: reward a coin flip so groups have variance."""
    rng = random.Random(seed)
    for s in sources:
        s.reward = lambda ep: float(rng.random() < 0.5)


def test_one_rl_step_changes_the_weights(app_dir: str, tiny_policy: Any, tmp_path: Path) -> None:
    cfg = load_config(GRPOConfig, None, grpo_overrides(app_dir, tmp_path / "run",
                                                       gigpo_weight=0.5))
    sources = build_sources(cfg, None)
    coin_rewards(sources)
    trainer = GRPOTrainer(cfg, policy=tiny_policy, sources=sources)
    before = [p.detach().clone() for p in trainer.model.parameters()]
    (rec,) = trainer.train()
    after = list(trainer.model.parameters())
    assert any(not torch.equal(a, b) for a, b in zip(before, after))
    assert rec["rows"] > 0 and rec["version"] == 1 == tiny_policy.version
    assert rec["parse_error_rate"] == 1.0  # all rows are no-op steps of a random model
    assert rec["rollout_steps_per_s"] > 0
    assert (tmp_path / "run" / "checkpoint-1" / "model.safetensors").is_file()
    line = json.loads((tmp_path / "run" / "metrics.jsonl").read_text().splitlines()[0])
    assert line["update"] == 1


def test_rows_are_one_per_step_with_bounded_context(app_dir: str, tiny_policy: Any,
                                                    tmp_path: Path) -> None:
    cfg = load_config(GRPOConfig, None, grpo_overrides(app_dir, tmp_path / "r"))
    (src,) = build_sources(cfg, None)
    coin_rewards([src], seed=3)
    groups = [g for g in src.produce(tiny_policy, 2)]
    from phoneworld.rl.advantage import compute_advantages

    for g in groups:
        compute_advantages(g)
    rows = group_rows(groups, tiny_policy.prefix_ids)
    nonzero = sum(1 for g in groups for a in g.advantages for x in a if x != 0)
    assert len(rows) == nonzero
    assert all(len(r.ids) - r.n_prompt == len(r.old_logprobs) for r in rows)
    limit = len(tiny_policy.prefix_ids) + 600  # instruction + 2 actions + 160-token screen
    assert all(r.n_prompt < limit for r in rows)
    batches = micro_batches(rows, 4096)
    assert sum(len(b) for b in batches) == len(rows)
    assert all(len(b) == 1 or len(b) * max(len(r.ids) for r in b) <= 4096 for b in batches)


def test_resume_continues_from_the_checkpoint(app_dir: str, tmp_path: Path) -> None:
    over = grpo_overrides(app_dir, tmp_path / "run", resume=True, updates=1)
    cfg = load_config(GRPOConfig, None, over)
    from phoneworld.rl.assembly import load_policy

    pol = load_policy(cfg.model, cfg.prompt, cfg.sampling)
    srcs = build_sources(cfg, None)
    coin_rewards(srcs)
    GRPOTrainer(cfg, policy=pol, sources=srcs).train()
    cfg2 = load_config(GRPOConfig, None, {**over, "updates": 2})
    t2 = GRPOTrainer(cfg2, sources=srcs)
    assert t2.start_update == 1 and t2.policy.version == 1
    saved = t2.model.state_dict()
    for k, v in pol.model.state_dict().items():
        assert torch.allclose(saved[k], v)
    hist = t2.train()
    assert [h["update"] for h in hist] == [2]
    assert (tmp_path / "run" / "checkpoint-2").is_dir()
