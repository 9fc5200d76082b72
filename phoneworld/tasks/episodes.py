"""Task episodes as data: oracle and random rollouts in the env, SFT demonstrations (JSON lines),
and rollouts saved in the native trace format (so they replay and feed `phoneworld build` again).

An episode runs one task instance in `PhoneEnv` with the task's verifier as the reward: success
ends it (reward 1), a `done` ends it (success when the verifier passes with the answer given), the
step budget truncates it. Actions are the paper's JSON format with coordinates normalized to
[0, 1000]. Oracle episodes end with `done` (carrying the answer of information tasks), so a
demonstration shows the policy when to stop.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from phoneworld import outdir
from phoneworld.errors import UsageError
from phoneworld.ir.app import AppSpec
from phoneworld.ir.base import SourceRef
from phoneworld.ir.trace import TRACE_FORMAT
from phoneworld.runtime.actions import parse_action
from phoneworld.runtime.env import PhoneEnv
from phoneworld.runtime.episode import random_action
from phoneworld.runtime.render import element_line
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks.codegen import Verifier, compile_verifier
from phoneworld.tasks.oracle import OracleConfig, solve
from phoneworld.tasks.params import TaskInstance, instantiate
from phoneworld.tasks.spec import TaskSpec

log = logging.getLogger(__name__)
POLICIES = ("oracle", "random")


@dataclass
class Episode:
    """One rollout of a task instance; `steps` hold what the policy saw and did."""

    task: TaskSpec
    instance: TaskInstance
    policy: str
    success: bool = False
    reason: str = ""
    steps: list[dict[str, Any]] = field(default_factory=list)
    xml: list[str] = field(default_factory=list)  # the screen before each step, and the last one
    native: list[list[dict[str, Any]]] = field(default_factory=list)  # device-pixel actions
    final_screen: str = ""

    def record(self) -> dict[str, Any]:
        """The episode as one JSON-lines record (an SFT demonstration when the oracle ran it)."""
        t, inst = self.task, self.instance
        return {"app": t.app, "task": t.id, "category": t.category, "kind": t.kind(),
                "instruction": inst.instruction, "params": inst.params, "seed": inst.seed,
                "policy": self.policy, "success": self.success, "steps": self.steps}


def oracle_actions(app: AppSpec, inst: TaskInstance, verifier: Verifier,
                   config: OracleConfig | None = None) -> list[dict[str, Any]] | None:
    """The oracle's actions for `inst` in the paper's format, ending with `done`; None if unsolved."""
    res = solve(Simulator(app), inst, verifier, config)
    if not res.solved:
        return None
    w, h = app.device.width, app.device.height
    out = [m.json_action(w, h) for m in res.moves]
    if not out or out[-1]["type"] != "done":
        out.append({"type": "done"})
    return out


def run_task(app: AppSpec, task: TaskSpec, policy: str = "oracle", seed: int | None = None,
             max_steps: int | None = None, verifier: Verifier | None = None) -> Episode:
    """Roll out one instance of `task` (drawn with `seed`; None: the canonical draw)."""
    if policy not in POLICIES:
        raise UsageError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
    verifier = verifier or compile_verifier(task, app)
    inst = instantiate(task, app, seed, verify=verifier)
    budget = max_steps or task.budget.train
    rng = random.Random(f"{task.id}:{inst.seed}:{policy}")

    def reward(state: dict[str, Any], info: dict[str, Any]) -> tuple[float, bool]:
        ok = verifier(state, inst.params, info.get("answer")).passed
        return (1.0, True) if ok else (0.0, False)

    env = PhoneEnv(app, max_steps=budget, reward_fn=reward)
    ep = Episode(task, inst, policy)
    obs, _ = env.reset(seed=inst.seed, options={"state": inst.state})
    script: Iterator[dict[str, Any]] | None = None
    if policy == "oracle":
        script = iter(oracle_actions(app, inst, verifier) or ())
    answer: str | None = None
    for n in range(budget):
        action = next(script, None) if script is not None else random_action(env.elements, rng)
        if action is None:
            ep.reason = "the oracle found no solution"
            break
        _record(ep, env, obs, action, n)
        obs, r, terminated, truncated, info = env.step(json.dumps(action))
        answer = info.get("answer", answer)
        ep.success = ep.success or r > 0
        if terminated or truncated:
            closing = next(script, None) if script is not None and ep.success else None
            if closing is not None and closing["type"] == "done" and n + 1 < budget:
                _record(ep, env, obs, closing, n + 1)  # the env ended on success: say so
            break
    ep.xml.append(obs["xml"])
    ep.final_screen = obs["screen"]
    ep.reason = ep.reason or verifier(env.backend.read_state(), inst.params, answer).reason
    env.close()
    return ep


def _record(ep: Episode, env: PhoneEnv, obs: dict[str, Any], action: dict[str, Any],
            n: int) -> None:
    """Note the step about to be taken: what was seen, the history, the action (and in pixels)."""
    els = env.elements
    target = element_line(els[action["element"]]) if "element" in action else ""
    ep.xml.append(obs["xml"])
    ep.steps.append({"step": n, "screen": obs["screen"], "observation": obs["text"],
                     "history": [s["action"] for s in ep.steps], "action": action,
                     "target": target})
    trace = parse_action(action, els, env.width, env.height)
    ep.native.append([a.model_dump(mode="json", exclude_none=True) for a in trace])


def save_trace(ep: Episode, root: Path | outdir.Root, name: str, app: AppSpec) -> Path:
    """Write `ep` as a native trace episode folder `root/<app>/<name>/` (device-pixel actions),
    replacing an episode of that name written before (the contract of `phoneworld.outdir`)."""
    if not isinstance(root, outdir.Root):
        root = outdir.claim_root(root, outdir.TRACES_KIND, legacy=outdir.legacy_traces_root)
    where = SourceRef(file="app.json")
    bad = [d for d in (outdir.check_name(app.package, "app id", where, package=True),
                       outdir.check_name(name, "episode name", where)) if d is not None]
    outdir.require_names(bad, "name")
    w, h = app.device.width, app.device.height

    def write(folder: Path) -> None:
        steps: list[dict[str, Any]] = []
        for i, xml in enumerate(ep.xml):
            (folder / f"{i:04d}.xml").write_text(xml, encoding="utf-8")
            actions = ep.native[i] if i < len(ep.native) else [None]
            if len(actions) != 1:
                raise UsageError(f"step {i} of {name} is {len(actions)} device actions; a native "
                                 "trace step holds one")
            steps.append({"screen": f"{i:04d}.xml", "action": actions[0]})
        doc = {"format": TRACE_FORMAT, "app": app.package,
               "device": {"width": w, "height": h, **({"density": app.device.density}
                                                       if app.device.density else {})},
               "instruction": ep.instance.instruction, "steps": steps}
        (folder / "episode.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n",
                                             encoding="utf-8")

    return outdir.replace_folder(root.open() / app.package / name, outdir.EPISODE_KIND, write,
                                 root.force, outdir.legacy_episode)


@dataclass
class EvalResult:
    """Success of a policy over tasks: per task (successes, episodes)."""

    policy: str
    max_steps: int
    per_task: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def successes(self) -> int:
        return sum(s for s, _ in self.per_task.values())

    @property
    def episodes(self) -> int:
        return sum(n for _, n in self.per_task.values())

    @property
    def rate(self) -> float:
        return self.successes / self.episodes if self.episodes else 0.0


def evaluate(app: AppSpec, tasks: list[TaskSpec], policy: str = "random", episodes: int = 5,
             max_steps: int = 30, seed: int = 0) -> EvalResult:
    """Roll `policy` out `episodes` times per task (parameters re-drawn per episode)."""
    out = EvalResult(policy, max_steps)
    for task in tasks:
        verifier = compile_verifier(task, app)
        wins = sum(run_task(app, task, policy, seed + i, max_steps, verifier).success
                   for i in range(episodes))
        out.per_task[task.id] = (wins, episodes)
    return out


def demos(app: AppSpec, tasks: list[TaskSpec], per_task: int = 1, seed: int = 0,
          trace_dir: Path | outdir.Root | None = None) -> Iterator[dict[str, Any]]:
    """Oracle demonstrations, `per_task` per task with parameters re-drawn per episode (one
    JSON-lines record each); with `trace_dir`, each is also saved as a native trace episode."""
    for task in tasks:
        verifier = compile_verifier(task, app)
        for i in range(per_task):
            ep = run_task(app, task, "oracle", seed + i, None, verifier)
            if not ep.success:
                log.warning("task %s, draw %d: the oracle did not succeed (%s); skipped",
                            task.id, seed + i, ep.reason)
                continue
            if trace_dir is not None:
                save_trace(ep, trace_dir, f"{task.id}_{seed + i:04d}", app)
            yield ep.record()
