"""A click on a radio button checks it and clears the rest of its group. Read from diffs, the
recorded move from "Small" to "Medium" was two toggles: replayed from "Small" checked, a tap on
"Large" then checked Large and Medium beside Small, and "Small", never tapped, toggled alone."""

from __future__ import annotations

from phoneworld.ir.trace import Observation
from phoneworld.runtime.sim import Simulator
from tests.compiler_support import CHECKBOX, TEXT, b, click, compile_app, episode, screen, \
    traces, view

RADIO = "android.widget.RadioButton"
GROUP = "android.widget.RadioGroup"
SIZES = ("Small", "Medium", "Large")


def order(size: str, gift: bool = False) -> Observation:
    radios = [view(RADIO, b(40, 300 + 120 * k, 1040, 400 + 120 * k), id=f"size_{s.lower()}",
                   text=s, checkable=True, clickable=True, checked=s == size)
              for k, s in enumerate(SIZES)]
    return screen(view(TEXT, b(40, 80, 1040, 160), id="heading", text="Order"),
                  view(GROUP, b(0, 280, 1080, 700), *radios, id="sizes"),
                  view(CHECKBOX, b(40, 800, 1040, 900), id="gift", text="Gift wrap",
                       checkable=True, clickable=True, checked=gift),
                  activity=".OrderActivity")


def pick(k: int) -> object:
    return click(500, 350 + 120 * k)


def checked(sim: Simulator) -> list[str]:
    return [n.text for n in sim.view().walk() if n.checkable and n.checked]


def test_a_radio_button_checks_itself_and_clears_its_group() -> None:
    compiled = compile_app(traces(episode(
        "e0", order("Small"), pick(1), order("Medium"), pick(2), order("Large"),
        click(500, 850), order("Large", gift=True))))
    sim = Simulator(compiled.spec)
    sim.reset()
    assert checked(sim) == ["Small"]
    sim.tap(500, 350 + 240)  # Large, from Small: recorded only from Medium
    assert checked(sim) == ["Large"]
    sim.tap(500, 350)  # Small: never tapped
    assert checked(sim) == ["Small"]
    sim.tap(500, 350)  # again: a radio button stays checked
    assert checked(sim) == ["Small"]
    sim.tap(500, 850)  # the box beside the group still toggles on its own
    assert checked(sim) == ["Small", "Gift wrap"]


def terms(agreed: bool) -> Observation:
    return screen(view(TEXT, b(40, 80, 1040, 160), id="heading", text="Terms"),
                  view(RADIO, b(40, 300, 1040, 400), id="agree", text="I agree", checkable=True,
                       clickable=True, checked=agreed), activity=".TermsActivity")


def test_a_radio_button_alone_is_left_as_learned() -> None:
    compiled = compile_app(traces(episode("e0", terms(False), click(500, 350), terms(True))))
    assert [e.kind for t in compiled.spec.transitions for e in t.effects] == ["toggle"]
