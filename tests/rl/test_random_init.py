"""Random initialisation from a model folder's config (speed runs), reproducible per seed."""

from __future__ import annotations

from pathlib import Path

import torch

from phoneworld.rl.config import ModelConfig
from phoneworld.rl.model import load_model


def test_random_init_is_seeded(tmp_path: Path) -> None:
    """`random_init` builds the architecture from the config alone, reproducibly per seed."""
    model, tok = load_model(ModelConfig(name_or_path="tiny", device="cpu"))
    model.save_pretrained(tmp_path / "m")
    tok.save_pretrained(tmp_path / "m")
    draws = [load_model(ModelConfig(name_or_path=str(tmp_path / "m"), device="cpu",
                                    random_init=True, seed=s))[0] for s in (1, 1, 2)]
    first = [p.detach() for p in draws[0].parameters()]
    assert all(torch.equal(a, b) for a, b in zip(first, draws[1].parameters()))
    assert not all(torch.equal(a, b) for a, b in zip(first, draws[2].parameters()))
