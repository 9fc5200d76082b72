"""The command line: exit codes, diagnostics on stderr, nothing half-written on failure."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE, REPO

DEFECTS = sorted(p for p in (REPO / "tests" / "fixtures" / "traces_with_errors").iterdir()
                 if p.is_dir())


def phoneworld(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "phoneworld.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("folder", DEFECTS, ids=[p.name for p in DEFECTS])
def test_bad_input_exits_1_with_a_diagnostic_and_no_output(folder: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = phoneworld("build", str(folder), "--out", str(out))
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "error[PW" in proc.stderr
    assert folder.name in proc.stderr  # the diagnostic names the file
    assert not out.exists() or not any(out.iterdir())


def test_at_least_twelve_defect_folders() -> None:
    assert len(DEFECTS) >= 12


def test_build_then_run(tmp_path: Path) -> None:
    proc = phoneworld("build", str(EXAMPLE), "--out", str(tmp_path), "--heldout", "0.2")
    assert proc.returncode == 0, proc.stderr
    app_dir = Path(proc.stdout.strip().splitlines()[-1])
    report = json.loads((app_dir / "report.json").read_text())
    assert report["fidelity"]["heldout"]["steps"] > 0
    run = phoneworld("run", str(app_dir), "--policy", "random", "--steps", "8", "--json")
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in run.stdout.splitlines()]
    assert records[0]["step"] == 0 and len(records) >= 2


def test_check_lists_the_apps() -> None:
    proc = phoneworld("check", str(EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    assert "com.example.notes: 12 episode(s)" in proc.stdout


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert phoneworld("build", str(tmp_path / "missing")).returncode == 2
    assert phoneworld("build", str(EXAMPLE), "--heldout", "1.5").returncode == 2
    assert phoneworld("build", str(EXAMPLE), "--from", "droidbott").returncode == 2


def test_replay_reports_every_episode() -> None:
    proc = phoneworld("replay", str(EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count(": match") == 12


DUMPS = REPO / "tests" / "fixtures" / "plain_dumps"
RECORDER = "phoneworld record --serial S --app PKG --policy stdin"


@pytest.mark.parametrize("command", ["build", "check"])
def test_plain_dumps_exit_1_with_the_recorder_hint(command: str, tmp_path: Path) -> None:
    """Screens without actions compile to nothing: build and check both say so (PW191) and
    point at the recorder and the native format, instead of building nothing with exit 0."""
    out = tmp_path / "out"
    proc = phoneworld(command, str(DUMPS), *(["--out", str(out)] if command == "build" else []))
    assert proc.returncode == 1, proc.stderr
    assert "error[PW191]" in proc.stderr and "no recorded action" in proc.stderr
    flat = " ".join(proc.stderr.split())
    assert RECORDER in flat and "episode.json" in flat and "phoneworld-trace/1" in flat
    assert "Traceback" not in proc.stderr
    assert not out.exists() or not any(p.name.startswith("com.") for p in out.iterdir())


def test_an_app_without_actions_beside_one_with_them_is_a_warning(tmp_path: Path) -> None:
    """One app of the folder has only dumps: it is not built (PW190), the other is, exit 0;
    check lists it as not built."""
    traces = tmp_path / "traces"
    shutil.copytree(EXAMPLE, traces / "notes")
    shots = traces / "other"
    shots.mkdir()
    for p in (DUMPS / "screens").glob("*.xml"):
        (shots / p.name).write_text(p.read_text().replace("com.example.notes", "com.example.other"))
    checked = phoneworld("check", str(traces))
    assert checked.returncode == 0, checked.stderr
    assert "com.example.other: 2 episode(s), 2 step(s), 0 action(s) (not built: PW190)" \
        in checked.stdout
    built = phoneworld("build", str(traces), "--out", str(tmp_path / "out"))
    assert built.returncode == 0, built.stderr
    assert "warning[PW190]: app com.example.other has no recorded action; not built" \
        in built.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir() if p.is_dir()) == \
        ["com.example.notes"]


def test_run_lists_every_policy(example_dir: Path) -> None:
    unknown = phoneworld("run", str(example_dir), "--policy", "smart")
    assert unknown.returncode == 2
    assert "known: random, oracle" in unknown.stderr
    oracle = phoneworld("run", str(example_dir), "--policy", "oracle")
    assert oracle.returncode == 2 and "--task" in oracle.stderr
