"""SFT: oracle demonstrations become step rows identical to RL prompts; one TRL SFTTrainer step
changes the weights; the result reloads with `from_pretrained`."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from phoneworld.rl.actions import parse_action_text
from phoneworld.rl.config import load_config
from phoneworld.rl.model import tiny_tokenizer
from phoneworld.rl.prompting import PromptBuilder
from phoneworld.rl.sft_config import SFTConfig
from phoneworld.rl.sft_data import file_steps, oracle_steps, to_rows

from .conftest import SMALL_PROMPT


def sft_config(app: str, out: Path, **extra: object) -> SFTConfig:
    over = {"tasks.apps": [app], "demos_per_task": 1, "output_dir": str(out), "max_steps": 1,
            "batch_size": 2, "resume": False, "model.device": "cpu", "learning_rate": 1e-3,
            "warmup_ratio": 0.0, "lr_scheduler": "constant",
            **{f"prompt.{k}": v for k, v in SMALL_PROMPT.items()}, **extra}
    return load_config(SFTConfig, None, over)


def test_oracle_demos_use_element_ids_and_replay(app_dir: str) -> None:
    from phoneworld.rl.assembly import app_tasks

    tid = next(t for t in app_tasks(app_dir).ids() if t.startswith("create"))
    steps = oracle_steps(app_dir, tid, seed=1)
    assert steps and all(parse_action_text(s["action"]) for s in steps)
    assert any('"element"' in s["action"] for s in steps)
    assert steps[-1]["action"].startswith('{"type":"done"') or len(steps) >= 2
    assert steps[1]["history"] == [steps[0]["action"]]


def test_rows_mask_only_the_action(app_dir: str) -> None:
    from phoneworld.rl.config import PromptConfig

    b = PromptBuilder(tiny_tokenizer(), PromptConfig(**SMALL_PROMPT))
    from phoneworld.rl.assembly import app_tasks

    tid = next(t for t in app_tasks(app_dir).ids() if t.startswith("setting_"))
    steps = oracle_steps(app_dir, tid, seed=0)
    assert steps
    rows = to_rows(steps, b)
    for s, r in zip(steps, rows):
        masked = [t for t, m in zip(r["input_ids"], r["completion_mask"]) if m]
        assert masked == b.completion_ids(s["action"])
        assert r["input_ids"][:len(b.prefix_ids)] == b.prefix_ids


def test_demo_files_in_the_demos_format(tmp_path: Path) -> None:
    f = tmp_path / "demos.jsonl"
    rec = {"instruction": "Turn on Dark mode", "steps": [
        {"observation": "[0] Settings", "action": {"type": "click", "element": 0}},
        {"observation": "[0] Dark mode on", "action": {"type": "done"}}]}
    f.write_text(json.dumps(rec) + "\n")
    steps = file_steps(f)
    assert [s["action"] for s in steps] == ['{"type":"click","element":0}', '{"type":"done"}']
    assert steps[1]["history"] == ['{"type":"click","element":0}']


def test_one_sft_step_changes_the_weights(app_dir: str, tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM

    from phoneworld.rl.model import load_model
    from phoneworld.rl.sft_trainer import run_sft

    cfg = sft_config(app_dir, tmp_path / "sft")
    initial, _ = load_model(cfg.model)
    final = run_sft(cfg)
    trained = AutoModelForCausalLM.from_pretrained(final)
    changed = [not torch.equal(a, b) for a, b in
               zip(initial.state_dict().values(), trained.state_dict().values())]
    assert any(changed)
    assert (final / "tokenizer.json").is_file()
