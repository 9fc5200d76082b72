"""Groups and advantages: episode-level GRPO, GiGPO step-level, zero-variance filtering.

A group is G episodes of one task instance (same parameters, same start). The episode advantage
is the reward minus the group mean (divided by the group std when `scale_std`; off by default, as
in Dr. GRPO), stamped on every step of the episode. GiGPO adds a step term: steps of the group
that start from the same anchor (identical screen, text and app state: exact in mock apps) form a
step group; each step's discounted return gamma^(steps left - 1) * reward is compared with its
step group's mean. Groups whose rewards are all equal carry no signal and are dropped (the buffer
refills them).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from phoneworld.rl.rollout import Episode


@dataclass
class Group:
    """G episodes of one task instance, from one source."""

    key: str
    source: str
    domain: str
    episodes: list[Episode]
    advantages: list[list[float]] = field(default_factory=list)  # per episode, per step

    @property
    def rewards(self) -> list[float | None]:
        return [e.reward for e in self.episodes]

    @property
    def version(self) -> int:
        return min(e.min_version for e in self.episodes)

    @property
    def steps(self) -> int:
        return sum(len(e.steps) for e in self.episodes)


def _mean_std(xs: list[float]) -> tuple[float, float]:
    m = sum(xs) / len(xs)
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs))


def scored(group: Group) -> list[Episode]:
    """Episodes with a reward (a judge may leave some unscorable: they carry no gradient)."""
    return [e for e in group.episodes if e.reward is not None]


def has_signal(group: Group) -> bool:
    rewards = [e.reward for e in scored(group)]
    return len(rewards) >= 2 and max(rewards) - min(rewards) > 1e-9  # type: ignore[operator]


def episode_advantages(group: Group, scale_std: bool = False, eps: float = 1e-6) -> list[float]:
    """One advantage per episode (0 for unscorable ones)."""
    rewards = [e.reward for e in scored(group)]
    if len(rewards) < 2:
        return [0.0] * len(group.episodes)
    mean, std = _mean_std(rewards)  # type: ignore[arg-type]
    div = (std + eps) if scale_std else 1.0
    return [0.0 if e.reward is None else (e.reward - mean) / div for e in group.episodes]


def step_advantages(group: Group, gamma: float, scale_std: bool = False,
                    eps: float = 1e-6) -> list[list[float]]:
    """GiGPO's step term per episode and step (0 where a step's anchor is unique)."""
    returns: dict[str, list[float]] = defaultdict(list)
    per_ep: list[list[tuple[str, float]]] = []
    for e in group.episodes:
        row = []
        n = len(e.steps)
        for t, s in enumerate(e.steps):
            ret = 0.0 if e.reward is None else (gamma ** (n - t - 1)) * e.reward
            row.append((s.anchor, ret))
            if e.reward is not None:
                returns[s.anchor].append(ret)
        per_ep.append(row)
    stats = {k: _mean_std(v) for k, v in returns.items() if len(v) >= 2}
    out = []
    for e, row in zip(group.episodes, per_ep):
        adv = []
        for anchor, ret in row:
            if e.reward is None or anchor not in stats:
                adv.append(0.0)
                continue
            mean, std = stats[anchor]
            adv.append((ret - mean) / ((std + eps) if scale_std else 1.0))
        out.append(adv)
    return out


def compute_advantages(group: Group, gigpo_weight: float = 0.0, gamma: float = 0.95,
                       scale_std: bool = False) -> Group:
    """Fill `group.advantages`: the episode term on every step, plus the weighted step term."""
    ep = episode_advantages(group, scale_std)
    step = (step_advantages(group, gamma, scale_std) if gigpo_weight
            else [[0.0] * len(e.steps) for e in group.episodes])
    group.advantages = [[a + gigpo_weight * s for s in srow]
                        for a, srow in zip(ep, step)]
    return group
