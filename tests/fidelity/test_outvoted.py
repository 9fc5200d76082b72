"""Training replay counts the missed steps whose recorded outcome the model outvoted: their
trigger went elsewhere more often and no state condition tells them apart, so no rule of the
model reproduces both (a recording that contradicts itself shows as such, not as a wrong rule)."""

from __future__ import annotations

from pathlib import Path

from phoneworld.fidelity import teacher_forced
from phoneworld.ir.diagnostics import Diagnostics
from phoneworld.ir.trace import Observation
from phoneworld.pipeline import BuildConfig, build_app
from tests.compiler_support import BUTTON, TEXT, b, compile_app, episode, screen, tap, traces, view

GO = view(BUTTON, b(40, 300, 1040, 420), id="go", text="Go", clickable=True)


def _page(title: str, activity: str) -> Observation:
    return screen(view(TEXT, b(40, 80, 1040, 160), id="title", text=title), GO, activity=activity)


HOME, NEXT, DIED = (_page("Home", ".HomeActivity"), _page("Next", ".NextActivity"),
                    _page("You died!", ".DiedActivity"))


def _run(*pages: Observation) -> list[object]:
    steps: list[object] = [HOME]
    for page in pages:
        steps += [tap(GO), page]
    return steps


def test_a_rare_outcome_nothing_tells_apart_is_counted_outvoted(tmp_path: Path) -> None:
    """Go on Home opened Next three times and "You died!" once: the app keeps Next, the one
    step to "You died!" is missed, and it is the one outvoted step, in the model and in the
    report's training figures (held-out replay has no such figure)."""
    steps = _run(NEXT, HOME, NEXT, HOME, DIED, HOME, NEXT)
    ts = traces(episode("e0", *steps))  # type: ignore[arg-type]
    compiled = compile_app(ts)
    assert compiled.model.outvoted == ((0, 4),)  # the tap on Home at observation 4
    replay = teacher_forced(compiled.spec, compiled.schema, compiled.abstraction, ts,
                            built_on=True, outvoted=frozenset(compiled.model.outvoted))
    [missed] = [s for s in replay.steps if s.changing and not s.transition_match]
    assert (missed.step, missed.outvoted, missed.recorded_screen) == (4, True, "s02_died")
    summary = replay.summary()
    assert summary is not None and summary.outvoted == 1

    build = build_app(ts, BuildConfig(traces=tmp_path, write=False, tasks=False, heldout=0.0),
                      Diagnostics())
    train = build.report.fidelity.train
    assert train is not None and train.outvoted == 1


def test_a_replay_not_told_which_steps_were_outvoted_reports_no_count() -> None:
    """Without the model's outvoted steps (a held-out replay), the figure is unknown, not 0."""
    ts = traces(episode("e0", *_run(NEXT, HOME, NEXT, HOME, DIED)))  # type: ignore[arg-type]
    compiled = compile_app(ts)
    replay = teacher_forced(compiled.spec, compiled.schema, compiled.abstraction, ts,
                            built_on=True)
    summary = replay.summary()
    assert summary is not None and summary.outvoted is None
    assert summary.transition_match_changing is not None
    assert summary.transition_match_changing < 1.0  # the step to "You died!" is still missed


def test_a_trigger_with_one_outcome_outvotes_nothing() -> None:
    """Every step went where its trigger always went: nothing is outvoted."""
    ts = traces(episode("e0", *_run(NEXT, HOME, NEXT, HOME)))  # type: ignore[arg-type]
    compiled = compile_app(ts)
    assert compiled.model.outvoted == ()
    replay = teacher_forced(compiled.spec, compiled.schema, compiled.abstraction, ts,
                            built_on=True, outvoted=frozenset(compiled.model.outvoted))
    summary = replay.summary()
    assert summary is not None and summary.outvoted == 0
