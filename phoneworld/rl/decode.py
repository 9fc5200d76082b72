"""Static-shape decoding for Llama-family models: one preallocated KV buffer, prefill in sorted
chunks, and the per-token step as one CUDA graph per (batch, capacity) bucket.

Hugging Face's forward costs ~25 ms of Python and kernel launches per decoded token for a 30-layer
model whatever the batch, which bounds a step-wise rollout (32 tokens per action) well below a
thousand agent steps per second. Here the decode step is a plain function of the model's own
weights (embedding, RMSNorm, rotary, grouped-query attention, SwiGLU) over static buffers:

- `K`/`V`: one (batch, kv heads, capacity, head dim) buffer per layer. Time axis: the shared
  system-prompt prefix at [0, P) (copied once per weights version), every row's suffix from P
  on (right-padded), then the decoded tokens from the common slot P + L on (L: the batch's
  longest suffix, bucketed). Attention does not care where a key sits, only which keys are
  open and the rotary position baked into each, so rows need no alignment.
- An additive mask (batch, capacity) opens each row's real positions; the step opens the slot it
  writes, so the step needs no host work but copying the sampled tokens in.
- q/k/v and gate/up are fused into one matrix each (copies refreshed per weights version).
- Prefill runs the same layers over chunks of rows sorted by length (each chunk a contiguous
  block of buffer rows, padded only to its own longest row), attending lower-right causally to
  the buffer's own prefix-and-block view (the flash kernel on a GPU, grouped kv heads as they
  are), and writes its keys/values straight into the buffers.
- Optionally (`compile_layers`) the pieces around attention are compiled with `torch.compile`,
  which fuses the norms, rotary, softmax and the MLP's gating: one compile serves every layer.

On CUDA the step is captured once per (batch bucket, capacity bucket) and replayed; elsewhere it
runs eagerly (the same code, so CPU tests check the arithmetic against transformers). Weights are
read in place: `Policy.sync` copies new weights into the same tensors, so graphs stay valid; the
prefix region is refilled when the prefix or the weights version changes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch.nn.attention.bias import causal_lower_right

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


def _pre(x: torch.Tensor, norm: torch.Tensor, qkv: torch.Tensor, bias: torch.Tensor | None,
         cos: torch.Tensor, sin: torch.Tensor, h: int, hkv: int, d: int,
         eps: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """RMSNorm, the fused q/k/v projection and rotary over N tokens: x (N, hidden), cos and sin
    (N, 1, d) -> q (N, h, d), k and v (N, kv heads, d)."""
    n = x.shape[0]
    out = F.linear(_rms(x, norm, eps), qkv, bias)
    q, k, v = out.split((h * d, hkv * d, hkv * d), -1)
    q, k, v = q.reshape(n, h, d), k.reshape(n, hkv, d), v.reshape(n, hkv, d)
    return _rotate(q, cos, sin), _rotate(k, cos, sin), v


def _post(x: torch.Tensor, att: torch.Tensor, o: torch.Tensor, o_bias: torch.Tensor | None,
          norm: torch.Tensor, gate_up: torch.Tensor, down: torch.Tensor,
          eps: float) -> torch.Tensor:
    """The attention output projection, the residual, RMSNorm and the SwiGLU MLP over N
    tokens: x and att (N, hidden)."""
    x = x + F.linear(att, o, o_bias)
    gate, up = F.linear(_rms(x, norm, eps), gate_up).chunk(2, -1)
    return x + F.linear(F.silu(gate) * up, down)


def _attend_post(x: torch.Tensor, q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                 mask: torch.Tensor, o: torch.Tensor, o_bias: torch.Tensor | None,
                 norm: torch.Tensor, gate_up: torch.Tensor, down: torch.Tensor, hkv: int,
                 scale: float, eps: float) -> torch.Tensor:
    """One decoded token per row: attention of q (rows, h, d) over the buffers (rows, kv
    heads, capacity, d), queries grouped per kv head so the buffers are read once per kv head;
    then `_post`."""
    rows, h, d = q.shape
    qg = q.reshape(rows, hkv, h // hkv, d)
    scores = torch.matmul(qg, keys.transpose(-1, -2)).float() * scale
    probs = torch.softmax(scores + mask[:, None, None, :].float(), dim=-1)
    att = torch.matmul(probs.to(values.dtype), values).reshape(rows, h * d)
    return _post(x, att, o, o_bias, norm, gate_up, down, eps)


_COMPILED: dict[str, Callable[..., Any]] = {}


def _compiled(fn: Callable[..., Any], on: bool) -> Callable[..., Any]:
    """`fn` under torch.compile, falling back to `fn` itself for good if compiling fails on
    this machine. One compiled version per function for the whole process (the functions take
    plain tensors and ints, so every decoder, layer, batch and length shares it). Callers pass
    token-major 2-D activations: once a second token count has been seen (automatic dynamic
    shapes) only that dimension is symbolic and the kernels index with constant strides (all
    dimensions symbolic measured 2.5x slower on the MLP's gating)."""
    if not on:
        return fn
    if fn.__name__ not in _COMPILED:
        state: dict[str, Callable[..., Any]] = {"fn": torch.compile(fn)}

        def call(*args: Any) -> Any:
            try:
                return state["fn"](*args)
            except Exception as exc:  # no working compiler backend: stay eager
                if state["fn"] is fn:
                    raise
                log.warning("torch.compile of %s failed (%s); running it eagerly",
                            fn.__name__, exc)
                state["fn"] = fn
                return fn(*args)
        _COMPILED[fn.__name__] = call
    return _COMPILED[fn.__name__]


@dataclass
class _Layer:
    """One decoder layer's weights, q/k/v and gate/up fused into one matrix each (copies,
    refreshed in place per weights version); the others are the model's own tensors."""

    norm_in: torch.Tensor
    qkv: torch.Tensor
    qkv_bias: torch.Tensor | None
    o: torch.Tensor
    o_bias: torch.Tensor | None
    norm_post: torch.Tensor
    gate_up: torch.Tensor
    down: torch.Tensor
    module: Any

    @classmethod
    def of(cls, layer: Any) -> "_Layer":
        a, m = layer.self_attn, layer.mlp
        qkv, bias, gate_up = cls._fused(layer)
        return cls(layer.input_layernorm.weight, qkv, bias, a.o_proj.weight, a.o_proj.bias,
                   layer.post_attention_layernorm.weight, gate_up, m.down_proj.weight, layer)

    @staticmethod
    def _fused(layer: Any) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor]:
        a, m = layer.self_attn, layer.mlp
        projs = (a.q_proj, a.k_proj, a.v_proj)
        bias = None
        if all(p.bias is not None for p in projs):
            bias = torch.cat([p.bias for p in projs])
        elif any(p.bias is not None for p in projs):  # some biased: zeros stand in for the rest
            bias = torch.cat([p.bias if p.bias is not None else
                              p.weight.new_zeros(p.weight.shape[0]) for p in projs])
        return (torch.cat([p.weight for p in projs]), bias,
                torch.cat([m.gate_proj.weight, m.up_proj.weight]))

    def refresh(self) -> None:
        qkv, bias, gate_up = self._fused(self.module)
        self.qkv.copy_(qkv)
        self.gate_up.copy_(gate_up)
        if bias is not None and self.qkv_bias is not None:
            self.qkv_bias.copy_(bias)


class StaticDecoder:
    """Prefill + static-shape decode for one model (see the module docstring)."""

    def __init__(self, model: Any, capacity_bucket: int = 128, prefill_rows: int = 128,
                 graphs: bool | None = None, compile_layers: bool = False) -> None:
        self.model = model
        conf = model.config
        base = model.model
        att = base.layers[0].self_attn
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
        with torch.no_grad():
            self.w = [_Layer.of(layer) for layer in base.layers]
        self._version: Any = None  # the weights version the fused copies hold
        self._rows = self._cap = 0
        self.K: list[torch.Tensor] = []
        self.V: list[torch.Tensor] = []
        self._prefix_key: tuple[Any, ...] | None = None
        self._cos = self._sin = torch.empty(0)
        self._captured: dict[tuple[int, int], tuple[Any, torch.Tensor]] = {}
        self._pool: Any = None
        self._gqa: bool | None = None  # whether attention takes grouped kv heads (None: untried)
        self._pre = _compiled(_pre, compile_layers)
        self._post = _compiled(_post, compile_layers)
        self._attend_post = _compiled(_attend_post, compile_layers)

    # ------------------------------------------------------------------ buffers

    def _ensure(self, rows: int, cap: int) -> None:
        """Buffers for at least `rows` x `cap` (reallocated, graphs dropped, when too small)."""
        if rows <= self._rows and cap <= self._cap:
            return
        rows, cap = max(rows, self._rows), max(cap, self._cap)
        shape = (rows, self.hkv, cap, self.d)
        self.K = [torch.zeros(shape, dtype=self.dtype, device=self.dev) for _ in self.w]
        self.V = [torch.zeros(shape, dtype=self.dtype, device=self.dev) for _ in self.w]
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
        from phoneworld.rl.sampling import _cache_layers

        for i, (k, v) in enumerate(_cache_layers(prefix_cache)):
            p = k.shape[-2]
            self.K[i][:, :, :p].copy_(k[0].expand(self._rows, -1, -1, -1))
            self.V[i][:, :, :p].copy_(v[0].expand(self._rows, -1, -1, -1))
        self._prefix_key = key

    # ------------------------------------------------------------------ layer pieces

    def _attend_block(self, q: torch.Tensor, keys: torch.Tensor, values: torch.Tensor,
                      causal: Any) -> torch.Tensor:
        """Prefill attention: q (B, h, W, d) over keys/values (B, kv heads, S, d), lower-right
        causal. Grouped-query heads go to the kernel as they are where it takes them (flash
        on a GPU); otherwise the kv heads are repeated as transformers' repeat_kv does."""
        if self.rep > 1 and self._gqa is not False:
            try:
                out = F.scaled_dot_product_attention(q, keys, values, attn_mask=causal,
                                                     scale=self.scale, enable_gqa=True)
                self._gqa = True
                return out
            except (RuntimeError, TypeError, ValueError) as exc:
                if self._gqa:
                    raise
                log.info("grouped-query prefill attention unavailable (%s): repeating kv "
                         "heads", exc)
                self._gqa = False
        if self.rep > 1:
            b, _, s, d = keys.shape
            keys, values = (t[:, :, None].expand(b, self.hkv, self.rep, s, d).reshape(
                b, self.h, s, d) for t in (keys, values))
        return F.scaled_dot_product_attention(q, keys, values, attn_mask=causal,
                                              scale=self.scale)

    # ------------------------------------------------------------------ the step

    def _step(self, rows: int, cap: int) -> torch.Tensor:
        """One decoded token for rows [0, rows) over time [0, cap): reads `tok`, `pos`, `slot`,
        writes the keys/values at `slot`, advances `pos` and `slot`; returns the logits."""
        tok, pos, slot = self.tok[:rows], self.pos[:rows], self.slot
        mask = self.mask[:rows, :cap]
        mask.index_fill_(1, slot, 0.0)
        cos, sin = self._cos[pos][:, None], self._sin[pos][:, None]
        x = F.embedding(tok, self.embed)
        for i, w in enumerate(self.w):
            q, k, v = self._pre(x, w.norm_in, w.qkv, w.qkv_bias, cos, sin, self.h, self.hkv,
                                self.d, self.eps)
            K, V = self.K[i][:rows], self.V[i][:rows]
            K.index_copy_(2, slot, k[:, :, None])
            V.index_copy_(2, slot, v[:, :, None])
            x = self._attend_post(x, q, K[:, :, :cap], V[:, :, :cap], mask, w.o, w.o_bias,
                                  w.norm_post, w.gate_up, w.down, self.hkv, self.scale,
                                  self.eps)
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
        steps (which also compile the layer pieces when asked) only write the slot after the
        prefix, which the prefill overwrites."""
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
    def start(self, prefix: list[int], prefix_cache: Any, version: Any,
              suffixes: list[list[int]], pad: int, length_bucket: int,
              new_tokens: int) -> tuple[torch.Tensor, Any, list[int]]:
        """Prefill `suffixes` after the cached prefix (computed under weights `version`).
        Returns (last logits per buffer row, a step callable that takes the sampled tokens and
        returns the next logits, `order`): buffer row j holds suffix order[j] (rows sorted by
        length, so each prefill chunk is padded only to its own longest row); rows past
        len(suffixes) up to the batch bucket are padding."""
        if version != self._version:
            for w in self.w:
                w.refresh()
            self._version = version
        n, p = len(suffixes), len(prefix)
        rows = _pow2(max(n, 8))
        width = -(-max(len(s) for s in suffixes) // length_bucket) * length_bucket
        cap = -(-(p + width + new_tokens + 1) // self.cap_bucket) * self.cap_bucket
        self._ensure(rows, cap)
        run = self._runner(rows, cap)  # captured before the buffers are filled
        self._fill_prefix(prefix_cache, (tuple(prefix), version))
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
            self._prefill(c, block, p, pad, length_bucket, first)
        return first, self._stepper(run), order

    def _prefill(self, c: int, rows: list[list[int]], p: int, pad: int, bucket: int,
                 first: torch.Tensor) -> None:
        """Buffer rows [c, c + len(rows)): run the suffixes, right-padded to this block's
        width W, through the layers and write their keys/values to [p, p + W) (the mask opens
        each row's real tokens; any slots up to the decode start stay masked). Attention is
        lower-right causal over the buffer's own [0, p + W) view: the prefix, then causally the
        block, so the fused flash kernel serves it on a GPU with no copy of the keys."""
        m = len(rows)
        width = -(-max(len(r) for r in rows) // bucket) * bucket
        ids = torch.full((m, width), pad, dtype=torch.long)
        for j, r in enumerate(rows):
            ids[j, :len(r)] = torch.tensor(r)
        lens = torch.tensor([len(r) for r in rows])
        ids, lens = ids.to(self.dev, non_blocking=True), lens.to(self.dev, non_blocking=True)
        tokens = m * width  # token-major (see `_compiled`)
        cos, sin = (t[None, p:p + width].expand(m, -1, -1).reshape(tokens, 1, self.d)
                    for t in (self._cos, self._sin))
        span = p + width
        causal = causal_lower_right(width, span)
        x = F.embedding(ids, self.embed).reshape(tokens, -1)
        for i, w in enumerate(self.w):
            q, k, v = self._pre(x, w.norm_in, w.qkv, w.qkv_bias, cos, sin, self.h, self.hkv,
                                self.d, self.eps)
            K, V = self.K[i][c:c + m], self.V[i][c:c + m]
            K[:, :, p:span] = k.view(m, width, self.hkv, self.d).transpose(1, 2)
            V[:, :, p:span] = v.view(m, width, self.hkv, self.d).transpose(1, 2)
            att = self._attend_block(q.view(m, width, self.h, self.d).transpose(1, 2),
                                     K[:, :, :span], V[:, :, :span], causal)
            att = att.transpose(1, 2).reshape(tokens, self.h * self.d)
            x = self._post(x, att, w.o, w.o_bias, w.norm_post, w.gate_up, w.down, self.eps)
        last = x.view(m, width, -1)[torch.arange(m, device=self.dev), lens - 1]
        first[c:c + m] = F.linear(_rms(last, self.norm, self.eps), self.head)
        valid = torch.arange(width, device=self.dev)[None] < lens[:, None]
        self.mask[c:c + m, p:span] = torch.where(
            valid, torch.zeros((), dtype=self.dtype, device=self.dev),
            torch.full((), NEG, dtype=self.dtype, device=self.dev))
        self.pos[c:c + m] = p + lens

    def _stepper(self, run: Any) -> Any:
        def step(tokens: torch.Tensor) -> torch.Tensor:
            self.tok[:tokens.shape[0]].copy_(tokens)
            return run()
        return step
