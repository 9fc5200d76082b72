"""The mixing buffer: the real/mock ratio over 100 groups, staleness, zero-variance refills."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest

from phoneworld.rl.advantage import Group
from phoneworld.rl.buffer import MixBuffer
from phoneworld.rl.rollout import Episode, StepRecord
from phoneworld.rl.tasks import RLTask


class FakePolicy:
    version = 0


class FakeSource:
    """Produces groups after a delay (a slow emulator or a fast simulator); every `flat`-th
    group has equal rewards (no signal)."""

    def __init__(self, name: str, domain: str, delay: float, flat: int = 0) -> None:
        self.name, self.domain, self.delay, self.flat = name, domain, delay, flat
        self.count = itertools.count()

    def produce(self, policy: Any, n_groups: int | None = None) -> list[Group]:
        time.sleep(self.delay)
        out = []
        for _ in range(2):
            i = next(self.count)
            rewards = [0.0, 0.0] if self.flat and i % self.flat == 0 else [1.0, 0.0]
            eps = [Episode(RLTask(f"t{i}", "app", "c", "x"), reward=r) for r in rewards]
            for e in eps:
                e.steps = [StepRecord([1], [2], [-1.0], policy.version, "a", "{}", "")]
            out.append(Group(f"{self.name}{i}", self.name, self.domain, eps))
        return out


@pytest.mark.parametrize("ratio", [0.5, 0.3])
def test_ratio_over_100_groups_with_a_slow_real_source(ratio: float) -> None:
    sources = [FakeSource("sim", "mock", 0.001, flat=3), FakeSource("emu", "real", 0.02)]
    buf = MixBuffer(sources, FakePolicy(), real_ratio=ratio, window=20,  # type: ignore[arg-type]
                    max_staleness=10, capacity=16, background=True, wait_s=30)
    taken = []
    try:
        for _ in range(10):
            taken += buf.take(10)
    finally:
        buf.stop()
    real = sum(g.domain == "real" for g in taken) / len(taken)
    assert len(taken) == 100 and abs(real - ratio) <= 0.10, real
    assert abs(buf.observed_ratio() - ratio) <= 0.10
    assert buf.stats["zero_variance_sim"] > 0  # flat groups were dropped and refilled
    assert all(len({e.reward for e in g.episodes}) > 1 for g in taken)


def test_inline_mode_holds_the_ratio_exactly() -> None:
    sources = [FakeSource("sim", "mock", 0.0), FakeSource("emu", "real", 0.0)]
    buf = MixBuffer(sources, FakePolicy(), real_ratio=0.5, window=10,  # type: ignore[arg-type]
                    background=False)
    taken = buf.take(100)
    assert sum(g.domain == "real" for g in taken) == 50


def test_stale_groups_are_dropped() -> None:
    pol = FakePolicy()
    src = FakeSource("sim", "mock", 0.0)
    buf = MixBuffer([src], pol, real_ratio=0.0, max_staleness=1,  # type: ignore[list-item]
                    background=False)
    buf._produce(src)  # two groups sampled at version 0
    pol.version = 2
    g = buf.take(1)[0]
    assert g.version == 2 and buf.stats["stale_sim"] == 2
