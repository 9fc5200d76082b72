"""`graph` moves: a screen the app leaves by itself (a splash, a loading page) goes on at `wait`.

The recording shows such a screen as the end of one episode and the next episode, which
`moved_by_itself` from it, starting elsewhere with no action between.
"""

from __future__ import annotations

from phoneworld.ir.graph import Move
from phoneworld.ir.trace import Back, Observation, Wait
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks.build import build_tasks
from tests.compiler_support import (
    BUTTON, TEXT, W, b, back, compile_app, episode, follows, screen, tap, traces, view,
)

LOGO = view(TEXT, b(300, 800, 780, 1000), text="Tiny")
SETTINGS = view(BUTTON, b(40, 1700, 520, 1850), id="settings", text="Settings", clickable=True)
ABOUT = view(BUTTON, b(40, 400, 1040, 550), id="about", text="About", clickable=True)


def splash() -> Observation:
    return screen(LOGO, activity=".SplashActivity")


def home() -> Observation:
    return screen(view(TEXT, b(0, 0, W, 150), text="Home"), SETTINGS)


def settings() -> Observation:
    return screen(view(TEXT, b(0, 0, W, 150), text="Settings"), ABOUT,
                  activity=".SettingsActivity")


def about() -> Observation:
    return screen(view(TEXT, b(0, 0, W, 150), text="About"), activity=".AboutActivity")



def test_a_splash_the_app_left_by_itself_goes_on_at_wait() -> None:
    compiled = compile_app(traces(
        episode("e0", splash()),
        follows(episode("e1", home(), tap(SETTINGS), settings(), tap(ABOUT), about()), "e0",
                moved=True),
    ))
    spec, start = compiled.spec, compiled.spec.start_screen
    assert compiled.graph.moves == (Move(screen=start, target="s01_main", count=1,
                                         sources=(compiled.traces.episodes[1].steps[0].source,)),)
    (wait,) = [t for t in spec.transitions if t.action == "wait"]
    assert (wait.screen, wait.target, wait.nav, wait.widget) == (start, "s01_main", "replace", None)
    assert "s03_about" in compiled.graph.reachable
    sim = Simulator(spec)
    assert sim.screen == start
    assert sim.step(Wait()).changed and sim.screen == "s01_main"
    assert not sim.step(Wait()).changed
    assert sim.step(Back()).left_app  # the splash was replaced: back leaves the app


def test_tasks_reach_past_a_splash_through_wait() -> None:
    compiled = compile_app(traces(
        episode("e0", splash()),
        follows(episode("e1", home(), tap(SETTINGS), settings(), tap(ABOUT), about(), back(),
                        settings()), "e0", moved=True),
    ))
    built = build_tasks(compiled.spec)
    kept = [c for c in built.checks if c.kept and c.task.kind() == "navigate"]
    assert kept, built.summary
    for check in kept:
        assert check.oracle is not None and check.oracle.moves[0].kind == "wait"


def test_a_screen_left_by_a_recorded_action_gets_no_move() -> None:
    compiled = compile_app(traces(
        episode("e0", splash(), tap(LOGO), home()),
        episode("e1", splash()),
        follows(episode("e2", settings()), "e1", moved=True),
    ))
    assert compiled.graph.moves == ()


def test_a_screen_that_went_on_to_different_screens_gets_no_move() -> None:
    compiled = compile_app(traces(
        episode("e0", splash()),
        follows(episode("e1", home()), "e0", moved=True),
        episode("e2", splash()),
        follows(episode("e3", settings()), "e2", moved=True),
    ))
    assert compiled.graph.moves == ()


def test_a_gap_in_the_recording_is_no_move() -> None:
    """A lost state file or an unmappable event between two episodes: something was done there."""
    compiled = compile_app(traces(
        episode("e0", splash()), follows(episode("e1", home()), "e0"),
    ))
    assert compiled.graph.moves == ()
    assert not [t for t in compiled.spec.transitions if t.action == "wait"]


def test_a_random_agent_waits_or_goes_back_where_nothing_can_be_tapped() -> None:
    import random

    from phoneworld.runtime.episode import random_action
    from phoneworld.runtime.env import PhoneEnv

    compiled = compile_app(traces(
        episode("e0", splash()),
        follows(episode("e1", home(), tap(SETTINGS), settings()), "e0", moved=True),
    ))
    env = PhoneEnv(compiled.spec)
    env.reset(seed=0)
    picked = {random_action(env.elements, random.Random(seed))["type"] for seed in range(20)}
    assert picked == {"wait", "back"}
    *_, info = env.step('{"type": "wait"}')
    assert info["screen"] == "s01_main"
