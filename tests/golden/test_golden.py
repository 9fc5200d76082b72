"""The example's compiled app, file by file, against the checked-in golden tree.

After an intended compiler change, regenerate with `make golden` and review the diff.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from phoneworld.pipeline import BuildResult

GOLDEN = Path(__file__).resolve().parent / "com.example.notes"


@pytest.mark.parametrize("name", ["app.json", "report.json"])
def test_example_matches_golden(example_build: BuildResult, name: str) -> None:
    path = example_build.apps[0].path
    assert path is not None
    got = (path / name).read_text().splitlines(keepends=True)
    want = (GOLDEN / name).read_text().splitlines(keepends=True)
    diff = "".join(difflib.unified_diff(want, got, f"golden/{name}", f"built/{name}", n=2))
    assert not diff, "generated output differs from the golden tree (make golden):\n" + diff[:4000]
