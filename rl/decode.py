"""Static-shape decoding for Llama-family models: one preallocated KV buffer, prefill in sorted
chunks, and the per-token step as one CUDA graph per (batch, capacity) bucket.

Hugging Face's forward costs ~25 ms of Python and kernel launches per decoded token for a 30-layer
model whatever the batch, which bounds a step-wise rollout (32 tokens per action) well below a
thousand agent steps per second. Here the decode step is a plain function of the model's own
weights (embedding, RMSNorm, rotary, grouped-query attention, SwiGLU) over static buffers:

- `K`/`V`: one (batch, kv heads, capacity, head dim) buffer per layer. Time axis: the shared
  system-prompt prefix at [0, P) (copied once per weights version), every row's suffix
  right-aligned to end at P + L (left padding), then the decoded tokens from slot P + L on.
- An additive mask (batch, capacity) opens each row's real positions; the step opens the slot it
  writes, so the step needs no host work but copying the sampled tokens in.
- Prefill runs the same layers over chunks of rows sorted by length (each chunk a contiguous
  block of buffer rows, padded only to its own longest row), attending to the prefix region and
  causally to itself, and writes its keys/values straight into the buffers. Optionally the layer
  function is compiled (`torch.compile`), which fuses the norms, rotary and residual additions.

On CUDA the step is captured once per (batch bucket, capacity bucket) and replayed; elsewhere it
runs eagerly (the same code, so CPU tests check the arithmetic against transformers). Weights are
read in place: `Policy.sync` copies new weights into the same tensors, so graphs stay valid; the
prefix region is refilled when the prefix or the weights version changes.
"""

from __future__ import annotations

import logging
from typing import Any

import torch
import torch.nn.functional as F

log = logging.getLogger(__name__)

SUPPORTED = ("llama", "mistral", "qwen2")
NEG = float("-inf")


def unsupported(model: Any) -> str | None:
    """Why `model` cannot use the static decoder (None when it can)."""
    conf = getattr(model, "config", None)
    kind = getattr(conf, "model_type", None)
    if kind not in SUPPORTED:
        return f"model type {kind!r} (supported: {', '.join(SUPPORTED)})"
    if getattr(conf, "hidden_act", "silu") != "silu":
        return f"activation {conf.hidden_act!r}"
    if getattr(conf, "use_sliding_window", False) or (
            kind == "mistral" and getattr(conf, "sliding_window", None)):
        return "sliding-window attention"
    if getattr(conf, "pretraining_tp", 1) != 1:
        return "pretraining_tp > 1"
    layers = getattr(getattr(model, "model", None), "layers", None)
    if not layers:
        return "no model.layers"
    att, mlp = layers[0].self_attn, layers[0].mlp
    for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
        if not hasattr(att, name):
            return f"attention without {name}"
    if any(hasattr(att, n) for n in ("q_norm", "k_norm")):
        return "query/key norms"
    if not all(hasattr(mlp, n) for n in ("gate_proj", "up_proj", "down_proj")):
        return "MLP is not gate/up/down"
    if getattr(mlp.gate_proj, "bias", None) is not None:
        return "MLP biases"
    return None


def _rms(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    """transformers' LlamaRMSNorm, operation for operation."""
    dtype = x.dtype
    h = x.float()
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
    return w * h.to(dtype)


def _rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    rot = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rot * sin


def _pow2(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


class StaticDecoder:
    """Prefill + static-shape decode for one model (see the module docstring)."""

    def __init__(self, model: Any, capacity_bucket: int = 128, prefill_rows: int = 128,
                 graphs: bool | None = None, compile_prefill: bool = False) -> None:
        self.model = model
        conf = model.config
        base = model.model
        att = base.layers[0].self_attn
        self.layers = base.layers
        self.h = conf.num_attention_heads
        self.hkv = getattr(conf, "num_key_value_heads", None) or self.h
        self.d = getattr(att, "head_dim", conf.hidden_size // self.h)
        self.rep = self.h // self.hkv
        self.scale = float(getattr(att, "scaling", self.d ** -0.5))
        self.eps = float(conf.rms_norm_eps)
        self.embed = base.embed_tokens.weight
        self.norm = base.norm.weight
        self.head = model.lm_head.weight
        self.rotary = base.rotary_emb
        self.cap_bucket, self.prefill_rows = capacity_bucket, prefill_rows
        self.dev = self.embed.device
        self.dtype = self.embed.dtype
        self.graphs = self.dev.type == "cuda" if graphs is None else graphs
        self._rows = self._cap = 0
        self.K: list[torch.Tensor] = []
        self.V: list[torch.Tensor] = []
        self._prefix_key: tuple[Any, ...] | None = None
        self._cos = self._sin = torch.empty(0)
        self._captured: dict[tuple[int, int], tuple[Any, torch.Tensor]] = {}
        self._pool: Any = None
        self._layer = self._layer_eager
        if compile_prefill:
            try:
                self._layer = torch.compile(self._layer_eager, dynamic=True)
            except Exception as exc:  # no compiler backend here: stay eager
                log.warning("prefill not compiled (%s)", exc)

    # ------------------------------------------------------------------ buffers

    def _ensure(self, rows: int, cap: int) -> None:
        """Buffers for at least `rows` x `cap` (reallocated, graphs dropped, when too small)."""
        if rows <= self._rows and cap <= self._cap:
            return
        rows, cap = max(rows, self._rows), max(cap, self._cap)
        shape = (rows, self.hkv, cap, self.d)
        self.K = [torch.zeros(shape, dtype=self.dtype, device=self.dev) for _ in self.layers]
        self.V = [torch.zeros(shape, dtype=self.dtype, device=self.dev) for _ in self.layers]
        self.mask = torch.full((rows, cap), NEG, dtype=self.dtype, device=self.dev)
        self.tok = torch.zeros(rows, dtype=torch.long, device=self.dev)
        self.pos = torch.zeros(rows, dtype=torch.long, device=self.dev)
        self.slot = torch.zeros(1, dtype=torch.long, device=self.dev)
        ids = torch.arange(cap + 1, device=self.dev)[None]
        cos, sin = self.rotary(self.embed[:1, None].expand(1, cap + 1, -1), ids)
        self._cos, self._sin = cos[0].to(self.dtype), sin[0].to(self.dtype)
        self._rows, self._cap = rows, cap
        self._prefix_key = None
        self._captured.clear()

    def _fill_prefix(self, prefix_cache: Any, key: tuple[Any, ...]) -> None:
        if self._prefix_key == key:
            return
        from rl.sampling import _cache_layers

        for i, (k, v) in enumerate(_cache_layers(prefix_cache)):
            p = k.shape[-2]
            self.K[i][:, :, :p].copy_(k[0].expand(self._rows, -1, -1, -1))
            self.V[i][:, :, :p].copy_(v[0].expand(self._rows, -1, -1, -1))
        self._prefix_key = key

    # ------------------------------------------------------------------ the step

    def _step(self, rows: int, cap: int) -> torch.Tensor:
        """One decoded token for rows [0, rows) over time [0, cap): reads `tok`, `pos`, `slot`,
        writes the keys/values at `slot`, advances `pos` and `slot`; returns the logits."""
        tok, pos, slot = self.tok[:rows], self.pos[:rows], self.slot
        mask = self.mask[:rows, :cap]
        mask.index_fill_(1, slot, 0.0)
        cos, sin = self._cos[pos][:, None], self._sin[pos][:, None]
        x = F.embedding(tok, self.embed)
        for i, layer in enumerate(self.layers):
            a, m = layer.self_attn, layer.mlp
            hn = _rms(x, layer.input_layernorm.weight, self.eps)
            q = F.linear(hn, a.q_proj.weight, a.q_proj.bias).view(rows, self.h, self.d)
            k = F.linear(hn, a.k_proj.weight, a.k_proj.bias).view(rows, self.hkv, self.d)
            v = F.linear(hn, a.v_proj.weight, a.v_proj.bias).view(rows, self.hkv, self.d)
            q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
            K, V = self.K[i][:rows], self.V[i][:rows]
            K.index_copy_(2, slot, k[:, :, None])
            V.index_copy_(2, slot, v[:, :, None])
            qg = q.view(rows, self.hkv, self.rep, self.d)
            scores = torch.matmul(qg, K[:, :, :cap].transpose(-1, -2)).float() * self.scale
            probs = torch.softmax(scores + mask[:, None, None, :].float(), dim=-1)
            out = torch.matmul(probs.to(self.dtype), V[:, :, :cap]).reshape(rows, self.h * self.d)
            x = x + F.linear(out, a.o_proj.weight, a.o_proj.bias)
            hn = _rms(x, layer.post_attention_layernorm.weight, self.eps)
            x = x + F.linear(F.silu(F.linear(hn, m.gate_proj.weight)) * F.linear(
                hn, m.up_proj.weight), m.down_proj.weight)
        logits = F.linear(_rms(x, self.norm, self.eps), self.head)
        pos.add_(1)
        slot.add_(1)
        return logits

    def _runner(self, rows: int, cap: int) -> Any:
        """A callable that runs one step (a replayed CUDA graph where available)."""
        if not self.graphs:
            return lambda: self._step(rows, cap)
        key = (rows, cap)
        if key not in self._captured:
            self._capture(rows, cap)
        graph, out = self._captured[key]

        def replay() -> torch.Tensor:
            graph.replay()
            return out
        return replay

    def _capture(self, rows: int, cap: int) -> None:
        """Record the step for (rows, cap). Runs before a prefill fills the buffers: the warm-up
        steps only write the slot after the prefix, which the prefill overwrites."""
        keep = torch.full_like(self.slot, cap - 1)  # a decode slot no prefill or step relies on
        self.pos.zero_()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):
                self.slot.copy_(keep)
                self._step(rows, cap)
        torch.cuda.current_stream().wait_stream(stream)
        self.slot.copy_(keep)
        if self._pool is None:
            self._pool = torch.cuda.graph_pool_handle()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self._pool):
            out = self._step(rows, cap)
        self.slot.copy_(keep)
        self._captured[(rows, cap)] = (graph, out)

    # ------------------------------------------------------------------ a batch

    @torch.no_grad()
    def start(self, prefix: list[int], prefix_cache: Any, prefix_key: tuple[Any, ...],
              suffixes: list[list[int]], pad: int, length_bucket: int,
              new_tokens: int) -> tuple[torch.Tensor, Any, list[int]]:
        """Prefill `suffixes` after the cached prefix. Returns (last logits per buffer row, a
        step callable that takes the sampled tokens and returns the next logits, `order`):
        buffer row j holds suffix order[j] (rows sorted by length, so each prefill chunk is a
        contiguous block padded only to its own longest row); rows past len(suffixes) up to
        the batch bucket are padding."""
        n, p = len(suffixes), len(prefix)
        rows = _pow2(max(n, 8))
        width = -(-max(len(s) for s in suffixes) // length_bucket) * length_bucket
        cap = -(-(p + width + new_tokens + 1) // self.cap_bucket) * self.cap_bucket
        self._ensure(rows, cap)
        run = self._runner(rows, cap)  # captured before the buffers are filled
        self._fill_prefix(prefix_cache, prefix_key)
        end = p + width
        self.mask[:rows].fill_(NEG)
        self.mask[:rows, :p] = 0.0
        self.tok[:rows].fill_(pad)
        self.pos[:rows].fill_(p)
        self.slot.fill_(end)
        first = torch.zeros((rows, self.head.shape[0]), dtype=self.dtype, device=self.dev)
        order = sorted(range(n), key=lambda i: len(suffixes[i]))
        for c in range(0, n, self.prefill_rows):
            block = [suffixes[i] for i in order[c:c + self.prefill_rows]]
            self._prefill(c, block, p, end, pad, length_bucket, first)
        return first, self._stepper(run), order

    def _prefill(self, c: int, rows: list[int], p: int, end: int, pad: int, bucket: int,
                 first: torch.Tensor) -> None:
        """Buffer rows [c, c + len(rows)): run the suffixes (left-padded to this block's width,
        ending at `end`) through the layers, attending to the prefix and causally to
        themselves; write their keys/values, mask, positions and last logits."""
        m = len(rows)
        width = -(-max(len(r) for r in rows) // bucket) * bucket
        ids = torch.full((m, width), pad, dtype=torch.long)
        valid = torch.zeros((m, width), dtype=torch.bool)
        for j, r in enumerate(rows):
            ids[j, width - len(r):] = torch.tensor(r)
            valid[j, width - len(r):] = True
        ids, valid = ids.to(self.dev), valid.to(self.dev)
        pos = (p + valid.long().cumsum(-1) - 1).clamp(min=p)
        causal = torch.ones((width, width), dtype=torch.bool, device=self.dev).tril()
        allowed = torch.cat([torch.ones((m, width, p), dtype=torch.bool, device=self.dev),
                             causal[None] & valid[:, None, :]], -1)
        allowed = allowed[:, None].repeat(1, 1, self.rep, 1)  # queries folded per kv head
        cos, sin = self._cos[pos][:, None], self._sin[pos][:, None]
        x = F.embedding(ids, self.embed)
        lo, hi = end - width, end
        for i, layer in enumerate(self.layers):
            a, mlp = layer.self_attn, layer.mlp
            x, k, v = self._layer(
                x, cos, sin, allowed, self.K[i][c:c + m, :, :p], self.V[i][c:c + m, :, :p],
                layer.input_layernorm.weight, a.q_proj.weight, a.q_proj.bias, a.k_proj.weight,
                a.k_proj.bias, a.v_proj.weight, a.v_proj.bias, a.o_proj.weight, a.o_proj.bias,
                layer.post_attention_layernorm.weight, mlp.gate_proj.weight, mlp.up_proj.weight,
                mlp.down_proj.weight)
            self.K[i][c:c + m, :, lo:hi] = k
            self.V[i][c:c + m, :, lo:hi] = v
        first[c:c + m] = F.linear(_rms(x[:, -1], self.norm, self.eps), self.head)
        self.mask[c:c + m, lo:hi] = torch.where(
            valid, torch.zeros((), dtype=self.dtype, device=self.dev),
            torch.full((), NEG, dtype=self.dtype, device=self.dev))
        self.pos[c:c + m] = p + valid.sum(-1)

    def _layer_eager(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                     allowed: torch.Tensor, kp: torch.Tensor, vp: torch.Tensor,
                     w_in: torch.Tensor, wq: torch.Tensor, bq: torch.Tensor | None,
                     wk: torch.Tensor, bk: torch.Tensor | None, wv: torch.Tensor,
                     bv: torch.Tensor | None, wo: torch.Tensor, bo: torch.Tensor | None,
                     w_post: torch.Tensor, wg: torch.Tensor, wu: torch.Tensor,
                     wd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """One decoder layer over a prefill block (weights as tensors, so that a compiled
        version serves every layer); returns (hidden, its keys, its values)."""
        m, n, _ = x.shape
        hn = _rms(x, w_in, self.eps)
        q = F.linear(hn, wq, bq).view(m, n, self.h, self.d).transpose(1, 2)
        k = F.linear(hn, wk, bk).view(m, n, self.hkv, self.d).transpose(1, 2)
        v = F.linear(hn, wv, bv).view(m, n, self.hkv, self.d).transpose(1, 2)
        q, k = _rotate(q, cos, sin), _rotate(k, cos, sin)
        keys, values = torch.cat([kp, k], 2), torch.cat([vp, v], 2)
        out = F.scaled_dot_product_attention(
            q.reshape(m, self.hkv, self.rep * n, self.d), keys, values, attn_mask=allowed,
            scale=self.scale)
        out = out.reshape(m, self.h, n, self.d).transpose(1, 2).reshape(m, n, self.h * self.d)
        x = x + F.linear(out, wo, bo)
        hn = _rms(x, w_post, self.eps)
        x = x + F.linear(F.silu(F.linear(hn, wg)) * F.linear(hn, wu), wd)
        return x, k, v

    def _stepper(self, run: Any) -> Any:
        def step(tokens: torch.Tensor) -> torch.Tensor:
            self.tok[:tokens.shape[0]].copy_(tokens)
            return run()
        return step
