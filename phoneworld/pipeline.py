"""`build(config)`: the compiler pipeline, one pass after the other.

ingest -> (per app) abstract -> graph -> state -> lower -> fidelity -> tasks -> report -> android
-> emit

Apps are built one by one and each is published as soon as it is complete. A failure inside one
app's passes costs that app only: it becomes an error diagnostic (PW900) naming the app, the pass
and, where known, the step, nothing of that app is written, and the other apps still build.
`BuildResult.failed` lists the apps that failed; the CLI then exits 1.
"""

from __future__ import annotations

import logging
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from phoneworld.abstract import abstract
from phoneworld import outdir
from phoneworld.collector import gc_paused
from phoneworld.emit import APP_KIND, ROOT_KIND, emit
from phoneworld.errors import InputError, ToolchainError, UsageError
from phoneworld.fidelity import (
    FreeRun, ReplayError, free_run, free_running, recorded_contents, split_heldout, teacher_forced,
)
from phoneworld.graph import graph
from phoneworld.ingest import codes, ingest, without_actions
from phoneworld.ir.app import AppSpec
from phoneworld.ir.base import SourceRef
from phoneworld.ir.diagnostics import Diagnostics
from phoneworld.ir.graph import TransitionGraph
from phoneworld.ir.report import BuildReport, FidelityReport, StateVarSummary
from phoneworld.ir.screens import Abstraction
from phoneworld.ir.trace import TraceSet
from phoneworld.lower import lower
from phoneworld.report import ReportInputs, render_report
from phoneworld.state import infer_state, prepare

if TYPE_CHECKING:
    from phoneworld.state.track import Tracked
    from phoneworld.tasks.build import TaskBuild

log = logging.getLogger(__name__)

Progress = Callable[[str], None]


@dataclass(frozen=True)
class BuildConfig:
    traces: Path
    out: Path = Path("generated_apps")
    fmt: str | None = None
    heldout: float = 0.0
    seed: int = 0
    write: bool = True
    html: bool = True  # also write report.html (when writing)
    tasks: bool = True  # synthesize tasks, sanity-check them, emit task specs and verifiers
    android: bool = True  # also write the Kotlin project (android/) when writing
    force: bool = False  # take over an --out folder phoneworld did not write (phoneworld.outdir)

    def __post_init__(self) -> None:
        for name in ("traces", "out"):  # a str path from the Python API means the same Path
            object.__setattr__(self, name, Path(getattr(self, name)))
        if not 0.0 <= self.heldout < 1.0:
            raise UsageError(f"--heldout must be in [0, 1), got {self.heldout}: "
                             "it is the fraction of each app's steps kept out of the build")
        if not self.traces.exists():
            raise UsageError(f"{self.traces}: no such file or folder; pass the folder of traces")


@dataclass
class AppBuild:
    spec: AppSpec
    report: BuildReport
    path: Path | None
    seconds: float
    inputs: ReportInputs | None = None  # what the HTML report is made from


@dataclass(frozen=True)
class AppFailure:
    app: str
    stage: str  # the pass that failed
    message: str
    traceback: str = ""


@dataclass
class BuildResult:
    apps: list[AppBuild] = field(default_factory=list)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    failed: list[AppFailure] = field(default_factory=list)


class PassFailed(Exception):
    """A pass raised on one app's input: a bug of phoneworld's, reported as a diagnostic."""

    def __init__(self, stage: str, source: SourceRef | None, cause: BaseException) -> None:
        super().__init__(f"{stage}: {type(cause).__name__}: {cause}")
        self.stage, self.source, self.cause = stage, source, cause


@contextmanager
def _stage(name: str) -> Iterator[None]:
    """Name the pass of whatever this block raises (input errors pass through as they are)."""
    try:
        yield
    except (InputError, UsageError, ToolchainError, PassFailed):
        raise
    except Exception as exc:  # noqa: BLE001 - any other failure is one app's, not the build's
        source = exc.source if isinstance(exc, ReplayError) else None
        cause = exc.__cause__ if isinstance(exc, ReplayError) and exc.__cause__ else exc
        raise PassFailed(name, source, cause) from exc


@gc_paused()  # ingest builds a large acyclic tree per screen: see phoneworld.collector
def check(traces: Path, fmt: str | None = None) -> tuple[TraceSet, Diagnostics]:
    """Ingest only; raise InputError with every diagnostic when the input has errors."""
    diagnostics = Diagnostics()
    trace_set = ingest(traces, fmt, diagnostics)
    if diagnostics.has_errors:
        raise InputError(f"{traces}: the traces have errors", diagnostics.items)
    if not trace_set.episodes:
        diagnostics.error(codes.NO_EPISODES.id, "no episodes found", SourceRef(file=str(traces)),
                          codes.NO_EPISODES.hint)
        raise InputError(f"{traces}: no episodes", diagnostics.items)
    without_actions(trace_set, traces, diagnostics)
    if diagnostics.has_errors:
        raise InputError(f"{traces}: no recorded action, nothing to build", diagnostics.items)
    return trace_set, diagnostics


def claim_out(config: BuildConfig) -> outdir.Root:
    """The --out folder, checked before any work (the output folder contract)."""
    return outdir.claim_root(config.out, ROOT_KIND, [config.traces], config.force,
                             outdir.legacy_apps_root)


def check_app_dirs(trace_set: TraceSet, root: outdir.Root) -> None:
    """Every app id is a package name, and every app folder it names may be replaced."""
    bad = []
    for app in trace_set.apps():
        d = outdir.check_name(app, "app id", trace_set.for_app(app).episodes[0].source,
                              package=True)
        if d is not None:
            bad.append(d)
    outdir.require_names(bad, "app id")
    for app in trace_set.apps():
        outdir.check_replaceable(root.path / app, APP_KIND, outdir.legacy_app, root.force)


def build(config: BuildConfig, progress: Progress | None = None) -> BuildResult:
    say = progress or (lambda msg: log.info(msg))
    root = claim_out(config) if config.write else None
    say(f"ingest {config.traces}")
    trace_set, diagnostics = check(config.traces, config.fmt)
    if root is not None:
        check_app_dirs(trace_set, root)
    result = BuildResult(diagnostics=diagnostics)
    for app in trace_set.apps():
        app_traces = trace_set.for_app(app)
        if sum(len(ep.steps) - 1 for ep in app_traces.episodes) < 1:
            continue  # warned by check (PW190)
        say(f"build {app}")
        try:
            result.apps.append(build_app(app_traces, config, diagnostics, root))
        except InputError as exc:
            diagnostics.extend(exc.diagnostics)
            result.failed.append(AppFailure(app, "input", str(exc)))
        except PassFailed as exc:
            source = exc.source or app_traces.episodes[0].source
            diagnostics.error(
                "PW900", f"app {app} was not built: the {exc.stage} pass failed: "
                f"{type(exc.cause).__name__}: {str(exc.cause)[:300]}", source,
                "this is a bug in phoneworld, not in the traces: report it with this message "
                "and the traceback (`phoneworld build --verbose`); the other apps were built")
            trace = "".join(traceback.format_exception(exc.cause))
            result.failed.append(AppFailure(app, exc.stage, str(exc.cause), trace))
    return result


@gc_paused()  # the passes hold the traces and every pass's IR: see phoneworld.collector
def build_app(traces: TraceSet, config: BuildConfig, diagnostics: Diagnostics,
              root: outdir.Root | None = None) -> AppBuild:
    start = time.perf_counter()
    with _stage("heldout split"):
        train, held = split_heldout(traces, config.heldout)
    with _stage("abstract"):
        abstraction = abstract(train)
    with _stage("graph"):
        transitions = graph(train, abstraction)
    with _stage("state"):
        model = infer_state(abstraction, transitions)
    with _stage("lower"):
        spec = lower(train, abstraction, transitions, model)
    with _stage("fidelity"):
        schema, _ = prepare(abstraction, transitions)
        train_replay = teacher_forced(spec, schema, abstraction, train, built_on=True,
                                      outvoted=frozenset(model.outvoted))
        held_replay = teacher_forced(
            spec, schema, abstraction, held, shown=recorded_contents(abstraction, train, last=True),
            after=train_replay.ends,
        ) if held.episodes else None
        free = free_running(free_run(spec, schema, abstraction, train, built_on=True,
                                     tracked=train_replay.tracked))
    fidelity = FidelityReport(
        train=train_replay.summary(),
        heldout=held_replay.summary() if held_replay is not None else None,
        heldout_covered=held_replay.summary(covered_only=True) if held_replay is not None else None,
        heldout_coverage=held_replay.coverage() if held_replay is not None else None,
        heldout_known_trigger=(held_replay.summary(covered_only=True, known_only=True)
                               if held_replay is not None else None),
        free_running=free,
    )
    report = _report(spec, traces, fidelity, diagnostics,
                     model.dropped + moved_start(spec, transitions) + out_of_reach(spec, transitions),
                     config)
    with _stage("tasks"):
        task_build = _tasks(spec, config, train, abstraction, transitions, train_replay.tracked,
                            held)
    if task_build is not None:
        report = report.model_copy(update={"tasks": task_build.summary})
    inputs = ReportInputs(spec, report, config.traces, train, held, abstraction, transitions,
                          schema, train_replay, held_replay,
                          tuple(task_build.checks) if task_build is not None else None)
    with _stage("report"):
        pages = {"report.html": render_report(inputs)} if config.write and config.html else {}
    if task_build is not None:
        pages = {**pages, **task_build.files}
    if config.write and config.android:
        from phoneworld.android.project import project_files

        with _stage("android"):
            pages = {**pages, **project_files(spec)}
    if config.write and root is None:
        root = claim_out(config)
    path = emit(spec, report, root, pages) if root is not None else None
    return AppBuild(spec=spec, report=report, path=path, seconds=time.perf_counter() - start,
                    inputs=inputs)


def _tasks(spec: AppSpec, config: BuildConfig, train: TraceSet, abstraction: Abstraction,
           transitions: TransitionGraph, tracked: list[list[Tracked]], held: TraceSet
           ) -> TaskBuild | None:
    """Synthesized tasks, their sanity check and their files (`phoneworld.tasks.build`); the
    training sessions recorded for an instruction are tasks too (`tasks.recorded`), each
    replayed from the state training replay tracked at its start (`tracked`, by training
    episode), tapping the widgets its steps hit (`transitions`)."""
    if not config.tasks:
        return None
    from phoneworld.tasks.build import build_tasks
    from phoneworld.tasks.recorded import recorded_goals

    return build_tasks(spec, goals=tuple(recorded_goals(spec, train, abstraction, tracked, held,
                                                        transitions.steps)))


def moved_start(spec: AppSpec, graph: TransitionGraph) -> tuple[str, ...]:
    """A line when the app does not start where the recording did (`lower._start_screen`): a
    session after a gap opens where the mock reaches more of the app."""
    if spec.start_screen == graph.start_screen:
        return ()
    first = spec.model_copy(update={"start_screen": graph.start_screen})
    return (f"the app starts on {spec.start_screen}, where a session the recording started afresh "
            f"opens, not on the recording's first screen {graph.start_screen}: from there the "
            f"mock reaches {len(first.distances())} of {len(spec.screens)} screens, from "
            f"{spec.start_screen} {len(spec.distances())}",)


def out_of_reach(spec: AppSpec, graph: TransitionGraph) -> tuple[str, ...]:
    """A line for the screens no path of transitions from the start screen reaches (guards
    ignored): the mock can never show them, and no task opens them. Each says how the recording
    reached it: by a step whose outcome the app does not reproduce (a rare outcome of a tap that
    usually does something else), or only where an episode starts (after a gap in the recording,
    a restart, or a return from another app)."""
    far = spec.distances()
    lost = [s.id for s in spec.screens if s.id not in far]
    if not lost:
        return ()
    by_step = {st.next_screen for st in graph.steps if st.screen and st.screen != st.next_screen}
    stepped = [s for s in lost if s in by_step]
    started = [s for s in lost if s not in by_step]
    why = "; ".join(part for part in (
        f"{', '.join(stepped)} by steps from one another or whose outcome the mock does not "
        "reproduce (listed above)" if stepped else "",
        f"{', '.join(started)} only where an episode starts (after a gap, a restart or a return "
        "from another app)" if started else "") if part)
    return (f"{len(lost)} of {len(spec.screens)} screens cannot be reached from the start screen "
            f"{spec.start_screen}, so no episode or task shows them; the recording reached {why}",)


def _report(spec: AppSpec, traces: TraceSet, fidelity: FidelityReport, diagnostics: Diagnostics,
            dropped: tuple[str, ...], config: BuildConfig) -> BuildReport:
    effects: Counter[str] = Counter(e.kind for t in spec.transitions for e in t.effects)
    return BuildReport(
        app=spec.package,
        episodes=len(traces.episodes),
        steps=sum(len(ep.steps) - 1 for ep in traces.episodes),
        screens=len(spec.screens),
        transitions=len(spec.transitions),
        state_vars=tuple(StateVarSummary(name=v.name, kind=v.kind) for v in spec.state),
        effects=dict(sorted(effects.items())),
        guards=sum(t.guard is not None for t in spec.transitions),
        fidelity=fidelity,
        diagnostics=diagnostics.counts(),
        unexplained=dropped,
        heldout_fraction=config.heldout,
        seed=config.seed,
    )


def replay_episodes(traces: Path, fmt: str | None = None) -> list[tuple[str, FreeRun]]:
    """Build every app in memory and replay each of its episodes free-running."""
    trace_set, _ = check(traces, fmt)
    out: list[tuple[str, FreeRun]] = []
    for app in trace_set.apps():
        app_traces = trace_set.for_app(app)
        abstraction = abstract(app_traces)
        transitions = graph(app_traces, abstraction)
        spec = lower(app_traces, abstraction, transitions, infer_state(abstraction, transitions))
        schema, _ = prepare(abstraction, transitions)
        out += [(app, run) for run in free_run(spec, schema, abstraction, app_traces)]
    return out
