"""A DroidBot state with an empty `views` list costs that state, not the app (issue 13).

The fixture is a four-state counter run whose third state is the launcher as DroidBot sometimes
records it, with no views: HOME leads into it and an intent leads out, so both events are dropped
with it and the run becomes two episodes of two steps each.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from phoneworld.pipeline import BuildConfig, build

from .support import FIXTURES, run_ingest

RUN = FIXTURES / "traces_with_warnings" / "droidbot_empty_views"
EMPTY = "state_2024-05-01_100010.json"
DROPPED = ["event_2024-05-01_100008.json", "event_2024-05-01_100015.json"]
APP = "com.example.counter"


def copy_run(tmp_path: Path) -> Path:
    return Path(shutil.copytree(RUN, tmp_path / "droidbot_empty_views"))


def edit_state(run: Path, name: str, **fields: object) -> None:
    path = run / "states" / name
    doc = json.loads(path.read_text())
    path.write_text(json.dumps({**doc, **fields}))


def test_run_with_an_empty_state_builds(tmp_path: Path) -> None:
    result = build(BuildConfig(traces=RUN, out=tmp_path, html=False, android=False, tasks=False))
    assert result.failed == []
    assert [a.spec.package for a in result.apps] == [APP]
    assert [d.render() for d in result.diagnostics.items if d.severity == "error"] == []
    (warning,) = [d for d in result.diagnostics.items if d.code == "PW139"]
    assert warning.severity == "warning"
    assert warning.source.file == f"droidbot_empty_views/states/{EMPTY}"
    assert EMPTY in warning.render()
    assert all(name in warning.message for name in DROPPED)
    assert "split" in warning.message and warning.hint


def test_the_other_steps_are_kept() -> None:
    run = run_ingest(RUN)
    shapes = [(ep.id, ep.app, [s.action.type if s.action else None for s in ep.steps])
              for ep in run.traces.episodes]
    assert shapes == [("droidbot_empty_views#0", APP, ["click", None]),
                      ("droidbot_empty_views#1", APP, ["click", None])]
    texts = [[n.text for n in s.observation.root.walk() if n.text.startswith("Count")]
             for ep in run.traces.episodes for s in ep.steps]
    assert texts == [["Count: 0"], ["Count: 1"], ["Count: 1"], ["Count: 2"]]
    assert run.codes() == ["PW139"]  # no PW132: the state is there, it only has no views


def test_empty_states_sharing_a_state_str_are_one_warning(tmp_path: Path) -> None:
    run_dir = copy_run(tmp_path)
    twin = run_dir / "states" / "state_2024-05-01_100012.json"
    shutil.copy(run_dir / "states" / EMPTY, twin)  # DroidBot hashes the (no) views: same state_str
    (warning,) = run_ingest(run_dir).with_code("PW139")
    assert warning.source.file.endswith(EMPTY) and twin.name in warning.message


def test_an_empty_state_no_event_touches_is_dropped_alone(tmp_path: Path) -> None:
    run_dir = copy_run(tmp_path)
    edit_state(run_dir, EMPTY, state_str="f" * 32)
    run = run_ingest(run_dir)
    (warning,) = run.with_code("PW139")
    assert "no event starts or stops in it" in warning.message
    assert run.codes("warning").count("PW132") == 2  # the events name a state with no file now


def test_no_usable_state_is_an_error(tmp_path: Path) -> None:
    run_dir = copy_run(tmp_path)
    for path in (run_dir / "states").glob("state_*.json"):
        edit_state(run_dir, path.name, views=[])
    run = run_ingest(run_dir)
    assert run.codes("error") == ["PW131"]
    (error,) = run.with_code("PW131")
    assert "no usable state" in error.message and "4 have an empty" in error.message
    assert run.traces.episodes == ()


@pytest.mark.parametrize(
    "fields",
    [{"views": None}, {"views": {"0": {}}}, {"state_str": None}, {"state_str": 7}],
    ids=["views-null", "views-not-a-list", "no-state_str", "state_str-not-a-string"],
)
def test_a_file_that_is_not_a_state_is_still_an_error(tmp_path: Path,
                                                      fields: dict[str, object]) -> None:
    run_dir = copy_run(tmp_path)
    edit_state(run_dir, EMPTY, **fields)
    run = run_ingest(run_dir)
    assert run.codes("error") == ["PW131"]
    assert run.with_code("PW131")[0].source.file.endswith(EMPTY)
