"""Configuration of evaluation on held-out tasks and held-out apps."""

from __future__ import annotations

from dataclasses import dataclass

from phoneworld.rl.config import ModelConfig, PromptConfig, SamplingConfig, TaskConfig, check, h

SPLITS = ("train", "heldout_tasks", "heldout_apps", "train_cross_app", "heldout_cross_app")


@dataclass
class EvalConfig:
    """Success per category on the fixed held-out splits, mean steps, parse-error rate."""

    model: ModelConfig = h("The model (or use init_from for a trained checkpoint).",
                           factory=ModelConfig)
    init_from: str | None = h("A checkpoint folder to evaluate (SFT `final`, RL checkpoint).",
                              None)
    prompt: PromptConfig = h("The step prompt (as in training).", factory=PromptConfig)
    sampling: SamplingConfig = h("Batching; sampling settings apply when greedy is off.",
                                 factory=SamplingConfig)
    tasks: TaskConfig = h("Apps and splits (the same as in training).", factory=TaskConfig)
    splits: list[str] = h("Which splits to evaluate: train, heldout_tasks, heldout_apps, "
                          "train_cross_app, heldout_cross_app (the last two: tasks.worlds).",
                          factory=lambda: ["heldout_tasks", "heldout_apps"])
    episodes_per_task: int = h("Episodes per task, parameters re-drawn each time.", 4)
    greedy: bool = h("Greedy decoding (off: sample with sampling.temperature).", True)
    batch_episodes: int = h("Episodes run in lock-step per batch.", 512)
    output: str = h("JSON file for the results.", "runs/eval.json")
    seed: int = h("Seed of the evaluation draws (kept apart from training draws).", 0)

    def __post_init__(self) -> None:
        bad = [s for s in self.splits if s not in SPLITS]
        check(not bad, f"unknown splits {bad}; choose from {', '.join(SPLITS)}")
        check(self.episodes_per_task >= 1, "episodes_per_task must be >= 1")
        check(self.batch_episodes >= 1, "batch_episodes must be >= 1")
        check(bool(self.tasks.apps) or bool(self.tasks.heldout_apps) or bool(self.tasks.worlds),
              "nothing to evaluate: list apps under tasks.apps or tasks.heldout_apps (or worlds "
              "under tasks.worlds)")
