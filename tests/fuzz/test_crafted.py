"""The crafted hostile cases of tests/fixtures/hostile: each ends with its exit code, shows its
diagnostic code, every diagnostic with a hint, no traceback, nothing outside --out touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz import crafted
from tests.fuzz.harness import run_case

FOLDERS = sorted(p for p in crafted.FIXTURES.iterdir() if p.is_dir())


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_crafted_case_keeps_the_contract(folder: Path, fuzz_apps: Path, tmp_path: Path) -> None:
    outcome = run_case(crafted.load_fixture(folder, fuzz_apps), tmp_path)
    assert not outcome.broken, (outcome.broken, outcome.output[-2000:])


def test_the_fixture_folder_holds_every_crafted_case() -> None:
    defined = {case.name for case in crafted.all_cases(Path("/nonexistent"))}
    assert {p.name for p in FOLDERS} == defined, "run `python -m tests.fuzz.crafted`"
    assert len(defined) >= 60
