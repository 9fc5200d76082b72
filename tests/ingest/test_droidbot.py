"""DroidBot import: the event chain, event mapping, and the real Habitica run's facts."""

from __future__ import annotations

import collections
import shutil
import json
from pathlib import Path
from typing import Any

import pytest

from phoneworld.ingest.droidbot_events import intent_action
from phoneworld.ingest.native_actions import points
from phoneworld.ir.trace import ViewNode

from .support import Run, real_folder, run_ingest

APP = "com.example.app"
LAUNCHER = "com.android.launcher3"


def view(i: int, parent: int, children: list[int], bounds: list[list[int]],
         **kw: Any) -> dict[str, Any]:
    base = {"temp_id": i, "parent": parent, "children": children, "bounds": bounds,
            "class": "android.widget.FrameLayout", "visible": True, "focused": False,
            "package": APP, "text": None, "resource_id": None, "content_description": None,
            "clickable": False, "enabled": True, "view_str": f"view{i}"}
    return {**base, **kw}


class Bot:
    """Writes a small DroidBot output folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        (folder / "states").mkdir(parents=True)
        (folder / "events").mkdir()
        self.clock = 0

    def state(self, name: str, package: str = APP, field_focused: bool = False,
              field_text: str | None = None, password: bool = False) -> str:
        tag = f"2020-01-01_{len(list((self.folder / 'states').iterdir())):06d}"
        views = [view(0, -1, [1, 2], [[0, 0], [1080, 1920]], package=package),
                 view(1, 0, [], [[40, 250], [1040, 400]], package=package, editable=True,
                      text=field_text, is_password=password,
                      **{"class": "android.widget.EditText", "focused": field_focused}),
                 view(2, 0, [], [[1438, 493], [1080, 532]], package=package, visible=False)]
        data = {"tag": tag, "state_str": name, "foreground_activity": f"{package}/.Main",
                "views": views}
        (self.folder / "states" / f"state_{tag}.json").write_text(json.dumps(data))
        return name

    def event(self, event: dict[str, Any], start: str, stop: str, raw: str | None = None) -> None:
        self.clock += 1
        path = self.folder / "events" / f"event_2020-01-01_{self.clock:06d}.json"
        body = {"tag": str(self.clock), "event": event, "start_state": start, "stop_state": stop}
        path.write_text(raw if raw is not None else json.dumps(body))


def touch(x: int | None = None, y: int | None = None, bounds: Any = None) -> dict[str, Any]:
    target = view(1, 0, [], bounds or [[40, 250], [1040, 400]])
    return {"event_type": "touch", "x": x, "y": y, "view": target}


def test_chain_of_one_app(tmp_path: Path) -> None:
    bot = Bot(tmp_path / "run")
    a, b = bot.state("A"), bot.state("B")
    bot.event(touch(), a, b)
    bot.event({"event_type": "key", "name": "BACK"}, b, a)
    run = run_ingest(tmp_path / "run")
    (episode,) = run.traces.episodes
    assert episode.id == "run#0" and episode.app == APP
    assert [s.action.type if s.action else None for s in episode.steps] == ["click", "back", None]
    first = episode.steps[0].action
    assert first is not None and first.model_dump() == {"type": "click", "x": 540, "y": 325}
    assert episode.steps[0].source.file == "run/events/event_2020-01-01_000001.json"
    assert episode.steps[2].source.file.startswith("run/states/state_")
    assert run.codes("error") == []


def test_invisible_views_are_dropped(tmp_path: Path) -> None:
    bot = Bot(tmp_path / "run")
    a = bot.state("A")
    bot.event(touch(), a, a)
    run = run_ingest(tmp_path / "run")
    root: ViewNode = run.traces.episodes[0].steps[0].observation.root
    assert [n.cls for n in root.walk()] == ["android.widget.FrameLayout", "android.widget.EditText"]
    assert {"PW105", "PW138"} <= set(run.codes())


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        ({"event_type": "long_touch", "view": view(1, 0, [], [[0, 0], [100, 100]])},
         {"type": "long_press", "x": 50, "y": 50}),
        ({"event_type": "touch", "x": 5, "y": 6, "view": None}, {"type": "click", "x": 5, "y": 6}),
        ({"event_type": "scroll", "direction": "DOWN",
          "view": view(1, 0, [], [[0, 200], [1080, 1000]])},
         {"type": "scroll", "direction": "down", "x": 540, "y": 600}),
        ({"event_type": "swipe", "start_x": 10, "start_y": 20, "end_x": 30, "end_y": 40},
         {"type": "drag", "x1": 10, "y1": 20, "x2": 30, "y2": 40}),
        ({"event_type": "key", "name": "HOME"}, {"type": "home"}),
        ({"event_type": "key", "name": "MENU"}, {"type": "menu"}),
        ({"event_type": "key", "name": "ENTER"}, {"type": "enter"}),
        ({"event_type": "intent", "intent": "am start -n com.x/.Main"},
         {"type": "open_app", "package": "com.x"}),
        ({"event_type": "kill_app"}, {"type": "close_app"}),
        ({"event_type": "set_text", "text": "hi", "view": view(1, 0, [], [[40, 250], [1040, 400]],
                                                                focused=True)},
         {"type": "type", "text": "hi"}),
    ],
    ids=["long_touch", "touch-xy", "scroll", "swipe", "home", "menu", "enter", "intent", "kill",
         "set_text-focused"],
)
def test_event_mapping(tmp_path: Path, event: dict[str, Any], expected: dict[str, Any]) -> None:
    bot = Bot(tmp_path / "run")
    a = bot.state("A")
    bot.event(event, a, a)
    run = run_ingest(tmp_path / "run")
    action = run.traces.episodes[0].steps[0].action
    assert action is not None and action.model_dump(exclude_none=True) == expected


def test_set_text_on_unfocused_field_inserts_a_click(tmp_path: Path) -> None:
    bot = Bot(tmp_path / "run")
    a, b = bot.state("A"), bot.state("B")
    field = view(1, 0, [], [[40, 250], [1040, 400]])
    bot.event({"event_type": "set_text", "text": "hi", "view": field}, a, b)
    run = run_ingest(tmp_path / "run")
    steps = run.traces.episodes[0].steps
    assert [s.action.type if s.action else None for s in steps] == ["click", "type", None]
    assert not steps[0].observation.root.children[0].focused
    assert steps[1].observation.root.children[0].focused
    assert run.codes().count("PW137") == 1


@pytest.mark.parametrize("password", [False, True])
def test_text_the_field_shows_in_quotes_is_typed_with_them(tmp_path: Path, password: bool) -> None:
    """blobit and paypenny were recorded where DroidBot's shell command passed its quotes on:
    set_text "HelloWorld" left the field showing "\"HelloWorld\"" (a password field, 12 bullets
    for 10 letters), so the app got the quotes; a field that shows the text as typed keeps it."""
    bot = Bot(tmp_path / "run")
    shows = "\u2022" * 12 if password else '"HelloWorld"'
    a = bot.state("A", field_focused=True, password=password)
    b = bot.state("B", field_focused=True, field_text=shows, password=password)
    c = bot.state("C", field_focused=True, field_text="Hi", password=password)
    field = view(1, 0, [], [[40, 250], [1040, 400]], focused=True, editable=True,
                 is_password=password)
    bot.event({"event_type": "set_text", "text": "HelloWorld", "view": field}, a, b)
    bot.event({"event_type": "set_text", "text": "HelloWorld", "view": field}, b, b)
    bot.event({"event_type": "set_text", "text": "Hi", "view": field}, b, c)
    run = run_ingest(tmp_path / "run")
    typed = [s.action.text for s in run.traces.episodes[0].steps if s.action is not None
             and s.action.type == "type"]
    assert typed == ['"HelloWorld"', '"HelloWorld"', "Hi"]
    assert run.codes().count("PW128") == 1


def test_breaks_missing_states_and_unsupported_events(tmp_path: Path) -> None:
    bot = Bot(tmp_path / "run")
    a, b, c = bot.state("A"), bot.state("B"), bot.state("C")
    bot.event(touch(), "GONE", a)                            # start missing: begin at A
    bot.event(touch(), a, b)
    bot.event(touch(), c, a)                                 # break: B != C
    bot.event({"event_type": "manual"}, a, b)                # unsupported: split, go on at B
    bot.event(touch(), b, c)
    bot.event(touch(), c, "LOST")                            # stop missing: end at C
    bot.event({}, a, b, raw="")                              # empty file
    bot.event({}, a, b, raw="{not json")                     # damaged file
    run = run_ingest(tmp_path / "run")
    shapes = [(ep.id, len(ep.steps)) for ep in run.traces.episodes]
    assert shapes == [("run#0", 2), ("run#1", 2), ("run#2", 2)]
    assert collections.Counter(run.codes()) >= collections.Counter(
        {"PW132": 2, "PW133": 1, "PW136": 1, "PW130": 1, "PW131": 1})
    assert run.codes("error") == ["PW131"]


def test_episode_crossing_apps_is_split(tmp_path: Path) -> None:
    bot = Bot(tmp_path / "run")
    a1, home1, home2, a2 = (bot.state("A1"), bot.state("H1", LAUNCHER), bot.state("H2", LAUNCHER),
                            bot.state("A2"))
    bot.event(touch(), a1, a1)
    bot.event({"event_type": "key", "name": "HOME"}, a1, home1)
    bot.event(touch(), home1, home2)
    bot.event({"event_type": "intent", "intent": f"am start {APP}/.Main"}, home2, a2)
    bot.event(touch(), a2, a2)
    run = run_ingest(tmp_path / "run")
    parts = [(ep.id, ep.app, len(ep.steps)) for ep in run.traces.episodes]
    assert parts == [("run#0.p1", LAUNCHER, 2), ("run#0.p0", APP, 2), ("run#0.p2", APP, 2)]
    launcher = run.traces.episodes[0]
    assert launcher.handoff is not None
    assert (launcher.handoff.previous_app, launcher.handoff.next_app) == (APP, APP)
    assert [s.action.type if s.action else None for s in launcher.steps] == ["click", None]
    assert run.codes().count("PW142") == 2


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("am start com.x/com.x.Main", {"type": "open_app", "package": "com.x"}),
        ("am start -n com.x/.Main -a android.intent.action.MAIN", {"type": "open_app",
                                                                    "package": "com.x"}),
        ("am force-stop com.x", {"type": "close_app"}),
        ("monkey -p com.x -c android.intent.category.LAUNCHER 1", {"type": "open_app",
                                                                    "package": "com.x"}),
        ("am broadcast -a foo", None),
    ],
    ids=["start", "start-n", "force-stop", "monkey", "broadcast"],
)
def test_intent_commands(command: str, expected: dict[str, Any] | None) -> None:
    action = intent_action(command)
    assert (action.model_dump() if action else None) == expected


# ----------------------------------------------------------------------------- real data

def test_habitica_episodes(habitica: Run) -> None:
    assert habitica.codes("error") == []
    shapes = [(ep.id, ep.app, len(ep.steps)) for ep in habitica.traces.episodes]
    assert shapes == [("habitica-droidbot#1.p0", "com.habitrpg.android.habitica", 1),
                      ("habitica-droidbot#1.p2", "com.habitrpg.android.habitica", 998)]
    main = habitica.traces.episodes[1]
    assert main.handoff is not None
    assert (main.handoff.origin_episode, main.handoff.part, main.handoff.previous_app) == (
        "habitica-droidbot#1", 2, "com.teslacoilsw.launcher")
    assert (main.device.width, main.device.height) == (1080, 1920)
    files = {s.source.file for ep in habitica.traces.episodes for s in ep.steps}
    assert all(f.startswith("habitica-droidbot/") for f in files)  # relative, never absolute


def test_habitica_actions(habitica: Run) -> None:
    main = habitica.traces.episodes[1]
    kinds = collections.Counter(s.action.type for s in main.steps if s.action)
    assert kinds == {"click": 989, "long_press": 3, "scroll": 4, "type": 1}
    for step in main.steps:
        if step.action is not None:
            assert all(0 <= x < 1080 and 0 <= y < 1920 for x, y in points(step.action))
    typed = next(i for i, s in enumerate(main.steps) if s.action and s.action.type == "type")
    assert main.steps[typed - 1].action.type == "click"  # type: ignore[union-attr]
    focused = [n for n in main.steps[typed].observation.root.walk() if n.focused]
    assert [n.resource_id for n in focused] == [
        "com.habitrpg.android.habitica:id/habit_adjust_positive_streak"]


def test_habitica_warnings(habitica: Run) -> None:
    counts = collections.Counter(habitica.codes())
    assert counts == {"PW130": 1, "PW132": 1, "PW133": 1, "PW105": 1, "PW138": 1, "PW134": 1,
                      "PW137": 1, "PW135": 1, "PW140": 1, "PW141": 2, "PW142": 2}
    (empty,) = habitica.with_code("PW130")
    assert empty.source.file == "habitica-droidbot/events/event_2020-08-29_220148.json"
    (negative,) = habitica.with_code("PW105")
    assert "3190 more" in negative.message and "156 file(s)" in negative.message
    (scale,) = habitica.with_code("PW135")
    assert "540x960" in scale.message and "1080x1920" in scale.message and "0.5" in scale.message
    (degenerate,) = habitica.with_code("PW134")
    assert "862 more" in degenerate.message
    (missing,) = habitica.with_code("PW132")
    assert "c474a827c5050e6add76cd4608e00064" in missing.message


def test_habitica_trees_hold_only_visible_views(habitica: Run) -> None:
    folder = real_folder("habitica-droidbot")
    step = habitica.traces.episodes[1].steps[0]
    state = json.loads((folder / step.observation.xml_file).read_text())  # type: ignore[operator]
    views = state["views"]

    def shown(i: int) -> int:
        v = views[i]
        return 0 if not v["visible"] else 1 + sum(shown(c) for c in v["children"])

    assert len(step.observation.root.walk()) == shown(0)
    assert all(n.bounds.width >= 0 and n.bounds.height >= 0 for n in step.observation.root.walk())
    assert (folder / step.observation.screenshot).is_file()  # type: ignore[operator]


def test_a_chain_break_is_the_app_moving_by_itself_and_a_gap_is_not(tmp_path: Path) -> None:
    """An event that starts where the previous one did not stop: the app moved on by itself (a
    splash that went on). After a lost state file the app was acted on: no such move."""
    bot = Bot(tmp_path / "run")
    a, b, c = bot.state("A"), bot.state("B"), bot.state("C")
    bot.event(touch(), a, b)
    bot.event(touch(), c, a)          # break: stopped at B, went on at C
    bot.event(touch(), a, "LOST")     # stop missing: the episode ends at A
    bot.event(touch(), b, c)          # a gap: something was done after A
    run = run_ingest(tmp_path / "run")
    moved = [(ep.id, ep.follows, ep.moved_by_itself) for ep in run.traces.episodes]
    assert moved == [("run#0", None, False), ("run#1", "run#0", True),
                     ("run#2", "run#1", False)]


def _as_kea(run: Path, out: Path) -> Path:
    """`run` as Kea writes it: the states in `all_states/`, numbered from 1 in time order, each
    screenshot beside its state under the same number, and tags numbered from 0."""
    shutil.copytree(run / "events", out / "events")
    (out / "all_states").mkdir(parents=True)
    for n, path in enumerate(sorted((run / "states").glob("state_*.json")), start=1):
        data = json.loads(path.read_text())
        shots = list(path.parent.glob(f"screen_{path.stem[6:]}.*"))
        data["tag"] = n - 1
        (out / "all_states" / f"state_{n}.json").write_text(json.dumps(data, indent=2))
        for shot in shots:
            shutil.copyfile(shot, out / "all_states" / f"screen_{n}{shot.suffix}")
    return out


def test_kea_output_reads_as_the_droidbot_run_it_is(tmp_path: Path) -> None:
    """Kea (a DroidBot fork) keeps the same state files in `all_states/`, numbered: the same run
    in either layout gives the same episodes, screens and screenshots, and the same reports."""
    real = real_folder("droidbot-more/album-sample")
    kea = _as_kea(real, tmp_path / "kea" / "album-sample")
    shutil.copytree(real, tmp_path / "bot" / "album-sample")
    runs = [run_ingest(tmp_path / layout) for layout in ("bot", "kea")]
    shapes = []
    for run in runs:
        shapes.append([(ep.id, ep.app, [(s.action.model_dump() if s.action else None,
                                         s.observation.root.model_dump() if s.observation else None,
                                         bool(s.observation and s.observation.screenshot))
                                        for s in ep.steps]) for ep in run.traces.episodes])
    assert shapes[0] == shapes[1] and len(shapes[0]) > 1
    assert runs[0].codes() == runs[1].codes()
    shots = {s.observation.screenshot for ep in runs[1].traces.episodes for s in ep.steps
             if s.observation and s.observation.screenshot}
    assert shots and all(shot.startswith("all_states/screen_") for shot in shots)
    assert (kea / "all_states" / "state_1.json").is_file()


def test_an_event_without_a_type_is_named_by_its_event_str(tmp_path: Path) -> None:
    """Kea, a DroidBot fork, records a rotation with no event_type: the report names it by the
    record's event_str, and the episode is split there as for any event with no equivalent."""
    bot = Bot(tmp_path / "run")
    a, b = bot.state("A"), bot.state("B")
    bot.event(touch(), a, b)
    (tmp_path / "run" / "events" / "event_2020-01-01_000009.json").write_text(json.dumps(
        {"tag": "9", "event": {"event_type": None, "log_lines": None}, "start_state": b,
         "stop_state": a, "event_str": "RotateDeviceToLandscapeEvent()"}))
    run = run_ingest(tmp_path / "run")
    (note,) = run.with_code("PW136")
    assert note.message == ("event RotateDeviceToLandscapeEvent() has no equivalent action; the "
                            "episode is split here")
