"""Rollouts pause the cyclic garbage collector and always give it back (`gc_paused` itself:
tests/test_collector.py)."""

from __future__ import annotations

import gc
import threading

import pytest

from phoneworld.rl.rollout import gc_paused, run_episodes


@pytest.fixture(autouse=True)
def _collector_on() -> None:
    gc.enable()
    yield
    gc.enable()


def test_restored_when_the_rollout_raises() -> None:
    class Boom:
        live = True

        def start(self) -> None:
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        run_episodes(None, [Boom()])  # type: ignore[arg-type, list-item]
    assert gc.isenabled()


def test_overlapping_rollouts_on_threads() -> None:
    """The collector comes back only when the last of several concurrent rollouts ends."""
    first_in, release_first, second_done = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with gc_paused():
            first_in.set()
            release_first.wait(5)

    def second() -> None:
        first_in.wait(5)
        with gc_paused():
            pass
        seen.append(gc.isenabled())  # the first rollout is still running
        second_done.set()

    a, b = threading.Thread(target=first), threading.Thread(target=second)
    a.start()
    b.start()
    second_done.wait(5)
    release_first.set()
    a.join(5)
    b.join(5)
    assert seen == [False] and gc.isenabled()
