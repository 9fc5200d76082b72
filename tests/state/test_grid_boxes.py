"""Boxes that share a resource id on one screen are boxes of their own: a photo picker's grid,
laid out as page structure (a camera tile first, then the photos, each with its box), checks one
photo at a time. Their flags are told apart by place, so ticking the second photo leaves the
others as they were, in the schema, the replay and the built app."""

from __future__ import annotations

from phoneworld.runtime.sim import Simulator
from tests.compiler_support import (
    CHECKBOX, FRAME, RECYCLER, TEXT, b, compile_app, episode, screen, tap, traces, view,
)

IMAGE = "android.widget.ImageView"
CELL = 300  # the grid's cells: 300 px squares in a row from x 0


def grid(checked: tuple[bool, bool, bool]) -> object:
    camera = view(FRAME, b(0, 400, CELL, 400 + CELL),
                  view(IMAGE, b(0, 400, CELL, 400 + CELL), id="camera", desc="Camera"),
                  id="tile", clickable=True)
    cells = [view(FRAME, b(x, 400, x + CELL, 400 + CELL),
                  view(IMAGE, b(x, 400, x + CELL, 400 + CELL), id="photo", desc="Image"),
                  view(CHECKBOX, b(x + 200, 400, x + CELL, 500), id="check", checkable=True,
                       clickable=True, checked=on), id="cell", clickable=True)
             for x, on in zip((CELL, 2 * CELL, 3 * CELL), checked)]
    return screen(view(TEXT, b(40, 80, 1040, 160), id="title", text="Pick photos"),
                  view(RECYCLER, b(0, 400, 1080, 1600), camera, *cells, id="grid",
                       scrollable=True), activity=".PickerActivity")


def box(k: int) -> object:
    x = (k + 1) * CELL
    return tap(view(CHECKBOX, b(x + 200, 400, x + CELL, 500)))


def test_each_box_of_a_grid_is_its_own_flag() -> None:
    compiled = compile_app(traces(episode(
        "e0", grid((False, False, False)), box(1), grid((False, True, False)), box(1),
        grid((False, False, False)), box(2), grid((False, False, True)))))
    flags = {wid: var for (_, wid), var in compiled.schema.flag_vars.items()}
    assert len(set(flags.values())) == 3
    sim = Simulator(compiled.spec)
    sim.reset()
    sim.tap(2 * CELL + 250, 450)  # the second photo's box
    shown = [n.checked for n in sim.view().walk() if n.checkable]
    assert shown == [False, True, False]
