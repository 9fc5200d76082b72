"""A box with no label of its own in a grid of like cells is named by its cell: "Check the box on
the 2nd image", counted in reading order among the cells that look alike (the camera tile before
them is no image), so each task names the one box its rule reads."""

from __future__ import annotations

from phoneworld.tasks import sanity
from phoneworld.tasks.naming import ordinal
from phoneworld.tasks.synthesis import synthesize
from tests.compiler_support import compile_app, episode, traces
from tests.state.test_grid_boxes import box, grid


def test_grid_boxes_are_named_by_their_cell() -> None:
    compiled = compile_app(traces(episode(
        "e0", grid((False, False, False)), box(1), grid((False, True, False)), box(1),
        grid((False, False, False)), box(2), grid((False, False, True)))))
    tasks = synthesize(compiled.spec).tasks
    texts = {t.instruction for t in tasks if t.kind() in ("setting", "answer")}
    assert {"Check the box on the 1st image", "Check the box on the 2nd image",
            "Check the box on the 3rd image", "Is the box on the 2nd image checked?"} <= texts
    second = next(t for t in tasks if t.instruction == "Check the box on the 2nd image")
    (check,) = sanity.check_tasks(compiled.spec, [second])
    assert check.kept and check.end is not None
    by_wid = {wid: var for (_, wid), var in compiled.schema.flag_vars.items()}
    assert {wid: check.end[var] for wid, var in by_wid.items()} == {
        "check": False, "check_2": True, "check_3": False}


def test_ordinals() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]
