"""`fidelity.jaccard` and `fidelity.change_f1` on hand-written content key sets.

A key is (class, resource-id, text, content-desc) of a visible node. change_f1 compares the mock's
change (keys added and removed relative to the current screen) with the recorded change.
"""

from __future__ import annotations

import pytest

from phoneworld.fidelity import change_f1, jaccard

TITLE = ("android.widget.TextView", "app:id/title", "Notes", "")
ADD = ("android.widget.Button", "app:id/add", "Add", "")
ROW_A = ("android.widget.TextView", "app:id/row", "a", "")
ROW_B = ("android.widget.TextView", "app:id/row", "b", "")
ROW_C = ("android.widget.TextView", "app:id/row", "c", "")

JACCARD = {
    "same": ({TITLE, ADD}, {TITLE, ADD}, 1.0),
    "both_empty": (set(), set(), 1.0),
    "disjoint": ({TITLE}, {ADD}, 0.0),
    "one_empty": ({TITLE}, set(), 0.0),
    "one_of_three": ({TITLE, ROW_A}, {TITLE, ROW_B}, 1 / 3),
    "subset": ({TITLE}, {TITLE, ADD, ROW_A, ROW_B}, 1 / 4),
}


@pytest.mark.parametrize("a,b,expected", JACCARD.values(), ids=JACCARD.keys())
def test_jaccard(a: set[tuple[str, ...]], b: set[tuple[str, ...]], expected: float) -> None:
    assert jaccard(frozenset(a), frozenset(b)) == pytest.approx(expected)  # type: ignore[arg-type]
    assert jaccard(frozenset(b), frozenset(a)) == pytest.approx(expected)  # type: ignore[arg-type]


CURRENT = frozenset({TITLE, ADD, ROW_A})
RECORDED = frozenset({TITLE, ADD, ROW_A, ROW_B})  # a row was added

CHANGE_F1 = {
    "no_op_mock_on_a_changing_step": (CURRENT, RECORDED, 0.0),
    "exact_mock": (RECORDED, RECORDED, 1.0),
    "wrong_row_added": (CURRENT | {ROW_C}, RECORDED, 0.0),
    "right_row_and_a_wrong_one": (CURRENT | {ROW_B, ROW_C}, RECORDED, 2 / 3),
    "right_row_but_title_removed": (RECORDED - {TITLE}, RECORDED, 2 / 3),
}


@pytest.mark.parametrize("mock,recorded,expected", CHANGE_F1.values(), ids=CHANGE_F1.keys())
def test_change_f1(mock: frozenset, recorded: frozenset, expected: float) -> None:  # type: ignore[type-arg]
    assert change_f1(CURRENT, mock, recorded) == pytest.approx(expected)


def test_change_f1_counts_removals_as_changes() -> None:
    recorded = CURRENT - {ROW_A}
    assert change_f1(CURRENT, recorded, recorded) == 1.0
    assert change_f1(CURRENT, CURRENT, recorded) == 0.0
    assert change_f1(CURRENT, RECORDED - {ROW_A}, recorded) == pytest.approx(2 / 3)  # -a, +b


def test_change_f1_of_a_step_that_changes_nothing_and_a_mock_that_agrees_is_one() -> None:
    assert change_f1(CURRENT, CURRENT, CURRENT) == 1.0
    assert change_f1(CURRENT, RECORDED, CURRENT) == 0.0
