"""The asynchronous mixing buffer: producers per source, a real/mock ratio held over a sliding
window, stale groups dropped.

Each source runs in its own producer thread (emulators and the judge are 10-100x slower than the
simulator), pushing scored groups with their sampling policy version. Groups with no reward
variance are dropped on arrival (the producer simply samples more: DAPO-style refilling). The
learner's `take(n)` picks, slot by slot, the domain (mock or real) whose share of the last
`window` groups taken is furthest below its target, waits a bounded time for one, and drops any
group older than `max_staleness` policy versions. With `background=False` nothing runs in threads:
`take` samples inline from the source it needs (deterministic, for CPU runs and tests).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable

from phoneworld.rl.advantage import Group, has_signal
from phoneworld.rl.policy import Policy
from phoneworld.rl.sources import Source

log = logging.getLogger(__name__)


class MixBuffer:
    """Groups from several sources, served at a target real/mock ratio."""

    def __init__(self, sources: list[Source], policy: Policy, real_ratio: float, window: int = 32,
                 max_staleness: int = 1, capacity: int = 64, drop_zero_variance: bool = True,
                 background: bool = True, prepare: Callable[[Group], Group] | None = None,
                 wait_s: float = 600.0, max_refills: int = 20) -> None:
        self.sources, self.policy = sources, policy
        self.domains = sorted({s.domain for s in sources})
        self.target = {"real": real_ratio, "mock": 1.0 - real_ratio}
        if len(self.domains) == 1:
            self.target = {self.domains[0]: 1.0}
        self.window: deque[str] = deque(maxlen=window)
        self.max_staleness, self.capacity = max_staleness, capacity
        self.drop_zero_variance, self.background = drop_zero_variance, background
        self.prepare, self.wait_s, self.max_refills = prepare, wait_s, max_refills
        self.queues: dict[str, deque[Group]] = {s.name: deque() for s in sources}
        self.stats: Counter[str] = Counter()
        self.taken: Counter[str] = Counter()
        self.steps_sampled = 0
        self.cond = threading.Condition()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self.errors: list[BaseException] = []

    # ------------------------------------------------------------------ producers

    def start(self) -> None:
        if not self.background or self._threads:
            return
        for src in self.sources:
            t = threading.Thread(target=self._loop, args=(src,), name=f"rollout-{src.name}",
                                 daemon=True)
            t.start()
            self._threads.append(t)

    def stop(self) -> None:
        self._stop.set()
        with self.cond:
            self.cond.notify_all()
        for t in self._threads:
            t.join(timeout=30)
        self._threads.clear()

    def _loop(self, src: Source) -> None:
        try:
            while not self._stop.is_set():
                with self.cond:
                    while len(self.queues[src.name]) >= self.capacity and not self._stop.is_set():
                        self.cond.wait(timeout=0.5)
                if self._stop.is_set():
                    return
                self._produce(src)
        except BaseException as exc:  # surfaced to the learner by take()
            log.exception("producer %s died", src.name)
            with self.cond:
                self.errors.append(exc)
                self.cond.notify_all()

    def _produce(self, src: Source) -> None:
        groups = src.produce(self.policy)
        with self.cond:
            for g in groups:
                self.steps_sampled += g.steps
                self.stats[f"sampled_{src.name}"] += 1
                if self.drop_zero_variance and not has_signal(g):
                    self.stats[f"zero_variance_{src.name}"] += 1
                    continue
                self.queues[src.name].append(self.prepare(g) if self.prepare else g)
            self.cond.notify_all()

    # ------------------------------------------------------------------ learner side

    def _deficit(self, domain: str) -> tuple[float, float]:
        """How far below its target share `domain` would be in the window that ends with the
        next pick (ties broken by the share over the whole run)."""
        size = self.window.maxlen or 1
        recent = list(self.window)[-(size - 1):] if size > 1 else []
        target = self.target.get(domain, 0.0)
        local = target * (len(recent) + 1) - sum(d == domain for d in recent)
        total = sum(self.taken.values()) + 1
        return local, target * total - self.taken[domain]

    def _pop(self, domain: str) -> Group | None:
        for src in self.sources:
            if src.domain != domain:
                continue
            q = self.queues[src.name]
            while q:
                g = q.popleft()
                if self.policy.version - g.version > self.max_staleness:
                    self.stats[f"stale_{src.name}"] += 1
                    continue
                return g
        return None

    def _next(self, deadline: float) -> Group:
        order = sorted(self.domains, key=self._deficit, reverse=True)
        want = order[0]
        with self.cond:
            while True:
                if self.errors:
                    raise RuntimeError("a rollout producer failed") from self.errors[0]
                g = self._pop(want)
                if g is not None:
                    return g
                if not self.background:
                    break
                if time.monotonic() > deadline:
                    for other in order[1:]:
                        g = self._pop(other)
                        if g is not None:
                            self.stats["ratio_slips"] += 1
                            return g
                    raise TimeoutError(f"no group from the {want} sources within {self.wait_s}s")
                self.cond.wait(timeout=0.2)
        srcs = [s for s in self.sources if s.domain == want]
        for _ in range(self.max_refills):  # inline: sample until a group with signal arrives
            self._produce(srcs[self.stats[f"inline_{want}"] % len(srcs)])
            self.stats[f"inline_{want}"] += 1
            with self.cond:
                g = self._pop(want)
            if g is not None:
                return g
        raise RuntimeError(
            f"the {want} sources gave no group with reward variance in {self.max_refills} "
            "batches: the policy always fails (or always succeeds). Start from an SFT "
            "checkpoint (init_from), use easier tasks, or raise max_refills")

    def take(self, n: int) -> list[Group]:
        """`n` groups honouring the ratio over the sliding window."""
        self.start()
        out = []
        deadline = time.monotonic() + self.wait_s
        for _ in range(n):
            g = self._next(deadline)
            self.window.append(g.domain)
            self.taken[g.domain] += 1
            out.append(g)
        with self.cond:
            self.cond.notify_all()
        return out

    def observed_ratio(self) -> float:
        total = sum(self.taken.values())
        return self.taken["real"] / total if total else 0.0
