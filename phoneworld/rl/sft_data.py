"""SFT rows: oracle demonstrations and demonstration files turned into token rows.

A row is one agent step: `input_ids` = prompt prefix + suffix (exactly what the policy sees in RL
and evaluation, from the same `PromptBuilder`) + the action's tokens + end of turn, with a
`completion_mask` over the action. Oracle demonstrations are replayed in the simulator so the
observation text and history are the env's own, and taps that hit an element's tap point become
`element` ids (the text form shows no coordinates, so a text policy can only learn ids).

Demonstration files are JSON lines: episode records with `instruction` and `steps` of
{`observation` (or `text`), `action`} (what `phoneworld demos` writes), or one step per line with
`instruction`, `observation`, `history` and `action`.
"""

from __future__ import annotations

import json
import logging
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from phoneworld.rl.actions import ActionParseError, format_action, validate
from phoneworld.rl.prompting import PromptBuilder, StepView
from phoneworld.rl.tasks import move_action

log = logging.getLogger(__name__)


def oracle_steps(app_dir: str, task_id: str, seed: int) -> list[dict[str, Any]]:
    """One oracle episode as step records {instruction, observation, history, action}."""
    from phoneworld.rl.assembly import app_tasks, world_tasks
    from phoneworld.rl.sources import sim_env
    from phoneworld.rl.tasks import is_world_dir

    tasks: Any = world_tasks(app_dir) if is_world_dir(app_dir) else app_tasks(app_dir)
    solved = tasks.demo(task_id, seed)
    if solved is None:
        return []
    task, moves = solved
    env = sim_env(app_dir)
    obs = env.reset(task)
    dev = tasks.world.device if is_world_dir(app_dir) else tasks.app.device
    history: list[str] = []
    out = []
    for move in moves:
        action = move_action(move, env.elements, dev.width, dev.height)
        text = format_action(action)
        out.append({"instruction": task.instruction, "observation": obs["text"],
                    "history": list(history), "action": text, "task": task_id})
        history.append(text)
        obs = env.step(action)
        if obs.get("done"):
            break
    if not moves or moves[-1].kind != "done":
        out.append({"instruction": task.instruction, "observation": obs["text"],
                    "history": list(history), "action": '{"type":"done"}', "task": task_id})
    env.close()
    return out


def _job(args: tuple[str, str, int]) -> list[dict[str, Any]]:
    return oracle_steps(*args)


def oracle_demos(jobs: list[tuple[str, str, int]], workers: int = 0) -> list[dict[str, Any]]:
    """Step records of many (app, task, seed) oracle episodes, on a process pool when asked."""
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(_job, jobs, chunksize=max(1, len(jobs) // (4 * workers))))
    else:
        parts = [_job(j) for j in jobs]
    return [s for p in parts for s in p]


def file_steps(path: Path) -> list[dict[str, Any]]:
    """Step records of a JSON-lines demonstration file (episode or step records)."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        rec = json.loads(line)
        if "steps" in rec:
            for s in rec["steps"]:
                out.append({"instruction": rec["instruction"],
                            "observation": s.get("observation", s.get("text", "")),
                            "history": s.get("history"), "action": s["action"]})
        elif "action" in rec:
            out.append(rec)
        else:
            raise ValueError(f"{path}:{n}: a record needs `steps` or `action`")
    history: list[str] = []
    for s in out:  # fill missing histories in order, canonicalise actions
        action = s["action"] if isinstance(s["action"], dict) else json.loads(s["action"])
        try:
            s["action"] = format_action(validate(action))
        except ActionParseError as exc:
            raise ValueError(f"{path}: bad action {action!r}: {exc}") from exc
        if s.get("history") is None:
            s["history"] = list(history)
        s["history"] = [format_action(a) if isinstance(a, dict) else a for a in s["history"]]
        history = [*s["history"], s["action"]]
    return out


def to_rows(steps: list[dict[str, Any]], builder: PromptBuilder) -> list[dict[str, list[int]]]:
    """Token rows (`input_ids`, `completion_mask`) for TRL's SFTTrainer."""
    views = [StepView(s["instruction"], list(s["history"]), s["observation"]) for s in steps]
    rows = []
    for start in range(0, len(views), 256):
        suffixes = builder.suffixes(views[start:start + 256])
        for s, suffix in zip(steps[start:start + 256], suffixes):
            prompt = builder.prefix_ids + suffix
            completion = builder.completion_ids(s["action"])
            rows.append({"input_ids": prompt + completion,
                         "completion_mask": [0] * len(prompt) + [1] * len(completion)})
    return rows
