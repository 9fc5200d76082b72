"""Teacher-forced fidelity of a compiled app against two baselines, on the training steps.

- `no-op`: a mock that ignores every action (stays on the current screen, content unchanged);
- `oracle screen, stale content`: a mock that always knows the true next screen and shows the
  content last recorded for that screen, with no state at all.

    python bench/fidelity_baselines.py [TRACES] [--from FORMAT]

Default TRACES: ../shared/data/real/habitica-droidbot. Prints one row per app and method.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from phoneworld.abstract import abstract  # noqa: E402
from phoneworld.abstract.shape import content_keys  # noqa: E402
from phoneworld.fidelity import jaccard, teacher_forced  # noqa: E402
from phoneworld.graph import graph  # noqa: E402
from phoneworld.lower import lower  # noqa: E402
from phoneworld.pipeline import check  # noqa: E402
from phoneworld.state import infer_state, prepare  # noqa: E402


def noop_rows(traces, steps):  # type: ignore[no-untyped-def]
    """(changing, transition match, observation match, change F1) of a mock that ignores actions."""
    rows = []
    for st in steps:
        ep = traces.episodes[st.episode]
        ck = content_keys(ep.steps[st.step].observation.root)
        rk = content_keys(ep.steps[st.step + 1].observation.root)
        rows.append((ck != rk, st.screen == st.next_screen, jaccard(ck, rk), 0.0))
    return rows


def reference_rows(replay):  # type: ignore[no-untyped-def]
    """The same for the build's own stateless reference mock (`fidelity.teacher_forced`)."""
    return [(s.changing, True, s.reference_observation, s.reference_f1 or 0.0)
            for s in replay.steps]


def summary(rows):  # type: ignore[no-untyped-def]
    changing = [r for r in rows if r[0]]
    return (sum(r[1] for r in changing) / max(1, len(changing)),
            sum(r[2] for r in rows) / max(1, len(rows)),
            sum(r[3] for r in changing) / max(1, len(changing)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("traces", nargs="?", default=str(REPO.parent / "shared/data/real/habitica-droidbot"))
    parser.add_argument("--from", dest="fmt", default=None)
    args = parser.parse_args()
    trace_set, _ = check(Path(args.traces), args.fmt)
    print(f"{'app':<34} {'method':<28} {'match(chg)':>10} {'obs':>7} {'chgF1':>7}")
    for app in trace_set.apps():
        traces = trace_set.for_app(app)
        if sum(len(ep.steps) - 1 for ep in traces.episodes) < 1:
            continue
        t0 = time.perf_counter()
        ab = abstract(traces)
        g = graph(traces, ab)
        spec = lower(traces, ab, g, infer_state(ab, g))
        schema, _ = prepare(ab, g)
        replay = teacher_forced(spec, schema, ab, traces, built_on=True)
        ours = replay.summary()
        build_s = time.perf_counter() - t0
        noop, stale = noop_rows(traces, g.steps), reference_rows(replay)
        for name, (tm, obs, f1) in (("no-op mock", summary(noop)),
                                    ("oracle screen, stale content", summary(stale))):
            print(f"{app[:34]:<34} {name:<28} {tm:>10.3f} {obs:>7.3f} {f1:>7.3f}")
        assert ours is not None
        print(f"{app[:34]:<34} {'phoneworld (teacher-forced)':<28} "
              f"{ours.transition_match_changing or 0:>10.3f} {ours.observation_match or 0:>7.3f} "
              f"{ours.change_f1 or 0:>7.3f}   (build+replay {build_s:.1f} s)")
        f1_stale = summary(stale)[2]
        if f1_stale:
            print(f"{'':<34} change F1 ratio phoneworld / stale-content baseline: "
                  f"{(ours.change_f1 or 0) / f1_stale:.2f}x")


if __name__ == "__main__":
    main()
