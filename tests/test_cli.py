"""The command line: exit codes, diagnostics on stderr, nothing half-written on failure."""

from __future__ import annotations

import json
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
