"""Batched sampling across all live episodes, with the prompt prefix's KV cache reused.

Each env step of a rollout is one call: every live episode's prompt suffix is left-padded to a
bucketed length, the batch is padded to a bucketed size (so shapes repeat and the allocator and
kernels are reused), the fixed system-prompt prefix's KV cache (computed once per weights version)
is expanded under the batch, the suffixes are prefilled with only the last position's logits
kept, and tokens are decoded until every row has ended its turn. Returns the sampled token ids
and their log-probabilities under the sampling distribution (temperature applied), which the
trainer uses as the behaviour policy's log-probs.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import torch

from phoneworld.rl.config import SamplingConfig
from phoneworld.rl.decode import StaticDecoder, unsupported

log = logging.getLogger(__name__)


@dataclass
class Sample:
    """One row's completion: token ids (with the end token when it ended), their log-probs."""

    ids: list[int]
    logprobs: list[float]
    finished: bool


def _round_up(n: int, k: int) -> int:
    return ((n + k - 1) // k) * k


def _cache_layers(cache: Any) -> list[tuple[torch.Tensor, torch.Tensor]]:
    if hasattr(cache, "layers"):
        return [(layer.keys, layer.values) for layer in cache.layers]
    return list(zip(cache.key_cache, cache.value_cache))  # older transformers


def _prealloc_layer_class() -> type:
    from transformers.cache_utils import DynamicLayer

    class PreallocLayer(DynamicLayer):  # type: ignore[misc, valid-type]
        """A cache layer that appends into a preallocated buffer instead of concatenating the
        whole cache at every decoded token (which copies all of it each time)."""

        def grow(self, capacity: int) -> None:
            b, h, n, d = self.keys.shape
            self._kb = self.keys.new_empty((b, h, capacity, d))
            self._vb = self.values.new_empty((b, h, capacity, d))
            self._kb[:, :, :n].copy_(self.keys)
            self._vb[:, :, :n].copy_(self.values)
            self._n = n
            self.keys, self.values = self._kb[:, :, :n], self._vb[:, :, :n]

        def update(self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any,
                   **kwargs: Any) -> tuple[torch.Tensor, torch.Tensor]:
            end = self._n + key_states.shape[-2]
            if end > self._kb.shape[-2]:
                self.grow(2 * end)
            self._kb[:, :, self._n:end].copy_(key_states)
            self._vb[:, :, self._n:end].copy_(value_states)
            self._n = end
            self.keys, self.values = self._kb[:, :, :end], self._vb[:, :, :end]
            return self.keys, self.values

    return PreallocLayer


_PREALLOC: list[type] = []


def preallocate(cache: Any, capacity: int) -> Any:
    """Turn a DynamicCache's layers into preallocated ones (unchanged when the installed
    transformers lays its cache out otherwise)."""
    try:
        if not _PREALLOC:
            _PREALLOC.append(_prealloc_layer_class())
        for layer in cache.layers:
            layer.__class__ = _PREALLOC[0]
            layer.grow(capacity)
    except (ImportError, AttributeError, TypeError) as exc:
        log.warning("KV-cache preallocation unavailable (%s); using the default cache", exc)
    return cache


def expand_cache(cache: Any, batch: int) -> Any:
    """A new DynamicCache holding `cache` (batch 1) repeated `batch` times."""
    from transformers import DynamicCache

    out = DynamicCache()
    for i, (k, v) in enumerate(_cache_layers(cache)):
        out.update(k.expand(batch, -1, -1, -1).contiguous(),
                   v.expand(batch, -1, -1, -1).contiguous(), i)
    return out


class BatchGenerator:
    """Samples completions for many prompts at once from a causal LM."""

    def __init__(self, model: Any, eos_id: int, pad_id: int, cfg: SamplingConfig,
                 max_new_tokens: int) -> None:
        self.model, self.eos, self.pad, self.cfg = model, eos_id, pad_id, cfg
        self.max_new = max_new_tokens
        self._prefix: tuple[tuple[int, ...], Any] | None = None
        self._weights = 0  # bumped by invalidate(): keys the static decoder's prefix region
        self.static: StaticDecoder | None = None
        if cfg.static_decode and cfg.cache_prefix:
            why = unsupported(model)
            if why is None:
                compiled = cfg.compile_layers
                if compiled is None:
                    compiled = self.device.type == "cuda"
                self.static = StaticDecoder(model, prefill_rows=cfg.prefill_rows,
                                            compile_layers=compiled)
            else:
                log.info("static decoding off for this model: %s", why)
        self.timing: Counter[str] = Counter()  # seconds and counts, for speed reports
        params = inspect.signature(model.forward).parameters
        self._cache_kw = "cache" if "cache" in params else "past_key_values"

    def _forward(self, past: Any, **kw: Any) -> tuple[torch.Tensor, Any]:
        """(last-position logits, the KV cache) across transformers' two cache kwarg names."""
        if past is not None:
            kw[self._cache_kw] = past
        out = self.model(use_cache=True, logits_to_keep=1, **kw)
        cache = out.cache if self._cache_kw == "cache" else out.past_key_values
        return out.logits[:, -1, :], cache

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def invalidate(self) -> None:
        """Forget the prefix cache (call after the weights changed)."""
        self._prefix = None
        self._weights += 1

    @torch.no_grad()
    def _prefix_cache(self, prefix: list[int]) -> Any:
        key = tuple(prefix)
        if self._prefix is None or self._prefix[0] != key:
            ids = torch.tensor([prefix], device=self.device)
            _, cache = self._forward(None, input_ids=ids)
            self._prefix = (key, cache)
        return self._prefix[1]

    def generate(self, prefix: list[int], suffixes: list[list[int]], greedy: bool = False,
                 seed: int | None = None) -> list[Sample]:
        """One completion per suffix (each prompt is `prefix + suffix`)."""
        gen = None
        if seed is not None:
            gen = torch.Generator(device=self.device).manual_seed(seed)
        out: list[Sample] = []
        step = self.cfg.max_batch
        for start in range(0, len(suffixes), step):
            out.extend(self._chunk(prefix, suffixes[start:start + step], greedy, gen))
        return out

    def _inputs(self, prefix: list[int], suffixes: list[list[int]]) -> tuple[Any, ...]:
        """Left-padded ids, the attention mask, position ids and the past cache."""
        cfg, n = self.cfg, len(suffixes)
        rows = suffixes if cfg.cache_prefix and prefix else [prefix + s for s in suffixes]
        batch = min(_round_up(n, cfg.batch_bucket), max(n, cfg.max_batch))
        length = _round_up(max(len(r) for r in rows), cfg.length_bucket)
        ids = torch.full((batch, length), self.pad, dtype=torch.long)
        mask = torch.zeros((batch, length), dtype=torch.long)
        for i in range(batch):
            row = rows[i] if i < n else rows[0][-1:]
            ids[i, length - len(row):] = torch.tensor(row)
            mask[i, length - len(row):] = 1
        dev = self.device
        ids, mask = ids.to(dev), mask.to(dev)
        if cfg.cache_prefix and prefix:
            past = expand_cache(self._prefix_cache(prefix), batch)
            p = len(prefix)
            past = preallocate(past, p + length + self.max_new + 1)
            pos = (p + mask.cumsum(-1) - 1).clamp(min=p)
            mask = torch.cat([torch.ones((batch, p), dtype=mask.dtype, device=dev), mask], -1)
            return ids, mask, pos, past
        pos = (mask.cumsum(-1) - 1).clamp(min=0)
        return ids, mask, pos, None

    def _pick(self, logits: torch.Tensor, greedy: bool, gen: Any) -> tuple[torch.Tensor, ...]:
        logits = logits.float() / (1.0 if greedy else self.cfg.temperature)
        if self.cfg.top_k and not greedy:
            kth = torch.topk(logits, self.cfg.top_k, dim=-1).values[:, -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        logp = torch.log_softmax(logits, dim=-1)
        if greedy:
            tok = logp.argmax(-1)
        else:
            tok = torch.multinomial(logp.exp(), 1, generator=gen).squeeze(-1)
        return tok, logp.gather(-1, tok[:, None]).squeeze(-1)

    @torch.no_grad()
    def _chunk(self, prefix: list[int], suffixes: list[list[int]], greedy: bool,
               gen: Any) -> list[Sample]:
        if self.static is not None and prefix:
            return self._static_chunk(prefix, suffixes, greedy, gen)
        t0 = time.perf_counter()
        ids, mask, pos, past = self._inputs(prefix, suffixes)
        batch = ids.shape[0]
        logits, past = self._forward(past, input_ids=ids, attention_mask=mask, position_ids=pos)
        self._sync()
        t1 = time.perf_counter()
        self.timing["prefill_s"] += t1 - t0
        self.timing["prefill_tokens"] += batch * ids.shape[1]
        state = {"mask": mask, "pos": pos[:, -1:], "past": past}

        def step(tok: torch.Tensor) -> torch.Tensor:
            m = state["mask"]
            state["mask"] = torch.cat([m, torch.ones((batch, 1), dtype=m.dtype,
                                                     device=m.device)], -1)
            state["pos"] = state["pos"] + 1
            out, state["past"] = self._forward(state["past"], input_ids=tok[:, None],
                                               attention_mask=state["mask"],
                                               position_ids=state["pos"])
            return out

        return self._decode(logits, step, len(suffixes), list(range(len(suffixes))), greedy,
                            gen, t1)

    @torch.no_grad()
    def _static_chunk(self, prefix: list[int], suffixes: list[list[int]], greedy: bool,
                      gen: Any) -> list[Sample]:
        """`_chunk` through the static decoder (phoneworld.rl.decode)."""
        assert self.static is not None
        t0 = time.perf_counter()
        cache = self._prefix_cache(prefix)
        logits, step, order = self.static.start(prefix, cache, self._weights, suffixes,
                                                self.pad, self.cfg.length_bucket, self.max_new)
        self._sync()
        t1 = time.perf_counter()
        self.timing["prefill_s"] += t1 - t0
        self.timing["prefill_tokens"] += sum(len(s) for s in suffixes)
        return self._decode(logits, step, len(suffixes), order, greedy, gen, t1)

    def _decode(self, logits: torch.Tensor, step: Any, n: int, order: list[int], greedy: bool,
                gen: Any, since: float) -> list[Sample]:
        """Sample from the prefill's last logits, then `step(tokens) -> logits` until every row
        ended its turn; row j of the batch is request order[j] (rows past n are padding)."""
        batch = logits.shape[0]
        done = torch.zeros(batch, dtype=torch.bool, device=logits.device)
        done[n:] = True
        toks, lps = [], []
        for t in range(self.max_new):
            tok, lp = self._pick(logits, greedy, gen)
            tok = torch.where(done, torch.full_like(tok, self.pad), tok)
            toks.append(tok)
            lps.append(lp)
            done = done | (tok == self.eos)
            # checking for the end syncs with the GPU: every 4 tokens keeps the CPU ahead
            if t + 1 == self.max_new or (t % 4 == 3 and bool(done.all())):
                break
            logits = step(tok)
        got = self._collect(torch.stack(toks, 1).cpu(), torch.stack(lps, 1).cpu(), n)
        out: list[Sample] = [got[0]] * n
        for row, i in enumerate(order):
            out[i] = got[row]
        self.timing["decode_s"] += time.perf_counter() - since
        self.timing["decode_steps"] += len(toks)
        self.timing["rows"] += n
        self.timing["padded_rows"] += batch
        return out

    def _sync(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.synchronize()

    def _collect(self, toks: torch.Tensor, lps: torch.Tensor, n: int) -> list[Sample]:
        samples = []
        rows, probs = toks[:n].tolist(), lps[:n].tolist()
        for row, lp in zip(rows, probs):
            end = row.index(self.eos) + 1 if self.eos in row else len(row)
            samples.append(Sample(row[:end], lp[:end], self.eos in row[:end]))
        return samples
