"""Build time against the number of recorded steps and of view nodes (it should grow linearly).

    python bench/build_time.py [TRACES] [--from FORMAT] [--steps N,N,...] [--nodes N,N,...]

Default TRACES: ../shared/data/real/habitica-droidbot. Two series, each case built in a fresh
subprocess (so its peak memory, `ru_maxrss`, is its own), all passes and the teacher-forced
fidelity replay, nothing written:

- **steps**: the app's real recording, repeated as further sessions until it has N steps (the
  last copy cut there), each session with its own copies of the observations. A long DroidBot
  run of one app keeps revisiting the same screens with the same widgets, so what grows with N
  is the number of observations per screen and per edge, which is what a pass that scans its
  whole input once per observation pays for; the real episodes, not invented ones, keep the
  screens, values and actions as varied as a real app's. (It does not grow the number of
  screens: a longer real run finds a few more.)
- **nodes**: one `uiautomator dump` of N nodes (a list screen of rows: a clickable row holding an
  icon, a title, a subtitle and a checkbox), written as a native trace and ingested: a click on a
  row opens a small detail screen. The last size also runs with five steps on that screen
  (check a row, scroll, check another, scroll back, open one).

Printed per case: seconds (wall, and CPU: the ratios use CPU time, which other load on the machine
disturbs less), ms per step or per node, the growth ratio to the
previous size ((t2 / t1) / (n2 / n1): 1.00 is linear growth), peak memory, and seconds per pass.
The figures of record are in bench/results/build_time.txt (`python bench/build_time.py | tee ...`).
"""

from __future__ import annotations

import argparse
import json
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from phoneworld import pipeline  # noqa: E402
from phoneworld.collector import gc_paused  # noqa: E402
from phoneworld.ir.diagnostics import Diagnostics  # noqa: E402
from phoneworld.ir.trace import Episode, Observation, TraceSet  # noqa: E402
from phoneworld.pipeline import BuildConfig, build_app, check  # noqa: E402
from phoneworld.report import render_report  # noqa: E402

PASSES = ("ingest", "abstract", "graph", "state", "lower", "fidelity", "tasks", "report")
STEPS = (1250, 2500, 5000, 10000, 20000)
NODES = (12500, 25000, 50000, 100000)
BIG_SCREEN_STEPS = 5


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


def repeated(traces: TraceSet, steps: int) -> TraceSet:
    """The recording's episodes played again as later sessions until there are `steps` actions.

    Copy k of an episode is `ID~k` (copy 0 is the episode itself); a copy's `follows` points to
    the copy of the same round, so each round is a session like the recorded one. Each round has
    its own copies of the observations, shared between its steps as ingest shares them (DroidBot
    steps on one state file share its observation), so that no pass finds a later session's
    screens already read through a cache keyed by object."""
    recorded = sum(len(ep.steps) - 1 for ep in traces.episodes)
    if recorded < 1:
        raise ValueError("the recording has no action to repeat")
    rounds: list[Episode] = list(traces.episodes)
    for k in range(1, -(-steps // recorded)):
        fresh: dict[int, Observation] = {}
        for ep in traces.episodes:
            copies = []
            for step in ep.steps:
                if id(step.observation) not in fresh:
                    fresh[id(step.observation)] = step.observation.model_copy(deep=True)
                copies.append(step.model_copy(update={"observation": fresh[id(step.observation)]}))
            rounds.append(ep.model_copy(update={
                "id": f"{ep.id}~{k}", "follows": f"{ep.follows}~{k}" if ep.follows else None,
                "steps": tuple(copies)}))
    return prefix(TraceSet(episodes=tuple(rounds)), steps)


# ----------------------------------------------------------------------------- the big screen

_ATTRS = ('checkable="{checkable}" checked="{checked}" clickable="{clickable}" enabled="true" '
          'focusable="{clickable}" focused="false" scrollable="{scrollable}" '
          'long-clickable="false" password="false" selected="false"')
PACKAGE = "com.example.biglist"


def _node(cls: str, bounds: tuple[int, int, int, int], index: int = 0, text: str = "",
          rid: str = "", clickable: bool = False, scrollable: bool = False,
          checkable: bool = False, checked: bool = False, children: str = "") -> str:
    flags = _ATTRS.format(checkable=str(checkable).lower(), checked=str(checked).lower(),
                          clickable=str(clickable).lower(), scrollable=str(scrollable).lower())
    rid = f"{PACKAGE}:id/{rid}" if rid else ""
    x1, y1, x2, y2 = bounds
    return (f'<node index="{index}" text="{text}" resource-id="{rid}" class="android.{cls}" '
            f'package="{PACKAGE}" content-desc="" {flags} bounds="[{x1},{y1}][{x2},{y2}]">'
            f'{children}</node>')


def list_screen(nodes: int, checked: frozenset[int] = frozenset(), first: int = 0) -> str:
    """A uiautomator dump of about `nodes` nodes: a list of rows of six nodes each.

    Rows are laid out 120 px apart and wrap inside the list, so every bound lies on the device;
    `first` is the number of the top row (a scroll shifts it), `checked` the checked rows."""
    rows = []
    for i in range(max(1, (nodes - 4) // 6)):
        y = 200 + (i % 14) * 120
        item = first + i
        texts = (_node("widget.TextView", (160, y, 900, y + 60), 0, f"Item {item}", "title")
                 + _node("widget.TextView", (160, y + 60, 900, y + 110), 1,
                         f"Due in {item % 30} days", "subtitle"))
        rows.append(_node("widget.LinearLayout", (0, y, 1080, y + 120), i, rid="row",
                          clickable=True, children=(
            _node("widget.ImageView", (20, y + 10, 140, y + 110), 0, rid="icon")
            + _node("widget.LinearLayout", (160, y, 900, y + 120), 1, children=texts)
            + _node("widget.CheckBox", (940, y + 30, 1040, y + 90), 2, rid="done",
                    clickable=True, checkable=True, checked=item in checked))))
    body = _node("widget.FrameLayout", (0, 0, 1080, 1920), children=_node(
        "widget.LinearLayout", (0, 63, 1080, 1794), children=_node(
            "widget.TextView", (0, 63, 1080, 200), 0, "Tasks", "toolbar_title")
        + _node("widget.ListView", (0, 200, 1080, 1794), 1, rid="list", scrollable=True,
                children="".join(rows))))
    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            f'<hierarchy rotation="0">{body}</hierarchy>')


def detail_screen(item: int) -> str:
    title = _node("widget.TextView", (0, 200, 1080, 300), 0, f"Item {item}", "detail_title")
    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            '<hierarchy rotation="0">'
            + _node("widget.FrameLayout", (0, 0, 1080, 1920), children=title) + "</hierarchy>")


def write_big_screen(folder: Path, nodes: int, steps: int) -> Path:
    """A native trace of one episode on a list screen of `nodes` nodes; returns the traces folder.

    With `steps` 1 the list is dumped once and a click opens a row's detail screen; with more,
    the walk checks rows and scrolls on the list before opening a row."""
    episode = folder / PACKAGE / "ep_0000"
    episode.mkdir(parents=True)
    check_box = {"type": "click", "x": 990, "y": 260}
    walk: list[tuple[str, dict[str, Any] | None]] = []
    if steps > 1:
        walk = [(list_screen(nodes), check_box),
                (list_screen(nodes, frozenset({0})), {"type": "scroll", "direction": "down"}),
                (list_screen(nodes, frozenset({0}), first=14), check_box),
                (list_screen(nodes, frozenset({0, 14}), first=14),
                 {"type": "scroll", "direction": "up"})][: steps - 1]
    state = frozenset({0, 14}) if steps > 3 else frozenset({0}) if steps > 1 else frozenset()
    walk += [(list_screen(nodes, state), {"type": "click", "x": 500, "y": 260}),
             (detail_screen(0), None)]
    records = []
    for i, (xml, action) in enumerate(walk):
        (episode / f"{i:04d}.xml").write_text(xml)
        activity = f"{PACKAGE}/.{'List' if xml.count('<node') > 2 else 'Detail'}Activity"
        records.append({"screen": f"{i:04d}.xml", "activity": activity, "action": action})
    (episode / "episode.json").write_text(json.dumps({
        "format": "phoneworld-trace/1", "app": PACKAGE,
        "device": {"width": 1080, "height": 1920, "density": 420, "sdk": 29},
        "steps": records}))
    return folder


# ----------------------------------------------------------------------------- one case

@contextmanager
def _timed_stages(seconds: dict[str, float]) -> Iterator[None]:
    """Time every pass `build_app` names (the pipeline's `_stage` blocks) into `seconds`."""
    original = pipeline._stage

    @contextmanager
    def stage(name: str) -> Iterator[None]:
        start = time.process_time()
        try:
            with original(name):
                yield
        finally:
            seconds[name] = seconds.get(name, 0.0) + time.process_time() - start

    pipeline._stage = stage  # type: ignore[assignment]
    try:
        yield
    finally:
        pipeline._stage = original  # type: ignore[assignment]


def run_case(traces: TraceSet, ingest: tuple[float, float], config: BuildConfig) -> dict[str, Any]:
    """Build `traces` (`ingest`: the wall and CPU seconds it took to read them); the figures of
    one case (peak memory is the whole process's)."""
    passes = {"ingest": ingest[1]}
    wall, cpu = time.perf_counter(), time.process_time()
    with _timed_stages(passes):
        built = build_app(traces, config, Diagnostics())
        assert built.inputs is not None
        with gc_paused(), pipeline._stage("report"):  # as build_app renders it when writing
            render_report(built.inputs)
    wall, cpu = time.perf_counter() - wall + ingest[0], time.process_time() - cpu + ingest[1]
    nodes = sum(len(s.observation.root.walk()) for ep in traces.episodes for s in ep.steps)
    return {"steps": built.report.steps, "nodes": nodes, "screens": built.report.screens,
            "wall": wall, "cpu": cpu, "passes": passes,
            "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def child(args: argparse.Namespace) -> None:
    kind, size = args.case.split(":")
    if kind == "steps":
        traces = pickle.loads(Path(args.pickle).read_bytes())
        case = run_case(repeated(traces, int(size)), (0.0, 0.0),
                        BuildConfig(traces=Path(args.traces), write=False))
    else:
        nodes, steps = (int(n) for n in size.split("x"))
        with tempfile.TemporaryDirectory() as tmp:
            folder = write_big_screen(Path(tmp), nodes, steps)
            wall, cpu = time.perf_counter(), time.process_time()
            trace_set, _ = check(folder, "native")
            case = run_case(trace_set, (time.perf_counter() - wall, time.process_time() - cpu),
                            BuildConfig(traces=folder, write=False))
    print(json.dumps(case))


# ----------------------------------------------------------------------------- the tables

def measure(args: argparse.Namespace, case: str, pickled: Path) -> dict[str, Any]:
    cmd = [sys.executable, __file__, args.traces, "--case", case, "--pickle", str(pickled)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def table(title: str, unit: str, cases: list[dict[str, Any]]) -> None:
    print(f"\n{title}")
    print(f"{'steps':>6} {'nodes':>8} {'screens':>7} {'wall s':>7} {'cpu s':>7} "
          f"{'ms/' + unit:>8} {'ratio':>6} {'MiB':>6}   "
          + " ".join(f"{p:>8}" for p in PASSES))
    previous: dict[str, Any] | None = None
    for case in cases:
        size = case[unit + "s"]
        ratio = "" if previous is None else \
            f"{(case['cpu'] / previous['cpu']) / (size / previous[unit + 's']):.2f}"
        print(f"{case['steps']:>6} {case['nodes']:>8} {case['screens']:>7} {case['wall']:>7.2f} "
              f"{case['cpu']:>7.2f} {1000 * case['cpu'] / size:>8.3f} {ratio:>6} "
              f"{case['rss_mib']:>6.0f}   "
              + " ".join(f"{case['passes'].get(p, 0.0):>8.2f}" for p in PASSES))
        previous = case


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("traces", nargs="?",
                        default=str(REPO.parent / "shared/data/real/habitica-droidbot"))
    parser.add_argument("--from", dest="fmt", default=None)
    parser.add_argument("--steps", default=",".join(map(str, STEPS)))
    parser.add_argument("--nodes", default=",".join(map(str, NODES)))
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--pickle", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        child(args)
        return
    start = time.perf_counter()
    trace_set, _ = check(Path(args.traces), args.fmt)
    app = max(trace_set.apps(), key=lambda a: sum(len(e.steps) for e in trace_set.for_app(a).episodes))
    traces = trace_set.for_app(app)
    print(f"ingest of {args.traces}: {time.perf_counter() - start:.2f} s; app {app}, "
          f"{sum(len(e.steps) - 1 for e in traces.episodes)} recorded steps")
    print("ratio: (cpu2 / cpu1) / (size2 / size1) against the row above, 1.00 = linear; "
          "MiB: peak RSS of the case's process; passes: CPU seconds")
    with tempfile.TemporaryDirectory() as tmp:
        pickled = Path(tmp) / "traces.pickle"
        pickled.write_bytes(pickle.dumps(traces))
        steps = [int(n) for n in args.steps.split(",") if n]
        if steps:
            table("steps (the recording repeated as further sessions)", "step",
                  [measure(args, f"steps:{n}", pickled) for n in steps])
        nodes = [int(n) for n in args.nodes.split(",") if n]
        if nodes:
            table("nodes (one list screen dumped once, a click opens a detail screen)", "node",
                  [measure(args, f"nodes:{n}x1", pickled) for n in nodes])
            table(f"nodes ({BIG_SCREEN_STEPS} steps on the list screen)", "node",
                  [measure(args, f"nodes:{nodes[-1]}x{BIG_SCREEN_STEPS}", pickled)])


if __name__ == "__main__":
    main()
