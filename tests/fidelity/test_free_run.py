"""`fidelity.free_run`: each episode's actions applied without correction, the recording's first
episode from the reset app, each step's screen content compared with the recorded one.

A reset state that disagrees with what the recording showed (a switch on a settings page opened
later) is invisible to teacher-forced replay, which starts every step from the tracked state; free
running from the reset app shows it on every step the page is shown.
"""

from __future__ import annotations

from phoneworld.fidelity import free_run, free_running
from tests.compiler_support import (
    BUTTON, CHECKBOX, W, Compiled, b, back, compile_app, episode, screen, tap, traces, view,
)

MORE = view(BUTTON, b(0, 300, W, 480), id="more", text="Settings", clickable=True)
WIFI = view(CHECKBOX, b(0, 300, W, 480), id="wifi", text="Wi-Fi", checkable=True, checked=True,
            clickable=True)
HOME, SETTINGS = screen(MORE), screen(WIFI, activity=".SettingsActivity")


def compiled() -> Compiled:
    return compile_app(traces(episode("run#1", HOME, tap(MORE), SETTINGS, back(), HOME,
                                      tap(MORE), SETTINGS)))


def test_an_app_replays_its_own_recording_free_running() -> None:
    c = compiled()
    [run] = free_run(c.spec, c.schema, c.abstraction, c.traces)
    assert run.screens_match and run.content_match == 1.0 and run.final_content_match == 1.0
    figures = free_running([run])
    assert (figures.episodes, figures.reproduced, figures.steps) == (1, 1, 4)
    assert figures.content_match == 1.0


def test_the_first_episode_starts_from_the_reset_app() -> None:
    c = compiled()
    flag = next(v.name for v in c.spec.state if v.kind == "flag")
    wrong = c.spec.model_copy(update={"initial_state": {**c.spec.initial_state, flag: False}})
    [run] = free_run(wrong, c.schema, c.abstraction, c.traces)
    assert run.screens_match  # the screens are right, what the settings page shows is not
    assert run.final_content_match < 1.0
    assert 0.0 < run.content_match < 1.0
    assert free_running([run]).content_match == run.content_match


def test_an_episode_that_follows_another_starts_on_its_back_stack() -> None:
    # a recording cut on the settings page goes on there: back returns home, as it did
    first = episode("run#1", HOME, tap(MORE), SETTINGS)
    second = episode("run#2", SETTINGS, back(), HOME).model_copy(update={"follows": "run#1"})
    c = compile_app(traces(first, second))
    runs = free_run(c.spec, c.schema, c.abstraction, c.traces)
    assert [r.screens_match for r in runs] == [True, True], [r.mock_screens for r in runs]
