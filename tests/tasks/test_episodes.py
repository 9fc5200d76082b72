"""Episodes as data: SFT demonstrations, native-trace rollouts that rebuild, `run --task`."""

from __future__ import annotations

import json
from pathlib import Path

from phoneworld.ir.app import AppSpec
from phoneworld.pipeline import BuildConfig, build
from phoneworld.tasks.catalog import load_catalog
from phoneworld.tasks.episodes import demos, run_task
from tests.test_cli import phoneworld


def test_demonstrations_redraw_parameters_and_end_with_done(notes: AppSpec,
                                                           example_dir: Path) -> None:
    cat = load_catalog(example_dir)
    tasks = [cat.find("create_note").spec, cat.find("answer_is_note_done").spec]
    records = list(demos(notes, tasks, per_task=3, seed=0))
    assert len(records) == 6 and all(r["success"] for r in records)
    assert len({r["params"]["title"] for r in records if r["task"] == "create_note"}) > 1
    for r in records:
        steps = r["steps"]
        assert r["instruction"] and steps[-1]["action"]["type"] == "done"
        for i, s in enumerate(steps):
            assert s["history"] == [p["action"] for p in steps[:i]]
            assert s["observation"].startswith("[0] ")
            assert all(0 <= s["action"][k] <= 1000 for k in ("x", "y") if k in s["action"])
    answers = [r["steps"][-1]["action"]["answer"] for r in records if r["task"] != "create_note"]
    assert set(answers) <= {"yes", "no"}


def test_rollouts_saved_as_native_traces_rebuild(notes: AppSpec, example_dir: Path,
                                                 tmp_path: Path) -> None:
    cat = load_catalog(example_dir)
    tasks = [cat.find(i).spec for i in ("create_note", "delete_note", "setting_dark_mode_on")]
    records = list(demos(notes, tasks, per_task=2, seed=3, trace_dir=tmp_path / "traces"))
    episodes = sorted((tmp_path / "traces").rglob("episode.json"))
    assert len(episodes) == len(records) == 6
    doc = json.loads(episodes[0].read_text())
    assert doc["format"] == "phoneworld-trace/1" and doc["steps"][-1]["action"] is None
    result = build(BuildConfig(traces=tmp_path / "traces", out=tmp_path / "out", tasks=False))
    report = result.apps[0].report
    assert report.app == notes.package
    assert report.steps == sum(len(r["steps"]) for r in records)
    assert report.fidelity.train is not None and report.fidelity.train.transition_match == 1.0


def test_a_random_rollout_records_what_it_did(notes: AppSpec, example_dir: Path) -> None:
    task = load_catalog(example_dir).find("create_note").spec
    ep = run_task(notes, task, "random", seed=1, max_steps=12)
    assert not ep.success and 1 <= len(ep.steps) <= 12 and ep.reason
    assert len(ep.xml) == len(ep.steps) + 1 and len(ep.native) == len(ep.steps)


def test_run_a_task_with_the_oracle_from_the_command_line(example_dir: Path,
                                                          tmp_path: Path) -> None:
    proc = phoneworld("run", str(example_dir), "--task", "pair_note_done_and_dark_mode_on",
                      "--policy", "oracle", "--json", "--trace-out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in proc.stdout.splitlines()]
    assert records[0]["instruction"].startswith("Mark the note")
    assert records[-1]["success"] is True
    assert list(tmp_path.rglob("episode.json"))


def test_demos_and_tasks_commands(example_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "demos.jsonl"
    proc = phoneworld("demos", str(example_dir), "--out", str(out), "--per-task", "1",
                      "--task", "create_note", "--task", "answer_count_note")
    assert proc.returncode == 0, proc.stderr
    assert len(out.read_text().splitlines()) == 2
    listing = phoneworld("tasks", "list", str(example_dir))
    assert listing.returncode == 0 and "create_note" in listing.stdout
    shown = phoneworld("tasks", "show", str(example_dir), "delete_note")
    assert shown.returncode == 0 and "oracle: 2 step(s), shortest" in shown.stdout
    ev = phoneworld("tasks", "eval", str(example_dir), "--episodes", "1", "--task", "create_note",
                    "--policy", "oracle")
    assert ev.returncode == 0 and "oracle policy: 1/1 episodes solved" in ev.stdout
