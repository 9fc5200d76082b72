"""The native format: valid episodes, action conversion, warnings, and round trips."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from phoneworld.ir.trace import TraceSet

from .support import FIXTURES, Run, run_ingest, simple_screen

OK = FIXTURES / "traces_ok"
PKG = "com.example.app"


def write_episode(folder: Path, actions: list[Any], *, packages: list[str] | None = None,
                  extra: dict[str, Any] | None = None) -> Path:
    """A native episode of len(actions) steps with simple screens."""
    folder.mkdir(parents=True, exist_ok=True)
    steps = []
    for i, action in enumerate(actions):
        name = f"{i:04d}.xml"
        (folder / name).write_text(simple_screen((packages or [PKG] * len(actions))[i]))
        steps.append({"screen": name, "action": action})
    doc = {"format": "phoneworld-trace/1", "app": PKG, "device": {"width": 1080, "height": 1920},
           "steps": steps, **(extra or {})}
    (folder / "episode.json").write_text(json.dumps(doc, indent=2))
    return folder


def test_ok_fixtures_ingest_cleanly() -> None:
    run = run_ingest(OK)
    assert run.diagnostics.items == []
    assert [ep.id for ep in run.traces.episodes] == ["com.example.notes/ep_0001",
                                                     "com.example.notes/ep_0002"]
    first = run.traces.episodes[0]
    assert first.app == "com.example.notes" and first.instruction
    assert (first.device.width, first.device.height, first.device.density) == (1080, 1920, 420)
    assert [s.action.type if s.action else None for s in first.steps] == [
        "click", "type", "click", None]
    step = first.steps[1]
    assert step.observation.xml_file == "0001.xml" and step.observation.screenshot == "0001.png"
    assert step.observation.activity == "com.example.notes/.EditActivity"
    assert step.source.file == "traces_ok/com.example.notes/ep_0001/episode.json"
    assert step.source.line is not None and step.source.step == 1


def test_normalized_coords_give_the_same_pixels() -> None:
    pixels, normalized = run_ingest(OK).traces.episodes
    assert [s.action for s in pixels.steps] == [s.action for s in normalized.steps]


def test_ingest_dump_round_trips_and_is_location_independent(tmp_path: Path) -> None:
    first = run_ingest(OK).traces
    text = first.model_dump_json()
    assert TraceSet.model_validate_json(text) == first
    moved = tmp_path / "elsewhere" / "traces_ok"
    shutil.copytree(OK, moved)
    assert run_ingest(moved).traces.model_dump_json() == text
    assert str(tmp_path) not in text and str(FIXTURES) not in text


def test_forced_format_reads_the_same() -> None:
    assert run_ingest(OK, fmt="native").traces == run_ingest(OK).traces


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"type": "click", "x": 10, "y": 20}, {"type": "click", "x": 10, "y": 20}),
        ({"type": "double_click", "x": 10.4, "y": 20.6},
         {"type": "double_click", "x": 10, "y": 21}),
        ({"type": "long_press", "x": 0, "y": 1919}, {"type": "long_press", "x": 0, "y": 1919}),
        ({"type": "type", "text": "hi"}, {"type": "type", "text": "hi"}),
        ({"type": "type", "text": ""}, {"type": "type", "text": ""}),
        ({"type": "scroll", "direction": "down"}, {"type": "scroll", "direction": "down"}),
        ({"type": "scroll", "direction": "up", "x": 5, "y": 6},
         {"type": "scroll", "direction": "up", "x": 5, "y": 6}),
        ({"type": "drag", "x1": 1, "y1": 2, "x2": 3, "y2": 4},
         {"type": "drag", "x1": 1, "y1": 2, "x2": 3, "y2": 4}),
        ({"type": "open_app", "package": "com.x"}, {"type": "open_app", "package": "com.x"}),
        ({"type": "done", "answer": "42"}, {"type": "done", "answer": "42"}),
        ({"type": "back"}, {"type": "back"}),
        ({"type": "home"}, {"type": "home"}),
        ({"type": "menu"}, {"type": "menu"}),
        ({"type": "enter"}, {"type": "enter"}),
        ({"type": "close_app"}, {"type": "close_app"}),
        ({"type": "wait"}, {"type": "wait"}),
    ],
    ids=["click", "double_click-rounded", "long_press-corner", "type", "type-empty", "scroll",
         "scroll-at", "drag", "open_app", "done", "back", "home", "menu", "enter", "close_app",
         "wait"],
)
def test_every_action_type_converts(tmp_path: Path, raw: dict[str, Any],
                                    expected: dict[str, Any]) -> None:
    run = run_ingest(write_episode(tmp_path / "ep", [raw, None]))
    assert run.diagnostics.items == []
    action = run.traces.episodes[0].steps[0].action
    assert action is not None
    assert action.model_dump(exclude_none=True) == expected


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ({"x": 1, "y": 2}, "PW121"),
        ({"type": 3}, "PW120"),
        ("click", "PW122"),
        ({"type": "click", "x": "1", "y": 2}, "PW122"),
        ({"type": "click", "x": True, "y": 2}, "PW122"),
        ({"type": "drag", "x1": 1, "y1": 2, "x2": 3, "y2": 2000}, "PW123"),
        ({"type": "scroll", "direction": "up", "x": -1, "y": 2}, "PW123"),
        ({"type": "open_app"}, "PW121"),
    ],
    ids=["no-type", "type-not-string", "not-object", "string-coordinate", "bool-coordinate",
         "drag-off-screen", "scroll-off-screen", "open-app-no-package"],
)
def test_bad_actions(tmp_path: Path, raw: Any, code: str) -> None:
    run = run_ingest(write_episode(tmp_path / "ep", [raw, None]))
    assert run.codes("error") == [code]
    assert run.diagnostics.items[0].source.step == 0


def test_unknown_fields_are_warnings_with_did_you_mean(tmp_path: Path) -> None:
    click = {"type": "click", "x": 1, "y": 2, "duration": 5}
    folder = write_episode(tmp_path / "ep", [click, None], extra={"instructoin": "x"})
    run = run_ingest(folder)
    assert run.codes() == ["PW113", "PW113"]
    assert 'did you mean "instruction"' in run.diagnostics.items[0].message
    assert len(run.traces.episodes) == 1


def test_other_package_warns_but_launcher_and_overlays_do_not(tmp_path: Path) -> None:
    packages = ["com.google.android.apps.nexuslauncher", PKG, "com.android.systemui", "com.other"]
    run = run_ingest(write_episode(tmp_path / "ep", [{"type": "wait"}] * 3 + [None],
                                   packages=packages))
    assert [(d.code, d.source.step) for d in run.diagnostics.items] == [("PW117", 3)]
    assert len(run.traces.episodes[0].steps) == 4


def test_screen_outside_the_root_is_refused(tmp_path: Path) -> None:
    (tmp_path / "secret.xml").write_text(simple_screen())
    folder = write_episode(tmp_path / "root" / "ep", [None])
    doc = json.loads((folder / "episode.json").read_text())
    doc["steps"][0]["screen"] = "../../secret.xml"
    (folder / "episode.json").write_text(json.dumps(doc))
    run = run_ingest(tmp_path / "root")
    assert run.codes() == ["PW115"]
    assert "outside the trace folder" in run.diagnostics.items[0].message


def test_header_schema_error_names_the_field_path_and_line(tmp_path: Path) -> None:
    folder = write_episode(tmp_path / "ep", [{"type": "wait"}, None])
    doc = json.loads((folder / "episode.json").read_text())
    doc["device"]["width"] = -5
    (folder / "episode.json").write_text(json.dumps(doc, indent=2))
    run: Run = run_ingest(folder)
    assert run.codes() == ["PW112"]
    found = run.diagnostics.items[0]
    assert found.message.startswith("device.width = -5")
    assert found.source.line == 5 and found.source.step is None


def test_step_schema_error_names_the_step(tmp_path: Path) -> None:
    folder = write_episode(tmp_path / "ep", [{"type": "wait"}, {"type": "wait"}, None])
    doc = json.loads((folder / "episode.json").read_text())
    del doc["steps"][1]["screen"]
    (folder / "episode.json").write_text(json.dumps(doc, indent=2))
    run = run_ingest(folder)
    assert [(d.code, d.source.step) for d in run.diagnostics.items] == [("PW112", 1)]
    assert '"screen" is missing in steps[1]' in run.diagnostics.items[0].message
