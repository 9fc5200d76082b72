"""The inputs `bench/build_time.py` synthesizes: longer recordings and a large list screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from phoneworld.pipeline import check
from tests.bench_support import load_bench

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "traces"


@pytest.fixture(scope="module")
def bench():  # type: ignore[no-untyped-def]
    return load_bench("build_time")


def test_repeated_sessions_reach_the_step_count(bench) -> None:  # type: ignore[no-untyped-def]
    traces, _ = check(EXAMPLE)
    recorded = sum(len(ep.steps) - 1 for ep in traces.episodes)
    longer = bench.repeated(traces, 2 * recorded + 3)
    assert sum(len(ep.steps) - 1 for ep in longer.episodes) == 2 * recorded + 3
    ids = [ep.id for ep in longer.episodes]
    assert len(ids) == len(set(ids)) and ids[: len(traces.episodes)] == [
        ep.id for ep in traces.episodes]
    assert all(ep.follows is None or ep.follows in ids for ep in longer.episodes)
    assert longer.episodes[-1].steps[-1].action is None


@pytest.mark.parametrize("steps", [1, 5], ids=["one-dump", "five-steps"])
def test_big_screen_has_the_node_count(bench, tmp_path: Path, steps: int) -> None:  # type: ignore[no-untyped-def]
    traces, diagnostics = check(bench.write_big_screen(tmp_path, 600, steps), "native")
    (episode,) = traces.episodes
    assert len(episode.steps) == steps + 1 and not diagnostics.has_errors
    sizes = [len(s.observation.root.walk()) for s in episode.steps]
    assert all(596 <= n <= 600 for n in sizes[:-1]) and sizes[-1] == 2


def test_each_session_has_its_own_observations(bench) -> None:  # type: ignore[no-untyped-def]
    traces, _ = check(EXAMPLE)
    recorded = sum(len(ep.steps) - 1 for ep in traces.episodes)
    longer = bench.repeated(traces, 2 * recorded)
    first, second = longer.episodes[: len(traces.episodes)], longer.episodes[len(traces.episodes):]
    ids = {id(s.observation) for ep in first for s in ep.steps}
    assert not ids & {id(s.observation) for ep in second for s in ep.steps}
    assert [s.observation for ep in first for s in ep.steps] == [
        s.observation for ep in second for s in ep.steps]
