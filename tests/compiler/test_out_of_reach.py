"""Screens the built app cannot reach from its start screen are reported, with how the recording
reached them: the mock can never show them, and no task opens them."""

from __future__ import annotations

from pathlib import Path

from phoneworld.ir.diagnostics import Diagnostics
from phoneworld.ir.trace import Handoff, Observation
from phoneworld.pipeline import BuildConfig, build_app, out_of_reach
from tests.compiler_support import BUTTON, TEXT, b, compile_app, episode, screen, tap, traces, view

GO = view(BUTTON, b(40, 300, 1040, 420), id="go", text="Go", clickable=True)


def _page(title: str, activity: str) -> Observation:
    return screen(view(TEXT, b(40, 80, 1040, 160), id="title", text=title), GO, activity=activity)


HOME, NEXT, ELSEWHERE = (_page("Home", ".HomeActivity"), _page("Next", ".NextActivity"),
                         _page("Elsewhere", ".ElsewhereActivity"))
DIED = _page("You died!", ".DiedActivity")


def test_a_screen_an_episode_starts_on_and_no_step_enters_is_out_of_reach() -> None:
    """The second episode starts on a screen nothing recorded leads to (a return from another
    app, which is no place the app starts: `lower._start_screen`): the line names it and says
    so."""
    back = Handoff(origin_episode="e1", part=1, previous_app="com.android.chrome")
    ts = traces(episode("e0", HOME, tap(GO), NEXT),
                episode("e1", ELSEWHERE, tap(GO), HOME).model_copy(update={"handoff": back}))
    compiled = compile_app(ts)
    [line] = out_of_reach(compiled.spec, compiled.graph)
    assert line.startswith("1 of 3 screens cannot be reached from the start screen s00_home")
    assert "s02_elsewhere only where an episode starts" in line


def test_a_rare_outcome_the_mock_does_not_reproduce_leaves_its_screen_out_of_reach(
        tmp_path: Path) -> None:
    """A tap that opened the next page three times and a "You died!" page once, with nothing in
    the state to tell them apart: the app keeps the usual outcome, and the report says the other
    page is out of reach, and why, beside the outcome it dropped."""
    steps: list[object] = [HOME]
    for page in (NEXT, HOME, NEXT, HOME, DIED, HOME, NEXT):
        steps += [tap(GO), page]
    ts = traces(episode("e0", *steps))  # type: ignore[arg-type]
    build = build_app(ts, BuildConfig(traces=tmp_path, write=False, tasks=False),
                      Diagnostics())
    unexplained = build.report.unexplained
    assert any("went to s02_died instead of s01_next" in u for u in unexplained)
    assert any(u.startswith("1 of 3 screens cannot be reached") and "s02_died by steps" in u
               for u in unexplained)


def test_an_app_whose_every_screen_is_in_reach_reports_nothing() -> None:
    compiled = compile_app(traces(episode("e0", HOME, tap(GO), NEXT)))
    assert out_of_reach(compiled.spec, compiled.graph) == ()
