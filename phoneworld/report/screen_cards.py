"""The report's screen gallery: one card per abstract screen.

A card shows the mock's rendering of the screen beside a recorded screenshot of the same moment
(the first recorded visit that has one: the mock is put in the state tracked there), the widget
tree with the expression each text reads and the transitions each widget takes, and how many
recorded observations the screen merges.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from phoneworld.ir.app import Lit, ScreenSpec, Transition, Widget
from phoneworld.report.exprs import action_text, effect_text, expr_text, guard_text
from phoneworld.report.images import CARD_WIDTH, ImageStore, Picture
from phoneworld.report.inputs import ReportInputs, screenshot_path
from phoneworld.runtime.sim import Simulator
from phoneworld.state.track import Tracked

_FLAGS = ("clickable", "long_clickable", "editable", "checkable", "scrollable", "password")


@dataclass(frozen=True)
class WidgetRow:
    depth: int
    wid: str
    cls: str
    text: str
    flags: str
    actions: tuple[str, ...]  # "click -> s02_detail" for each transition on the widget
    template: bool  # a list's item template (drawn once per record)


@dataclass(frozen=True)
class TransitionRow:
    id: str
    action: str
    target: str
    nav: str
    guard: str
    effects: tuple[str, ...]
    support: int


@dataclass(frozen=True)
class ScreenCard:
    id: str
    name: str
    activity: str
    observations: int
    sources: tuple[str, ...]
    start: bool
    mock: Picture
    recorded: Picture | None
    shown_at: str  # the recorded step both pictures show ("" when the screen was never visited)
    widgets: tuple[WidgetRow, ...]
    transitions: tuple[TransitionRow, ...]


def transition_row(t: Transition) -> TransitionRow:
    return TransitionRow(t.id, action_text(t), t.target or t.screen, t.nav,
                         guard_text(t.guard) if t.guard is not None else "",
                         tuple(effect_text(e) for e in t.effects), t.support)


def _short(cls: str) -> str:
    return cls.rsplit(".", 1)[-1]


def widget_rows(screen: ScreenSpec, transitions: list[Transition]) -> tuple[WidgetRow, ...]:
    by_wid: dict[str, list[str]] = {}
    for t in transitions:
        if t.widget is not None:
            by_wid.setdefault(t.widget, []).append(f"{t.action} -> {t.target or t.screen}")
    rows: list[WidgetRow] = []
    stack: list[tuple[Widget, int, bool]] = [(screen.root, 0, False)]
    while stack:
        w, depth, template = stack.pop()
        flags = [f for f in _FLAGS if getattr(w, f)] + ([] if w.enabled else ["disabled"])
        if w.list is not None:
            flags.append(f"list of {w.list.collection}")
        if not (isinstance(w.checked, Lit) and w.checked.value is False):
            flags.append(f"checked={expr_text(w.checked)}")
        if w.shown is not None:
            flags.append(f"shown while {expr_text(w.shown)}")
        text = "" if isinstance(w.text, Lit) and w.text.value == "" else expr_text(w.text)
        rows.append(WidgetRow(depth, w.wid, _short(w.cls), text, " ".join(flags),
                              tuple(by_wid.get(w.wid, ())), template))
        children = [(c, depth + 1, template) for c in w.children]
        if w.list is not None:
            children.append((w.list.item, depth + 1, True))
        stack.extend(reversed(children))
    return tuple(rows)


def _visits(inputs: ReportInputs) -> dict[str, tuple[int, int]]:
    """Per screen, the recorded step to show: the first visit with a screenshot, else the first."""
    first: dict[str, tuple[int, int]] = {}
    shot: dict[str, tuple[int, int]] = {}
    for e, readings in enumerate(inputs.abstraction.readings):
        episode = inputs.train.episodes[e]
        for r in readings:
            if not r.screen:
                continue
            first.setdefault(r.screen, (e, r.step))
            if r.screen not in shot and episode.steps[r.step].observation.screenshot:
                shot[r.screen] = (e, r.step)
    return {**first, **shot}


def screen_cards(inputs: ReportInputs, tracked: list[list[Tracked]], images: ImageStore
                 ) -> tuple[ScreenCard, ...]:
    spec = inputs.spec
    sim = Simulator(spec)
    known = {v.name for v in spec.state}
    visits = _visits(inputs)
    cards = []
    for screen in spec.screens:
        visit = visits.get(screen.id)
        state: dict[str, Any] | None = None
        recorded, shown_at = None, ""
        if visit is not None:
            e, i = visit
            episode = inputs.train.episodes[e]
            state = {k: v for k, v in tracked[e][i].state.items() if k in known}
            recorded = images.recorded(screenshot_path(inputs.root, episode, i), CARD_WIDTH)
            shown_at = episode.steps[i].source.render()
        sim.reset(state=state, screen=screen.id)
        outgoing = [t for t in spec.transitions if t.screen == screen.id]
        cards.append(ScreenCard(
            screen.id, screen.name, screen.activity or "", screen.observations,
            tuple(s.render() for s in screen.sources), screen.id == spec.start_screen,
            images.mock(sim.frame(), spec.device, CARD_WIDTH), recorded, shown_at,
            widget_rows(screen, outgoing), tuple(transition_row(t) for t in outgoing)))
    return tuple(cards)
