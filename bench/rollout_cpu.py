"""The CPU side of a step-wise rollout: env stepping, views, anchors and bookkeeping, with an
instant policy (every output unparseable, so the bench runner substitutes a random on-screen
action, as in `bench/rl_speed.py`). Compares `run_episodes` with the cyclic garbage collector
paused (the default) against running it on.

    python bench/rollout_cpu.py [APP_DIR] [--episodes 1024] [--steps 10] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from rl_speed import _runners  # noqa: E402

from phoneworld.rl.policy import Decision  # noqa: E402
from phoneworld.rl.rollout import run_episodes  # noqa: E402
from phoneworld.rl.tasks import AppTasks  # noqa: E402


class InstantPolicy:
    """Answers every view at once with an unparseable output."""

    def act(self, views: list, greedy: bool = False, seed: int | None = None) -> list[Decision]:
        return [Decision([1] * 300, [1] * 10, [0.0] * 10, "x", None, "unparsed", 0)
                for _ in views]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("app", nargs="?", default="generated_apps/com.example.notes")
    ap.add_argument("--episodes", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    if not Path(args.app).is_dir():
        print(f"error: {args.app} is not a built app folder; run `make demo` (it builds "
              "generated_apps/com.example.notes) or pass one", file=sys.stderr)
        return 2
    src = AppTasks(args.app)
    tasks = [(src, src.ids())]
    us: dict[bool, list[float]] = {True: [], False: []}
    for rep in range(args.repeats):
        for paused in (False, True):
            runners = _runners(tasks, args.episodes, args.steps, rep)
            t0 = time.perf_counter()
            eps = run_episodes(InstantPolicy(), runners, pause_gc=paused)
            dt = time.perf_counter() - t0
            us[paused].append(dt / sum(len(e.steps) for e in eps) * 1e6)
    on, off = statistics.median(us[False]), statistics.median(us[True])
    print(f"{args.episodes} episodes x {args.steps} steps, median of {args.repeats}:")
    print(f"  collector on     {on:7.0f} us per agent step")
    print(f"  collector paused {off:7.0f} us per agent step")
    print(f"  ratio            {on / off:7.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
