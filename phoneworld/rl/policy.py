"""The policy: a causal LM, its prompt builder, a batched sampler, and a weights version.

`Policy.act(views)` turns a batch of step views into decisions (the exact prompt and sampled
token ids, their log-probs, the parsed action or the parse error, and the weights version that
sampled them). Training updates `policy.model`; `policy.sync()` then copies the weights into the
sampling copy (bfloat16 on a GPU), bumps the version and drops the cached prefix. A lock makes
sampling and syncing safe across rollout threads.
"""

from __future__ import annotations

import copy
import threading
import time
from dataclasses import dataclass
from typing import Any

import torch

from phoneworld.rl.actions import ActionParseError, parse_action_text
from phoneworld.rl.attention import use_grouped_attention
from phoneworld.rl.config import PromptConfig, SamplingConfig
from phoneworld.rl.model import DTYPES
from phoneworld.rl.prompting import PromptBuilder, StepView
from phoneworld.rl.sampling import BatchGenerator


@dataclass
class Decision:
    """One sampled step: the tokens (prompt suffix, completion), their log-probs, the action."""

    suffix_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]
    text: str
    action: dict[str, Any] | None
    error: str | None
    version: int


class Policy:
    """A language-model policy over text observations."""

    def __init__(self, model: Any, tokenizer: Any, prompt: PromptConfig,
                 sampling: SamplingConfig, rollout_dtype: str = "float32") -> None:
        self.model, self.tok = model, tokenizer
        self.prompt_cfg, self.sampling_cfg = prompt, sampling
        self.builder = PromptBuilder(tokenizer, prompt)
        dtype = DTYPES[rollout_dtype]
        device = next(model.parameters()).device
        if device.type == "cpu" or dtype == next(model.parameters()).dtype:
            self.rollout_model = model  # one copy: nothing to sync but the version
        else:
            self.rollout_model = copy.deepcopy(model).to(dtype)
        self.rollout_model.eval()
        self.grouped_attention = use_grouped_attention(model)
        if self.rollout_model is not model:
            use_grouped_attention(self.rollout_model)
        self.gen = BatchGenerator(self.rollout_model, tokenizer.eos_token_id,
                                  tokenizer.pad_token_id, sampling, prompt.max_new_tokens)
        self.version = 0
        self.lock = threading.RLock()

    @property
    def prefix_ids(self) -> list[int]:
        return self.builder.prefix_ids

    def act(self, views: list[StepView], greedy: bool = False,
            seed: int | None = None) -> list[Decision]:
        if not views:
            return []
        with self.lock:
            was_training = self.rollout_model.training
            self.rollout_model.eval()
            t0 = time.perf_counter()
            suffixes = self.builder.suffixes(views)
            self.gen.timing["prompt_s"] += time.perf_counter() - t0
            samples = self.gen.generate(self.builder.prefix_ids, suffixes, greedy, seed)
            version = self.version
            if was_training:
                self.rollout_model.train()
        out = []
        texts = self.tok.batch_decode([s.ids[:-1] if s.finished else s.ids for s in samples],
                                      skip_special_tokens=False)
        for suffix, s, text in zip(suffixes, samples, texts):
            action, error = None, None
            if not s.finished:
                error = f"no end of turn within {len(s.ids)} tokens"
            else:
                try:
                    action = parse_action_text(text)
                except ActionParseError as exc:
                    error = str(exc)
            out.append(Decision(suffix, s.ids, s.logprobs, text, action, error, version))
        return out

    @torch.no_grad()
    def sync(self) -> None:
        """Publish the trained weights to the sampler (a new policy version)."""
        with self.lock:
            if self.rollout_model is not self.model:
                for dst, src in zip(self.rollout_model.parameters(), self.model.parameters()):
                    dst.copy_(src)
            self.gen.invalidate()
            self.version += 1
