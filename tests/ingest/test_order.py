"""Episodes come out in recording order: numbers in ids compare as numbers."""

from __future__ import annotations

from phoneworld.ingest import natural_key


def test_numbered_episodes_sort_in_recording_order() -> None:
    ids = ["run#10", "run#2", "run#1.p2", "run#1.p10", "run#1.p0", "ep_0003", "ep_0001"]
    assert sorted(ids, key=natural_key) == [
        "ep_0001", "ep_0003", "run#1.p0", "run#1.p2", "run#1.p10", "run#2", "run#10"]
