"""A world env forks like an app env: forks share the compiled apps and diverge independently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from phoneworld.runtime import PhoneEnv, VectorPhoneEnv
from phoneworld.world.env import world_env
from phoneworld.world.load import load_world

NOTES = "com.example.notes"


def tap(env: PhoneEnv, text: str) -> dict[str, Any]:
    i = next(i for i, e in enumerate(env.elements) if text in (e.text, e.content_desc))
    return env.step({"type": "click", "element": i})[4]


def test_world_forks_diverge_and_leave_the_parent(mini_world: Path) -> None:
    env = world_env(load_world(mini_world), max_steps=20)
    env.reset()
    tap(env, "Notes")
    env.step({"type": "long_press", "element": next(
        i for i, e in enumerate(env.elements) if e.text == "Buy milk")})  # the text toolbar
    before = (env.observation(), env.backend.read_state())
    a, b, c = env.fork(3)
    sims = env.backend.world.sims  # type: ignore[attr-defined]
    for f in (a, b, c):
        assert (f.observation(), f.backend.read_state()) == before
        assert all(f.backend.world.sims[p].app is s.app for p, s in sims.items())  # type: ignore[attr-defined]
    assert tap(a, "Copy")["state"] == tap(b, "Copy")["state"]
    assert a.backend.read_state()["@clipboard"] == "Buy milk"
    c.step({"type": "back"})
    assert c.backend.read_state()["@clipboard"] == before[1]["@clipboard"] != "Buy milk"
    assert (env.observation(), env.backend.read_state()) == before


def test_a_world_env_batches_from_a_fork(mini_world: Path) -> None:
    env = world_env(load_world(mini_world))
    env.reset()
    tap(env, "Notes")
    vec = VectorPhoneEnv.fork(env, 3)
    assert vec.observations()["screen"] == [f"{NOTES}:s00_main"] * 3
    obs, *_ = vec.step([{"type": "home"}, {"type": "wait"}, {"type": "back"}])
    assert obs["screen"][:2] == ["@home", f"{NOTES}:s00_main"]
    assert env.observation()["screen"] == f"{NOTES}:s00_main"
