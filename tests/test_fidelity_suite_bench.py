"""`bench/fidelity_suite.py`: the held-out match on covered steps pooled over sets, beside the
per-set mean (a set with one covered step weighs as much as one with thirty in the mean)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bench_support import load_bench


def test_covered_steps_are_pooled_by_their_counts() -> None:
    suite = load_bench("fidelity_suite")
    rows = [
        {"covered_match": 0.0, "covered_chg": 1},  # one covered step, missed
        {"covered_match": 0.9615, "covered_chg": 26},  # 25 of 26
        {"covered_match": None, "covered_chg": 0},  # nothing covered
        {"covered_match": 1.0},  # an older report without the count
    ]
    assert suite.pooled_covered(rows) == (25, 27)
    assert suite.pooled_covered([{"covered_match": None, "covered_chg": None}]) is None


def test_the_bars_name_the_sets_that_miss_them() -> None:
    suite = load_bench("fidelity_suite")
    ok = {"app": "a", "exit": 0, "chg": 40, "train_match": 1.0, "train_f1": 0.9, "ref_f1": 0.5,
          "screens": 6, "tasks": 9, "covered_match": 0.9}
    rows = [
        {**ok, "set": "good"},
        {**ok, "set": "noisy", "train_match": 0.925, "outvoted": 2},  # 3 of 40 missed
        {**ok, "set": "short", "chg": 8, "train_match": 0.5, "train_f1": 0.1},  # too few steps
        {**ok, "set": "stateless", "train_f1": 0.85, "ref_f1": 0.85},  # no better than no state
        {**ok, "set": "perfect", "train_f1": 1.0, "ref_f1": 1.0},  # nothing is above 1
        {**ok, "set": "bare", "screens": 4, "tasks": 2, "covered_match": 0.6},
        {"set": "broken", "exit": 1},
    ]
    lines = suite.check_bars(rows)
    assert lines[0].endswith(": 4 of 5 sets; missed by noisy (2 of its 3 missed steps outvoted)")
    assert lines[1].endswith(": 4 of 5 sets; missed by stateless")
    assert lines[2].endswith(": 5 of 6 sets; missed by bare")
    assert lines[3].endswith(": 0.850 over 6 sets")


def test_a_run_is_cut_into_runs_of_consecutive_events(tmp_path: Path) -> None:
    suite = load_bench("fidelity_suite")
    run = tmp_path / "run"
    (run / "events").mkdir(parents=True)
    (run / "states").mkdir()
    for i in range(7):
        (run / "events" / f"event_{i:02d}.json").write_text(str(i))
    for i in range(2):
        (run / "states" / f"state_{i}.json").write_text("{}")
    (run / "states" / "screen_0.jpg").write_bytes(b"jpg")
    parts = suite.cut_run(run, 3, tmp_path / "parts")
    assert [p.name for p in parts] == ["run.1", "run.2", "run.3"]
    assert [sorted(f.read_text() for f in (p / "events").iterdir()) for p in parts] == [
        ["0", "1", "2"], ["3", "4", "5"], ["6"]]
    assert all(sorted(f.name for f in (p / "states").iterdir()) == ["state_0.json", "state_1.json"]
               for p in parts)


def _run(root: Path) -> Path:
    """A DroidBot run of one state and one event, with a text, a description and an id."""
    run = root / "run"
    (run / "events").mkdir(parents=True)
    (run / "states").mkdir()
    view = {"class": "android.widget.Button", "resource_id": "com.x:id/save", "text": "Save note",
            "content_description": "Save", "bounds": [[0, 300], [1080, 450]], "size": "1080*150"}
    (run / "states" / "state_1.json").write_text(json.dumps(
        {"width": 1080, "height": 1920, "views": [view]}))
    (run / "events" / "event_1.json").write_text(json.dumps(
        {"event": {"event_type": "set_text", "text": "Buy milk", "view": view, "x": 540,
                   "y": 375}}))
    (run / "events" / "event_2.json").write_text("not json")
    return run


def test_a_variant_rewrites_what_it_names_and_nothing_else(tmp_path: Path) -> None:
    suite = load_bench("fidelity_suite")
    run = _run(tmp_path)

    def read(variant: str, states: str = "states") -> tuple[dict, dict]:  # type: ignore[type-arg]
        out = suite.rewrite_run(run, variant, tmp_path / variant)
        assert (out / "events" / "event_2.json").read_text() == "not json"  # copied as it is
        state = json.loads((out / states / "state_1.json").read_text())
        return state, json.loads((out / "events" / "event_1.json").read_text())["event"]

    state, event = read("720p")
    assert (state["width"], state["height"]) == (720, 1280)
    assert state["views"][0]["bounds"] == [[0, 200], [720, 300]]
    assert state["views"][0]["size"] == "720*100" and (event["x"], event["y"]) == (360, 250)
    assert state["views"][0]["text"] == "Save note"

    state, event = read("1440p")
    assert (state["width"], state["height"]) == (1440, 2560)
    assert state["views"][0]["bounds"] == [[0, 400], [1440, 600]] and event["x"] == 720

    state, event = read("kea", states="all_states")
    assert state["tag"] == 0 and state["views"][0]["bounds"] == [[0, 300], [1080, 450]]
    assert not (tmp_path / "kea" / "run" / "states").exists()

    state, event = read("words")
    text = state["views"][0]["text"]
    assert text != "Save note" and len(text.split()) == 2 and text[0].isupper()
    assert event["view"]["text"] == text  # the same words, the same made-up words
    assert event["text"] != "Buy milk" and state["views"][0]["bounds"] == [[0, 300], [1080, 450]]

    state, event = read("cjk")
    assert " " not in state["views"][0]["text"]
    assert all("\u4e00" <= ch <= "\u9fff" for ch in state["views"][0]["content_description"])

    state, event = read("noids")
    assert state["views"][0]["resource_id"] is None and state["views"][0]["text"] == "Save note"


def test_the_comparison_names_each_figure_as_the_table_prints_it() -> None:
    suite = load_bench("fidelity_suite")
    before = {"a": {"set": "a", "train_match": 0.9291, "tasks": 13},
              "b": {"set": "b", "train_match": 1.0, "tasks": 5}}
    rows = [{"set": "a", "train_match": 0.92912, "tasks": 9, "seconds": 3.0},
            {"set": "b", "train_match": 1.0, "tasks": 5, "seconds": 9.0},
            {"set": "c", "tasks": 1}]
    assert suite.compare(rows, before) == ["a: tasks 13 -> 9", "c: not in the table compared with"]
