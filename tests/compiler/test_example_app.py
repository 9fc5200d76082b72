"""The bundled example compiles into a stateful notes app that replays its own recordings."""

from __future__ import annotations

import json
from pathlib import Path

from phoneworld.ir.app import (
    AppendEffect, AppSpec, RecordRef, RemoveEffect, SelectEffect, SetEffect, ToggleEffect, VarRef,
)
from phoneworld.pipeline import BuildResult, replay_episodes
from tests.conftest import EXAMPLE


def _spec(example_build: BuildResult) -> AppSpec:
    return example_build.apps[0].spec


def test_state_has_the_notes_collection_and_switches(example_build: BuildResult) -> None:
    spec = _spec(example_build)
    by_name = {v.name: v for v in spec.state}
    notes = [v for v in spec.state if v.kind == "collection"]
    assert len(notes) == 1
    fields = {f.name: f.kind for f in notes[0].fields}
    assert fields == {"note_title": "text", "note_done": "flag"}
    assert by_name["dark_mode_switch"].kind == "flag"
    assert by_name["sort_switch"].kind == "flag"
    assert by_name["title_input"].kind == "text"
    initial = spec.initial_state[notes[0].name]
    assert [r["note_title"] for r in initial] == ["Buy milk", "Call Alice", "Pay rent"]
    assert [r["note_done"] for r in initial] == [False, True, False]


def test_effects_create_edit_check_delete(example_build: BuildResult) -> None:
    spec = _spec(example_build)
    effects = [e for t in spec.transitions for e in t.effects]
    appends = [e for e in effects if isinstance(e, AppendEffect)]
    assert appends and appends[0].record["note_title"].kind == "var"  # the typed title, symbolically
    assert any(isinstance(e, RemoveEffect) and e.target == "selected" for e in effects)
    assert any(isinstance(e, SelectEffect) for e in effects)
    assert any(isinstance(e, ToggleEffect) and isinstance(e.ref, RecordRef) for e in effects)
    assert any(isinstance(e, ToggleEffect) and isinstance(e.ref, VarRef)
               and e.ref.name == "dark_mode_switch" for e in effects)
    renames = [e for e in effects if isinstance(e, SetEffect) and isinstance(e.ref, RecordRef)
               and e.ref.target == "selected" and e.ref.field == "note_title"]
    assert renames, "saving an edited note must update the selected record's title"


def test_save_is_guarded_by_a_nonempty_title(example_build: BuildResult) -> None:
    spec = _spec(example_build)
    saves = [t for t in spec.transitions if t.widget == "save_button"]
    assert any(t.guard is not None and "title_input" in t.guard.model_dump_json() for t in saves)


def test_free_running_replay_reproduces_every_episode() -> None:
    runs = replay_episodes(EXAMPLE)
    assert len(runs) >= 8
    for _, run in runs:
        assert run.screens_match, (run.episode, run.recorded_screens, run.mock_screens)
        assert run.final_content_match == 1.0, run.episode


def test_report_json_has_the_promised_fields(example_dir: Path) -> None:
    report = json.loads((example_dir / "report.json").read_text())
    for key in ("app", "episodes", "steps", "screens", "transitions", "state_vars", "effects",
                "fidelity", "diagnostics"):
        assert key in report
    train = report["fidelity"]["train"]
    assert set(train) == {"steps", "changing_steps", "transition_match",
                          "transition_match_changing", "observation_match", "change_f1",
                          "reference_change_f1", "outvoted"}
    assert train["transition_match_changing"] == 1.0 and train["outvoted"] == 0
    assert train["change_f1"] > 0.95
    assert report["fidelity"]["heldout"] is None
    assert all({"name", "kind"} == set(v) for v in report["state_vars"])
