"""Held-out steps on screens, or with back stacks, that training never saw are scored as misses
(never raised), and the coverage figures tell them apart from wrong behaviour: a step is covered
when the app knows its screen, its back stack and its recorded next screen."""

from __future__ import annotations

from phoneworld.fidelity import recorded_contents, teacher_forced
from phoneworld.ir.trace import Observation
from tests.compiler_support import BUTTON, TEXT, b, back, click, compile_app, episode, screen, traces
from tests.compiler_support import view

OPEN = (100, 300, 980, 460)   # "Open" on the main screen
OTHER = (100, 600, 980, 760)  # "Other" on the main screen: its screen appears only when held out
DEEPER = (100, 900, 980, 1060)  # "Deeper" on the held-out-only screen: to the detail screen


def main_screen() -> Observation:
    return screen(view(BUTTON, b(*OPEN), id="open", text="Open", clickable=True),
                  view(BUTTON, b(*OTHER), id="other", text="Other", clickable=True))


def detail(title: str) -> Observation:
    return screen(view(TEXT, b(40, 200, 1040, 400), id="title", text=title),
                  activity=".DetailActivity")


def unseen() -> Observation:
    return screen(view(BUTTON, b(*DEEPER), id="deeper", text="Deeper", clickable=True),
                  view(TEXT, b(40, 100, 1040, 200), id="hint", text="never in training"),
                  activity=".SettingsActivity")


def centre(box: tuple[int, int, int, int]):  # type: ignore[no-untyped-def]
    return click((box[0] + box[2]) // 2, (box[1] + box[3]) // 2)


def test_unseen_screen_and_stack_are_misses_not_errors() -> None:
    train = traces(episode("ep0", main_screen(), centre(OPEN), detail("A"), back(), main_screen(),
                           centre(OPEN), detail("A")))
    held = traces(
        episode("ep1", main_screen(), centre(OTHER), unseen()),
        # starts on a screen training never saw, which then stays at the bottom of the back stack
        episode("ep2", unseen(), centre(DEEPER), detail("A"), back(), unseen()),
    )
    built = compile_app(train)
    replay = teacher_forced(built.spec, built.schema, built.abstraction, held,
                            shown=recorded_contents(built.abstraction, train, last=True))
    steps = {(s.episode, s.step): s for s in replay.steps}
    assert set(steps) == {("ep1", 0), ("ep2", 0), ("ep2", 1)}
    # a known screen, but the recorded next screen is one training never saw: not covered, a miss
    to_unseen = steps[("ep1", 0)]
    assert not to_unseen.covered and not to_unseen.transition_match
    # on the unseen screen, to a known one: not covered (the mock cannot start there), a miss
    on_unseen = steps[("ep2", 0)]
    assert not on_unseen.covered and not on_unseen.transition_match and on_unseen.mock_screen == ""
    # on a known screen with the unseen one on its back stack: not covered either, a miss
    over_unseen = steps[("ep2", 1)]
    assert not over_unseen.covered
    assert not over_unseen.transition_match and over_unseen.mock_screen == ""
    assert replay.coverage() == 0.0
    assert replay.summary(covered_only=True) is None
    every = replay.summary()
    assert every is not None and every.steps == 3 and every.transition_match == 0.0


def test_training_steps_are_all_covered_and_replay_right() -> None:
    train = traces(episode("ep0", main_screen(), centre(OPEN), detail("A"), back(), main_screen()))
    built = compile_app(train)
    replay = teacher_forced(built.spec, built.schema, built.abstraction, train, built_on=True)
    assert all(s.covered for s in replay.steps) and replay.coverage() == 1.0
    summary = replay.summary()
    assert summary is not None and summary.transition_match == 1.0
    # the reference mock knows each true next screen's content: on these static screens it is exact
    assert summary.reference_change_f1 == 1.0


def test_place_refuses_an_unseen_stack_and_leaves_the_simulator_alone() -> None:
    """`place` is how replay and the report's mismatch pictures put the simulator at a step."""
    from phoneworld.fidelity import place
    from phoneworld.ir.graph import ObservedStep
    from phoneworld.runtime.sim import Simulator
    from phoneworld.state.track import Tracked

    built = compile_app(traces(episode("ep0", main_screen(), centre(OPEN), detail("A"), back(),
                                       main_screen())))
    detail_screen = built.graph.steps[0].next_screen
    sim = Simulator(built.spec)
    before = sim.snapshot()
    step = ObservedStep.model_construct(screen=detail_screen, action="back", widget=None)
    assert not place(sim, step, Tracked({}, ("", detail_screen)), set())
    assert sim.snapshot() == before
    assert place(sim, step, Tracked({}, (built.graph.steps[0].screen, detail_screen)), set())
    assert sim.screen == detail_screen and sim.stack == (built.graph.steps[0].screen,)


def test_a_held_out_tail_starts_from_where_its_training_head_ended() -> None:
    """Back on the first held-out screen (never pressed there in training, so the mock pops its
    stack) returns to the screen the training head left below it."""
    from phoneworld.fidelity import split_heldout

    recorded = traces(episode("ep0", main_screen(), centre(OPEN), detail("A"), back(),
                              main_screen()))
    train, held = split_heldout(recorded, 0.5)  # the back is held out, on the detail screen
    assert [len(e.steps) for e in held.episodes] == [2]
    built = compile_app(train)
    trained = teacher_forced(built.spec, built.schema, built.abstraction, train, built_on=True)
    shown = recorded_contents(built.abstraction, train, last=True)
    alone = teacher_forced(built.spec, built.schema, built.abstraction, held, shown=shown)
    joined = teacher_forced(built.spec, built.schema, built.abstraction, held, shown=shown,
                            after=trained.ends)
    main = joined.steps[0].recorded_screen
    # without the head, the tail's stack holds only the detail screen: back leaves the app
    assert alone.tracked[0][0].stack == (joined.tracked[0][0].stack[-1],)
    assert not alone.steps[0].transition_match
    # with it, the main screen is below: back returns there, as recorded
    assert joined.tracked[0][0].stack == (main, joined.tracked[0][0].stack[-1])
    assert joined.steps[0].transition_match and joined.steps[0].covered
    # training never pressed back there: a covered step with a trigger the app has no rule for
    assert not joined.steps[0].known_trigger
    assert joined.summary(covered_only=True) is not None
    assert joined.summary(covered_only=True, known_only=True) is None
    assert all(s.known_trigger for s in trained.steps)
