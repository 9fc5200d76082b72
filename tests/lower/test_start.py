"""Where the app starts: the recording's first screen, unless a session recorded afresh elsewhere
opens where more of the app is reachable (`lower._start_screen`).

A recording cut out of a longer run can open on a screen it never leaves on the record (a captcha
solved while the recorder was not reading); the next session, after the gap, starts on the app's
home. Started on the captcha, the mock reaches nothing else and every task is shut in there.
"""

from __future__ import annotations

from phoneworld.ir.trace import Episode
from phoneworld.pipeline import moved_start
from phoneworld.tasks.build import build_tasks
from tests.compiler_support import (
    BUTTON, TEXT, W, b, compile_app, episode, follows, screen, tap, traces, view,
)

ROBOT = view(BUTTON, b(100, 400, 980, 520), id="robot", text="I'm not a robot", clickable=True)
SETTINGS = view(BUTTON, b(40, 1700, 520, 1850), id="settings", text="Settings", clickable=True)
ABOUT = view(BUTTON, b(40, 400, 1040, 550), id="about", text="About", clickable=True)


def captcha():
    return screen(view(TEXT, b(0, 0, W, 150), text="Verify"), ROBOT, activity=".CaptchaActivity")


def home():
    return screen(view(TEXT, b(0, 0, W, 150), text="Home"), SETTINGS)


def settings():
    return screen(view(TEXT, b(0, 0, W, 150), text="Settings"), ABOUT,
                  activity=".SettingsActivity")


def about():
    return screen(view(TEXT, b(0, 0, W, 150), text="About"), activity=".AboutActivity")


def session() -> Episode:
    return episode("e1", home(), tap(SETTINGS), settings(), tap(ABOUT), about())


def screen_of(compiled, activity: str) -> str:
    (sid,) = [s.id for s in compiled.spec.screens if s.activity.endswith(activity)]
    return sid


def test_a_session_after_a_gap_that_reaches_more_starts_the_app() -> None:
    compiled = compile_app(traces(episode("e0", captcha(), tap(ROBOT), captcha()),
                                  follows(session(), "e0")))
    spec = compiled.spec
    assert spec.start_screen == screen_of(compiled, ".MainActivity")
    assert set(spec.distances()) == {screen_of(compiled, a) for a in
                                     (".MainActivity", ".SettingsActivity", ".AboutActivity")}
    built = build_tasks(spec)
    assert any(c.kept and c.task.kind() == "navigate" for c in built.checks), built.summary
    (line,) = moved_start(spec, compiled.graph)  # the report says where and why
    assert line.startswith(f"the app starts on {spec.start_screen}, where a session")
    assert line.endswith(f"the mock reaches 1 of 4 screens, from {spec.start_screen} 3")


def test_the_first_screen_stays_the_start_when_it_reaches_as_much() -> None:
    compiled = compile_app(traces(
        episode("e0", home(), tap(SETTINGS), settings()),
        follows(episode("e1", settings(), tap(ABOUT), about()), "e0"),
    ))
    assert compiled.spec.start_screen == screen_of(compiled, ".MainActivity")
    assert moved_start(compiled.spec, compiled.graph) == ()


def test_a_return_from_another_app_or_a_screen_the_app_moved_to_never_starts_it() -> None:
    for kind in ({"back_from": "com.android.chrome"}, {"moved": True}):
        compiled = compile_app(traces(episode("e0", captcha(), tap(ROBOT), captcha()),
                                      follows(session(), "e0", **kind)))
        assert compiled.spec.start_screen == screen_of(compiled, ".CaptchaActivity"), kind
