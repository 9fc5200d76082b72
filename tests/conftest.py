"""Shared fixtures: where the example and the real trace sets are, and built apps."""

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
