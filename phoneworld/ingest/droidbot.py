"""DroidBot output folders (ingest pass): `states/` + `events/` → episodes, split per app.
Kea's output (a DroidBot fork) is read the same way, its states in `all_states/`.

Events (`events/event_*.json`, in file-name order) are chained into episodes: each event is the
action taken on its `start_state`, leading to its `stop_state`. Decisions, each reported:
- A new episode starts where an event's start_state is not the previous event's stop_state
  (PW133: the app moved on by itself after DroidBot read it, `Episode.moved_by_itself`), where a
  state file is missing (PW132: the episode ends at the last known state, or
  starts at the event's stop state), and after an event with no equivalent action (PW136).
- A state with an empty `views` list (DroidBot's launcher or transition screens) costs only
  itself: it is handled as a missing state file, and one PW139 per such state names its file and
  the events dropped with it. Only a folder with no usable state at all is an error (PW131).
- An empty event file is skipped (PW130); a damaged one is an error (PW131).
- touch → click, long_touch → long_press, at the target view's centre computed from its raw
  bounds as DroidBot does (x, y are usually null), clipped to the screen; degenerate target bounds
  are reported once per folder with a count (PW134).
- scroll → scroll with the direction lower-cased and x, y at the view's centre. DroidBot's "UP"
  drags the finger downward, which brings the content above into view: the same meaning as our
  "up" (the direction the viewport moves), so the name is kept as is.
- key BACK/HOME/MENU/ENTER → back/home/menu/enter; intent `am start [-n] pkg/act` →
  open_app(pkg), `am force-stop pkg` and kill_app → close_app; swipe → drag.
- set_text → type(text), or type of the text in double quotes where the field shows it so (some
  DroidBot setups pass their shell command's quotes on: PW128, once per folder). DroidBot taps
  the field before setting its text, and our `type` acts on the focused field, so when the
  target was not focused a click on it is inserted first; the step between them shows the start
  screen with that field focused (PW137, once per folder).
- Screenshots `states/screen_<tag>.jpg` (or `.png`, beside the state file) are kept as paths;
  when their size differs from the view bounds' frame (the shared Habitica set was halved), PW135
  says by which factor to rescale.
Episodes are then split per app package (`split.py`); each is linked to the episode of its app
that it continues (`Episode.follows`), unless a dropped kill_app or force-stop restarted the app.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from phoneworld.ingest import codes
from phoneworld.ingest.context import IngestContext
from phoneworld.ingest.draft import DraftEpisode, DraftStep
from phoneworld.ingest.droidbot_events import (
    EventTallies, Mapped, map_event, quoted_text, restarts_app,
)
from phoneworld.ingest.droidbot_views import (
    DroidState,
    StateFiles,
    ViewStats,
    build_tree,
    device_size,
    find_view,
    load_states,
    states_folder,
)
from phoneworld.ingest.images import image_size
from phoneworld.ingest.split import split_run
from phoneworld.ir.base import SourceRef
from phoneworld.ir.trace import Device, Episode, Observation, TypeText

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DroidEvent:
    """One event file: the event dict and the states it goes from and to."""

    path: Path
    event: dict[str, Any]
    start: str
    stop: str


def read_droidbot(folder: Path, ctx: IngestContext) -> list[Episode]:
    """Every episode of one DroidBot output folder, split per app."""
    files = load_states(folder, ctx)
    if not files.states:
        empty = sum(len(paths) for paths in files.empty.values())
        ctx.report(codes.UNREADABLE_RECORD, "no usable state file in "
                   f"{states_folder(folder).name}/" + (
            f" ({empty} have an empty \"views\" list)" if empty else ""), ctx.src(folder))
        return []
    chain = _Chain(folder, ctx, files, device_size(files.states))
    for event in load_events(folder, ctx):
        chain.feed(event)
    chain.close()
    chain.flush()
    return split_run(chain.drafts, ctx)


def load_events(folder: Path, ctx: IngestContext) -> list[DroidEvent]:
    events: list[DroidEvent] = []
    for path in sorted((folder / "events").glob("event_*.json")):
        source = ctx.src(path)
        text = ctx.read_text(path, source)
        if text is None:
            continue
        data = None
        if text.strip():
            ok, data = ctx.load_json(text, source, codes.UNREADABLE_RECORD)
            if not ok:
                continue
        if data is None:
            ctx.report(codes.EMPTY_FILE, f"{path.name} is empty; skipped", source)
            continue
        event = data.get("event") if isinstance(data, dict) else None
        start, stop = (data.get("start_state"), data.get("stop_state")) if event else (None, None)
        if not isinstance(event, dict) or not isinstance(start, str) or not isinstance(stop, str):
            ctx.report(codes.UNREADABLE_RECORD, "an event needs \"event\", \"start_state\" and "
                       "\"stop_state\"", source)
            continue
        if not event.get("event_type") and isinstance(data.get("event_str"), str):
            # an event DroidBot's forks add (Kea's RotateDeviceToLandscapeEvent) has no type;
            # its event_str names it in the report
            event = {**event, "event_str": data["event_str"]}
        events.append(DroidEvent(path, event, start, stop))
    return events


class _Chain:
    """Builds drafts from the event chain of one folder."""

    def __init__(self, folder: Path, ctx: IngestContext, files: StateFiles,
                 device: Device) -> None:
        self.folder, self.ctx, self.states, self.device = folder, ctx, files.states, device
        self.empty = files.empty
        self.dropped: dict[str, list[str]] = {s: [] for s in files.empty}  # events, per state
        self.base_id = ctx.episode_id(folder)
        scope = ctx.rel(folder)
        self.stats = ViewStats.create(scope)
        self.tallies = EventTallies.create(scope)
        self.drafts: list[DraftEpisode] = []
        self.current: DraftEpisode | None = None
        self.at_state: str | None = None
        self.restarted = False  # the app was killed since the last draft's last screen
        self.observations: dict[str, Observation] = {}
        self.shot_sizes: dict[tuple[int, int], list[str]] = {}

    def feed(self, ev: DroidEvent) -> None:
        src = self.ctx.src(ev.path)
        if ev.start not in self.states or ev.stop not in self.states:
            self.restarted = self.restarted or restarts_app(ev.event)
        if ev.start not in self.states:
            if not self._drop_at_empty(ev):
                self.ctx.report(codes.STATE_MISSING, f"start state {ev.start} has no state file; "
                                "the event is dropped" + (" and a new episode starts at its stop "
                                "state" if ev.stop in self.states else ""), src)
            self.close()
            if ev.stop in self.states:
                self.begin(ev.stop)
            return
        if self.current is None or self.at_state != ev.start:
            broken = self.at_state if self.current is not None else None
            self.close()
            self.begin(ev.start)
            if broken is not None:
                self.current.moved_by_itself = self.current.continues
                self.ctx.report(codes.CHAIN_BREAK, f"the event starts at state {ev.start} but the "
                                f"previous one stopped at {broken}; new episode", self._where(ev))
        mapped = map_event(ev.event, self.device, self.tallies, self._where(ev), self.ctx)
        if mapped is None:
            self.restarted = self.restarted or restarts_app(ev.event)
            self.close()
            if ev.stop in self.states:
                self.begin(ev.stop)
            return
        if ev.stop not in self.states:
            if not self._drop_at_empty(ev):
                self.ctx.report(codes.STATE_MISSING, f"stop state {ev.stop} has no state file; "
                                "the episode ends before this event", self._where(ev))
            self.close()
            return
        self.append(ev, mapped)

    def _drop_at_empty(self, ev: DroidEvent) -> bool:
        """Record a dropped event under the empty state(s) it touches; False when it touches none
        (its unknown state is then a missing file)."""
        touched = [s for s in dict.fromkeys((ev.start, ev.stop)) if s in self.empty]
        for s in touched:
            self.dropped[s].append(ev.path.name)
        return bool(touched)

    def _where(self, ev: DroidEvent) -> SourceRef:
        step = len(self.current.steps) - 1 if self.current else None
        return self.ctx.src(ev.path, episode=self.current.id if self.current else None, step=step)

    def begin(self, state_str: str) -> None:
        self.current = DraftEpisode(id=f"{self.base_id}#{len(self.drafts)}", device=self.device,
                                    file=self.ctx.rel(self.folder),
                                    continues=bool(self.drafts) and not self.restarted)
        self.restarted = False
        self.current.steps.append(self._step(state_str))
        self.at_state = state_str

    def append(self, ev: DroidEvent, mapped: Mapped) -> None:
        assert self.current is not None
        file = self.ctx.rel(ev.path)
        typed = quoted_text(ev.event, self.states[ev.stop].views)
        if typed is not None and isinstance(mapped.actions[-1], TypeText):
            self.tallies.quoted.add(f"set_text {ev.event['text']!r} shows as {typed!r}",
                                    self._where(ev))
            mapped = Mapped([*mapped.actions[:-1], TypeText(text=typed)], mapped.target)
        last = self.current.steps[-1]
        last.action, last.file = mapped.actions[0], file
        if len(mapped.actions) == 2:  # click inserted before a set_text on an unfocused field
            state = self.states[ev.start]
            tree = build_tree(state, self.ctx, None, focus=find_view(state, mapped.target))
            obs = self._observation(ev.start).model_copy(update={"root": tree})
            self.current.steps.append(DraftStep(obs, mapped.actions[1], file))
        self.current.steps.append(self._step(ev.stop))
        self.at_state = ev.stop
        self.restarted = restarts_app(ev.event)  # what the draft's end shows is a killed app

    def close(self) -> None:
        if self.current is not None:
            self.drafts.append(self.current)
        self.current, self.at_state = None, None

    def _step(self, state_str: str) -> DraftStep:
        path = self.states[state_str].path
        return DraftStep(self._observation(state_str), None, self.ctx.rel(path))

    def _observation(self, state_str: str) -> Observation:
        if state_str not in self.observations:
            state = self.states[state_str]
            self.observations[state_str] = Observation(
                root=state.tree(self.ctx, self.stats), package=state.package,
                activity=state.activity, xml_file=state.path.relative_to(self.folder).as_posix(),
                screenshot=self._screenshot(state))
        return self.observations[state_str]

    def _screenshot(self, state: DroidState) -> str | None:
        """The state file's screenshot beside it: `screen_<what follows "state_">`, else
        `screen_<tag>` (Kea numbers its files from 1 and its tags from 0)."""
        names = dict.fromkeys((state.path.stem[len("state_"):], state.tag))
        for name, suffix in ((n, s) for n in names for s in (".jpg", ".png")):
            path = state.path.parent / f"screen_{name}{suffix}"
            if self.ctx.is_file(path):
                size = image_size(path, self.ctx.root)
                if size is not None:
                    self.shot_sizes.setdefault(size, []).append(self.ctx.rel(path))
                return path.relative_to(self.folder).as_posix()
        return None

    def flush(self) -> None:
        """Report the per-folder tallies and the screenshot scale."""
        self.stats.negative.flush(self.ctx, "collapsed to zero size at (x1, y1)")
        self.stats.invisible.flush(self.ctx, "left out of the view trees with their subtrees")
        self.tallies.flush(self.ctx)
        for state_str, paths in self.empty.items():
            _report_empty(self.ctx, state_str, paths, self.dropped[state_str])
        frame = (self.device.width, self.device.height)
        for size, files in sorted(self.shot_sizes.items()):
            if size != frame:
                _report_scale(self.ctx, size, frame, files)


def _report_empty(ctx: IngestContext, state_str: str, paths: list[Path],
                  events: list[str]) -> None:
    """One PW139 for a state with no views, at its (first) file: what was dropped with it."""
    if events:
        shown = ", ".join(events[:3]) + (f" and {len(events) - 3} more" if len(events) > 3 else "")
        what = (f"it is dropped with the {len(events)} event(s) that start or stop in it "
                f"({shown}); the episode is split there")
    else:
        what = "it is dropped (no event starts or stops in it)"
    also = ", ".join(p.name for p in paths[1:])
    also = f" (so do the other files of this state: {also})" if also else ""
    ctx.report(codes.EMPTY_STATE, f"state {state_str} has an empty \"views\" list{also}; {what}",
               ctx.src(paths[0]))


def _report_scale(ctx: IngestContext, size: tuple[int, int], frame: tuple[int, int],
                  files: list[str]) -> None:
    sx, sy = size[0] / frame[0], size[1] / frame[1]
    scale = f"{sx:g}" if abs(sx - sy) < 0.01 else f"{sx:g} x {sy:g}"
    ctx.report(codes.SCREENSHOT_SCALE, f"{len(files)} screenshot(s) are {size[0]}x{size[1]} while "
               f"view bounds are in the {frame[0]}x{frame[1]} device frame (scale {scale}); the "
               "paths were kept as they are", SourceRef(file=files[0]),
               hint=f"multiply view bounds by {scale} to draw them on these images (or scale the "
               f"images by {1 / sx:g})")
