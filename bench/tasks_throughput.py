"""Tasks of a compiled app: verifier checks per second, oracle time per task, and the success
of the oracle and of a random policy (issue 3's figures).

    .venv/bin/python bench/tasks_throughput.py [APP_DIR ...] [--traces DIR] [--episodes N]

Without arguments it builds the bundled example (examples/traces) into a temporary folder. With
--traces it builds that trace set (e.g. ../shared/data/real/llamatouch) and benchmarks every app.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from phoneworld.pipeline import BuildConfig, build  # noqa: E402
from phoneworld.runtime.sim import Simulator  # noqa: E402
from phoneworld.tasks.catalog import load_catalog  # noqa: E402
from phoneworld.tasks.codegen import compile_verifier  # noqa: E402
from phoneworld.tasks.episodes import evaluate  # noqa: E402
from phoneworld.tasks.oracle import solve  # noqa: E402
from phoneworld.tasks.params import instantiate  # noqa: E402


def verifier_rate(cat, seconds: float = 1.0) -> float:  # type: ignore[no-untyped-def]
    """Verifier checks per second, cycling over every task on its start state."""
    cases = []
    for t in cat.tasks:
        v = compile_verifier(t.spec, cat.app)
        inst = instantiate(t.spec, cat.app, verify=v)
        sim = Simulator(cat.app)
        sim.reset(inst.state)
        cases.append((v.verify, sim.observed(), inst.params))  # as a backend's read_state gives it
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for verify, state, params in cases:
            verify(state, params, None)
        n += len(cases)
    return n / (time.perf_counter() - start)


def oracle_times(cat) -> tuple[list[float], list[int], int]:  # type: ignore[no-untyped-def]
    """Seconds and states explored per task, and how many it solved."""
    secs, states, solved = [], [], 0
    for t in cat.tasks:
        v = compile_verifier(t.spec, cat.app)
        inst = instantiate(t.spec, cat.app, verify=v)
        start = time.perf_counter()
        res = solve(Simulator(cat.app), inst, v)
        secs.append(time.perf_counter() - start)
        states.append(res.explored)
        solved += res.solved
    return secs, states, solved


def bench_app(app_dir: Path, episodes: int) -> None:
    cat = load_catalog(app_dir)
    if not cat.tasks:
        print(f"{cat.app.package}: no tasks")
        return
    rate = verifier_rate(cat)
    secs, states, solved = oracle_times(cat)
    specs = [t.spec for t in cat.tasks]
    start = time.perf_counter()
    rnd = evaluate(cat.app, specs, "random", episodes=episodes, max_steps=30)
    rnd_s = time.perf_counter() - start
    orc = evaluate(cat.app, specs, "oracle", episodes=1, seed=1)
    print(f"{cat.app.package}: {len(specs)} tasks")
    print(f"  verifier checks/s            {rate:,.0f}")
    print(f"  oracle time per task         mean {1000 * statistics.mean(secs):.1f} ms, "
          f"median {1000 * statistics.median(secs):.1f} ms, max {1000 * max(secs):.1f} ms; "
          f"mean {statistics.mean(states):.0f} states; solved {solved}/{len(specs)}")
    print(f"  oracle policy, new params    {orc.successes}/{orc.episodes} episodes "
          f"({100 * orc.rate:.1f}%)")
    print(f"  random policy, 30 steps      {rnd.successes}/{rnd.episodes} episodes "
          f"({100 * rnd.rate:.1f}%), {rnd.episodes / rnd_s:.0f} episodes/s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("apps", nargs="*", type=Path, help="Built app folders.")
    ap.add_argument("--traces", type=Path, help="Build this trace set first and bench its apps.")
    ap.add_argument("--episodes", type=int, default=20, help="Random episodes per task.")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        apps = list(args.apps)
        if not apps or args.traces:
            traces = args.traces or REPO / "examples" / "traces"
            start = time.perf_counter()
            result = build(BuildConfig(traces=traces, out=Path(tmp)))
            print(f"built {traces} in {time.perf_counter() - start:.1f} s")
            apps += [a.path for a in result.apps if a.path is not None]
        for app_dir in apps:
            bench_app(app_dir, args.episodes)


if __name__ == "__main__":
    main()
