"""The apps the world and CLI cases run against (the two bundled apps, built once per session),
and the fuzz case count printed at the end of the run."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import build_mini_world

_STARTED = time.perf_counter()


@pytest.fixture(scope="session")
def fuzz_apps(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_mini_world(tmp_path_factory.mktemp("fuzz_apps"))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from tests.fuzz.test_fuzz import COUNTS

    if COUNTS:
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(COUNTS.items()))
        terminalreporter.write_line(f"fuzz: {sum(COUNTS.values())} cases ({kinds})")
