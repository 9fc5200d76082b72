"""Fidelity: how well a compiled app reproduces recorded episodes, measured on every build.

Teacher-forced replay sets the simulator to each recorded step's screen and tracked state, applies
the recorded action (a tap at the mock's place of the widget it hit, where the mock draws that
widget elsewhere) and compares the mock's next screen with the recorded one:

- `transition_match`: the mock landed on the recorded next screen (all steps), and
  `transition_match_changing` on the changing steps only (the recorded content changed);
- `observation_match`: mean Jaccard similarity of the visible (class, resource-id, text,
  content-desc) sets of the mock's and the recorded next screen;
- `change_f1`: on changing steps, F1 between the mock's change (nodes added and removed relative to
  the current recorded screen) and the recorded change. A mock that ignores every tap scores 0.
- `reference_change_f1`: the same F1 for a stateless mock that knows the true next screen and shows
  the content last recorded for it (the bar a mock with state has to clear).

A held-out step is *covered* when the app knows every screen it involves: the one it starts on, those
on its back stack and the recorded next one. The held-out figures are given over all held-out steps
and over covered ones, and over the covered steps whose trigger (screen, action, widget) training
recorded: wrong behaviour where the mock had evidence, told apart from an input it never saw. A
step on a screen training never saw, or with such a screen on its back
stack, is scored as a miss among all steps (the mock cannot be put there). A held-out episode that
continues a training one (the tail of an episode cut at the split) starts from the state and back
stack that one ended in.

Free-running replay (`free_run`) starts from an episode's first screen and applies its actions
without correction, as an agent would; the recording's first episode starts from the reset app,
as a user gets it (so a reset state that disagrees with what the recording showed shows), and
each step's screen content is compared with the recorded one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from phoneworld.abstract import Reader
from phoneworld.abstract.shape import ContentKey, content_keys
from phoneworld.graph import graph
from phoneworld.ir.app import AppSpec
from phoneworld.ir.base import SourceRef
from phoneworld.ir.graph import ObservedStep
from phoneworld.ir.report import Fidelity, FreeRunning
from phoneworld.ir.screens import Abstraction, ScreenReading
from phoneworld.ir.trace import POINT_ACTIONS, Episode, Step, TraceSet, ViewNode
from phoneworld.runtime.sim import Simulator
from phoneworld.state.schema import Schema
from phoneworld.state.track import Tracked, absolute_item, below, track

Keys = frozenset[ContentKey]


class ReplayError(Exception):
    """Replaying one recorded step raised: carries the step, the cause is chained."""

    def __init__(self, source: SourceRef) -> None:
        super().__init__(f"replaying {source.render()}")
        self.source = source


@dataclass
class StepResult:
    episode: str
    step: int
    changing: bool
    transition_match: bool
    observation_match: float
    change_f1: float | None
    mock_screen: str
    recorded_screen: str
    covered: bool = True  # the app knows the step's screen, back stack and recorded next screen
    reference_f1: float | None = None  # the stateless reference mock's change F1 (changing steps)
    reference_observation: float = 0.0  # and its observation match
    known_trigger: bool = True  # training recorded the step's screen, action and widget
    # the model outvoted its recorded outcome: the step's trigger went elsewhere more often, and
    # no state condition tells it apart (`StateModel.outvoted`)
    outvoted: bool = False


@dataclass
class Replay:
    steps: list[StepResult] = field(default_factory=list)
    # each replayed episode's tracked state where it ended, by episode id (what a later episode
    # that follows it starts from)
    ends: dict[str, Tracked] = field(default_factory=dict)
    tracked: list[list[Tracked]] = field(default_factory=list)  # per episode, before each step
    outvoted_known: bool = False  # whether the steps' `outvoted` flags were given

    def summary(self, covered_only: bool = False, known_only: bool = False) -> Fidelity | None:
        """The figures over all steps, the covered ones, or the covered ones with a known
        trigger."""
        steps = [s for s in self.steps if (s.covered or not covered_only)
                 and (s.covered and s.known_trigger or not known_only)]
        if not steps:
            return None
        changing = [s for s in steps if s.changing]
        return Fidelity(
            steps=len(steps),
            changing_steps=len(changing),
            transition_match=_mean(s.transition_match for s in steps),
            transition_match_changing=_mean(s.transition_match for s in changing),
            observation_match=_mean(s.observation_match for s in steps),
            change_f1=_mean(s.change_f1 or 0.0 for s in changing),
            reference_change_f1=_mean(s.reference_f1 or 0.0 for s in changing),
            outvoted=(sum(s.outvoted and not s.transition_match for s in changing)
                      if self.outvoted_known else None),
        )

    def coverage(self) -> float | None:
        """The share of changing steps whose recorded next screen the app knows."""
        return _mean(s.covered for s in self.steps if s.changing)


def _mean(values: Any) -> float | None:
    vals = [float(v) for v in values]
    return round(sum(vals) / len(vals), 4) if vals else None


def jaccard(a: Keys, b: Keys) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def change_f1(current: Keys, mock: Keys, recorded: Keys) -> float:
    mock_change = {("+", k) for k in mock - current} | {("-", k) for k in current - mock}
    true_change = {("+", k) for k in recorded - current} | {("-", k) for k in current - recorded}
    if not mock_change and not true_change:
        return 1.0
    hit = len(mock_change & true_change)
    return 2 * hit / (len(mock_change) + len(true_change))


def readings_for(abstraction: Abstraction, traces: TraceSet) -> Abstraction:
    """The abstraction of other episodes (held-out ones) through the built app's known screens."""
    memo: dict[int, ScreenReading] = {}
    reader = Reader(abstraction)

    def one(e: int, step: Step) -> ScreenReading:
        key = id(step.observation)
        if key not in memo:
            memo[key] = reader.read(step.observation, e, step.index)
        return memo[key].model_copy(update={"episode": e, "step": step.index})

    readings = tuple(
        tuple(one(e, s) for s in ep.steps) for e, ep in enumerate(traces.episodes)
    )
    return abstraction.model_copy(update={"readings": readings, "follows": traces.follows()})


def teacher_forced(spec: AppSpec, schema: Schema, abstraction: Abstraction, traces: TraceSet,
                   built_on: bool = False, shown: dict[str, Keys] | None = None,
                   after: dict[str, Tracked] | None = None,
                   outvoted: frozenset[tuple[int, int]] | None = None) -> Replay:
    """Replay every recorded step of `traces` from its recorded screen and state
    (`built_on`: `traces` are the episodes `abstraction` was built from, already read; `shown`:
    the content the reference mock knows per screen before the first step, by default each
    screen's first recorded content in `traces`; `after`: where episodes outside `traces` that
    some of its episodes follow ended, by id, as `Replay.ends` gives them; `outvoted`: the steps,
    as (episode, step) of `traces`, whose recorded outcome the model outvoted, where known)."""
    view = abstraction if built_on else readings_for(abstraction, traces)
    steps = graph(traces, view).steps
    outside = [(after or {}).get(ep.follows) if ep.follows is not None else None
               for ep in traces.episodes]
    tracked = track(schema, view, _graph_of(view, steps), outside)
    known = {v.name for v in spec.state}
    screens = {s.id for s in spec.screens}
    triggers = {(t.screen, t.action, t.widget) for t in spec.transitions if t.support > 0}
    last = dict(shown) if shown is not None else recorded_contents(view, traces)
    sim = Simulator(spec)
    replay = Replay(ends={ep.id: tracked[e][-1] for e, ep in enumerate(traces.episodes)},
                    tracked=tracked, outvoted_known=outvoted is not None)
    for step in steps:
        ep = traces.episodes[step.episode]
        current = ep.steps[step.step].observation.root
        recorded = ep.steps[step.step + 1].observation.root
        before = tracked[step.episode][step.step]
        try:
            result = _one_step(sim, ep, step, current, recorded, before, known)
        except Exception as exc:
            raise ReplayError(ep.steps[step.step].source) from exc
        if step.screen:
            last[step.screen] = content_keys(current)
        result.covered = all(s in screens for s in (step.screen, step.next_screen, *before.stack))
        result.known_trigger = (step.screen, step.action, step.widget) in triggers
        result.outvoted = (step.episode, step.step) in (outvoted or ())
        reference = last.get(step.next_screen, content_keys(current))
        result.reference_observation = jaccard(reference, content_keys(recorded))
        if result.changing:
            result.reference_f1 = change_f1(content_keys(current), reference,
                                            content_keys(recorded))
        replay.steps.append(result)
    return replay


def recorded_contents(view: Abstraction, traces: TraceSet, last: bool = False
                      ) -> dict[str, Keys]:
    """Each screen's first (or `last`) recorded content in `traces`, read through `view`: what the
    reference mock knows before (or after) them."""
    out: dict[str, Keys] = {}
    for e, ep in enumerate(traces.episodes):
        for s in ep.steps:
            screen = view.readings[e][s.index].screen
            if screen and (last or screen not in out):
                out[screen] = content_keys(s.observation.root)
    return out


def _graph_of(view: Abstraction, steps: tuple[ObservedStep, ...]) -> Any:
    from phoneworld.ir.graph import TransitionGraph

    start = view.readings[0][0].screen if view.readings else ""
    return TransitionGraph(start_screen=start, steps=steps, edges=(), reachable=())


def place(sim: Simulator, step: ObservedStep, before: Tracked, known: set[str]) -> bool:
    """Put `sim` where recorded `step` started: its screen, the tracked state (`known` variables)
    and back stack, and for typing the focused field. False, leaving `sim` as it was, where the app
    cannot be put there: a screen it does not know, as the current one or on the back stack."""
    screens = sim.app.screens
    # the tracked stack ends with the current screen; the simulator's back stack is below it
    under = below(before.stack, step.screen)
    if not step.screen or step.screen not in screens or any(s not in screens for s in under):
        return False
    sim.set_position(step.screen, {k: v for k, v in before.state.items() if k in known},
                     stack=list(under), focus=step.widget if step.action == "type" else None,
                     offsets={key: at for key, (at, _) in before.windows.items()})
    return True


def _one_step(sim: Simulator, ep: Episode, step: ObservedStep, current: ViewNode,
              recorded: ViewNode, before: Tracked, known: set[str]) -> StepResult:
    """One step from its recorded position; a step the mock cannot be put at is a miss."""
    cur_keys, rec_keys = content_keys(current), content_keys(recorded)
    changing = cur_keys != rec_keys
    action = ep.steps[step.step].action
    if action is None or not place(sim, step, before, known):
        return StepResult(ep.id, step.step, changing, False, 0.0, 0.0 if changing else None,
                          "", step.next_screen)
    sim.step(on_widget(sim, action, step, absolute_item(step, before.windows)))
    mock_keys = content_keys(sim.view())
    return StepResult(
        episode=ep.id, step=step.step, changing=changing,
        transition_match=bool(step.next_screen) and sim.screen == step.next_screen,
        observation_match=jaccard(mock_keys, rec_keys),
        change_f1=change_f1(cur_keys, mock_keys, rec_keys) if changing else None,
        mock_screen=sim.screen, recorded_screen=step.next_screen,
    )


def on_widget(sim: Simulator, action: Any, step: ObservedStep, item: int | None) -> Any:
    """The recorded tap, at the mock's place of the widget it hit where the mock lays that widget
    out elsewhere (a popup anchored to the row that opened it, a list scrolled otherwise): the
    step is scored on what the widget does, not on where the mock draws it. `item`: the record
    whose row it hit (`absolute_item`)."""
    if action.type not in POINT_ACTIONS or step.widget is None:
        return action
    node = next((n for n in sim.frame().nodes
                 if n.c.wid == step.widget and (item is None or n.item == item)), None)
    if node is None or node.contains(action.x, action.y):
        return action
    x, y = node.center
    return action.model_copy(update={"x": x, "y": y})


def split_heldout(traces: TraceSet, fraction: float) -> tuple[TraceSet, TraceSet]:
    """Keep the last `fraction` of each app's recorded actions out of the build.

    An episode that straddles the boundary is cut there: its head stays in the build and its tail,
    starting at the boundary screen, is held out and follows the head.
    """
    if fraction <= 0:
        return traces, TraceSet(episodes=())
    train, held = [], []
    tails: dict[str, str] = {}  # a cut episode's id -> its held-out tail's, for `follows`
    for app in traces.apps():
        episodes = [ep for ep in traces.episodes if ep.app == app]
        total = sum(len(ep.steps) - 1 for ep in episodes)
        keep = total - math.floor(total * fraction)
        for ep in episodes:
            actions = len(ep.steps) - 1
            if keep >= actions:
                train.append(ep)
            elif keep <= 0:
                held.append(ep if ep.follows not in tails else
                            ep.model_copy(update={"follows": tails[ep.follows]}))
            else:
                head = ep.steps[: keep + 1]
                head = head[:-1] + (head[-1].model_copy(update={"action": None}),)
                tail = tuple(s.model_copy(update={"index": n}) for n, s in enumerate(ep.steps[keep:]))
                train.append(ep.model_copy(update={"steps": head}))
                held.append(ep.model_copy(update={"id": f"{ep.id}#heldout", "steps": tail,
                                                  "follows": ep.id}))
                tails[ep.id] = f"{ep.id}#heldout"
            keep -= actions
    return TraceSet(episodes=tuple(train)), TraceSet(episodes=tuple(held))


@dataclass
class FreeRun:
    episode: str
    recorded_screens: list[str]
    mock_screens: list[str]
    final_content_match: float  # Jaccard of the last screen's content
    content_match: float  # the mean Jaccard of every step's screen content

    @property
    def screens_match(self) -> bool:
        return self.recorded_screens == self.mock_screens


def free_run(spec: AppSpec, schema: Schema, abstraction: Abstraction, traces: TraceSet,
             built_on: bool = False, tracked: list[list[Tracked]] | None = None
             ) -> list[FreeRun]:
    """Replay each episode from its first screen, state and back stack (the recording's first
    episode from the reset app), applying its actions uncorrected (`built_on`: `traces` are the
    episodes `abstraction` was built from, already read; `tracked`: their tracked states, as
    their teacher-forced `Replay.tracked` has them)."""
    view = abstraction if built_on else readings_for(abstraction, traces)
    if tracked is None:
        tracked = track(schema, view, _graph_of(view, graph(traces, view).steps))
    known = {v.name for v in spec.state}
    spec_screens = {s.id for s in spec.screens}
    sim = Simulator(spec)
    out = []
    for e, ep in enumerate(traces.episodes):
        first = view.readings[e][0].screen
        if e == 0 and ep.follows is None and first == spec.start_screen:
            sim.reset()
        else:  # where the episode it follows ended: the tracked state and back stack
            state = {k: v for k, v in tracked[e][0].state.items() if k in known}
            under = [s for s in below(tracked[e][0].stack, first) if s in spec_screens]
            sim.set_position(first if first in spec_screens else spec.start_screen, state,
                             stack=under)
        mock, shown = [], []
        for i, s in enumerate(ep.steps):
            if i and ep.steps[i - 1].action is not None:
                try:
                    sim.step(ep.steps[i - 1].action)
                except Exception as exc:
                    raise ReplayError(ep.steps[i - 1].source) from exc
            mock.append(sim.screen)
            shown.append(jaccard(content_keys(sim.view()), content_keys(s.observation.root)))
        recorded = [r.screen for r in view.readings[e]]
        out.append(FreeRun(ep.id, recorded, mock, round(shown[-1], 4),
                           round(sum(shown) / len(shown), 4)))
    return out


def free_running(runs: list[FreeRun]) -> FreeRunning:
    """The figures of `free_run`'s episodes, content averaged over all their steps."""
    steps = sum(len(r.recorded_screens) for r in runs)
    content = sum(r.content_match * len(r.recorded_screens) for r in runs)
    return FreeRunning(episodes=len(runs), reproduced=sum(r.screens_match for r in runs),
                       steps=steps, content_match=round(content / steps, 4) if steps else None)
