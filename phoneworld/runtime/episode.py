"""Running one episode of a compiled app with a simple built-in policy (`phoneworld run`)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from phoneworld.errors import UsageError
from phoneworld.runtime.env import PhoneEnv
from phoneworld.runtime.render import element_line

POLICIES = ("random",)
WORDS = ("milk", "Call Bob", "meeting at 10", "Don't forget", "report", "42")


def random_action(elements: tuple[Any, ...], rng: random.Random) -> dict[str, Any]:
    """A uniformly random action over what the screen offers, with back now and then; on a
    screen with nothing to tap (a splash that goes on by itself), wait or back."""
    focused = [e for e in elements if e.editable and e.focused]
    if focused and rng.random() < 0.5:
        return {"type": "type", "text": rng.choice(WORDS)}
    targets = [e for e in elements if e.enabled and (e.clickable or e.checkable or e.editable)]
    if not targets:
        return {"type": rng.choice(("wait", "back"))}
    if rng.random() < 0.1:
        return {"type": "back"}
    return {"type": "click", "element": rng.choice(targets).id}


def run_episode(app_dir: Path, policy: str = "random", steps: int | None = 10, seed: int = 0,
                screenshots: bool = False, task: str | None = None,
                specs: tuple[Path, ...] = (), trace_out: Path | None = None,
                ) -> Iterator[dict[str, Any]]:
    """Yield one record per step: step, screen, action, reward, terminated, truncated.

    With `task` (an id from the app's task specs or `specs`), the episode runs that task:
    `policy` may also be "oracle", the reward comes from the task's verifier, `steps` defaults
    to the task's budget, and `trace_out` saves the rollout as a native trace."""
    if task is not None:
        yield from _task_episode(app_dir, task, policy, steps, seed, specs, trace_out)
        return
    steps = 10 if steps is None else steps
    if policy == "oracle":
        raise UsageError("the oracle policy solves a task: pass --task ID (the ids: `phoneworld "
                         "tasks list APP_DIR`), or use --policy random")
    if policy not in POLICIES:
        raise UsageError(f"unknown policy {policy!r}; known: random, oracle (oracle with --task)")
    env = PhoneEnv(app_dir, screenshots=screenshots, max_steps=max(1, steps))
    rng = random.Random(seed)
    _, info = env.reset(seed=seed)
    yield {"step": 0, "screen": info["screen"], "action": None}
    for n in range(1, steps + 1):
        action = random_action(env.elements, rng)
        target = (element_line(env.elements[action["element"]]) if "element" in action else "")
        _, reward, terminated, truncated, info = env.step(json.dumps(action))
        yield {"step": n, "screen": info["screen"], "action": action, "target": target,
               "reward": reward,
               "terminated": terminated, "truncated": truncated,
               "invalid_action": info.get("invalid_action", False)}
        if terminated or truncated:
            break
    env.close()


def _task_episode(app_dir: Path, task_id: str, policy: str, steps: int | None, seed: int,
                  specs: tuple[Path, ...], trace_out: Path | None) -> Iterator[dict[str, Any]]:
    from phoneworld.tasks.catalog import load_catalog
    from phoneworld.tasks.episodes import run_task, save_trace

    from phoneworld import outdir

    root = None if trace_out is None else outdir.claim_root(
        trace_out, outdir.TRACES_KIND, [app_dir], legacy=outdir.legacy_traces_root)
    cat = load_catalog(app_dir, specs)
    task = cat.find(task_id).spec
    ep = run_task(cat.app, task, policy, seed, steps)
    yield {"step": 0, "screen": ep.steps[0]["screen"] if ep.steps else "", "action": None,
           "task": task.id, "instruction": ep.instance.instruction, "params": ep.instance.params}
    after = [s["screen"] for s in ep.steps[1:]] + [ep.final_screen]
    for s, screen in zip(ep.steps, after):
        yield {"step": s["step"] + 1, "screen": screen, "action": s["action"],
               "target": s["target"]}
    if root is not None:
        save_trace(ep, root, f"{task.id}_{policy}_{seed:04d}", cat.app)
    yield {"step": len(ep.steps), "screen": ep.final_screen, "action": None,
           "success": ep.success, "reason": ep.reason}
