"""Step-wise GRPO: one training row per agent step, the episode's group-relative advantage (plus
GiGPO's optional step term) on that step's action tokens, PPO-clip against the sampling log-probs.

Why not TRL's `GRPOTrainer`: it trains an episode as one concatenated sequence (a 30-step episode
is ~19k tokens, past SmolLM2's 8k positions, and was 1.6-1.8x slower on the H200), and its
step-wise cousin `AsyncGRPOTrainer` needs a vLLM server that the GPU machine lacks. So the loop is
ours, and small: rows are packed into micro-batches by a token budget, only action positions go
through the LM head (TRL's `selective_log_softmax` gives their log-probs), the loss is normalized
over all action tokens of the update (DAPO token-level), one optimizer step per update.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from phoneworld.rl import checkpoint
from phoneworld.rl.advantage import Group, compute_advantages
from phoneworld.rl.assembly import build_sources, load_policy, make_judge
from phoneworld.rl.buffer import MixBuffer
from phoneworld.rl.config import to_dict
from phoneworld.rl.grpo_config import GRPOConfig
from phoneworld.rl.policy import Policy
from phoneworld.rl.sources import Source

log = logging.getLogger(__name__)


@dataclass
class Row:
    ids: list[int]
    n_prompt: int
    old_logprobs: list[float]
    advantage: float


def group_rows(groups: list[Group], prefix: list[int]) -> list[Row]:
    """Training rows of the steps with a non-zero advantage."""
    rows = []
    for g in groups:
        for ep, advs in zip(g.episodes, g.advantages):
            for step, adv in zip(ep.steps, advs):
                if adv == 0.0 or not step.completion_ids:
                    continue
                prompt = prefix + step.suffix_ids
                rows.append(Row(prompt + step.completion_ids, len(prompt), step.logprobs, adv))
    return rows


def micro_batches(rows: list[Row], budget: int) -> list[list[Row]]:
    """Rows sorted by length, packed so that rows x padded length stays within `budget`."""
    out: list[list[Row]] = []
    cur: list[Row] = []
    for r in sorted(rows, key=lambda r: len(r.ids)):
        if cur and (len(cur) + 1) * len(r.ids) > budget:
            out.append(cur)
            cur = []
        cur.append(r)
    if cur:
        out.append(cur)
    return out


class GRPOTrainer:
    """Runs updates: take groups from the mixing buffer, train on their step rows, publish."""

    def __init__(self, cfg: GRPOConfig, policy: Policy | None = None,
                 sources: list[Source] | None = None) -> None:
        self.cfg = cfg
        random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.out = Path(cfg.output_dir)
        self.start_update = 0
        resume = checkpoint.latest(self.out) if cfg.resume else None
        init = str(resume) if resume else cfg.init_from
        self.policy = policy or load_policy(cfg.model, cfg.prompt, cfg.sampling, init)
        self.model = self.policy.model
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=cfg.learning_rate,
                                     weight_decay=cfg.weight_decay)
        if resume is not None:
            state = checkpoint.load_state(resume)
            checkpoint.load_optimizer(resume, self.opt)
            self.start_update = int(state["update"])
            self.policy.version = int(state.get("version", self.start_update))
            log.info("resumed from %s (update %d)", resume, self.start_update)
        self.judge = make_judge(cfg.judge) if sources is None else None
        self.sources = sources if sources is not None else build_sources(cfg, self.judge)
        self.buffer = MixBuffer(
            self.sources, self.policy, cfg.real_ratio, cfg.ratio_window, cfg.max_staleness,
            capacity=4 * cfg.groups_per_update, drop_zero_variance=cfg.drop_zero_variance,
            background=cfg.background_rollouts, prepare=self._prepare,
            max_refills=cfg.max_refills)
        self.history: list[dict[str, Any]] = []

    def _prepare(self, g: Group) -> Group:
        return compute_advantages(g, self.cfg.gigpo_weight, self.cfg.gigpo_gamma,
                                  self.cfg.scale_adv_std)

    # ------------------------------------------------------------------ the loss

    def _forward_logprobs(self, batch: list[Row]) -> tuple[torch.Tensor, torch.Tensor,
                                                            torch.Tensor]:
        """(new log-probs, old log-probs, advantages) over the batch's action tokens."""
        dev = next(self.model.parameters()).device
        width = max(len(r.ids) for r in batch)
        pad = self.policy.tok.pad_token_id
        ids = torch.full((len(batch), width), pad, dtype=torch.long)
        rows_i, pos_i, targets, old, adv = [], [], [], [], []
        for i, r in enumerate(batch):
            ids[i, :len(r.ids)] = torch.tensor(r.ids)
            n = len(r.ids) - r.n_prompt
            rows_i += [i] * n
            pos_i += list(range(r.n_prompt - 1, len(r.ids) - 1))
            targets += r.ids[r.n_prompt:]
            old += r.old_logprobs[:n]
            adv += [r.advantage] * n
        base = getattr(self.model, self.model.base_model_prefix)
        autocast = torch.autocast("cuda", torch.bfloat16, enabled=dev.type == "cuda")
        with autocast:
            # rows are right-padded: causal attention alone keeps real tokens off the padding,
            # and without a mask SDPA runs its fused (flash) kernels, backward included
            hidden = base(input_ids=ids.to(dev)).last_hidden_state
            sel = hidden[torch.tensor(rows_i, device=dev), torch.tensor(pos_i, device=dev)]
            logits = self.model.get_output_embeddings()(sel).float()
        logits = logits / self.cfg.sampling.temperature
        from trl.trainer.utils import selective_log_softmax

        new = selective_log_softmax(logits[None], torch.tensor(targets, device=dev)[None])[0]
        return (new, torch.tensor(old, device=dev, dtype=torch.float32),
                torch.tensor(adv, device=dev, dtype=torch.float32))

    def train_step(self, groups: list[Group]) -> dict[str, float]:
        """One optimizer update on the step rows of `groups`."""
        rows = group_rows(groups, self.policy.prefix_ids)
        stats = {"rows": float(len(rows)), "loss": 0.0, "clip_frac": 0.0, "ratio": 1.0,
                 "grad_norm": 0.0}
        if not rows:
            return stats
        self.model.train()
        total = sum(len(r.ids) - r.n_prompt for r in rows)
        clipped, ratio_sum = 0.0, 0.0
        lo, hi = 1.0 - self.cfg.clip_eps, 1.0 + self.cfg.clip_eps_high
        for batch in micro_batches(rows, self.cfg.micro_batch_tokens):
            new, old, adv = self._forward_logprobs(batch)
            ratio = torch.exp(new - old)
            loss_tok = -torch.minimum(ratio * adv, ratio.clamp(lo, hi) * adv)
            loss = loss_tok.sum() / total
            loss.backward()
            stats["loss"] += float(loss.detach())
            clipped += float(((ratio < lo) | (ratio > hi)).float().sum())
            ratio_sum += float(ratio.detach().sum())
        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.max_grad_norm)
        self.opt.step()
        self.opt.zero_grad(set_to_none=True)
        self.policy.sync()
        stats.update(clip_frac=clipped / total, ratio=ratio_sum / total, grad_norm=float(norm),
                     tokens=float(total))
        return stats

    # ------------------------------------------------------------------ the loop

    def _sampled_summary(self, groups: list[Group]) -> dict[str, float]:
        eps = [e for g in groups for e in g.episodes]
        steps = sum(len(e.steps) for e in eps)
        rewards = [e.reward for e in eps if e.reward is not None]
        return {
            "reward": sum(rewards) / max(1, len(rewards)),
            "success": sum(e.success for e in eps) / max(1, len(eps)),
            "parse_error_rate": sum(e.parse_errors for e in eps) / max(1, steps),
            "mean_steps": steps / max(1, len(eps)),
        }

    def train(self, on_update: Callable[[dict[str, Any]], None] | None = None) -> list[dict]:
        cfg = self.cfg
        self.out.mkdir(parents=True, exist_ok=True)
        (self.out / "config.json").write_text(json.dumps(to_dict(cfg), indent=1, default=str))
        t_start = time.monotonic()
        try:
            for update in range(self.start_update, cfg.updates):
                rec = self._one_update(update)
                self.history.append(rec)
                with (self.out / "metrics.jsonl").open("a") as f:
                    f.write(json.dumps(rec) + "\n")
                if on_update:
                    on_update(rec)
                last = update + 1 == cfg.updates
                over = cfg.time_budget_s is not None and time.monotonic() - t_start > cfg.time_budget_s
                if last or over or (cfg.save_every and (update + 1) % cfg.save_every == 0):
                    self.save(update + 1)
                if over:
                    log.info("time budget reached after update %d", update + 1)
                    break
        finally:
            self.buffer.stop()
        return self.history

    def _one_update(self, update: int) -> dict[str, Any]:
        steps_before = self.buffer.steps_sampled
        t0 = time.perf_counter()
        groups = self.buffer.take(self.cfg.groups_per_update)
        t1 = time.perf_counter()
        stats = self.train_step(groups)
        t2 = time.perf_counter()
        sampled = self.buffer.steps_sampled - steps_before
        return {
            "update": update + 1, "version": self.policy.version,
            **self._sampled_summary(groups), **stats,
            "groups": len(groups), "real_groups": sum(g.domain == "real" for g in groups),
            "observed_real_ratio": self.buffer.observed_ratio(),
            "rollout_s": t1 - t0, "train_s": t2 - t1, "update_s": t2 - t0,
            "steps_sampled": sampled,
            "rollout_steps_per_s": sampled / (t1 - t0) if t1 > t0 and sampled else 0.0,
            "buffer": dict(self.buffer.stats),
        }

    def save(self, update: int) -> Path:
        state = {"version": self.policy.version, "buffer": dict(self.buffer.stats)}
        return checkpoint.save(self.out, update, self.model, self.policy.tok, self.opt, state,
                               self.cfg.keep_checkpoints)
