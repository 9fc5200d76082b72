"""`graph.hit_test`: which widget an action at a point lands on.

Boxes are in drawing order (later on top): the topmost box under the point that takes the action
wins (clickable, checkable or editable for a tap; long-clickable or clickable for a long press;
scrollable for a scroll); when none takes it, the topmost box under the point; outside every box,
None.
"""

from __future__ import annotations

import pytest

from phoneworld.graph import hit_test
from phoneworld.ir.screens import HitBox
from tests.compiler_support import b

ROOT = HitBox(wid="root", bounds=b(0, 0, 1080, 1920))
LIST = HitBox(wid="list", bounds=b(0, 200, 1080, 1600), scrollable=True)
ROW = HitBox(wid="row", item=0, list_wid="list", bounds=b(0, 200, 1080, 400), clickable=True)
TITLE = HitBox(wid="title", item=0, list_wid="list", bounds=b(40, 220, 600, 380))
DONE = HitBox(wid="done", item=0, list_wid="list", bounds=b(900, 240, 1040, 360), checkable=True)
MENU = HitBox(wid="menu", bounds=b(0, 1600, 1080, 1920), long_clickable=True)
FIELD = HitBox(wid="field", bounds=b(40, 1700, 500, 1800), editable=True)
LABEL = HitBox(wid="label", bounds=b(0, 0, 1080, 150))
BOXES = (ROOT, LABEL, LIST, ROW, TITLE, DONE, MENU, FIELD)

CASES = {
    "label_of_a_clickable_row_gives_the_row": (300, 300, "click", "row"),
    "checkbox_inside_the_row_gives_the_checkbox": (950, 300, "click", "done"),
    "editable_field": (100, 1750, "click", "field"),
    "nothing_takes_it_gives_the_topmost_box": (500, 50, "click", "label"),
    "long_press_skips_plain_boxes": (100, 1650, "long_press", "menu"),
    "long_press_falls_back_to_clickable": (300, 300, "long_press", "row"),
    "tap_on_long_clickable_only_gives_the_topmost": (700, 1650, "click", "menu"),
    "scroll_over_a_row_gives_the_list": (300, 300, "scroll_down", "list"),
    "right_edge_is_outside": (1080, 50, "click", "none"),
    "off_screen": (500, 1920, "click", "none"),
}


@pytest.mark.parametrize("x,y,kind,expected", CASES.values(), ids=CASES.keys())
def test_hit_test(x: int, y: int, kind: str, expected: str) -> None:
    box = hit_test(BOXES, x, y, kind)
    assert (box.wid if box is not None else "none") == expected


def test_a_later_sibling_is_on_top() -> None:
    below = HitBox(wid="below", bounds=b(0, 0, 500, 500), clickable=True)
    above = HitBox(wid="above", bounds=b(250, 250, 750, 750), clickable=True)
    assert hit_test((ROOT, below, above), 300, 300, "click") == above
    assert hit_test((ROOT, above, below), 300, 300, "click") == below
    assert hit_test((ROOT, below, above), 100, 100, "click") == below


def test_the_hit_box_carries_the_item_index() -> None:
    second_row = ROW.model_copy(update={"item": 1, "bounds": b(0, 400, 1080, 600)})
    box = hit_test((ROOT, LIST, ROW, second_row), 300, 500, "click")
    assert box is not None and (box.wid, box.item, box.list_wid) == ("row", 1, "list")
