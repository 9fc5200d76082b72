"""PhoneEnv: Gymnasium conformance, actions, invalid actions, rewards, episode ends."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

from phoneworld.errors import EnvError
from phoneworld.ir.app import AppSpec
from phoneworld.ir.trace import Click
from phoneworld.runtime import ENV_ID, PhoneEnv
from phoneworld.runtime.backend import Backend, SimBackend

from .notes_app import INITIAL, PKG, five_notes

ADD_NORMALIZED = {"type": "click", "x": 960 / 1080 * 1000, "y": 1800 / 1920 * 1000}


@pytest.mark.parametrize("screenshots", [False, True], ids=["xml", "xml+screenshot"])
def test_check_env_passes(app: AppSpec, screenshots: bool) -> None:
    env = PhoneEnv(app, screenshots=screenshots)
    check_env(env.unwrapped, skip_render_check=True)
    assert isinstance(env.backend, Backend)


@pytest.mark.parametrize("render_mode", ["rgb_array", "ansi"])
def test_registered_env_passes_check_env_with_render_modes(app: AppSpec, render_mode: str) -> None:
    env = gym.make(ENV_ID, app=app, render_mode=render_mode)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env.reset()
    frame = env.render()
    assert frame.shape == (960, 540, 3) if render_mode == "rgb_array" else frame.startswith("[0]")


def test_same_seed_same_observation(app: AppSpec) -> None:
    a, b = PhoneEnv(app, screenshots=True), PhoneEnv(app, screenshots=True)
    oa, _ = a.reset(seed=7)
    a.step(json.dumps(ADD_NORMALIZED))
    oa, _ = a.reset(seed=7)
    ob, _ = b.reset(seed=7)
    assert oa.keys() == ob.keys() and all(
        (oa[k] == ob[k]).all() if k == "screenshot" else oa[k] == ob[k] for k in oa)


def test_reset_with_a_state_option(env: PhoneEnv) -> None:
    obs, info = env.reset(options={"state": five_notes()})
    assert info["state"]["notes"][4]["title"] == "Note 4" and info["screen"] == "s00_list"
    assert '"5 notes"' in obs["text"] and obs["screen"] == "s00_list"
    _, info = env.reset()
    assert info["state"] == {**INITIAL, "@screen": "s00_list"}  # read_state adds the screen


def test_the_state_read_goes_back_to_reset_without_its_screen(env: PhoneEnv) -> None:
    _, info = env.reset(options={"state": five_notes()})
    again, _ = env.reset(options={"state": {**info["state"], "@screen": "s03_settings"}})
    assert again["screen"] == "s00_list" and "@screen" not in env.backend.sim.state


def test_reset_rejects_unknown_options(env: PhoneEnv) -> None:
    with pytest.raises(EnvError, match="unknown reset options"):
        env.reset(options={"stat": {}})


@pytest.mark.parametrize(("action", "screen"), [
    (json.dumps(ADD_NORMALIZED), "s01_editor"),
    (ADD_NORMALIZED, "s01_editor"),
    ({"type": "click", "x": 960, "y": 1800, "coords": "pixels"}, "s01_editor"),
    ({"type": "click", "element": 10}, "s01_editor"),
    ({"action_type": "click", "index": "10"}, "s01_editor"),
    ({"type": "tap", "element": 10, "reason": "to add"}, "s01_editor"),
    (Click(x=960, y=1800), "s01_editor"),
    ({"type": "click", "element": 4}, "s02_detail"),
    ({"type": "back"}, "@launcher"),
    ({"type": "home"}, "@launcher"),
    ({"type": "scroll", "direction": "down"}, "s00_list"),
], ids=["json", "dict", "pixels", "element", "androidworld-spelling", "alias+extra-key", "model",
        "row-element", "back", "home", "scroll"])
def test_actions_reach_their_screens(env: PhoneEnv, action: Any, screen: str) -> None:
    env.reset()
    obs, reward, terminated, truncated, info = env.step(action)
    assert obs["screen"] == screen and info["screen"] == screen
    assert not info["invalid_action"] and (reward, terminated, truncated) == (0.0, False, False)


def test_type_into_an_element_taps_it_first(env: PhoneEnv) -> None:
    env.reset()
    env.step({"type": "click", "element": 10})
    obs, *_, info = env.step({"type": "type", "text": "Buy eggs", "element": 1})
    assert info["state"]["editor_title"] == "Buy eggs" and "focused" in obs["text"]
    _, _, _, _, info = env.step({"type": "click", "element": 2})
    assert info["transition"] == "t_save" and info["state"]["notes"][-1]["title"] == "Buy eggs"


def test_open_app_returns_from_the_launcher(env: PhoneEnv) -> None:
    env.reset()
    _, _, _, _, info = env.step({"type": "back"})
    assert info["left_app"]
    obs, *_ = env.step({"type": "open_app", "package": PKG})
    assert obs["screen"] == "s00_list"


def test_open_app_while_in_front_stays_where_it_is(env: PhoneEnv) -> None:
    env.reset()
    env.step(ADD_NORMALIZED)
    obs, _, _, _, info = env.step({"type": "open_app", "package": PKG})
    assert obs["screen"] == "s01_editor" and not info["left_app"]
    obs, *_ = env.step({"type": "back"})  # the back stack survived
    assert obs["screen"] == "s00_list"


@pytest.mark.parametrize(("action", "message"), [
    ({"type": "clik", "x": 1, "y": 1}, "did you mean 'click'"),
    ({"type": "click", "x": 1}, "needs 'y'"),
    ({"type": "click", "x": 1200, "y": 5}, r"outside \[0, 1000\]"),
    ({"type": "click", "x": "5", "y": 5}, "must be a number"),
    ({"type": "click", "element": 99}, r"no element 99 .*0\.\.10"),
    ({"type": "click", "element": True}, "must be an integer"),
    ({"type": "type"}, "needs a string 'text'"),
    ({"type": "scroll", "direction": "sideways"}, "needs a 'direction'"),
    ({"type": "open_app"}, "needs a 'package'"),
    ({"type": "click", "x": 1, "y": 1, "coords": "inches"}, '"coords" must be'),
    ({"x": 1}, 'needs a "type"'),
    ("{not json", "not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    (42, "must be a JSON object"),
], ids=["typo", "missing-y", "out-of-range", "not-a-number", "bad-element", "bool-element",
        "type-without-text", "bad-direction", "open-app-without-package", "bad-coords",
        "no-type", "bad-json", "json-array", "int"])
def test_invalid_actions_are_flagged_no_ops_or_raise(app: AppSpec, action: Any, message: str) -> None:
    env = PhoneEnv(app)
    obs0, _ = env.reset()
    obs, reward, terminated, truncated, info = env.step(action)
    assert info["invalid_action"] and pytest.approx(0.0) == reward
    assert obs == obs0 and not terminated and not truncated
    assert re.search(message, info["error"])
    strict = PhoneEnv(app, invalid_action="raise")
    strict.reset()
    with pytest.raises(EnvError, match=message):
        strict.step(action)


def test_done_terminates_with_its_answer(env: PhoneEnv) -> None:
    env.reset()
    _, _, terminated, truncated, info = env.step({"type": "done", "answer": "2 notes"})
    assert terminated and not truncated and info["answer"] == "2 notes"
    with pytest.raises(EnvError, match="call reset"):
        env.step({"type": "wait"})


def test_step_before_reset_raises(app: AppSpec) -> None:
    with pytest.raises(EnvError, match="call reset"):
        PhoneEnv(app).step({"type": "wait"})


def test_truncation_at_max_steps(app: AppSpec) -> None:
    env = PhoneEnv(app, max_steps=3)
    env.reset()
    ends = [env.step({"type": "wait"})[2:4] for _ in range(3)]
    assert ends == [(False, False), (False, False), (False, True)]


@pytest.mark.parametrize("form", ["float", "tuple"])
def test_reward_fn_success_terminates(app: AppSpec, form: str) -> None:
    def dark_mode_on(state: dict[str, Any], info: dict[str, Any]) -> Any:
        ok = state["dark_mode"]
        return float(ok) if form == "float" else (0.5 if ok else 0.0, ok)

    env = PhoneEnv(app, reward_fn=dark_mode_on)
    env.reset()
    _, reward, terminated, _, _ = env.step({"type": "click", "element": 1})
    assert (reward, terminated) == (0.0, False)
    _, reward, terminated, _, info = env.step({"type": "click", "element": 0})
    assert info["transition"] == "t_dark"
    assert terminated and reward == (1.0 if form == "float" else 0.5)


def test_env_loads_an_app_folder(app: AppSpec, tmp_path: Path) -> None:
    (tmp_path / "app.json").write_text(app.model_dump_json(by_alias=True), encoding="utf-8")
    env = PhoneEnv(tmp_path)
    obs, _ = env.reset()
    assert obs["screen"] == "s00_list"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"backend": "simm"}, "did you mean 'sim'"),
    ({"invalid_action": "ignore"}, "invalid_action must be"),
    ({"max_steps": 0}, "max_steps must be"),
    ({"render_mode": "human"}, "render_mode must be"),
], ids=["backend-typo", "invalid-action-mode", "max-steps", "render-mode"])
def test_bad_env_arguments(app: AppSpec, kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(EnvError, match=message):
        PhoneEnv(app, **kwargs)


def test_env_accepts_a_backend_instance(app: AppSpec) -> None:
    backend = SimBackend(app)
    env = PhoneEnv(app, backend=backend)
    env.reset()
    env.step({"type": "click", "element": 10})
    assert backend.sim.screen == "s01_editor"
