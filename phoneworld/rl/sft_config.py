"""Configuration of supervised fine-tuning on oracle demonstrations and demonstration files."""

from __future__ import annotations

from dataclasses import dataclass

from phoneworld.rl.config import ModelConfig, PromptConfig, TaskConfig, check, h


@dataclass
class SFTConfig:
    """SFT with TRL's `SFTTrainer` on step rows (completion-only loss on the action tokens)."""

    model: ModelConfig = h("The model to fine-tune.", factory=ModelConfig)
    prompt: PromptConfig = h("The step prompt (must match the RL and eval configs).",
                             factory=PromptConfig)
    tasks: TaskConfig = h("Apps and splits: demonstrations come from training tasks only.",
                          factory=TaskConfig)
    demos_per_task: int = h("Oracle demonstrations per training task (parameters re-drawn "
                            "each time; 0: none).", 8)
    demo_files: list[str] = h("JSON-lines demonstration files (e.g. `phoneworld demos` "
                              "output) added to the oracle demonstrations.", factory=list)
    demo_workers: int = h("Processes that run the oracle (0: in this process).", 0)
    output_dir: str = h("Where checkpoints and the final model go (`OUTPUT/final`).", "runs/sft")
    epochs: float = h("Passes over the rows.", 3.0)
    max_steps: int = h("Stop after this many optimizer steps (-1: by epochs).", -1)
    learning_rate: float = h("Peak learning rate.", 5e-5)
    lr_scheduler: str = h("TRL/transformers scheduler name.", "cosine")
    warmup_ratio: float = h("Warm-up fraction of the steps.", 0.05)
    batch_size: int = h("Rows per device per step.", 16)
    grad_accum: int = h("Gradient accumulation steps.", 1)
    max_length: int = h("Rows are cut to this many tokens.", 2048)
    save_steps: int = h("Checkpoint every this many steps (0: only the final model).", 0)
    resume: bool = h("Resume from the latest checkpoint in output_dir when there is one.", True)
    bf16: bool = h("bfloat16 autocast (GPU only).", True)
    logging_steps: int = h("Log every this many steps.", 10)
    time_budget_s: float | None = h("Stop training after this many seconds.", None)
    seed: int = h("Seed of data order and demonstration draws.", 0)

    def __post_init__(self) -> None:
        check(self.demos_per_task > 0 or bool(self.demo_files),
              "nothing to train on: set demos_per_task > 0 (oracle demos of tasks.apps) or "
              "list demo_files")
        check(self.demos_per_task == 0 or bool(self.tasks.apps) or bool(self.tasks.worlds),
              "demos_per_task > 0 needs training apps under tasks.apps (or worlds under "
              "tasks.worlds)")
        check(self.epochs > 0 or self.max_steps > 0, "set epochs > 0 or max_steps > 0")
        check(self.batch_size >= 1 and self.grad_accum >= 1, "batch_size and grad_accum >= 1")
        check(self.max_length >= 64, "max_length must be >= 64")
        check(self.learning_rate > 0, "learning_rate must be > 0")
