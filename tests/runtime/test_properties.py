"""Property tests: reset determinism, robustness to random actions, snapshot round trips."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from phoneworld.ir import trace as tr
from phoneworld.runtime import PhoneEnv, Simulator
from phoneworld.runtime.compiled import compile_app
from phoneworld.runtime.validate import normalize_state

from .notes_app import PKG, H, W, notes_app

APP = notes_app()
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
any_text = st.text(st.characters(exclude_categories=()), max_size=12)  # surrogates too


@st.composite
def states(draw: st.DrawFn) -> dict[str, Any]:
    notes = draw(st.lists(st.fixed_dictionaries({"title": any_text, "done": st.booleans()}),
                          max_size=6))
    selected = draw(st.none() | st.integers(0, max(0, len(notes) - 1))) if notes else None
    return {"notes": notes, "selected_note": selected, "editor_title": draw(any_text),
            "dark_mode": draw(st.booleans()), "user_name": draw(any_text),
            "saves": draw(st.integers(-5, 5))}


xs, ys = st.integers(-50, W + 50), st.integers(-50, H + 50)
actions = st.one_of(
    st.builds(tr.Click, x=xs, y=ys), st.builds(tr.DoubleClick, x=xs, y=ys),
    st.builds(tr.LongPress, x=xs, y=ys), st.builds(tr.TypeText, text=any_text),
    st.builds(tr.Scroll, direction=st.sampled_from(["up", "down", "left", "right"]),
              x=st.none() | xs, y=st.none() | ys),
    st.builds(tr.Drag, x1=xs, y1=ys, x2=xs, y2=ys),
    st.sampled_from([tr.Back(), tr.Home(), tr.Menu(), tr.Enter(), tr.CloseApp(), tr.Wait(),
                     tr.Done(), tr.OpenApp(package=PKG), tr.OpenApp(package="other")]),
    # taps on the widgets that matter, so random runs get deep into the app
    st.sampled_from([tr.Click(x=960, y=1800), tr.Click(x=200, y=330), tr.Click(x=970, y=330),
                     tr.Click(x=990, y=75), tr.Click(x=280, y=460), tr.Click(x=500, y=260),
                     tr.Click(x=280, y=560), tr.Click(x=500, y=410)]),
)


@SETTINGS
@given(states())
def test_reset_with_the_same_state_gives_the_same_observation(state: dict[str, Any]) -> None:
    a, b = Simulator(APP), Simulator(APP)
    a.reset(state)
    xml, text = a.xml(), a.text()
    a.app.clear_caches()
    b.reset(json.loads(json.dumps(state)))
    assert (b.xml(), b.text()) == (xml, text)
    assert b.state == normalize_state(compile_app(APP), state)


@SETTINGS
@given(states(), st.lists(actions, max_size=25))
def test_random_actions_never_raise_and_keep_the_state_valid(
    state: dict[str, Any], seq: list[Any]
) -> None:
    sim = Simulator(APP)
    sim.reset(state)
    for action in seq:
        sim.step(action)
        current = sim.state
        assert json.loads(json.dumps(current)) == current
        assert normalize_state(sim.app, current) == current
    root = etree.fromstring(sim.xml().encode("utf-8"))
    assert len(root.findall(".//node")) == len(sim.view().walk())


@SETTINGS
@given(states(), st.lists(actions, max_size=10), st.lists(actions, max_size=10))
def test_snapshot_restore_is_exact(state: dict[str, Any], before: list[Any], after: list[Any]) -> None:
    sim = Simulator(APP)
    sim.reset(state)
    for a in before:
        sim.step(a)
    snap, xml, st_ = sim.snapshot(), sim.xml(), sim.state
    for a in after:
        sim.step(a)
    sim.restore(snap)
    assert (sim.xml(), sim.state) == (xml, st_)


@SETTINGS
@given(st.lists(st.text(max_size=40) | st.dictionaries(st.sampled_from(
    ["type", "x", "y", "element", "text", "direction"]), st.integers(-5, 1005) | any_text,
    max_size=4), max_size=15))
def test_env_survives_arbitrary_actions(raw_actions: list[Any]) -> None:
    env = PhoneEnv(APP, max_steps=100)
    env.reset(seed=0)
    for raw in raw_actions:
        obs, _, terminated, _, _ = env.step(raw)
        assert env.observation_space.contains(obs)
        if terminated:
            env.reset()
