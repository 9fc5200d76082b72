"""VectorPhoneEnv against gymnasium's 1.x vector contract, and PhoneEnv under AsyncVectorEnv.

Gymnasium 1.x ships no checker for vector envs, so the contract is tested directly: spaces and
shapes, step-by-step agreement with `SyncVectorEnv` (the reference implementation, autoreset
included), each autoreset mode, seeding, and gymnasium's vector wrappers on top.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence
from gymnasium.vector import AutoresetMode

from phoneworld.errors import EnvError
from phoneworld.ir.app import AppSpec
from phoneworld.runtime import ENV_ID, PhoneEnv, VectorPhoneEnv
from phoneworld.runtime.spaces import UnicodeText

WAIT, DONE, BACK = {"type": "wait"}, {"type": "done"}, {"type": "back"}
SETTINGS, ADD = {"type": "click", "element": 1}, {"type": "click", "element": 10}
TYPE = {"type": "type", "text": "héllo 中文 \u2022"}
# per env, per step; no step selects a note, so every env's state has the same types and
# SyncVectorEnv's info batching (typed by env 0's values) can follow
SCRIPT = [
    [SETTINGS, ADD, WAIT], [TYPE, TYPE, DONE], [BACK, BACK, WAIT], [DONE, WAIT, ADD],
    [WAIT, BACK, WAIT], [ADD, WAIT, WAIT], [WAIT, WAIT, WAIT],
]


def same_infos(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Gymnasium infos equal, comparing `state` (an object array of dicts here, one array per
    variable in gymnasium's) through the masks of the keys both have."""
    keys = {k for k in a if k != "state" and not k.startswith("_")}
    return keys == {k for k in b if k != "state" and not k.startswith("_")} and all(
        data_equivalence(a[k], b[k]) and data_equivalence(a[f"_{k}"], b[f"_{k}"]) for k in keys)


def test_spaces_shapes_and_containment(app: AppSpec) -> None:
    vec = VectorPhoneEnv(app, 3, screenshots=True)
    single = PhoneEnv(app, screenshots=True)
    assert vec.num_envs == 3 and vec.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert vec.single_observation_space == single.observation_space
    assert vec.single_action_space == single.action_space
    assert vec.observation_space == gym.vector.utils.batch_space(single.observation_space, 3)
    obs, infos = vec.reset(seed=0)
    assert vec.observation_space.contains(obs)
    assert [len(obs[k]) for k in ("xml", "text", "screen")] == [3, 3, 3]
    assert obs["screenshot"].shape == (3, *single.observation_space["screenshot"].shape)
    assert infos["_step"].all() and infos["state"].dtype == object
    actions = ['{"type": "click", "element": 1}', '{"type": "wait"}', '{"type": "back"}']
    assert vec.action_space.contains(actions)
    obs, rewards, terms, truncs, infos = vec.step(actions)
    assert vec.observation_space.contains(obs)
    assert rewards.shape == terms.shape == truncs.shape == (3,)
    assert (rewards.dtype, terms.dtype, truncs.dtype) == (np.float64, np.bool_, np.bool_)
    assert obs["screen"] == ["s03_settings", "s00_list", "@launcher"]
    assert infos["step"].tolist() == [1, 1, 1] and infos["state"][0]["dark_mode"] is False
    assert vec.render() is None
    vec.close()
    assert vec.closed


def test_agrees_with_sync_vector_env_step_by_step(app: AppSpec) -> None:
    vec = VectorPhoneEnv(app, 3, max_steps=4)
    ref = gym.vector.SyncVectorEnv([functools.partial(PhoneEnv, app, max_steps=4)] * 3)
    got, want = vec.reset(seed=1), ref.reset(seed=1)
    assert data_equivalence({k: tuple(v) for k, v in got[0].items()}, want[0])
    assert same_infos(got[1], want[1])
    for actions in SCRIPT:  # a done, a truncation at 4, and the next-step autoresets
        got, want = vec.step(actions), ref.step(actions)
        assert data_equivalence({k: tuple(v) for k, v in got[0].items()}, want[0])
        assert all(data_equivalence(g, w) for g, w in zip(got[1:4], want[1:4], strict=True))
        assert same_infos(got[4], want[4])
        for i in np.flatnonzero(got[4]["_state"]):
            assert got[4]["state"][i] == vec.envs[i].backend.read_state()


def test_next_step_autoreset(app: AppSpec) -> None:
    vec = VectorPhoneEnv(app, 2)
    vec.reset()
    vec.step([SETTINGS, WAIT])
    _, _, terms, _, _ = vec.step([DONE, WAIT])
    assert terms.tolist() == [True, False]
    obs, rewards, terms, truncs, infos = vec.step([SETTINGS, SETTINGS])  # env 0's is ignored
    assert obs["screen"] == ["s00_list", "s03_settings"]
    assert rewards.tolist() == [0.0, 0.0] and not terms.any() and not truncs.any()
    assert infos["step"].tolist() == [0, 3] and infos["_invalid_action"].tolist() == [False, True]


def test_same_step_autoreset_reports_the_final_observation(app: AppSpec) -> None:
    vec = VectorPhoneEnv(app, 2, autoreset_mode="SameStep")
    vec.reset()
    vec.step([SETTINGS, WAIT])
    obs, _, terms, _, infos = vec.step([DONE, WAIT])
    assert terms.tolist() == [True, False] and obs["screen"] == ["s00_list", "s00_list"]
    assert infos["_final_obs"].tolist() == [True, False]
    assert infos["final_obs"][0]["screen"] == "s03_settings"
    assert infos["final_info"]["step"][0] == 2 and infos["step"].tolist() == [0, 2]
    obs, *_ = vec.step([SETTINGS, WAIT])  # env 0 already restarted: this action counts
    assert obs["screen"][0] == "s03_settings"


def test_disabled_autoreset_resets_by_mask(app: AppSpec) -> None:
    vec = VectorPhoneEnv(app, 2, autoreset_mode=AutoresetMode.DISABLED)
    vec.reset()
    vec.step([SETTINGS, SETTINGS])
    vec.step([DONE, WAIT])
    with pytest.raises(EnvError, match="env 0's episode has ended.*reset_mask"):
        vec.step([WAIT, WAIT])
    obs, infos = vec.reset(options={"reset_mask": np.array([True, False])})
    assert obs["screen"] == ["s00_list", "s03_settings"] and infos["_step"].tolist() == [True, False]
    vec.step([WAIT, WAIT])


def test_seeding_is_deterministic(app: AppSpec) -> None:
    a, b = VectorPhoneEnv(app, 3), VectorPhoneEnv(app, 3)
    assert data_equivalence(a.reset(seed=42), b.reset(seed=42))
    assert [e.np_random_seed for e in a.envs] == [42, 43, 44]
    assert all(data_equivalence(a.step(x)[:4], b.step(x)[:4]) for x in SCRIPT)
    a.reset(seed=[7, None, 9])
    assert a.envs[0].np_random_seed == 7 and a.envs[2].np_random_seed == 9


def test_gymnasium_vector_wrappers_run_on_it(app: AppSpec) -> None:
    vec = gym.wrappers.vector.RecordEpisodeStatistics(VectorPhoneEnv(app, 2, max_steps=3))
    vec.reset(seed=0)
    for _ in range(3):
        _, _, _, truncs, infos = vec.step([WAIT, WAIT])
    assert truncs.all() and infos["episode"]["l"].tolist() == [3, 3]


def test_make_vec_builds_a_vector_phone_env(app: AppSpec) -> None:
    vec = gym.make_vec(ENV_ID, num_envs=3, app=app, max_steps=5)
    assert isinstance(vec, VectorPhoneEnv) and vec.num_envs == 3 and vec.envs[0].max_steps == 5
    assert vec.reset(seed=0)[0]["screen"] == ["s00_list"] * 3


def test_sub_envs_pass_check_env(app: AppSpec) -> None:
    vec = VectorPhoneEnv(app, 2, screenshots=True)
    for env in vec.envs:
        check_env(env, skip_render_check=True)


def test_built_from_an_app_folder_or_a_mid_episode_env(app: AppSpec, tmp_path: Path) -> None:
    (tmp_path / "app.json").write_text(app.model_dump_json(by_alias=True), encoding="utf-8")
    assert VectorPhoneEnv(tmp_path, 2).reset()[0]["screen"] == ["s00_list"] * 2
    env = PhoneEnv(app)
    env.reset()
    env.step(SETTINGS)
    vec = VectorPhoneEnv.fork(env, 4)
    assert vec.observations()["screen"] == ["s03_settings"] * 4  # no reset needed
    obs, _, _, _, infos = vec.step([WAIT, BACK, {"type": "click", "element": 0}, WAIT])
    assert obs["screen"] == ["s03_settings", "s00_list", "s03_settings", "s03_settings"]
    assert [s["dark_mode"] for s in infos["state"]] == [False, False, True, False]
    assert infos["step"].tolist() == [2] * 4
    assert env.observation()["screen"] == "s03_settings" and not env.backend.read_state()["dark_mode"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({}, "needs an app"),
    ({"num_envs": 0, "app": True}, "num_envs must be at least 1"),
    ({"envs": []}, "at least one env"),
    ({"autoreset_mode": "sometimes", "app": True}, "autoreset_mode must be one of"),
], ids=["nothing", "zero-envs", "empty-envs", "bad-autoreset"])
def test_bad_arguments(app: AppSpec, kwargs: dict[str, Any], message: str) -> None:
    if kwargs.pop("app", None):
        kwargs["app"] = app
    with pytest.raises(EnvError, match=message):
        VectorPhoneEnv(**kwargs)


def test_bad_calls(app: AppSpec) -> None:
    vec = VectorPhoneEnv(app, 2)
    with pytest.raises(EnvError, match="call reset"):
        vec.step([WAIT, WAIT])
    vec.reset()
    with pytest.raises(EnvError, match="2 actions for 2 envs|got 1 actions for 2 envs"):
        vec.step([WAIT])
    with pytest.raises(EnvError, match="one per env, got one str"):
        vec.step('{"type": "wait"}')
    with pytest.raises(EnvError, match="3 seeds for 2 envs"):
        vec.reset(seed=[1, 2, 3])
    with pytest.raises(EnvError, match="reset_mask"):
        vec.reset(options={"reset_mask": [True, False]})
    with pytest.raises(EnvError, match="spaces differ"):
        VectorPhoneEnv(envs=[PhoneEnv(app), PhoneEnv(app, screenshots=True)])


def test_async_vector_env_with_shared_memory_carries_every_text(app: AppSpec) -> None:
    fns = [functools.partial(PhoneEnv, app)] * 2
    asyn = gym.vector.AsyncVectorEnv(fns)  # shared_memory=True, gymnasium's default
    sync = gym.vector.SyncVectorEnv(fns)
    try:
        assert asyn.shared_memory
        assert data_equivalence(asyn.reset(seed=0)[0], sync.reset(seed=0)[0])
        seen = []
        for actions in ([SETTINGS, ADD], [TYPE, TYPE], [BACK, BACK]):
            got, want = asyn.step(actions)[0], sync.step(actions)[0]
            assert data_equivalence(got, want)
            seen.append(got)
        assert seen[0]["screen"] == ("s03_settings", "s01_editor")
        assert 'text="héllo 中文 \u2022"' in seen[1]["xml"][1]  # beyond the sampling charset
    finally:
        asyn.close()


def test_a_text_too_long_for_shared_memory_says_what_to_do() -> None:
    space = UnicodeText(4)
    shared = gym.vector.utils.create_shared_memory(space, n=2)
    gym.vector.utils.write_to_shared_memory(space, 1, "中文", shared)
    assert tuple(gym.vector.utils.read_from_shared_memory(space, shared, n=2)) == ("", "中文")
    with pytest.raises(EnvError, match="5 characters does not fit.*shared_memory=False"):
        gym.vector.utils.write_to_shared_memory(space, 0, "hello", shared)
