"""Configuration of step-wise GRPO (with the optional GiGPO step term) over mixed sources."""

from __future__ import annotations

from dataclasses import dataclass

from phoneworld.rl.config import (
    JudgeConfig, ModelConfig, PromptConfig, SamplingConfig, SourceConfig, TaskConfig, check, h,
)


@dataclass
class GRPOConfig:
    """Online multi-turn RL: groups of G episodes per task instance, one row per agent step."""

    model: ModelConfig = h("The policy model.", factory=ModelConfig)
    init_from: str | None = h("Start from this checkpoint folder (an SFT output) instead of "
                              "`model.name_or_path`.", None)
    prompt: PromptConfig = h("The step prompt.", factory=PromptConfig)
    sampling: SamplingConfig = h("Rollout sampling.", factory=SamplingConfig)
    tasks: TaskConfig = h("Apps, splits and step budgets.", factory=TaskConfig)
    sources: list[SourceConfig] = h("Rollout sources (default: the simulator over tasks.apps).",
                                    factory=lambda: [SourceConfig()])
    cross_app_ratio: float = h("Fraction of each sim source's groups that are cross-app tasks of "
                               "tasks.worlds (the rest single-app tasks), held exactly over every "
                               "run of groups; 0: none, 1: cross-app tasks only.", 0.0)
    judge: JudgeConfig | None = h("The rubric judge (needed by any source with reward: judge).",
                                  None)
    output_dir: str = h("Where checkpoints and metrics go.", "runs/grpo")
    updates: int = h("Optimizer updates to run.", 10)
    groups_per_update: int = h("Groups (task instances) per update, after dropping groups "
                               "with no reward variance.", 8)
    group_size: int = h("Episodes per group (G).", 8)
    real_ratio: float = h("Fraction of groups from real-domain sources, held over a sliding "
                          "window (paper: 0.5).", 0.5)
    ratio_window: int = h("Groups in the sliding window over which the ratio is held.", 32)
    max_staleness: int = h("Drop groups sampled more than this many policy versions ago.", 1)
    background_rollouts: bool = h("Sample in producer threads while the learner trains "
                                  "(needed for slow sources); off: sample inline.", False)
    drop_zero_variance: bool = h("Drop groups whose rewards are all equal and sample more.",
                                 True)
    max_refills: int = h("Sampling rounds to find groups with reward variance before "
                         "giving up with an error (inline sampling).", 20)
    learning_rate: float = h("AdamW learning rate.", 1e-5)
    weight_decay: float = h("AdamW weight decay.", 0.0)
    clip_eps: float = h("PPO clip range below 1.", 0.2)
    clip_eps_high: float = h("PPO clip range above 1 (DAPO's clip-higher).", 0.28)
    scale_adv_std: bool = h("Divide advantages by the group std (off: Dr. GRPO).", False)
    gigpo_weight: float = h("Weight of GiGPO's step-level advantage over steps that share a "
                            "(screen, state) anchor (0: off).", 0.0)
    gigpo_gamma: float = h("Discount of the step returns for GiGPO.", 0.95)
    micro_batch_tokens: int = h("Tokens (rows x padded length) per forward/backward.", 16384)
    max_grad_norm: float = h("Gradient clipping norm.", 1.0)
    save_every: int = h("Save a checkpoint every this many updates (0: only at the end).", 5)
    keep_checkpoints: int = h("Checkpoints kept in output_dir.", 2)
    resume: bool = h("Resume from the latest checkpoint in output_dir when there is one.", True)
    time_budget_s: float | None = h("Stop after the update that passes this many seconds.", None)
    seed: int = h("Seed of task order, sampling and initialisation.", 0)

    def __post_init__(self) -> None:
        check(self.group_size >= 2, "group_size must be >= 2: GRPO compares episodes of a group")
        check(self.groups_per_update >= 1 and self.updates >= 0, "groups_per_update >= 1, "
              "updates >= 0")
        check(0.0 <= self.real_ratio <= 1.0, "real_ratio must be in [0, 1]")
        check(bool(self.sources), "add at least one source")
        names = [s.name for s in self.sources]
        check(len(set(names)) == len(names), f"source names must differ, got {names}")
        domains = {s.domain for s in self.sources}
        check(self.real_ratio == 0 or "real" in domains,
              f"real_ratio is {self.real_ratio} but no source is in the real domain: add a "
              "source with kind: real (or domain: real), or set real_ratio: 0")
        check(self.real_ratio == 1 or "mock" in domains,
              "real_ratio < 1 needs a mock-domain source (kind: sim or adb)")
        check(self.judge is not None or all(s.reward != "judge" for s in self.sources),
              "a source uses reward: judge but no `judge:` section is configured")
        check(self.clip_eps > 0 and self.clip_eps_high > 0, "clip ranges must be > 0")
        check(self.gigpo_weight >= 0 and 0 < self.gigpo_gamma <= 1,
              "gigpo_weight >= 0 and gigpo_gamma in (0, 1]")
        check(self.micro_batch_tokens >= 256, "micro_batch_tokens must be >= 256")
        check(self.max_staleness >= 0, "max_staleness must be >= 0")
        check(0.0 <= self.cross_app_ratio <= 1.0,
              f"cross_app_ratio must be in [0, 1], got {self.cross_app_ratio}")
        check(self.cross_app_ratio == 0 or bool(self.tasks.worlds),
              f"cross_app_ratio is {self.cross_app_ratio} but tasks.worlds is empty: list world "
              "folders (phoneworld world build SPEC --out DIR) or set cross_app_ratio 0")
        check(self.cross_app_ratio == 0 or any(s.kind == "sim" for s in self.sources),
              "cross_app_ratio needs a source with kind: sim (world tasks run in the simulator)")
        for s in self.sources:
            if s.kind == "sim" and not s.apps:
                s.apps = list(self.tasks.apps)
            check(s.kind != "sim" or bool(s.apps) or self.cross_app_ratio == 1,
                  f"source {s.name!r} has no apps: list them "
                  "under the source or under tasks.apps")
