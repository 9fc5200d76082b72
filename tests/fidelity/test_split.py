"""`fidelity.split_heldout`: the last `fraction` of each app's recorded actions are held out.

floor(total * fraction) actions are held out, counted from the end of the app's last episode; an
episode that straddles the boundary is cut there: its head (ending on the boundary screen, with no
action) stays in the build, its tail (starting on the boundary screen, steps renumbered from 0,
sources unchanged) is held out as `<id>#heldout`.
"""

from __future__ import annotations

from phoneworld.fidelity import split_heldout
from phoneworld.ir.trace import Episode, Observation, TraceSet
from tests.compiler_support import TEXT, W, b, click, episode, screen, traces, view


def page(n: int) -> Observation:
    return screen(view(TEXT, b(0, 0, W, 150), id="page", text=f"page {n}"))


def walk(ep_id: str, actions: int, app: str = "com.example.tiny") -> Episode:
    """An episode of `actions` clicks through pages 0..actions; click k is at x = k + 1."""
    steps: list[object] = [page(0)]
    for k in range(actions):
        steps += [click(k + 1, 100), page(k + 1)]
    return episode(ep_id, *steps, app=app)  # type: ignore[arg-type]


def shape(trace_set: TraceSet) -> list[tuple[str, list[int], list[int | None]]]:
    """Per episode: id, the original step of each step (its source), the x of each action."""
    return [(ep.id, [s.source.step or 0 for s in ep.steps],
             [s.action.x if s.action is not None else None for s in ep.steps])  # type: ignore[union-attr]
            for ep in trace_set.episodes]


def test_no_fraction_holds_nothing_out() -> None:
    trace_set = traces(walk("e0", 3))
    train, held = split_heldout(trace_set, 0.0)
    assert train == trace_set
    assert held.episodes == ()


def test_an_episode_straddling_the_boundary_is_cut_there() -> None:
    (ep,) = traces(walk("e0", 4)).episodes
    train, held = split_heldout(traces(ep), 0.5)
    assert shape(train) == [("e0", [0, 1, 2], [1, 2, None])]
    assert shape(held) == [("e0#heldout", [2, 3, 4], [3, 4, None])]
    (head,), (tail,) = train.episodes, held.episodes
    assert [s.index for s in tail.steps] == [0, 1, 2]
    assert [s.index for s in head.steps] == [0, 1, 2]
    assert head.steps[-1].observation == tail.steps[0].observation == ep.steps[2].observation
    assert (tail.app, tail.device, tail.source) == (ep.app, ep.device, ep.source)


def test_the_held_out_actions_are_the_last_ones() -> None:
    train, held = split_heldout(traces(walk("e0", 8)), 0.25)  # 2 of 8 actions held out
    assert shape(train) == [("e0", [0, 1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6, None])]
    assert shape(held) == [("e0#heldout", [6, 7, 8], [7, 8, None])]


def test_the_held_out_count_rounds_down() -> None:
    train, held = split_heldout(traces(walk("e0", 3)), 0.5)  # 1.5 actions: 1 held out
    assert shape(train) == [("e0", [0, 1, 2], [1, 2, None])]
    assert shape(held) == [("e0#heldout", [2, 3], [3, None])]
    train, held = split_heldout(traces(walk("e0", 3)), 0.3)  # 0.9 actions: none
    assert shape(train) == [("e0", [0, 1, 2, 3], [1, 2, 3, None])]
    assert held.episodes == ()


def test_whole_episodes_before_the_boundary_are_kept_and_after_it_held_out() -> None:
    trace_set = traces(walk("e0", 2), walk("e1", 3), walk("e2", 1))  # 6 actions, 3 held out
    train, held = split_heldout(trace_set, 0.5)
    assert shape(train) == [("e0", [0, 1, 2], [1, 2, None]), ("e1", [0, 1], [1, None])]
    assert shape(held) == [("e1#heldout", [1, 2, 3], [2, 3, None]),
                           ("e2", [0, 1], [1, None])]


def test_a_boundary_at_the_end_of_an_episode_cuts_nothing() -> None:
    trace_set = traces(walk("e0", 2), walk("e1", 2))
    train, held = split_heldout(trace_set, 0.5)
    assert train.episodes == trace_set.episodes[:1]
    assert held.episodes == trace_set.episodes[1:]


def test_each_app_is_split_on_its_own_count() -> None:
    trace_set = traces(walk("a0", 4, app="com.example.a"), walk("b0", 2, app="com.example.b"),
                       walk("b1", 2, app="com.example.b"))
    train, held = split_heldout(trace_set, 0.5)
    assert shape(train) == [("a0", [0, 1, 2], [1, 2, None]), ("b0", [0, 1, 2], [1, 2, None])]
    assert shape(held) == [("a0#heldout", [2, 3, 4], [3, 4, None]),
                           ("b1", [0, 1, 2], [1, 2, None])]


def test_a_cut_episode_s_tail_follows_its_head_and_the_next_one_follows_the_tail() -> None:
    from phoneworld.fidelity import split_heldout
    from tests.compiler_support import back, click, episode, screen, traces

    first = episode("r#1", screen(), click(1, 1), screen(), click(1, 1), screen(), back(), screen())
    second = episode("r#2", screen(), back(), screen()).model_copy(update={"follows": "r#1"})
    train, held = split_heldout(traces(first, second), 0.5)
    assert [e.id for e in train.episodes] == ["r#1"]
    # the tail continues the training head (replay starts it where the head ended)
    assert [(e.id, e.follows) for e in held.episodes] == [("r#1#heldout", "r#1"),
                                                          ("r#2", "r#1#heldout")]
    assert held.follows() == (None, 0)
