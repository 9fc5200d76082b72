"""The report's fidelity section: the build's figures and every replayed step the mock got wrong.

Two kinds of mismatch are listed, each in recorded order: the mock went to another screen than the
recording (`screen`, listed first), or to the right screen with other content (`content`: the
visible nodes differ).
Each row replays its step once more, as teacher-forced replay did (recorded screen, tracked state
and stack, recorded action), to show the mock's next screen beside the recorded one and the content
each has that the other lacks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from phoneworld.abstract.shape import ContentKey, content_keys
from phoneworld.fidelity import Replay, StepResult, place, readings_for
from phoneworld.graph import graph
from phoneworld.ir.graph import ObservedStep
from phoneworld.ir.report import Fidelity, FreeRunning
from phoneworld.ir.trace import TraceSet
from phoneworld.report.images import THUMB_WIDTH, ImageStore, Picture
from phoneworld.report.inputs import ReportInputs, screenshot_path
from phoneworld.runtime.sim import Simulator
from phoneworld.state.track import Tracked

MAX_KEYS = 12  # content differences listed per row
FIGURES = (
    ("steps", "replayed steps"), ("changing_steps", "changing steps"),
    ("transition_match", "transition match"),
    ("transition_match_changing", "transition match, changing steps"),
    ("observation_match", "observation match (Jaccard)"), ("change_f1", "change F1"),
    ("outvoted", "changing steps missed, outvoted (their trigger went elsewhere more often, "
                 "nothing recorded tells them apart)"),
)


@dataclass(frozen=True)
class FigureRow:
    label: str
    values: tuple[str, ...]  # one per replayed set (training, held-out)


@dataclass(frozen=True)
class MismatchRow:
    kind: str  # "screen" or "content"
    episode: str
    step: int
    source: str
    screen: str
    action: str
    recorded_next: str
    mock_next: str
    observation_match: str
    change_f1: str
    before: Picture | None
    recorded: Picture | None
    mock: Picture | None
    missing: tuple[str, ...]  # recorded content the mock lacks
    extra: tuple[str, ...]  # mock content the recording lacks


@dataclass(frozen=True)
class ReplaySet:
    name: str
    steps: int
    rows: tuple[MismatchRow, ...]

    @property
    def screen_rows(self) -> int:
        return sum(r.kind == "screen" for r in self.rows)


@dataclass(frozen=True)
class FidelityView:
    columns: tuple[str, ...]
    figures: tuple[FigureRow, ...]
    sets: tuple[ReplaySet, ...]
    free: FreeRunning | None = None  # free-running replay of the training episodes


@dataclass(frozen=True)
class _Context:
    """Everything one replayed set's rows need: its episodes, steps and tracked states."""

    traces: TraceSet
    steps: dict[tuple[int, int], ObservedStep]
    tracked: list[list[Tracked]]
    index: dict[str, int]  # episode id -> position


def _num(v: float | int | None) -> str:
    return "-" if v is None else (str(v) if isinstance(v, int) else f"{v:.3f}")


def _figures(sets: list[tuple[str, Fidelity | None]]) -> tuple[FigureRow, ...]:
    return tuple(FigureRow(label, tuple(_num(getattr(f, key)) if f else "-" for _, f in sets))
                 for key, label in FIGURES)


def _is_mismatch(r: StepResult) -> str | None:
    if not r.transition_match:
        return "screen"
    if r.observation_match < 1.0 or (r.change_f1 is not None and r.change_f1 < 1.0):
        return "content"
    return None


def _key_text(key: ContentKey) -> str:
    cls, rid, text, desc, checked = key
    what = text or desc or rid.rsplit("/", 1)[-1] or "(no text)"
    return f"{cls.rsplit('.', 1)[-1]}: {what}" + (f" ({checked})" if checked else "")


def _diff(keys: frozenset[Any], other: frozenset[Any]) -> tuple[str, ...]:
    items = sorted(_key_text(k) for k in keys - other)
    if len(items) > MAX_KEYS:
        items = items[: MAX_KEYS - 1] + [f"+{len(items) - MAX_KEYS + 1} more"]
    return tuple(items)


def _action(step: ObservedStep | None, fallback: str) -> str:
    if step is None or step.action is None:
        return fallback
    text = step.action + (f" {step.widget}" if step.widget else "")
    if step.item is not None:
        text += f"[{step.item}]"
    if step.input is not None:
        text += f' "{step.input}"'
    return text


def _context(traces: TraceSet, steps: tuple[ObservedStep, ...], tracked: list[list[Tracked]]
             ) -> _Context:
    return _Context(traces, {(s.episode, s.step): s for s in steps}, tracked,
                    {ep.id: n for n, ep in enumerate(traces.episodes)})


def _row(inputs: ReportInputs, ctx: _Context, sim: Simulator, r: StepResult, kind: str,
         images: ImageStore) -> MismatchRow:
    e = ctx.index[r.episode]
    ep = ctx.traces.episodes[e]
    step = ctx.steps.get((e, r.step))
    action = ep.steps[r.step].action
    recorded_root = ep.steps[r.step + 1].observation.root
    mock_pic: Picture | None = None
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    known = {v.name for v in inputs.spec.state}
    if step is not None and action is not None and place(sim, step, ctx.tracked[e][r.step], known):
        sim.step(action)
        mock_pic = images.mock(sim.frame(), inputs.spec.device, THUMB_WIDTH)
        mock_keys, rec_keys = content_keys(sim.view()), content_keys(recorded_root)
        missing, extra = _diff(rec_keys, mock_keys), _diff(mock_keys, rec_keys)
    return MismatchRow(
        kind, ep.id, r.step, ep.steps[r.step].source.render(), step.screen if step else "",
        _action(step, action.type if action else "-"), r.recorded_screen or "(unknown)",
        r.mock_screen or "(none)", _num(r.observation_match), _num(r.change_f1),
        images.recorded(screenshot_path(inputs.root, ep, r.step), THUMB_WIDTH),
        images.recorded(screenshot_path(inputs.root, ep, r.step + 1), THUMB_WIDTH),
        mock_pic, missing, extra)


def _rows(inputs: ReportInputs, replay: Replay, ctx: Callable[[], _Context], images: ImageStore
          ) -> tuple[MismatchRow, ...]:
    picked = [(r, k) for r in replay.steps for k in (_is_mismatch(r),) if k is not None]
    picked.sort(key=lambda rk: rk[1] != "screen")  # wrong screens first, each in recorded order
    if not picked:
        return ()
    context = ctx()  # built only when a row needs it: holding out means reading episodes again
    sim = Simulator(inputs.spec)
    return tuple(_row(inputs, context, sim, r, k, images) for r, k in picked)


def fidelity_view(inputs: ReportInputs, tracked: list[list[Tracked]], images: ImageStore
                  ) -> FidelityView:
    """The figures and mismatch rows (`tracked`: the training episodes' tracked states)."""
    def train_ctx() -> _Context:
        return _context(inputs.train, inputs.transitions.steps, tracked)

    def held_ctx() -> _Context:
        view = readings_for(inputs.abstraction, inputs.held)
        assert inputs.held_replay is not None
        return _context(inputs.held, graph(inputs.held, view).steps, inputs.held_replay.tracked)

    sets = [ReplaySet("training episodes", len(inputs.train_replay.steps),
                      _rows(inputs, inputs.train_replay, train_ctx, images))]
    columns = ["training"]
    if inputs.held_replay is not None:
        sets.append(ReplaySet("held-out episodes", len(inputs.held_replay.steps),
                              _rows(inputs, inputs.held_replay, held_ctx, images)))
        columns.append("held-out")
    figures = _figures([("training", inputs.report.fidelity.train),
                        ("held-out", inputs.report.fidelity.heldout)][: len(columns)])
    return FidelityView(tuple(columns), figures, tuple(sets), inputs.report.fidelity.free_running)
