"""The static decoder (phoneworld.rl.decode) against transformers' own decoding loop."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from phoneworld.rl import decode
from phoneworld.rl.config import SamplingConfig
from phoneworld.rl.decode import StaticDecoder, unsupported
from phoneworld.rl.prompting import StepView
from phoneworld.rl.sampling import BatchGenerator


def _gens(policy: Any, new: int, **cfg: Any) -> tuple[BatchGenerator, BatchGenerator]:
    tok = policy.tok
    static = BatchGenerator(policy.model, tok.eos_token_id, tok.pad_token_id,
                            SamplingConfig(**cfg), new)
    plain = BatchGenerator(policy.model, tok.eos_token_id, tok.pad_token_id,
                           SamplingConfig(static_decode=False, **cfg), new)
    return static, plain


def _views(n: int) -> list[StepView]:
    return [StepView(f"Task {i % 3}", ['{"type":"back"}'] * (i % 4),
                     "[0] Button \"Add\"\n" * (1 + (7 * i) % 11)) for i in range(n)]


def test_the_tiny_llama_is_supported(tiny_policy: Any) -> None:
    assert unsupported(tiny_policy.model) is None
    gen, _ = _gens(tiny_policy, 4)
    assert isinstance(gen.static, StaticDecoder)
    assert gen.static._pre is decode._pre  # compile_layers None: compiled on a GPU only
    forced, _ = _gens(tiny_policy, 4, compile_layers=True)
    assert forced.static is not None and forced.static._pre is not decode._pre


@pytest.mark.parametrize("rows,chunk", [(1, 128), (5, 2), (13, 4)])
def test_static_decoding_equals_the_plain_loop(tiny_policy: Any, rows: int, chunk: int) -> None:
    """Greedy tokens are identical and log-probs agree, whatever the batch (padded up to a power
    of two), the prefill chunking and the length mix."""
    b = tiny_policy.builder
    suffixes = b.suffixes(_views(rows))
    static, plain = _gens(tiny_policy, 10, prefill_rows=chunk, batch_bucket=4, length_bucket=16)
    got = static.generate(b.prefix_ids, suffixes, greedy=True)
    want = plain.generate(b.prefix_ids, suffixes, greedy=True)
    assert static.timing["padded_rows"] >= rows and plain.timing["decode_steps"] > 0
    for g, w in zip(got, want):
        assert g.ids == w.ids and g.finished == w.finished
        assert g.logprobs == pytest.approx(w.logprobs, abs=1e-4)


def test_buffers_are_reused_and_follow_new_weights(tiny_policy: Any) -> None:
    """A second, longer batch grows the buffers; after the weights change and `invalidate()`,
    the prefix region is recomputed (a stale prefix would change every output)."""
    b = tiny_policy.builder
    static, plain = _gens(tiny_policy, 6)
    short = b.suffixes(_views(3))
    long = b.suffixes([StepView("Long", [], "[1] TextView \"row\"\n" * 9)] * 2)
    for batch in (short, long, short):
        assert [s.ids for s in static.generate(b.prefix_ids, batch, greedy=True)] == \
               [s.ids for s in plain.generate(b.prefix_ids, batch, greedy=True)]
    with torch.no_grad():
        for p in tiny_policy.model.parameters():
            p.mul_(1.5)
    static.invalidate()
    plain.invalidate()
    a = static.generate(b.prefix_ids, long, greedy=True)
    c = plain.generate(b.prefix_ids, long, greedy=True)
    assert [s.ids for s in a] == [s.ids for s in c]
    assert [s.logprobs for s in a] == [pytest.approx(s.logprobs, abs=1e-4) for s in c]


def test_sampled_logprobs_are_those_of_the_sampled_tokens(tiny_policy: Any) -> None:
    b = tiny_policy.builder
    suffixes = b.suffixes(_views(6))
    static, _ = _gens(tiny_policy, 8, temperature=0.7)
    samples = static.generate(b.prefix_ids, suffixes, seed=3)
    model = tiny_policy.model
    for s, sample in zip(suffixes, samples):
        prompt = b.prefix_ids + s
        with torch.no_grad():
            logits = model(input_ids=torch.tensor([prompt + sample.ids])).logits[0].float()
        logp = torch.log_softmax(logits / 0.7, -1)
        want = [logp[len(prompt) - 1 + t, tok].item() for t, tok in enumerate(sample.ids)]
        assert sample.logprobs == pytest.approx(want, abs=1e-4)


def test_other_architectures_fall_back(tiny_policy: Any) -> None:
    class Fake:
        config = type("C", (), {"model_type": "gpt2"})()

    assert "gpt2" in (unsupported(Fake()) or "")


def test_compiled_prefill_equals_the_eager_one(tiny_policy: Any) -> None:
    """torch.compile of the prefill layer (one compile serves every layer and block shape)."""
    b = tiny_policy.builder
    suffixes = b.suffixes(_views(7))
    tok = tiny_policy.tok
    comp = BatchGenerator(tiny_policy.model, tok.eos_token_id, tok.pad_token_id,
                          SamplingConfig(compile_layers=True, prefill_rows=3), 6)
    _, plain = _gens(tiny_policy, 6)
    got = comp.generate(b.prefix_ids, suffixes, greedy=True)
    want = plain.generate(b.prefix_ids, suffixes, greedy=True)
    assert [s.ids for s in got] == [s.ids for s in want]
    for g, w in zip(got, want):
        assert g.logprobs == pytest.approx(w.logprobs, abs=1e-4)


def test_repeated_kv_heads_equal_grouped_attention(tiny_policy: Any) -> None:
    """Where the attention kernel does not take grouped kv heads, the prefill repeats them
    (as transformers' repeat_kv); both routes give the plain loop's tokens."""
    b = tiny_policy.builder
    suffixes = b.suffixes(_views(5))
    static, plain = _gens(tiny_policy, 6, prefill_rows=2)
    assert static.static is not None and static.static.rep > 1
    want = plain.generate(b.prefix_ids, suffixes, greedy=True)
    for grouped in (None, False):
        static.static._gqa = grouped
        got = static.generate(b.prefix_ids, suffixes, greedy=True)
        assert [s.ids for s in got] == [s.ids for s in want]
        for g, w in zip(got, want):
            assert g.logprobs == pytest.approx(w.logprobs, abs=1e-4)
    assert static.static._gqa is False
