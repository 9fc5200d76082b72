"""The cyclic garbage collector is paused while a build runs, and always given back."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from phoneworld import pipeline
from phoneworld.collector import gc_paused

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "traces"


@pytest.fixture(autouse=True)
def _collector_on() -> Iterator[None]:
    gc.enable()
    yield
    gc.enable()


def test_paused_inside_and_restored_after_nesting() -> None:
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_restored_when_the_block_raises() -> None:
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()


def test_ingest_and_the_passes_run_paused(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, bool]] = []
    ingest, abstract = pipeline.ingest, pipeline.abstract

    def spy(name: str, real):  # type: ignore[no-untyped-def]
        def run(*args, **kwargs):  # type: ignore[no-untyped-def]
            seen.append((name, gc.isenabled()))
            return real(*args, **kwargs)
        return run

    monkeypatch.setattr(pipeline, "ingest", spy("ingest", ingest))
    monkeypatch.setattr(pipeline, "abstract", spy("abstract", abstract))
    traces, diagnostics = pipeline.check(EXAMPLE)
    assert gc.isenabled()
    config = pipeline.BuildConfig(traces=EXAMPLE, write=False, tasks=False)
    pipeline.build_app(traces.for_app(traces.apps()[0]), config, diagnostics)
    assert seen == [("ingest", False), ("abstract", False)] and gc.isenabled()
