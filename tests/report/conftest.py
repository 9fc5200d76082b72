"""Fixtures of the report tests: a headless Chromium for the session, and the Habitica build."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from phoneworld.pipeline import AppBuild, BuildConfig, build
from tests.conftest import REPO, real_set
from tests.report.chromium import Browser

ARTIFACTS = REPO / "tests" / "artifacts"
HABITICA = "com.habitrpg.android.habitica"


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()


@pytest.fixture(scope="session")
def habitica_build(tmp_path_factory: pytest.TempPathFactory) -> AppBuild:
    """Habitica's 161 recorded states, built as `phoneworld build` does by default."""
    out = tmp_path_factory.mktemp("habitica_report")
    result = build(BuildConfig(traces=real_set("habitica-droidbot"), out=out))
    return next(a for a in result.apps if a.spec.package == HABITICA)


@pytest.fixture(scope="session")
def habitica_dir(habitica_build: AppBuild) -> Path:
    assert habitica_build.path is not None
    return habitica_build.path
