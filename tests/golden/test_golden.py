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


TASK_PARTS = ("task_specs", "verifiers", "tasks.json")


def _task_files(root: Path) -> list[str]:
    out = []
    for part in TASK_PARTS:
        p = root / part
        files = [p] if p.is_file() else sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else []
        out += [f.relative_to(root).as_posix() for f in files if "__pycache__" not in f.parts]
    return sorted(out)


def test_example_task_files_are_the_golden_ones(example_build: BuildResult) -> None:
    """Synthesized task specs, generated verifiers and the task index (phoneworld.tasks)."""
    path = example_build.apps[0].path
    assert path is not None
    assert _task_files(path) == _task_files(GOLDEN), "the set of task files changed (make golden)"
    for name in _task_files(GOLDEN):
        got = (path / name).read_text().splitlines(keepends=True)
        want = (GOLDEN / name).read_text().splitlines(keepends=True)
        diff = "".join(difflib.unified_diff(want, got, f"golden/{name}", f"built/{name}", n=2))
        assert not diff, f"{name} differs from the golden tree (make golden):\n" + diff[:4000]


def _android_files(root: Path) -> list[str]:
    base = root / "android"
    return sorted(p.relative_to(root).as_posix() for p in base.rglob("*") if p.is_file())


def test_example_android_project_is_the_golden_one(example_build: BuildResult) -> None:
    """The Kotlin project (phoneworld.android), file by file."""
    path = example_build.apps[0].path
    assert path is not None
    assert _android_files(path) == _android_files(GOLDEN), "the Kotlin files changed (make golden)"
    for name in _android_files(GOLDEN):
        got = (path / name).read_text().splitlines(keepends=True)
        want = (GOLDEN / name).read_text().splitlines(keepends=True)
        diff = "".join(difflib.unified_diff(want, got, f"golden/{name}", f"built/{name}", n=2))
        assert not diff, f"{name} differs from the golden tree (make golden):\n" + diff[:4000]
