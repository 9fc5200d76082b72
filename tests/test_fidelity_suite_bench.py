"""`bench/fidelity_suite.py`: the held-out match on covered steps pooled over sets, beside the
per-set mean (a set with one covered step weighs as much as one with thirty in the mean)."""

from __future__ import annotations

from tests.bench_support import load_bench


def test_covered_steps_are_pooled_by_their_counts() -> None:
    suite = load_bench("fidelity_suite")
    rows = [
        {"covered_match": 0.0, "covered_chg": 1},  # one covered step, missed
        {"covered_match": 0.9615, "covered_chg": 26},  # 25 of 26
        {"covered_match": None, "covered_chg": 0},  # nothing covered
        {"covered_match": 1.0},  # an older report without the count
    ]
    assert suite.pooled_covered(rows) == (25, 27)
    assert suite.pooled_covered([{"covered_match": None, "covered_chg": None}]) is None
