from __future__ import annotations

from pathlib import Path

import pytest

from phoneworld.pipeline import BuildConfig, BuildResult, build
from tests.conftest import EXAMPLE


@pytest.fixture(scope="session")
def example_build(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    out = tmp_path_factory.mktemp("example_build")
    return build(BuildConfig(traces=EXAMPLE, out=out))


@pytest.fixture(scope="session")
def example_dir(example_build: BuildResult) -> Path:
    path = example_build.apps[0].path
    assert path is not None
    return path
