"""Build time against the number of recorded steps (it should grow linearly).

    python bench/build_time.py [TRACES] [--from FORMAT]

Default TRACES: ../shared/data/real/habitica-droidbot. Builds the app from growing prefixes of its
episodes (all passes and the teacher-forced fidelity replay, no writing) and prints seconds, steps
and milliseconds per step; a flat ms/step column means linear growth.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from phoneworld.ir.diagnostics import Diagnostics  # noqa: E402
from phoneworld.ir.trace import TraceSet  # noqa: E402
from phoneworld.pipeline import BuildConfig, build_app, check  # noqa: E402


def prefix(traces: TraceSet, steps: int) -> TraceSet:
    """The first `steps` recorded actions of the app's episodes (the last one cut there)."""
    out, left = [], steps
    for ep in traces.episodes:
        if left <= 0:
            break
        n = min(left, len(ep.steps) - 1)
        if n <= 0:
            continue
        head = ep.steps[: n + 1]
        head = head[:-1] + (head[-1].model_copy(update={"action": None}),)
        out.append(ep.model_copy(update={"steps": head}))
        left -= n
    return TraceSet(episodes=tuple(out))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("traces", nargs="?",
                        default=str(REPO.parent / "shared/data/real/habitica-droidbot"))
    parser.add_argument("--from", dest="fmt", default=None)
    args = parser.parse_args()
    t0 = time.perf_counter()
    trace_set, _ = check(Path(args.traces), args.fmt)
    print(f"ingest: {time.perf_counter() - t0:.2f} s")
    app = max(trace_set.apps(), key=lambda a: sum(len(e.steps) for e in trace_set.for_app(a).episodes))
    traces = trace_set.for_app(app)
    total = sum(len(e.steps) - 1 for e in traces.episodes)
    config = BuildConfig(traces=Path(args.traces), write=False)
    print(f"{'steps':>6} {'screens':>8} {'seconds':>8} {'ms/step':>8}   ({app})")
    for fraction in (0.125, 0.25, 0.5, 1.0):
        part = prefix(traces, max(1, int(total * fraction)))
        steps = sum(len(e.steps) - 1 for e in part.episodes)
        t = time.perf_counter()
        built = build_app(part, config, Diagnostics())
        seconds = time.perf_counter() - t
        print(f"{steps:>6} {built.report.screens:>8} {seconds:>8.2f} {1000 * seconds / steps:>8.2f}")


if __name__ == "__main__":
    main()
