"""Session fixtures of the ingest tests: the real data sets, ingested once per run."""

from __future__ import annotations

import pytest

from .support import Run, real_folder, run_ingest


@pytest.fixture(scope="session")
def habitica() -> Run:
    return run_ingest(real_folder("habitica-droidbot"))


@pytest.fixture(scope="session")
def llamatouch() -> Run:
    return run_ingest(real_folder("llamatouch"))


@pytest.fixture(scope="session")
def autodroid() -> Run:
    return run_ingest(real_folder("autodroid-utgs"))
