"""The report pages in a real headless Chromium: they load from disk with no console errors and no
request, show one card and one graph node per screen, and Habitica's stays fast and small.

Screenshots of the pages and the measured figures go to tests/artifacts/ (git-ignored)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from phoneworld.pipeline import AppBuild, BuildConfig, build
from phoneworld.report.fidelity_view import _is_mismatch
from tests.report.chromium import Browser, Visit
from tests.report.conftest import ARTIFACTS
from tests.report.support import hostile_traces

log = logging.getLogger(__name__)

MAX_LOAD_S = 3.0
TIMED_LOADS = 3
MAX_BYTES = 20 * 1024 * 1024


def _checked_visit(browser: Browser, app_dir: Path, name: str) -> Visit:
    spec = json.loads((app_dir / "app.json").read_text())
    visit = browser.visit(app_dir / "report.html")
    problems = [m for m in visit.console if m["level"] in ("SEVERE", "WARNING")]
    assert not problems, f"console: {problems}"
    assert visit.requests == [], "the page asked the network for something"
    assert visit.resources == []
    edges = {(t["screen"], t["target"] or t["screen"]) for t in spec["transitions"]}
    assert visit.counts["cards"] == len(spec["screens"])
    assert visit.counts["nodes"] == len(spec["screens"])
    assert visit.counts["edges"] == len(edges)
    assert visit.counts["broken_uses"] == 0  # every picture drawn is embedded
    index = app_dir / "tasks.json"  # the synthesized tasks, when the build made any
    tasks = json.loads(index.read_text())["tasks"] if index.exists() else []
    assert visit.counts["tasks"] == len(tasks)
    browser.screenshot(ARTIFACTS / f"report_{name}.png", visit.counts["height"])
    return visit


def test_example_report_in_chromium(browser: Browser, example_dir: Path) -> None:
    visit = _checked_visit(browser, example_dir, "example")
    assert visit.load_ms / 1000 < MAX_LOAD_S


def _mismatching_steps(built: AppBuild) -> int:
    assert built.inputs is not None
    replays = [built.inputs.train_replay, built.inputs.held_replay]
    return sum(_is_mismatch(s) is not None for r in replays if r for s in r.steps)


def test_habitica_report_loads_fast_and_stays_small(browser: Browser, habitica_build: AppBuild,
                                                    habitica_dir: Path) -> None:
    page = habitica_dir / "report.html"
    size = page.stat().st_size
    visits = [_checked_visit(browser, habitica_dir, "habitica")]
    # The best of three loads: the bound is the page's, not a busy machine's (seen here: 2.4 s
    # for one load on a machine running other test suites, 0.6 s for the same page otherwise).
    visits += [browser.visit(page) for _ in range(TIMED_LOADS - 1)]
    visit = min(visits, key=lambda v: v.painted_ms)
    figures = {"bytes": size, "wall_s": round(visit.wall_s, 3), "load_ms": visit.load_ms,
               "painted_ms": round(visit.painted_ms, 1),
               "load_ms_each": [v.load_ms for v in visits], **visit.counts}
    (ARTIFACTS / "report_habitica.json").write_text(json.dumps(figures, indent=1) + "\n")
    log.info("habitica report: %s", figures)
    assert size < MAX_BYTES
    assert visit.load_ms / 1000 < MAX_LOAD_S
    assert visit.painted_ms / 1000 < MAX_LOAD_S
    assert visit.wall_s < MAX_LOAD_S
    assert visit.counts["mismatches"] == _mismatching_steps(habitica_build) > 0


@pytest.fixture(scope="module")
def hostile_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    work = tmp_path_factory.mktemp("hostile")
    path = build(BuildConfig(traces=hostile_traces(work), out=work / "out")).apps[0].path
    assert path is not None
    yield path


def test_trace_text_cannot_make_the_page_fetch_or_run(browser: Browser, hostile_dir: Path
                                                      ) -> None:
    visit = _checked_visit(browser, hostile_dir, "hostile")
    assert visit.requests == []
    n = browser.driver.execute_script(
        "return document.querySelectorAll('img, script:not([type=\"application/json\"])').length")
    assert n == 0


def test_compare_page_in_chromium(browser: Browser, example_dir: Path, tmp_path: Path) -> None:
    from phoneworld.report.compare import compare, render_compare

    page = tmp_path / "compare.html"
    page.write_text(render_compare(compare(example_dir, example_dir)), encoding="utf-8")
    visit = browser.visit(page)
    assert not [m for m in visit.console if m["level"] in ("SEVERE", "WARNING")]
    assert visit.requests == [] and visit.resources == []
