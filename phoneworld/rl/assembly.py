"""Putting a run together from its config: the policy, the task splits, the judge, the sources.

Shared by the trainers, evaluation and calibration, so that all of them see the same fixed
train / held-out split of tasks (a hash of the task id) and of apps (`tasks.heldout_apps`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from phoneworld.rl.config import ConfigError, JudgeConfig, ModelConfig, PromptConfig, SamplingConfig
from phoneworld.rl.config import SourceConfig, TaskConfig
from phoneworld.rl.judge import RubricJudge
from phoneworld.rl.policy import Policy
from phoneworld.rl.rewards import JudgeReward, RewardFn, VerifierReward
from phoneworld.rl.sources import Source
from phoneworld.rl.tasks import AppTasks, RLTask, StaticTasks, TaskSource, WorldTasks, split_ids

log = logging.getLogger(__name__)
_APP_CACHE: dict[str, AppTasks] = {}
_WORLD_CACHE: dict[str, WorldTasks] = {}


@dataclass
class Split:
    """Tasks of one source app, by split name (train, heldout_tasks, heldout_apps)."""

    source: TaskSource
    app: str
    name: str
    ids: list[str]


def load_policy(model: ModelConfig, prompt: PromptConfig, sampling: SamplingConfig,
                init_from: str | None = None) -> Policy:
    from phoneworld.rl.model import load_model

    if init_from:
        if not Path(init_from).is_dir():
            raise ConfigError(f"init_from {init_from} is not a folder (an SFT or RL checkpoint)")
        model = ModelConfig(**{**model.__dict__, "name_or_path": init_from, "gguf_file": None})
    lm, tok = load_model(model)
    return Policy(lm, tok, prompt, sampling, model.rollout_dtype)


def app_tasks(app_dir: str) -> AppTasks:
    if app_dir not in _APP_CACHE:
        if not (Path(app_dir) / "app.json").is_file():
            raise ConfigError(f"{app_dir} is not a built app (no app.json): run "
                              "`phoneworld build TRACES --out DIR` and list DIR/<package>")
        _APP_CACHE[app_dir] = AppTasks(app_dir)
    return _APP_CACHE[app_dir]


def splits(tasks: TaskConfig, apps: list[str] | None = None) -> list[Split]:
    """Every split of the configured apps: train and held-out tasks of training apps, all tasks
    of held-out apps."""
    out = []
    for app in apps if apps is not None else tasks.apps:
        src = app_tasks(app)
        train, held = split_ids(src.ids(), tasks.heldout_fraction, salt=src.app.package)
        out += [Split(src, app, "train", train), Split(src, app, "heldout_tasks", held)]
    for app in tasks.heldout_apps:
        src = app_tasks(app)
        out.append(Split(src, app, "heldout_apps", src.ids()))
    return out


def world_tasks(world_dir: str) -> WorldTasks:
    if world_dir not in _WORLD_CACHE:
        if not (Path(world_dir) / "world.yaml").is_file():
            raise ConfigError(f"{world_dir} is not a built world (no world.yaml): run "
                              "`phoneworld world build SPEC --out DIR` and list DIR")
        _WORLD_CACHE[world_dir] = WorldTasks(world_dir)
    return _WORLD_CACHE[world_dir]


def world_splits(tasks: TaskConfig) -> list[Split]:
    """The cross-app tasks of every world in `tasks.worlds`: train_cross_app and
    heldout_cross_app, by the same hash as single-app tasks salted with the folder's name."""
    out = []
    for d in tasks.worlds:
        src = world_tasks(d)
        train, held = split_ids(src.ids(), tasks.heldout_fraction, salt=Path(d).name)
        out += [Split(src, d, "train_cross_app", train), Split(src, d, "heldout_cross_app", held)]
    return out


def world_train_tasks(tasks: TaskConfig) -> list[tuple[TaskSource, list[str]]]:
    """The training cross-app tasks of every world, as (source, ids)."""
    return [(s.source, s.ids) for s in world_splits(tasks)
            if s.name == "train_cross_app" and s.ids]


def train_tasks(tasks: TaskConfig, apps: list[str]) -> list[tuple[TaskSource, list[str]]]:
    held_apps = set(tasks.heldout_apps)
    bad = [a for a in apps if a in held_apps]
    if bad:
        raise ConfigError(f"source apps {bad} are held out (tasks.heldout_apps): remove them")
    return [(s.source, s.ids) for s in splits(tasks, apps) if s.name == "train" and s.ids]


def static_tasks(file: str) -> StaticTasks:
    """Real-app tasks from a YAML list of {id, app, instruction, category}."""
    data = yaml.safe_load(Path(file).read_text(encoding="utf-8")) or []
    if not isinstance(data, list):
        raise ConfigError(f"{file}: expected a list of tasks")
    out = []
    for i, t in enumerate(data):
        if not isinstance(t, dict) or not {"id", "app", "instruction"} <= set(t):
            raise ConfigError(f"{file}: task {i} needs id, app and instruction")
        out.append(RLTask(str(t["id"]), str(t["app"]), str(t.get("category", "real")),
                          str(t["instruction"])))
    return StaticTasks(out)


def make_judge(cfg: JudgeConfig | None) -> RubricJudge | None:
    return RubricJudge(cfg) if cfg is not None else None


def reward_for(cfg: SourceConfig, penalty: float, judge: RubricJudge | None) -> RewardFn:
    if cfg.reward == "judge":
        if judge is None:
            raise ConfigError(f"source {cfg.name!r} uses the judge but none is configured")
        return JudgeReward(judge, penalty)
    return VerifierReward(penalty)


def build_sources(cfg: Any, judge: RubricJudge | None,
                  factories: dict[str, Any] | None = None) -> list[Source]:
    """The sources of a GRPO config (`factories` may replace env factories by source name)."""
    out = []
    for i, s in enumerate(cfg.sources):
        if s.kind == "real":
            if not s.tasks_file:
                raise ConfigError(f"source {s.name!r} (kind: real) needs tasks_file")
            src = static_tasks(s.tasks_file)
            tasks: list[tuple[TaskSource, list[str]]] = [(src, src.ids())]
        else:
            tasks = train_tasks(cfg.tasks, s.apps) if s.apps else []
        ratio = float(getattr(cfg, "cross_app_ratio", 0.0))
        mixed = s.kind == "sim" and ratio > 0
        out.append(Source(s, tasks, reward_for(s, cfg.prompt.parse_error_penalty, judge),
                          cfg.group_size, cfg.tasks.train_max_steps,
                          cfg.tasks.terminate_on_success, (factories or {}).get(s.name),
                          seed=cfg.seed + i,
                          world_tasks=world_train_tasks(cfg.tasks) if mixed else None,
                          world_ratio=ratio if mixed else 0.0))
    return out
