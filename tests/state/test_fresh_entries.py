"""A screen every recorded way into which opens it fresh (its field back to its hint) opens
fresh by an untried way in too: the toolbar button shown on a third screen but never tried there
(`untried.shared_rules`) opens the form empty, not with what was typed the last time."""

from __future__ import annotations

from phoneworld.ir.app import SetEffect
from phoneworld.ir.trace import Observation, ViewNode
from phoneworld.runtime.sim import Simulator
from tests.compiler_support import (
    BUTTON, EDIT, TEXT, W, b, back, compile_app, episode, screen, tap, traces, type_, view,
)

HINT = "Tell us what you think"
FEEDBACK = view(BUTTON, b(900, 60, 1040, 200), id="feedback", desc="Feedback", clickable=True)
REFRESH = view(BUTTON, b(40, 1600, 500, 1750), id="refresh", text="Refresh", clickable=True)


def page(title: str) -> Observation:
    return screen(view(TEXT, b(40, 60, 800, 200), id="title", text=title), FEEDBACK, REFRESH,
                  activity=f".{title}Activity")


def field(text: str = "") -> ViewNode:
    return view(EDIT, b(40, 400, 1040, 700), id="message", text=text or HINT, clickable=True)


def form(text: str = "") -> Observation:
    return screen(view(TEXT, b(40, 60, 800, 200), id="heading", text="Send feedback"),
                  field(text), activity=".FeedbackActivity")


def visits(title: str, typed: str):  # type: ignore[no-untyped-def]
    """Open the form, type, leave; open it again: it shows its hint."""
    return (page(title), tap(FEEDBACK), form(), tap(field()), form(), type_(typed), form(typed),
            back(), page(title), tap(FEEDBACK), form(), back(), page(title))


def _compiled():  # type: ignore[no-untyped-def]
    return compile_app(traces(
        episode("e0", *visits("Home", "Great app")),
        episode("e1", *visits("Profile", "Too slow")),
        episode("e2", page("Settings"), tap(REFRESH), page("Settings")),
    ))


def _screen(c, title: str) -> str:  # type: ignore[no-untyped-def]
    return next(s.id for s in c.abstraction.screens if any(n.text == title for n in s.root.walk()))


def test_the_untried_way_in_opens_the_form_fresh() -> None:
    c = _compiled()
    settings = _screen(c, "Settings")
    (untried,) = [t for t in c.spec.transitions
                  if t.screen == settings and t.widget == "feedback" and t.support == 0]
    assert any(isinstance(e, SetEffect) and getattr(e.value, "value", None) == HINT
               for e in untried.effects)
    sim = Simulator(c.spec)
    sim.reset()
    sim.step(tap(FEEDBACK))
    sim.step(tap(field()))
    sim.step(type_("Love it"))
    assert "Love it" in sim.state.values()
    sim.set_position(settings, sim.state)
    sim.step(tap(FEEDBACK))
    shown = [n.text for n in sim.view().walk() if n.cls == EDIT]
    assert shown == [HINT]
