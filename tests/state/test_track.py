"""`state.track.navigation`: how a recorded screen change moves the tracked back stack."""

from __future__ import annotations

import pytest

from phoneworld.state.track import apply_navigation, navigation


@pytest.mark.parametrize("stack, here, there, nav", [
    (("a", "b"), "b", "c", "push"),
    (("a", "b"), "b", "a", "pop"),
    (("a", "b"), "b", "b", "stay"),
    (("a", "b"), "b", "", "stay"),           # to a screen the app does not know: nothing moves
    (("a", "b"), "", "b", "stay"),           # back from it to the screen on top of the stack
    (("a", "b"), "", "a", "pop"),
    (("a", "b"), "", "c", "push"),
])
def test_navigation(stack: tuple[str, ...], here: str, there: str, nav: str) -> None:
    assert navigation(stack, here, there) == nav


@pytest.mark.parametrize("stack, here, there, after", [
    (("a", "b", "c"), "c", "b2", ("a", "b2")),  # a dialog's Cancel: the page below, shown anew
    (("a", "b"), "b", "a", ("a",)),              # on the stack: pops down to it as any step
    (("b",), "b", "z", ("z",)),                  # nothing below: the next screen replaces it
])
def test_back_to_a_screen_not_on_the_stack_takes_the_place_of_the_one_below(
        stack: tuple[str, ...], here: str, there: str, after: tuple[str, ...]) -> None:
    assert navigation(stack, here, there, closes=True) == "pop"
    assert navigation(stack, here, there) == ("pop" if there in stack else "push")
    assert apply_navigation(stack, "pop", there) == after


def test_a_detour_through_an_unknown_screen_leaves_no_duplicate_on_the_stack() -> None:
    stack: tuple[str, ...] = ("a", "b")
    for here, there in (("b", ""), ("", "b")):
        stack = apply_navigation(stack, navigation(stack, here, there), there)
    assert stack == ("a", "b")
