"""Fixtures of the tasks tests: the example's built app, its tasks, the hand-written specs."""

from __future__ import annotations

from pathlib import Path

import pytest

from phoneworld.ir.app import AppSpec
from phoneworld.runtime.appdir import load_app
from phoneworld.tasks.load import LoadedTask, load_task_specs
from tests.conftest import REPO

HAND_SPECS = REPO / "task_specs" / "com.example.notes"
BAD_SPECS = Path(__file__).resolve().parent / "fixtures" / "bad_specs"


@pytest.fixture(scope="session")
def notes(example_dir: Path) -> AppSpec:
    return load_app(example_dir)


@pytest.fixture(scope="session")
def hand_tasks(notes: AppSpec) -> dict[str, LoadedTask]:
    return {t.spec.id: t for t in load_task_specs([HAND_SPECS], notes)}
