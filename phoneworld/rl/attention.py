"""Grouped-query attention without copying keys and values, for padded batches.

With a padding mask, transformers' SDPA path repeats every key/value head `n_rep` times before
attending (`repeat_kv`; newer releases avoid it only for single-token decoding). For SmolLM2 (9
query heads over 3 KV heads) at a thousand rows that copy is three times the whole KV cache per
layer and token, and dominates decoding. Here the `n_rep` query heads of a KV head are folded into
the query-length axis instead ((B, Hkv * n_rep, q, D) -> (B, Hkv, n_rep * q, D), the mask tiled to
match): each query row still attends independently, so the result is identical, and nothing is
copied. Registered as the attention implementation `rl_sdpa` (mask: the SDPA mask).
"""

from __future__ import annotations

from typing import Any

import torch

NAME = "rl_sdpa"


def grouped_sdpa(module: Any, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                 attention_mask: torch.Tensor | None, dropout: float = 0.0,
                 scaling: float | None = None, is_causal: bool | None = None,
                 **kwargs: Any) -> tuple[torch.Tensor, None]:
    """An attention function with transformers' signature; returns (B, q, H, D)."""
    b, h, q, d = query.shape
    hkv = key.shape[1]
    rep = h // hkv
    drop = dropout if module.training else 0.0
    if attention_mask is None:
        causal = q > 1 and (is_causal if is_causal is not None else getattr(module, "is_causal",
                                                                              True))
        if rep > 1:  # the fused kernels want as many kv heads as query heads
            n = key.shape[-2]
            key = key[:, :, None].expand(b, hkv, rep, n, d).reshape(b, h, n, d)
            value = value[:, :, None].expand(b, hkv, rep, n, d).reshape(b, h, n, d)
        out = torch.nn.functional.scaled_dot_product_attention(
            query, key, value, dropout_p=drop, scale=scaling, is_causal=causal)
        return out.transpose(1, 2).contiguous(), None
    mask = attention_mask[:, :, :, :key.shape[-2]]
    if rep > 1:
        query = query.reshape(b, hkv, rep * q, d)
        if mask.shape[2] > 1:
            mask = _tiled(attention_mask, mask, rep)
    out = torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=mask, dropout_p=drop, scale=scaling)
    out = out.reshape(b, h, q, d)
    return out.transpose(1, 2).contiguous(), None


_TILED: list[Any] = []  # (the mask object, rep, its tiled copy): one forward's layers share it


def _tiled(source: torch.Tensor, mask: torch.Tensor, rep: int) -> torch.Tensor:
    """`mask` tiled `rep` times along the query axis, computed once per forward rather than once
    per layer (the entry holds `source`, so its id cannot be reused while cached)."""
    if _TILED and _TILED[0][0] is source and _TILED[0][1] == rep and \
            _TILED[0][2].shape[-1] == mask.shape[-1]:
        return _TILED[0][2]
    tiled = mask.repeat(1, 1, rep, 1)
    _TILED[:] = [(source, rep, tiled)]
    return tiled


def register() -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(NAME, grouped_sdpa)
    AttentionMaskInterface.register(NAME, sdpa_mask)


def use_grouped_attention(model: Any) -> bool:
    """Switch a model that runs SDPA to `rl_sdpa`; False when it cannot (it keeps its own)."""
    try:
        register()
        if getattr(model.config, "_attn_implementation", None) not in ("sdpa", NAME):
            return False
        model.config._attn_implementation = NAME
        return True
    except (ImportError, AttributeError, ValueError, KeyError):
        return False
