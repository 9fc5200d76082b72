"""Episode rewards: binary task success from a rule verifier (mock apps) or the rubric judge (real
apps), minus the parse-error penalty. `None` means unscorable (no gradient)."""

from __future__ import annotations

from typing import Protocol

from phoneworld.rl.judge import RubricJudge
from phoneworld.rl.rollout import Episode


class RewardFn(Protocol):
    def __call__(self, episode: Episode) -> float | None:
        ...


def _penalized(success: bool, episode: Episode, penalty: float) -> float:
    return (1.0 if success else 0.0) - penalty * episode.parse_errors


class VerifierReward:
    """1 when the task's generated verifier passes on the final state (and answer), else 0."""

    def __init__(self, parse_error_penalty: float = 0.0) -> None:
        self.penalty = parse_error_penalty

    def __call__(self, episode: Episode) -> float | None:
        if episode.ended == "error":
            return None
        if episode.task.verify is None:
            raise ValueError(f"task {episode.task.task_id} has no verifier; use the judge reward")
        return _penalized(episode.success, episode, self.penalty)


class JudgeReward:
    """1 when every rubric item passes, 0 when one fails, None when the judge cannot score."""

    def __init__(self, judge: RubricJudge, parse_error_penalty: float = 0.0) -> None:
        self.judge, self.penalty = judge, parse_error_penalty

    def __call__(self, episode: Episode) -> float | None:
        if episode.ended == "error":
            return None
        steps = [(s.screen_text, f"(invalid output) {s.raw_text[:120]!r}" if s.parse_error
                  else s.action_text) for s in episode.steps]
        verdict = self.judge.score(episode.task.instruction, steps, episode.final_text,
                                   episode.answer)
        if verdict.passed is None:
            return None
        return _penalized(verdict.passed, episode, self.penalty)
