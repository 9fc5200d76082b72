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
    """A uniformly random action over what the screen offers, with back now and then."""
    focused = [e for e in elements if e.editable and e.focused]
    if focused and rng.random() < 0.5:
        return {"type": "type", "text": rng.choice(WORDS)}
    targets = [e for e in elements if e.enabled and (e.clickable or e.checkable or e.editable)]
    if not targets or rng.random() < 0.1:
        return {"type": "back"}
    return {"type": "click", "element": rng.choice(targets).id}


def run_episode(app_dir: Path, policy: str = "random", steps: int = 10, seed: int = 0,
                screenshots: bool = False) -> Iterator[dict[str, Any]]:
    """Yield one record per step: step, screen, action, reward, terminated, truncated."""
    if policy not in POLICIES:
        raise UsageError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
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
