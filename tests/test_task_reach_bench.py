"""`bench/task_reach.py`: the screens the start cannot reach, and whether the recording had a way
in to them."""

from __future__ import annotations

from typing import Any

import pytest

from tests.bench_support import load_bench
from tests.compiler_support import BUTTON, TEXT, b, compile_app, episode, screen, tap, traces, view

GO = view(BUTTON, b(40, 1700, 1040, 1820), id="go", text="Go", clickable=True)


@pytest.fixture(scope="module")
def bench() -> Any:
    return load_bench("task_reach")


def page(title: str, activity: str) -> Any:
    return screen(view(TEXT, b(40, 100, 1040, 200), text=title), GO, activity=activity)


def test_a_dropped_outcome_and_an_episode_start_are_told_apart(bench: Any) -> None:
    home, login, welcome, help_ = (page(t, f".{t}Activity")
                                   for t in ("Home", "Login", "Welcome", "Help"))
    # "Go" on Login stays twice and opens Welcome once: nothing in the state tells them apart, so
    # the graph keeps staying, and Welcome (and Help behind it) lose their way in; About is only
    # ever the first screen of an episode
    about = page("About", ".AboutActivity")
    c = compile_app(traces(
        episode("e0", home, tap(GO), login, tap(GO), login, tap(GO), login, tap(GO), welcome,
                tap(GO), help_),
        episode("e1", about),
    ))
    row = bench.reach(c.spec, c.graph.steps)
    assert (row["screens"], row["reach"], row["dropped"], row["starts"]) == (5, 2, 2, 1)
    assert len(row["ways"]) == 1 and "click go -> " in row["ways"][0]
