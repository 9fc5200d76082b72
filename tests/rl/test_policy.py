"""Prompting, the strict action parser, batched sampling with the cached prefix."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from phoneworld.rl.actions import ActionParseError, format_action, parse_action_text
from phoneworld.rl.config import PromptConfig, SamplingConfig
from phoneworld.rl.model import tiny_tokenizer
from phoneworld.rl.prompting import CUT_MARK, PromptBuilder, StepView
from phoneworld.rl.sampling import BatchGenerator


@pytest.mark.parametrize("text", [
    '{"type":"click","element":3}', ' {"type": "type", "text": "milk", "element": 0} ',
    '{"type":"scroll","direction":"down"}', '{"type":"done","answer":"3"}',
    '{"type":"click","x":500,"y":120.5}', '{"type":"back"}',
])
def test_parser_accepts_the_action_format(text: str) -> None:
    assert parse_action_text(text)["type"]


@pytest.mark.parametrize("text", [
    'Sure! {"type":"click","element":3}', '{"type":"click"}', '{"type":"tap","element":1}',
    '{"type":"click","element":-1}', '{"type":"click","x":1200,"y":3}',
    '{"type":"back","reason":"x"}', '{"type":"scroll","direction":"sideways"}',
    '{"type":"click","element":1,"x":3,"y":4}', '{"type":"type"}', "[1, 2]", "{oops}",
], ids=["prose", "no-target", "unknown-type", "negative", "out-of-range", "extra-key",
        "bad-direction", "both-targets", "no-text", "list", "bad-json"])
def test_parser_rejects_everything_else(text: str) -> None:
    with pytest.raises(ActionParseError):
        parse_action_text(text)


def test_canonical_action_text() -> None:
    assert format_action({"element": 2, "type": "click"}) == '{"type":"click","element":2}'
    assert format_action({"type": "click", "x": 10.0, "y": 20}) == '{"type":"click","x":10,"y":20}'


def test_prompt_prefix_history_and_screen_budget() -> None:
    tok = tiny_tokenizer()
    b = PromptBuilder(tok, PromptConfig(system="Act.", history=2, max_screen_tokens=40))
    screen = "\n".join(f"[{i}] TextView \"item number {i}\"" for i in range(30))
    view = StepView("Add a note", ['{"type":"back"}', '{"type":"home"}', '{"type":"wait"}'], screen)
    suffix = b.suffixes([view])[0]
    text = tok.decode(suffix)
    assert "Add a note" in text and '2. {"type":"home"}' in text and "1. " not in text
    assert CUT_MARK in text and "[29]" not in text
    assert len(tok(b.clip_screen(screen), add_special_tokens=False)["input_ids"]) <= 60
    full = tok.apply_chat_template([{"role": "system", "content": "Act."},
                                    {"role": "user", "content": b.user_text(view, b.clip_screen(screen))}],
                                   tokenize=False, add_generation_prompt=True)
    assert tok.decode(b.prefix_ids + suffix) == full


def test_cached_prefix_sampling_matches_hf_generate(tiny_policy: Any) -> None:
    model, tok = tiny_policy.model, tiny_policy.tok
    b = tiny_policy.builder
    views = [StepView("Open settings", ["{}"] * i, "[0] Button \"Add\"\n" * (1 + 2 * i))
             for i in range(3)]
    suffixes = b.suffixes(views)
    outs = {}
    for cache in (True, False):
        gen = BatchGenerator(model, tok.eos_token_id, tok.pad_token_id,
                             SamplingConfig(cache_prefix=cache, batch_bucket=4, length_bucket=16), 6)
        outs[cache] = gen.generate(b.prefix_ids, suffixes, greedy=True)
    for i, s in enumerate(suffixes):
        ids = torch.tensor([b.prefix_ids + s])
        ref = model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=6,
                             do_sample=False)[0, ids.shape[1]:].tolist()
        assert outs[True][i].ids == ref[:len(outs[True][i].ids)]
        assert outs[False][i].ids == outs[True][i].ids
        assert outs[True][i].logprobs == pytest.approx(outs[False][i].logprobs, abs=1e-4)


def test_sampling_logprobs_equal_a_plain_forward(tiny_policy: Any) -> None:
    """What RL relies on: the log-probs recorded while sampling (prefix KV cache, left padding,
    preallocated cache, grouped attention) equal those of one plain forward pass over the whole
    row with transformers' own attention."""
    import copy

    assert tiny_policy.grouped_attention
    ref = copy.deepcopy(tiny_policy.model)
    ref.config._attn_implementation = "sdpa"
    b = tiny_policy.builder
    views = [StepView("Add a note", [], "[0] Button \"Add\"\n" * (1 + 3 * i)) for i in range(4)]
    suffixes = b.suffixes(views)
    gen = BatchGenerator(tiny_policy.model, tiny_policy.tok.eos_token_id,
                         tiny_policy.tok.pad_token_id, SamplingConfig(batch_bucket=8,
                                                                      length_bucket=16), 12)
    samples = gen.generate(b.prefix_ids, suffixes, seed=1)
    for s, sample in zip(suffixes, samples):
        prompt = b.prefix_ids + s
        ids = torch.tensor([prompt + sample.ids])
        with torch.no_grad():
            logp = torch.log_softmax(ref(input_ids=ids).logits[0].float(), -1)
        want = [logp[len(prompt) - 1 + t, tok].item() for t, tok in enumerate(sample.ids)]
        assert sample.logprobs == pytest.approx(want, abs=1e-4)


def test_policy_counts_unparseable_output_as_an_error(tiny_policy: Any) -> None:
    d = tiny_policy.act([StepView("Go back", [], "[0] Button \"OK\"")], seed=0)[0]
    assert d.action is None and d.error  # a random tiny model writes no JSON
    assert len(d.completion_ids) == len(d.logprobs) > 0 and d.version == 0
