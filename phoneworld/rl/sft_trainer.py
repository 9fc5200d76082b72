"""SFT on step rows with TRL's `SFTTrainer`.

Rows are tokenized by rl's own `PromptBuilder` (so SFT, RL and evaluation see identical ids) and
handed to `SFTTrainer` pre-tokenized (`input_ids` + `completion_mask`): TRL builds the labels
(completion-only loss), pads, batches, schedules, checkpoints and resumes. The GGUF quantizer is
removed at load (`phoneworld.rl.model.strip_quantizer`), since `Trainer` refuses a quantized
model. The final model is saved to `output_dir/final`, a folder that `from_pretrained` and
`init_from` accept.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from phoneworld.rl.assembly import splits, world_splits
from phoneworld.rl.config import to_dict
from phoneworld.rl.model import load_model, save_model
from phoneworld.rl.prompting import PromptBuilder
from phoneworld.rl.sft_config import SFTConfig
from phoneworld.rl.sft_data import file_steps, oracle_demos, to_rows

log = logging.getLogger(__name__)


def demo_jobs(cfg: SFTConfig) -> list[tuple[str, str, int]]:
    """(app, task, seed) of every oracle demonstration, training tasks only."""
    jobs = []
    for sp in splits(cfg.tasks, cfg.tasks.apps) + world_splits(cfg.tasks):
        if sp.name not in ("train", "train_cross_app"):
            continue
        for tid in sp.ids:
            jobs += [(sp.app, tid, 10_000 + cfg.seed * 1000 + i) for i in range(cfg.demos_per_task)]
    return jobs


def demo_steps(cfg: SFTConfig) -> list[dict[str, Any]]:
    """Step records of every demonstration (run before the model loads: the oracle may fork)."""
    steps = oracle_demos(demo_jobs(cfg), cfg.demo_workers) if cfg.demos_per_task else []
    for f in cfg.demo_files:
        steps += file_steps(Path(f))
    return steps


def build_rows(cfg: SFTConfig, tokenizer: Any,
               steps: list[dict[str, Any]] | None = None) -> list[dict[str, list[int]]]:
    steps = demo_steps(cfg) if steps is None else steps
    rows = to_rows(steps, PromptBuilder(tokenizer, cfg.prompt))
    random.Random(cfg.seed).shuffle(rows)
    log.info("SFT: %d rows from %d step records", len(rows), len(steps))
    return rows


def trl_args(cfg: SFTConfig, use_cpu: bool) -> Any:
    from trl import SFTConfig as TRLSFTConfig

    return TRLSFTConfig(
        output_dir=cfg.output_dir, num_train_epochs=cfg.epochs, max_steps=cfg.max_steps,
        learning_rate=cfg.learning_rate, lr_scheduler_type=cfg.lr_scheduler,
        warmup_steps=cfg.warmup_ratio, per_device_train_batch_size=cfg.batch_size,
        gradient_accumulation_steps=cfg.grad_accum, max_length=cfg.max_length,
        completion_only_loss=True, packing=False, bf16=cfg.bf16 and not use_cpu,
        use_cpu=use_cpu, logging_steps=cfg.logging_steps, report_to="none",
        save_strategy="steps" if cfg.save_steps else "no", save_steps=cfg.save_steps or 500,
        save_total_limit=2, seed=cfg.seed, dataloader_num_workers=0,
        disable_tqdm=True, remove_unused_columns=True,
    )


def run_sft(cfg: SFTConfig, callbacks: list[Any] | None = None,
            on_log: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """Fine-tune and return the final model folder."""
    from datasets import Dataset
    from transformers import TrainerCallback
    from trl import SFTTrainer

    steps = demo_steps(cfg)
    model, tok = load_model(cfg.model)
    rows = build_rows(cfg, tok, steps)
    if not rows:
        raise RuntimeError("no SFT rows: the oracle solved no training task and no demo file "
                           "was given")
    use_cpu = next(model.parameters()).device.type == "cpu"

    deadline = time.monotonic() + cfg.time_budget_s if cfg.time_budget_s else None

    class _Log(TrainerCallback):  # type: ignore[misc]
        def on_log(self, args: Any, state: Any, control: Any, logs: Any = None,
                   **kw: Any) -> None:
            if on_log and logs:
                on_log({"step": state.global_step, "max_steps": state.max_steps, **logs})

        def on_step_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
            if deadline is not None and time.monotonic() > deadline:
                log.info("SFT time budget reached at step %d", state.global_step)
                control.should_training_stop = True

    trainer = SFTTrainer(model=model, args=trl_args(cfg, use_cpu),
                         train_dataset=Dataset.from_list(rows), processing_class=tok,
                         callbacks=[*(callbacks or []), _Log()])
    out = Path(cfg.output_dir)
    resume = cfg.resume and any(out.glob("checkpoint-*"))
    trainer.train(resume_from_checkpoint=True if resume else None)
    final = out / "final"
    save_model(trainer.model, tok, final)
    (final / "rl_sft_config.json").write_text(json.dumps(to_dict(cfg), indent=1))
    return final
