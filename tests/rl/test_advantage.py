"""Group-relative advantages, GiGPO step advantages, zero-variance filtering."""

from __future__ import annotations

import pytest

from phoneworld.rl.advantage import (
    Group, compute_advantages, episode_advantages, has_signal, step_advantages,
)
from phoneworld.rl.rollout import Episode, StepRecord
from phoneworld.rl.tasks import RLTask

TASK = RLTask("t", "app", "create", "Do it")


def ep(reward: float | None, anchors: list[str]) -> Episode:
    e = Episode(TASK, reward=reward)
    e.steps = [StepRecord([1], [2], [-0.1], 0, a, "{}", "") for a in anchors]
    return e


def test_episode_advantage_is_reward_minus_group_mean() -> None:
    g = Group("k", "mock", "mock", [ep(1, ["a"]), ep(0, ["a"]), ep(0, ["a"]), ep(1, ["a"])])
    assert episode_advantages(g) == [0.5, -0.5, -0.5, 0.5]
    scaled = episode_advantages(g, scale_std=True)
    assert scaled[0] == pytest.approx(1.0, abs=1e-4)


def test_unscorable_episodes_get_no_advantage() -> None:
    g = Group("k", "real", "real", [ep(1, ["a"]), ep(None, ["a"]), ep(0, ["a"])])
    assert episode_advantages(g) == [0.5, 0.0, -0.5]


def test_zero_variance_groups_have_no_signal() -> None:
    assert not has_signal(Group("k", "m", "mock", [ep(0, ["a"]), ep(0, ["b"])]))
    assert not has_signal(Group("k", "m", "mock", [ep(1, ["a"]), ep(None, ["b"])]))
    assert has_signal(Group("k", "m", "mock", [ep(1, ["a"]), ep(0, ["b"])]))


def test_gigpo_step_term_compares_steps_from_the_same_state() -> None:
    # both episodes start in state s0; the winner then passes s1, the loser s2 (unique)
    g = Group("k", "m", "mock", [ep(1, ["s0", "s1"]), ep(0, ["s0", "s2"])])
    steps = step_advantages(g, gamma=0.5)
    assert steps[0][0] == pytest.approx(0.25) and steps[1][0] == pytest.approx(-0.25)
    assert steps[0][1] == 0.0 and steps[1][1] == 0.0  # no other episode saw s1 / s2
    compute_advantages(g, gigpo_weight=1.0, gamma=0.5)
    assert g.advantages[0] == pytest.approx([0.75, 0.5])
    assert g.advantages[1] == pytest.approx([-0.75, -0.5])
