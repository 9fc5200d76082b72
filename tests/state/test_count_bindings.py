"""A number that always shows how many records a list holds ("3 notes") reads the list's count.
Before, it was a number of its own that the recorded delete taps moved by -1: a record added or
removed on a path the recording never took left it behind, and it gave tasks of its own
("Decrease the heading by 1", "What is the heading?")."""

from __future__ import annotations

from phoneworld.ir.app import Count
from phoneworld.ir.trace import LongPress, Observation
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks.synthesis import synthesize
from phoneworld.world.wiring import screen_widgets
from tests.compiler_support import (
    BUTTON, EDIT, ROW_PITCH, ROW_TOP, TEXT, b, click, compile_app, episode, row_list, screen,
    traces, type_, view,
)

OK, CANCEL, FAB, SAVE, FIELD = (click(700, 950), click(400, 950), click(960, 1720),
                                click(920, 1720), click(500, 260))


def home(items: list[str], heading: str = "{} notes") -> Observation:
    return screen(view(TEXT, b(40, 80, 1040, 160), id="heading", text=heading.format(len(items))),
                  row_list(*items),
                  view(BUTTON, b(880, 1650, 1040, 1800), id="fab", desc="Add note",
                       clickable=True))


def dialog(name: str) -> Observation:
    return screen(view(TEXT, b(100, 700, 980, 800), id="message", text=f"Delete {name}?"),
                  view(BUTTON, b(600, 900, 800, 1000), id="ok", text="OK", clickable=True),
                  view(BUTTON, b(300, 900, 500, 1000), id="cancel", text="Cancel",
                       clickable=True))


def editor(text: str = "") -> Observation:
    return screen(view(EDIT, b(40, 200, 1040, 320), id="title_input", text=text, clickable=True),
                  view(BUTTON, b(800, 1650, 1040, 1800), id="save", text="Save", clickable=True),
                  activity=".EditActivity")


def hold(k: int) -> LongPress:
    return LongPress(x=300, y=ROW_TOP + k * ROW_PITCH + ROW_PITCH // 2)


def test_a_count_of_records_reads_the_list() -> None:
    # deletes through a dialog in one session, an add in another: one count all along
    c = compile_app(traces(
        episode("e0", home(["Milk", "Eggs", "Jam"]), hold(0), dialog("Milk"), OK,
                home(["Eggs", "Jam"]), hold(1), dialog("Jam"), OK, home(["Eggs"])),
        episode("e1", home(["Eggs"]), FAB, editor(), FIELD, editor(), type_("Tea"),
                editor("Tea"), SAVE, home(["Eggs", "Tea"], heading="{} notes"))))
    heading = next(w for s in c.spec.screens for w, _ in screen_widgets(s.root)
                   if w.wid == "heading")
    assert heading.text == Count(collection="list_items", fmt="{} notes")
    assert all(v.kind != "number" for v in c.spec.state)
    sim = Simulator(c.spec)
    sim.reset()
    texts = lambda: [n.text for n in sim.view().walk() if n.resource_id.endswith("/heading")]
    assert texts() == ["3 notes"]
    sim.tap(FAB.x, FAB.y)
    sim.tap(FIELD.x, FIELD.y)
    sim.type_text("Rice")
    sim.tap(SAVE.x, SAVE.y)
    assert texts() == ["4 notes"]
    instructions = [t.instruction for t in synthesize(c.spec).tasks]
    assert not any("heading" in i for i in instructions), instructions


def test_a_number_that_only_once_equals_the_count_is_its_own() -> None:
    # a score that moved while the list stayed: equal to the count at the start only
    def page(score: int) -> Observation:
        return screen(view(TEXT, b(40, 80, 1040, 160), id="score", text=f"Score {score}"),
                      row_list("Milk", "Eggs"),
                      view(BUTTON, b(880, 1650, 1040, 1800), id="plus", text="+",
                           clickable=True))

    plus = click(960, 1720)
    c = compile_app(traces(episode("e0", page(2), plus, page(3), plus, page(4))))
    assert any(v.kind == "number" for v in c.spec.state)
