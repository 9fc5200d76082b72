"""An editable field without a resource-id (React Native, Flutter and web views set none) is one
variable on every variant of its screen: a feedback form is several screens, one per rating picked,
and what was typed stays as the rating changes. A field at the same place on a screen of other
texts stays a variable of its own."""

from __future__ import annotations

from phoneworld.ir.trace import Observation, ViewNode
from phoneworld.runtime.sim import Simulator
from tests.compiler_support import (
    BUTTON, EDIT, LINEAR, TEXT, W, b, compile_app, episode, screen, tap, traces, type_, view,
)

HINT = "Write your experience in a few words here"


def star(k: int, picked: int) -> ViewNode:
    x = 100 + k * 200
    marks = (view(TEXT, b(x, 520, x + 150, 560), text="picked"),) if k == picked else ()
    return view(LINEAR, b(x, 400, x + 150, 560),
                view(BUTTON, b(x, 400, x + 150, 500), text="\u2605", clickable=True), *marks)


def field(text: str = "") -> ViewNode:
    return view(EDIT, b(100, 800, 1000, 1100), text=text or HINT, clickable=True)


def feedback(picked: int, typed: str = "") -> Observation:
    """No widget has a resource-id; the rating picked adds a mark under its star."""
    return screen(view(TEXT, b(100, 200, 1000, 300), text="GIVE FEEDBACK"),
                  *(star(k, picked) for k in range(3)),
                  view(TEXT, b(100, 700, 1000, 780), text="WRITE MORE DETAILS"),
                  field(typed), view(BUTTON, b(100, 1300, 1000, 1400), text="SEND", clickable=True))


def search(typed: str = "") -> Observation:
    """Another screen of the same activity, with a field of its own at the same place."""
    return screen(view(TEXT, b(100, 200, 1000, 300), text="FIND A SONG"),
                  view(TEXT, b(100, 700, 1000, 780), text="TITLE OR COMPOSER"),
                  field(typed))


def _stars(picked: int) -> ViewNode:
    return star(picked, -1).children[0]


def _compiled():  # type: ignore[no-untyped-def]
    return compile_app(traces(
        episode("e0", feedback(-1), tap(_stars(0)), feedback(0), tap(field()), feedback(0),
                type_("Loved it"), feedback(0, "Loved it"), tap(_stars(2)),
                feedback(2, "Loved it")),
        episode("e1", feedback(-1), tap(_stars(1)), feedback(1), tap(field()), feedback(1),
                type_("Too short"), feedback(1, "Too short"), tap(_stars(0)),
                feedback(0, "Too short")),
        episode("e2", search(), tap(field()), search(), type_("Elise"), search("Elise")),
    ))


def _shown(sim: Simulator) -> str:
    (node,) = [n for n in sim.view().walk() if n.cls == EDIT]
    return node.text


def test_what_was_typed_stays_as_the_variant_of_the_screen_changes() -> None:
    c = _compiled()
    sim = Simulator(c.spec)
    sim.reset()
    sim.step(tap(_stars(1)))
    sim.step(tap(field()))
    sim.step(type_("Fine"))
    sim.step(tap(_stars(2)))
    assert len({s.id for s in c.spec.screens}) >= 3  # the variants are screens of their own
    assert _shown(sim) == "Fine"
    sim.step(tap(_stars(0)))
    assert _shown(sim) == "Fine"


def _field_vars(c) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Screen id -> the variable its field reads."""
    return {sc.id: c.schema.text_vars[(sc.id, n.wid)] for sc in c.abstraction.screens
            for n in sc.root.walk() if n.editable}


def test_a_field_at_the_same_place_on_another_screen_is_its_own() -> None:
    c = _compiled()
    by_screen = _field_vars(c)
    (search_screen,) = [sc.id for sc in c.abstraction.screens
                        if any(n.text == "FIND A SONG" for n in sc.root.walk())]
    own = by_screen.pop(search_screen)
    assert len(set(by_screen.values())) == 1  # the feedback form's variants share one
    assert own not in by_screen.values()
