"""PhoneEnv snapshots and forks: n rollouts from one mid-episode prefix that then diverge."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from gymnasium.utils.env_checker import check_env

from phoneworld.errors import EnvError, PhoneworldError
from phoneworld.ir.app import AppSpec
from phoneworld.runtime import EnvSnapshot, Obs, PhoneEnv
from phoneworld.runtime.backend import SimBackend

ADD, TITLE = {"type": "click", "element": 10}, {"type": "click", "element": 1}
PREFIX = [ADD, TITLE, {"type": "type", "text": "Buy eggs"}]  # the editor, a title typed


def mid_episode(app: AppSpec, **kwargs: Any) -> PhoneEnv:
    env = PhoneEnv(app, **kwargs)
    env.reset(seed=5)
    for a in PREFIX:
        env.step(a)
    return env


def where(env: PhoneEnv) -> tuple[Any, ...]:
    """Everything a rollout can see or depend on: screen, stack, focus, state, XML, step count."""
    sim = env.backend.sim  # type: ignore[attr-defined]
    return sim.screen, sim.stack, sim.focus, sim.state, env.observation()["xml"], env._steps


def run(env: PhoneEnv, actions: list[Any]) -> list[tuple[Any, ...]]:
    out = []
    for a in actions:
        obs, reward, term, trunc, info = env.step(a)
        out.append((obs["xml"], obs["text"], reward, term, trunc, info["step"], info["state"]))
    return out


SAVE_IT = [{"type": "click", "element": 2}]  # Save: back on the list with the new note
CANCEL_IT = [{"type": "click", "element": 3}, {"type": "click", "element": 1}]  # Cancel, settings


def test_forks_start_where_the_parent_is_and_diverge_independently(app: AppSpec) -> None:
    env = mid_episode(app)
    before = where(env)
    a, b, c = env.fork(3)
    assert where(a) == where(b) == where(c) == before
    same_a, same_b = run(a, SAVE_IT), run(b, SAVE_IT)
    other = run(c, CANCEL_IT)
    assert same_a == same_b  # same actions, same states
    assert same_a[0][6]["notes"][-1]["title"] == "Buy eggs" and same_a[0][5] == len(PREFIX) + 1
    assert other[-1][6]["notes"] == app.initial_state["notes"]  # different actions, other state
    assert where(a)[:5] != where(c)[:5]
    assert where(env) == before  # the parent is untouched
    assert run(env, SAVE_IT) == same_a  # and continues as a fork would


def test_forks_share_the_compiled_app_and_never_read_app_json(app: AppSpec, tmp_path: Path) -> None:
    (tmp_path / "app.json").write_text(app.model_dump_json(by_alias=True), encoding="utf-8")
    env = PhoneEnv(tmp_path)
    env.reset()
    env.step(ADD)
    (tmp_path / "app.json").unlink()
    forks = env.fork(4)
    compiled = env.backend.sim.app  # type: ignore[attr-defined]
    assert all(f.backend.sim.app is compiled for f in forks)  # type: ignore[attr-defined]
    assert all(f.spec_app is env.spec_app for f in forks)


def test_forks_keep_the_step_count_and_settings(app: AppSpec) -> None:
    def reward(state: dict[str, Any], info: dict[str, Any]) -> float:
        return 1.0 if any(n["title"] == "Buy eggs" for n in state["notes"]) else 0.0

    env = mid_episode(app, max_steps=5, reward_fn=reward)
    fork = env.fork(1)[0]
    assert (fork.max_steps, fork.reward_fn, fork.screenshots) == (5, reward, False)
    _, r, term, trunc, _ = fork.step({"type": "wait"})
    assert (r, term, trunc) == (0.0, False, False)
    _, r, term, trunc, info = fork.step({"type": "click", "element": 2})
    assert (r, term, info["step"]) == (1.0, True, 5)
    waits = env.fork(1)[0]
    assert [waits.step({"type": "wait"})[3] for _ in range(2)] == [False, True]  # truncated at 5


def test_fork_rng_copies_the_stream_or_spawns_independent_ones(app: AppSpec) -> None:
    env = mid_episode(app)
    copies = env.fork(2)
    draws = [f.np_random.integers(1 << 30, size=4).tolist() for f in copies]
    assert draws[0] == draws[1] == env.np_random.integers(1 << 30, size=4).tolist()
    seeded = [f.np_random.integers(1 << 30, size=4).tolist() for f in env.fork(3, seed=11)]
    again = [f.np_random.integers(1 << 30, size=4).tolist() for f in env.fork(3, seed=11)]
    assert seeded == again and len({tuple(d) for d in seeded}) == 3


def test_snapshot_restore_round_trips_mid_episode(app: AppSpec) -> None:
    env = mid_episode(app, max_steps=10)
    snap = env.snapshot()
    assert isinstance(snap, EnvSnapshot) and snap.steps == len(PREFIX)
    before = where(env)
    ahead = run(env, SAVE_IT + CANCEL_IT)
    env.restore(snap)
    assert where(env) == before
    assert run(env, SAVE_IT + CANCEL_IT) == ahead
    fork = env.fork(1)[0]
    fork.restore(snap)  # a snapshot of the parent fits its forks
    assert where(fork) == before


def test_fork_of_an_ended_or_unstarted_env_needs_a_reset(app: AppSpec) -> None:
    fresh = PhoneEnv(app).fork(2)
    assert not fresh[0].started
    with pytest.raises(EnvError, match="call reset"):
        fresh[0].step({"type": "wait"})
    env = mid_episode(app)
    env.step({"type": "done"})
    ended = env.fork(1)[0]
    assert ended.episode_over
    with pytest.raises(EnvError, match="call reset"):
        ended.step({"type": "wait"})
    obs, _ = ended.reset()
    assert obs["screen"] == "s00_list"


def test_forks_pass_check_env(app: AppSpec) -> None:
    for fork in mid_episode(app, screenshots=True).fork(2):
        check_env(fork, skip_render_check=True)


class DeviceLike:
    """A backend whose state is elsewhere (as on a phone): no snapshot, restore or fork."""

    def __init__(self, app: AppSpec) -> None:
        self._sim = SimBackend(app)
        self.device, self.package = app.device, app.package

    def reset(self, state: dict[str, Any] | None = None, seed: int | None = None) -> Obs:
        return self._sim.reset(state, seed)

    def step(self, action: Any) -> Any:
        return self._sim.step(action)

    def observe(self, screenshot: bool = False) -> Obs:
        return self._sim.observe(screenshot)

    def read_state(self) -> dict[str, Any]:
        return self._sim.read_state()

    def close(self) -> None:
        pass


@pytest.mark.parametrize("call", ["snapshot", "fork"])
def test_a_device_backend_cannot_fork(app: AppSpec, call: str) -> None:
    env = PhoneEnv(app, backend=DeviceLike(app))
    env.reset()
    with pytest.raises(PhoneworldError, match="DeviceLike backend cannot be snapshotted or forked"):
        env.snapshot() if call == "snapshot" else env.fork(2)


@pytest.mark.parametrize("n", [0, -1, 2.0], ids=["zero", "negative", "float"])
def test_fork_needs_a_positive_count(app: AppSpec, n: Any) -> None:
    with pytest.raises(EnvError, match="at least 1"):
        mid_episode(app).fork(n)
