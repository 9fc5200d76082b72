"""Recording rollouts as native traces: an episode played on a virtual device through adb is
written as `phoneworld-trace/1` and rebuilds with `phoneworld build` into an app whose replay
fidelity on that episode is 1.0; recording works the same on the simulator backend."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from phoneworld.devices.record import RecordingBackend, TraceWriter
from phoneworld.ir.app import AppSpec
from phoneworld.pipeline import BuildConfig, build, check
from phoneworld.runtime.backend import SimBackend
from phoneworld.runtime.env import PhoneEnv

from ..conftest import EXAMPLE
from .conftest import Served


def _example_actions(name: str) -> tuple[str | None, list[Any]]:
    traces, _ = check(EXAMPLE)
    ep = next(e for e in traces.episodes if e.id.endswith(name))
    return ep.instruction, [s.action for s in ep.steps if s.action is not None]


def _rebuild(out: Path, tmp: Path) -> Any:
    result = build(BuildConfig(traces=out, out=tmp / "rebuilt"))
    assert not [d for d in result.diagnostics.items if d.severity == "error"]
    return result.apps[0]


def test_recorded_episode_rebuilds_with_fidelity_one(lone: Served, tmp_path: Path) -> None:
    instruction, actions = _example_actions("ep_0001")
    out = tmp_path / "traces"
    backend = lone.backend(0)
    rec = RecordingBackend(backend, TraceWriter(out, backend.package, backend.device),
                           instruction, screenshots=True)
    env = PhoneEnv(lone.spec, backend=rec)
    env.reset()
    for a in actions:
        env.step(a)
    env.close()
    [folder] = rec.recorded
    doc = json.loads((folder / "episode.json").read_text())
    assert doc["format"] == "phoneworld-trace/1" and doc["instruction"] == instruction
    assert [s["action"] for s in doc["steps"][:-1]] == [a.model_dump(exclude_none=True)
                                                        for a in actions]
    assert doc["steps"][-1]["action"] is None and (folder / "0000.png").is_file()
    app = _rebuild(out, tmp_path)
    fid = app.report.fidelity.train
    assert fid is not None and fid.transition_match == 1.0, fid


def test_every_backend_records_the_same_way(example_spec: AppSpec, tmp_path: Path) -> None:
    """Simulator rollouts (here: a random policy, type actions included) rebuild too."""
    from phoneworld.devices.fleet import EpisodeSpec, run_episode
    from phoneworld.devices.rollout import RandomPolicy

    out = tmp_path / "traces"
    inner = SimBackend(example_spec)
    rec = RecordingBackend(inner, TraceWriter(out, inner.package, inner.device))
    env = PhoneEnv(example_spec, backend=rec, max_steps=12)
    for seed in range(3):
        run_episode(env, EpisodeSpec(seed, seed=seed, max_steps=12), RandomPolicy(seed))
    env.close()
    assert len(rec.recorded) == 3
    assert sorted(p.name for p in (out / example_spec.package).iterdir()) == [
        "ep_0001", "ep_0002", "ep_0003"]
    traces, diagnostics = check(out)
    assert len(traces.episodes) == 3
    assert not [d for d in diagnostics.items if d.severity == "error"]
