"""Shared fixtures: where the example and the real trace sets are, and the example's build."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "traces"
REAL = REPO.parent / "shared" / "data" / "real"


def real_set(name: str) -> Path:
    path = REAL / name
    if not path.exists():
        pytest.skip(f"real trace set {path} is absent (it lives outside the repo in ../shared)")
    return path


@pytest.fixture(scope="session")
def example_build(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from phoneworld.pipeline import BuildConfig, build

    out = tmp_path_factory.mktemp("example_build")
    return build(BuildConfig(traces=EXAMPLE, out=out))


@pytest.fixture(scope="session")
def example_dir(example_build) -> Path:  # type: ignore[no-untyped-def]
    path = example_build.apps[0].path
    assert path is not None
    return path
