"""A widget can do what any observation of its screen saw it do (a button disabled until a field is
filled is enabled in the template, so the recorded taps on it can fire and be guarded)."""

from __future__ import annotations

from phoneworld.abstract import abstract
from phoneworld.ir.screens import TemplateNode
from tests.compiler_support import BUTTON, EDIT, b, click, episode, screen, traces, type_, view


def form(name: str, enabled: bool):  # type: ignore[no-untyped-def]
    return screen(view(EDIT, b(40, 200, 1040, 320), id="name", text=name, clickable=True),
                  view(BUTTON, b(700, 1600, 1040, 1760), id="answer", text="Answer",
                       clickable=enabled, enabled=enabled))


def node(root: TemplateNode, wid: str) -> TemplateNode:
    stack = [root]
    while stack:
        n = stack.pop()
        if n.wid == wid:
            return n
        stack.extend(n.children)
    raise KeyError(wid)


def test_a_widget_enabled_in_a_later_observation_is_enabled_in_the_template() -> None:
    abstraction = abstract(traces(episode("ep0", form("", False), click(540, 260), form("", False),
                                          type_("Ann"), form("Ann", True))))
    [only] = abstraction.screens
    answer = node(only.root, "answer")
    assert answer.enabled and answer.clickable


def test_a_widget_never_enabled_stays_disabled() -> None:
    abstraction = abstract(traces(episode("ep0", form("", False), click(540, 260), form("", False))))
    assert not node(abstraction.screens[0].root, "answer").enabled
