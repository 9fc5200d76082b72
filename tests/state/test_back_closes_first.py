"""Back that first stays and then leaves: on a screen that opens with the keyboard up (a search,
a compose box), the first back only hides the keyboard, which the view tree does not show, and
the second one leaves. Such a back counts as entering the screen again (`track.closed_over`), so
the model tells the second back from the first by how the screen was last entered."""

from __future__ import annotations

from phoneworld.fidelity import free_run
from phoneworld.state.track import closed_over
from tests.compiler_support import (
    BUTTON, EDIT, TEXT, b, back, compile_app, episode, screen, tap, traces, view,
)

WRITE = view(BUTTON, b(40, 300, 1040, 420), id="write", text="Write", clickable=True)
HOME = screen(view(TEXT, b(40, 80, 1040, 160), id="title", text="Inbox"), WRITE,
              activity=".InboxActivity")
COMPOSE = screen(view(TEXT, b(40, 80, 1040, 160), id="title", text="New message"),
                 view(EDIT, b(40, 200, 1040, 320), id="body", text="Message", clickable=True),
                 activity=".ComposeActivity")


def _twice() -> list[object]:
    steps: list[object] = [HOME]
    for _ in range(2):
        steps += [tap(WRITE), COMPOSE, back(), COMPOSE, back(), HOME]
    return steps


def test_the_first_back_stays_and_the_second_leaves_in_the_built_app() -> None:
    ts = traces(episode("e0", *_twice()))  # type: ignore[arg-type]
    compiled = compile_app(ts)
    assert closed_over(compiled.graph.steps) == frozenset({"s01_compose"})
    backs = [t for t in compiled.spec.transitions
             if t.screen == "s01_compose" and t.action == "back"]
    assert len(backs) == 2 and sum(t.guard is not None for t in backs) == 1
    # replayed as an agent meets the app, from the reset app: every screen as recorded
    [run] = free_run(compiled.spec, compiled.schema, compiled.abstraction, ts)
    assert run.mock_screens == run.recorded_screens
    assert run.recorded_screens[:4] == ["s00_inbox", "s01_compose", "s01_compose", "s00_inbox"]


def test_a_back_that_always_stays_or_always_leaves_enters_nothing() -> None:
    """Back that only ever stayed (a form whose keyboard DroidBot kept up) or only ever left is
    no entry: the screen gets no entry variable from it, so nothing else it guards moves."""
    stays = traces(episode("e0", HOME, tap(WRITE), COMPOSE, back(), COMPOSE, back(), COMPOSE))
    leaves = traces(episode("e0", HOME, tap(WRITE), COMPOSE, back(), HOME, tap(WRITE), COMPOSE,
                            back(), HOME))
    for ts in (stays, leaves):
        compiled = compile_app(ts)
        assert closed_over(compiled.graph.steps) == frozenset()
        assert "s01_compose" not in compiled.schema.entry_vars
