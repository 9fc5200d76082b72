"""Fixtures of the rl tests: the example app, a tiny policy, small configs, a fake judge server.

Everything runs on the CPU with a tiny random Llama and a byte-level tokenizer built offline;
prompts are kept short (a one-word system prompt, a small screen budget) so tests stay fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch", reason="the rl extra is not installed (pip install -e '.[rl]')")
pytest.importorskip("trl", reason="the rl extra is not installed (pip install -e '.[rl]')")

from phoneworld.rl.config import ModelConfig, PromptConfig, SamplingConfig  # noqa: E402

from .judge_server import JudgeServer  # noqa: E402

SMALL_PROMPT = {"system": "Act.", "max_screen_tokens": 160, "history": 2, "max_new_tokens": 8}


@pytest.fixture(scope="session")
def app_dir(example_dir: Path) -> str:
    return str(example_dir)


@pytest.fixture
def prompt_cfg() -> PromptConfig:
    return PromptConfig(**SMALL_PROMPT)


@pytest.fixture
def tiny_policy(prompt_cfg: PromptConfig) -> Any:
    from phoneworld.rl.assembly import load_policy

    return load_policy(ModelConfig(name_or_path="tiny", device="cpu"), prompt_cfg,
                       SamplingConfig(batch_bucket=8, length_bucket=16))


def grpo_overrides(app: str, out: Path, **extra: Any) -> dict[str, Any]:
    base = {"tasks.apps": [app], "real_ratio": 0.0, "tasks.train_max_steps": 2,
            "group_size": 2, "groups_per_update": 1, "updates": 1, "output_dir": str(out),
            "model.device": "cpu", "learning_rate": 1e-3, "resume": False,
            **{f"prompt.{k}": v for k, v in SMALL_PROMPT.items()},
            "sources": [{"name": "mock", "kind": "sim", "groups_per_batch": 2}]}
    base.update(extra)
    return base


@pytest.fixture
def judge_server() -> Any:
    server = JudgeServer()
    server.start()
    yield server
    server.stop()
