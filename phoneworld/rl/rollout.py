"""Step-wise rollouts: many episodes advance in lock-step, one batched policy call per env step.

Every live episode of a call (all groups of all tasks of a source) contributes one row to each
batched `Policy.act`; the actions are applied to the envs (sequentially for the in-process
simulator, on a thread pool for devices), finished episodes drop out, and the rest go on. Each
step keeps its exact prompt suffix ids, sampled ids, their log-probs, the policy version, and an
anchor key: a hash of (screen, text form, app state) before the action, identical across episodes
exactly when the mock app is in the same state (GiGPO step grouping).

An unparseable output is a no-op step: it uses a step of the budget and is counted.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Protocol

from phoneworld.collector import gc_paused
from phoneworld.rl.actions import format_action
from phoneworld.rl.policy import Decision, Policy
from phoneworld.rl.prompting import StepView
from phoneworld.rl.tasks import RLTask

log = logging.getLogger(__name__)
INVALID_OUTPUT = "(invalid output)"


class EnvHandle(Protocol):
    """The little an episode needs from an environment."""

    def reset(self, task: RLTask) -> dict[str, Any]:
        """Start the task; returns {"text", "screen", "state" (None when unreadable)}."""
        ...

    def step(self, action: dict[str, Any]) -> dict[str, Any]:
        """Apply one action; returns the reset keys plus "invalid" and "done"/"answer"."""
        ...

    def close(self) -> None:
        ...


class PhoneEnvHandle:
    """A `phoneworld.runtime.PhoneEnv` (simulator or adb backend) as an `EnvHandle`."""

    def __init__(self, env: Any) -> None:
        self.env = env

    def reset(self, task: RLTask) -> dict[str, Any]:
        obs, info = self.env.reset(options={"state": task.initial_state}
                                   if task.initial_state is not None else None)
        return {"text": obs["text"], "screen": obs["screen"], "state": info["state"]}

    def step(self, action: dict[str, Any]) -> dict[str, Any]:
        obs, _, terminated, _, info = self.env.step(json.dumps(action))
        # a guard that refuses an action (real apps) ends the episode like a `done`
        return {"text": obs["text"], "screen": obs["screen"], "state": info["state"],
                "invalid": bool(info.get("invalid_action")),
                "done": action["type"] == "done" or bool(terminated),
                "answer": info.get("answer"), "blocked": info.get("blocked")}

    @property
    def elements(self) -> Any:
        return self.env.elements

    def close(self) -> None:
        self.env.close()


@dataclass
class StepRecord:
    suffix_ids: list[int]
    completion_ids: list[int]
    logprobs: list[float]
    version: int
    anchor: str
    action_text: str
    screen_text: str
    parse_error: bool = False
    invalid: bool = False
    raw_text: str = ""  # the policy's output as written (what a judge sees for invalid output)


@dataclass
class Episode:
    """One finished episode of a task."""

    task: RLTask
    source: str = ""
    domain: str = "mock"
    steps: list[StepRecord] = field(default_factory=list)
    success: bool = False
    reward: float | None = None
    answer: str | None = None
    ended: str = "budget"  # done, success, budget, error
    final_text: str = ""
    final_state: dict[str, Any] | None = None
    error: str | None = None

    @property
    def parse_errors(self) -> int:
        return sum(s.parse_error for s in self.steps)

    @property
    def min_version(self) -> int:
        return min((s.version for s in self.steps), default=0)


def anchor_key(obs: dict[str, Any]) -> str:
    state = json.dumps(obs.get("state"), sort_keys=True, ensure_ascii=False, default=str)
    raw = f"{obs.get('screen')}\x00{obs.get('text')}\x00{state}"
    return hashlib.sha1(raw.encode()).hexdigest()


class Runner:
    """One live episode: an env handle, the task, the history."""

    def __init__(self, env: EnvHandle, task: RLTask, budget: int, terminate_on_success: bool,
                 source: str = "", domain: str = "mock") -> None:
        self.env, self.budget, self.stop_on_success = env, budget, terminate_on_success
        self.ep = Episode(task, source, domain)
        self.history: list[str] = []
        self.obs: dict[str, Any] = {}
        self.live = True

    def start(self) -> None:
        try:
            self.obs = self.env.reset(self.ep.task)
        except Exception as exc:  # a device that fails at reset loses only this episode
            self._fail(exc)

    def view(self) -> StepView:
        return StepView(self.ep.task.instruction, self.history, self.obs["text"])

    def apply(self, d: Decision) -> None:
        rec = StepRecord(d.suffix_ids, d.completion_ids, d.logprobs, d.version,
                         anchor_key(self.obs), INVALID_OUTPUT, self.obs["text"],
                         raw_text=d.text)
        self.ep.steps.append(rec)
        if d.action is None:
            rec.parse_error = True
            self.history.append(INVALID_OUTPUT)
        else:
            rec.action_text = format_action(d.action)
            self.history.append(rec.action_text)
            try:
                self.obs = self.env.step(d.action)
            except Exception as exc:
                self._fail(exc)
                return
            rec.invalid = bool(self.obs.get("invalid"))
            if self.obs.get("done"):
                self.ep.answer = self.obs.get("answer")
                self._end("done")
                return
            if self.stop_on_success and self._verified(None):
                self._end("success")
                return
        if len(self.ep.steps) >= self.budget:
            self._end("budget")

    def _verified(self, answer: Any) -> bool:
        task, state = self.ep.task, self.obs.get("state")
        return task.verify is not None and state is not None and task.verify(state, answer)

    def _end(self, how: str) -> None:
        self.live = False
        self.ep.ended = how
        self.ep.final_text = self.obs.get("text", "")
        self.ep.final_state = self.obs.get("state")
        if self.ep.task.verify is not None:
            self.ep.success = self._verified(self.ep.answer)

    def _fail(self, exc: Exception) -> None:
        log.warning("episode of %s failed: %s", self.ep.task.task_id, exc)
        self.live = False
        self.ep.ended, self.ep.error = "error", f"{type(exc).__name__}: {exc}"


def run_episodes(policy: Policy, runners: list[Runner], greedy: bool = False,
                 executor: Executor | None = None,
                 on_step: Callable[[int], None] | None = None,
                 pause_gc: bool = True) -> list[Episode]:
    """Run every runner to its end with one batched policy call per env step (with the cyclic
    garbage collector paused unless `pause_gc` is False; see `gc_paused`)."""
    if pause_gc:
        with gc_paused():
            return run_episodes(policy, runners, greedy, executor, on_step, pause_gc=False)
    _each(runners, lambda r: r.start(), executor)
    while True:
        live = [r for r in runners if r.live]
        if not live:
            break
        decisions = policy.act([r.view() for r in live], greedy=greedy)
        _each(list(zip(live, decisions)), lambda rd: rd[0].apply(rd[1]), executor)
        if on_step is not None:
            on_step(len(live))
    return [r.ep for r in runners]


def _each(items: list[Any], fn: Callable[[Any], None], executor: Executor | None) -> None:
    if executor is None or len(items) <= 1:
        for it in items:
            fn(it)
    else:
        list(executor.map(fn, items))
