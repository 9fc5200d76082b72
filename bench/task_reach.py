"""Where tasks can go: per real trace set, how much of its main app's compiled graph the start
screen reaches, and why the rest is out of reach.

    python bench/task_reach.py [ROOT] [--heldout 0.2] [--only TEXT]

Default ROOT: ../shared/data/real, the sets `bench/fidelity_suite.py` builds (same split). Task
synthesis and the oracle only see screens reachable from the app's start screen on its transition
graph (`phoneworld.tasks.drafts.reachable_screens`), so a screen out of reach gets no task. For
each set's main app (the one with the most training steps) the row gives:

- screens, reach: the compiled screens and those reachable from the start;
- dropped: unreachable screens the recording does enter from a reachable one, by a step the
  compiled graph has no transition for (an outcome the state pass could not tell from the
  majority's and dropped, report.json's `unexplained`): the graph lost the way in;
- starts: unreachable screens the recording only enters at the start of an episode (after a gap,
  a lost state file or a restart), or from other such screens: there was never a way in;
- ways in: the recorded steps of the first kind, as `screen action widget -> next screen`.

Only the compiler's passes up to the app spec run (no fidelity replay, no tasks), in this process.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from fidelity_suite import find_sets  # noqa: E402

from phoneworld.abstract import abstract  # noqa: E402
from phoneworld.fidelity import split_heldout  # noqa: E402
from phoneworld.graph import graph  # noqa: E402
from phoneworld.ingest import ingest  # noqa: E402
from phoneworld.ir.app import AppSpec  # noqa: E402
from phoneworld.ir.diagnostics import Diagnostics  # noqa: E402
from phoneworld.ir.graph import ObservedStep  # noqa: E402
from phoneworld.lower import lower  # noqa: E402
from phoneworld.state import infer_state  # noqa: E402
from phoneworld.tasks.drafts import reachable_screens  # noqa: E402


def reach_row(folder: Path, heldout: float) -> dict[str, object]:
    """The reach figures of the main app of one trace set (its training split)."""
    traces = ingest(folder, None, Diagnostics())
    main = max(traces.apps(),
               key=lambda a: (sum(len(e.steps) for e in traces.for_app(a).episodes), a))
    train, _ = split_heldout(traces.for_app(main), heldout)
    abstraction = abstract(train)
    transitions = graph(train, abstraction)
    spec = lower(train, abstraction, transitions, infer_state(abstraction, transitions))
    return {"app": main, **reach(spec, transitions.steps)}


def reach(spec: AppSpec, steps: Iterable[ObservedStep]) -> dict[str, object]:
    """screens, reach, dropped, starts and the lost ways in (see the module docstring) of a
    compiled app and the recorded steps it was compiled from."""
    near = reachable_screens(spec)
    ways: Counter[str] = Counter()
    behind: set[str] = set()  # what the lost ways in would open
    for s in steps:
        if s.screen in near and s.next_screen and s.next_screen not in near:
            behind.add(s.next_screen)
            ways[f"{s.screen} {s.action} {s.widget or ''} -> {s.next_screen}"] += 1
    todo = list(behind)
    while todo:
        sid = todo.pop()
        for t in spec.transitions:
            if t.screen == sid and t.target is not None and t.target not in near | behind:
                behind.add(t.target)
                todo.append(t.target)
    out = {s.id for s in spec.screens} - near
    return {"screens": len(spec.screens), "reach": len(near), "dropped": len(out & behind),
            "starts": len(out - behind), "ways": [f"{w} (x{n})" for w, n in sorted(ways.items())]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default=str(REPO.parent / "shared" / "data" / "real"))
    parser.add_argument("--heldout", type=float, default=0.2)
    parser.add_argument("--only", default="", help="only sets whose path contains this text")
    args = parser.parse_args()
    root = Path(args.root).resolve()
    sets = [s for s in find_sets(root) if args.only in str(s)]
    if not sets:
        print(f"error: no trace sets under {root}", file=sys.stderr)
        return 2
    print(f"{'set':34} {'app':36} {'screens':>7} {'reach':>5} {'dropped':>7} {'starts':>6}")
    for folder in sets:
        row = reach_row(folder, args.heldout)
        name = str(folder.relative_to(root)) if folder != root else folder.name
        print(f"{name[:34]:34} {str(row['app'])[:36]:36} {row['screens']:>7} {row['reach']:>5} "
              f"{row['dropped']:>7} {row['starts']:>6}")
        for way in row["ways"]:  # type: ignore[attr-defined]
            print(f"    way in lost: {way}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
