"""bench/list_changes.py: what counts as a list that grew or shrank in a recording."""

from __future__ import annotations

from phoneworld.ir.trace import Episode, Observation
from tests.bench_support import load_bench
from tests.compiler_support import PKG, RECYCLER, TEXT, b, click, episode, view

VIEW_GROUP = "android.view.ViewGroup"


def page(*rows: str | None) -> Observation:
    """A list whose rows show these texts (None: a row that shows none, a ring or an icon)."""
    kids = [view(VIEW_GROUP, b(0, 100 * k, 1080, 100 * k + 100),
                 *([view(TEXT, b(0, 100 * k, 500, 100 * k + 90), text=t)] if t else []))
            for k, t in enumerate(rows)]
    return Observation(root=view(RECYCLER, b(0, 0, 1080, 1920), *kids, id="path"),
                       package=PKG)


def run(first: Observation, then: Observation) -> Episode:
    return episode("e0", first, click(540, 1800), then)


def test_a_row_gone_is_a_shrink_and_a_row_that_lost_its_text_is_not() -> None:
    bench = load_bench("list_changes")
    assert bench.changes(run(page("A", "B", "C"), page("A", "C")), set()) == (0, 1)
    assert bench.changes(run(page("A", "C"), page("A", "B", "C")), set()) == (1, 0)
    # a tooltip closed: its row is there, with no text
    assert bench.changes(run(page("Unit 1", "START", None), page("Unit 1", None, None)),
                         set()) == (0, 0)
