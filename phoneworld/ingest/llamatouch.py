"""LlamaTouch traces (ingest pass): `N.xml` dumps + `eventStructs.txt` → episodes, split per app.

A trace folder holds per step `N.xml` (a real uiautomator dump), `N.png`, `N.activity` ("null"
when unknown), and the ordered actions in `eventStructs.txt`: action i is taken on screen i.
Lines look like `[Click] Screen Resolution (400, 720), Click Position (53, 261)`, `[Swipe] ...`
(two positions), `[Type] text`, `[Back]`, `[Home]`, `[Enter]`; the older Chinese tags (【点击事件】,
【滑动事件】, 【键盘输入】, 【Home键】, 【Back键】) are read too. A swipe becomes a drag.

The device frame (decision): the width is the XML root's; the height is the screenshot's (rescaled
to that width), because the dump's root is the app window, which excludes the navigation bar
(1792 of 1918 rows in trace_7), while the recorder's click frame spans the whole screen. Clicks
are rescaled from their frame to that device frame, with one PW161 warning per episode. Without a
screenshot the root's extent is used. The instruction is instruction.txt without its first line
when that line is a numeric episode id.

`N.activity` holds the window in front as the recorder read it: a component
(`pkg/pkg.HomeActivity`), a window name (`com.android.systemui.ImageWallpaper`), "null", or the
raw `dumpsys window` line it came from (`mObscuringWindow=Window{5fc0ca7 u0 pkg/pkg.Act}`, whose
window id differs per window: kept, it would split one screen into many). The line is read as
the name inside `Window{...}` (`read_activity`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from phoneworld.inputs import MAX_COORD
from phoneworld.ingest import codes
from phoneworld.ingest.context import IngestContext, did_you_mean
from phoneworld.ingest.draft import DraftEpisode, DraftStep, clip
from phoneworld.ingest.images import device_frame, image_size
from phoneworld.ingest.split import split_by_app
from phoneworld.ingest.uixml import Screen, read_uixml
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import (
    Action,
    Back,
    Click,
    Device,
    Done,
    Drag,
    Enter,
    Episode,
    Home,
    LongPress,
    Observation,
    TypeText,
)

EVENTS_FILE = "eventStructs.txt"
# ASCII or full-width brackets, commas and parentheses (the Chinese recorder writes the latter)
_TAG = re.compile(r"^\s*[\[\u3010]\s*(?P<tag>[^\]\u3011]+?)\s*[\]\u3011]\s*(?P<rest>.*)$")
_PAIR = re.compile(
    r"[(\uff08]\s*[wx]?\s*(-?\d+)\s*[,\uff0c]\s*[hy]?\s*(-?\d+)\s*[)\uff09]")
TAGS: dict[str, str] = {
    "click": "click", "tap": "click", "点击事件": "click", "long click": "long_press",
    "long press": "long_press", "longpress": "long_press", "swipe": "drag", "滑动事件": "drag",
    "type": "type", "input": "type", "键盘输入": "type", "back": "back", "back键": "back",
    "home": "home", "home键": "home", "enter": "enter", "complete": "done", "done": "done",
}
MAX_STEPS = 100_000
# `mObscuringWindow=Window{5fc0ca7 u0 NAME}` or `mCurrentFocus=Window{...}`: NAME is the window
_WINDOW = re.compile(r"Window\{\s*[0-9a-fA-F]+\s+u\d+\s+(?P<name>[^}]*?)\s*\}")
_STEP = re.compile(r"[0-9]{1,9}")
POINTS_NEEDED = {"click": 1, "long_press": 1, "drag": 2}


@dataclass(frozen=True)
class RawAction:
    """One line of eventStructs.txt before rescaling."""

    kind: str
    line: int
    frame: tuple[int, int] | None = None
    points: tuple[tuple[int, int], ...] = ()
    text: str = ""


def read_llamatouch(folder: Path, ctx: IngestContext) -> list[Episode]:
    """The episode of one trace folder, split per app; [] when it has errors."""
    episode_id = ctx.episode_id(folder)
    errors_before = ctx.diagnostics.counts()["error"]
    screens = _screens(folder, ctx, episode_id)
    actions = parse_events(folder / EVENTS_FILE, ctx, episode_id)
    if ctx.diagnostics.counts()["error"] > errors_before or not screens:
        return []
    actions, screens = _fit(actions, screens, folder, ctx, episode_id)
    root = Bounds(x1=0, y1=0, x2=max(s.root.bounds.x2 for s in screens),
                  y2=max(s.root.bounds.y2 for s in screens))
    device = device_frame(root, image_size(folder / "0.png", ctx.root))
    draft = DraftEpisode(id=episode_id, device=device, file=ctx.rel(folder),
                         instruction=_instruction(folder / "instruction.txt", ctx))
    events = ctx.rel(folder / EVENTS_FILE)
    for i, screen in enumerate(screens):
        action = to_action(actions[i], device) if i < len(actions) else None
        acted = action is not None
        draft.steps.append(DraftStep(_observation(folder, i, screen, ctx), action,
                                     events if acted else ctx.rel(folder / f"{i}.xml"),
                                     actions[i].line if acted else None))
    frames = sorted({a.frame for a in actions if a.frame and a.frame != (device.width,
                                                                           device.height)})
    if frames:
        ctx.report(codes.FRAME_RESCALED, f"action positions recorded in a {frames[0][0]}x"
                   f"{frames[0][1]} frame were rescaled to the {device.width}x{device.height} "
                   "device frame (width from the XML root, height from the screenshot)",
                   ctx.src(folder / EVENTS_FILE, episode=episode_id))
    if ctx.diagnostics.counts()["error"] > errors_before:  # an unreadable side file
        return []
    return split_by_app(draft, ctx)


def _screens(folder: Path, ctx: IngestContext, episode_id: str) -> list[Screen]:
    # ASCII digits only: "²".isdigit() is True, but int("²") fails
    numbered = {int(p.stem): p for p in folder.glob("*.xml") if _STEP.fullmatch(p.stem)}
    count = max(numbered) + 1 if numbered else 0
    if count > MAX_STEPS:  # the gap list alone would take gigabytes
        ctx.report(codes.SCREEN_GAP, f"{numbered[count - 1].name} numbers a step beyond the "
                   f"{MAX_STEPS} phoneworld reads", ctx.src(numbered[count - 1],
                                                            episode=episode_id),
                   f"screens are 0.xml, 1.xml, ... without gaps (at most {MAX_STEPS})")
        return []
    missing = [i for i in range(count) if i not in numbered]
    if not numbered or missing:
        what = f"missing {', '.join(f'{i}.xml' for i in missing[:5])}" if missing else \
            "no numbered N.xml file"
        ctx.report(codes.SCREEN_GAP, what, ctx.src(folder, episode=episode_id))
        return []
    parsed = [read_uixml(numbered[i], ctx, episode_id, i) for i in range(count)]
    return [s for s in parsed if s is not None] if all(parsed) else []


def parse_events(path: Path, ctx: IngestContext, episode_id: str) -> list[RawAction]:
    """The actions of eventStructs.txt; bad lines are errors (PW160)."""
    out: list[RawAction] = []
    text = ctx.read_text(path, ctx.src(path, episode=episode_id))
    if text is None:
        return out
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        ctx.report(codes.BAD_EVENT_LINE, f"{path.name} holds no action", ctx.src(path,
                   episode=episode_id), "record at least one action, one line per action; a "
                   "trace of one screen is a plain uiautomator dump")
        return out
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        action = parse_line(text, number)
        if isinstance(action, str):
            ctx.report(codes.BAD_EVENT_LINE, action,
                       ctx.src(path, number, episode_id, step=len(out)))
        else:
            out.append(action)
    return out


def parse_line(text: str, line: int) -> RawAction | str:
    """One line as a RawAction, or a message saying why it does not parse."""
    match = _TAG.match(text)
    if match is None:
        return f"{text.strip()[:60]!r} does not start with a [Tag]"
    tag, rest = match.group("tag"), match.group("rest")
    kind = TAGS.get(tag.lower())
    if kind is None:
        return f"unknown action tag [{tag}]{did_you_mean(tag.lower(), list(TAGS))}"
    if kind == "type":
        return RawAction(kind, line, text=rest.strip())
    found = _PAIR.findall(rest)
    if any(len(v.lstrip("-")) > 7 for pair in found for v in pair):
        return f"[{tag}] has a coordinate beyond {MAX_COORD} pixels"
    pairs = [(int(x), int(y)) for x, y in found]
    frame = pairs.pop(0) if re.search(r"resolution|屏幕大小", rest, re.I) and pairs else None
    needed = POINTS_NEEDED.get(kind, 0)
    if len(pairs) < needed:
        return f"[{tag}] needs {needed} position(s), found {len(pairs)}"
    if frame is not None and (frame[0] <= 0 or frame[1] <= 0):
        return f"[{tag}] has an empty screen resolution {frame}"
    return RawAction(kind, line, frame, tuple(pairs[:needed]))


def to_action(raw: RawAction, device: Device) -> Action:
    """Device-pixel action of a raw one; positions scale from the raw frame to the device's."""
    fw, fh = raw.frame or (device.width, device.height)
    pts = [clip(round(x * device.width / fw), round(y * device.height / fh), device)
           for x, y in raw.points]
    simple: dict[str, Action] = {"back": Back(), "home": Home(), "enter": Enter(), "done": Done()}
    if raw.kind == "click":
        return Click(x=pts[0][0], y=pts[0][1])
    if raw.kind == "long_press":
        return LongPress(x=pts[0][0], y=pts[0][1])
    if raw.kind == "drag":
        return Drag(x1=pts[0][0], y1=pts[0][1], x2=pts[1][0], y2=pts[1][1])
    if raw.kind == "type":
        return TypeText(text=raw.text)
    return simple[raw.kind]


def _fit(actions: list[RawAction], screens: list[Screen], folder: Path, ctx: IngestContext,
         episode_id: str) -> tuple[list[RawAction], list[Screen]]:
    """Make len(actions) == len(screens) - 1, dropping the surplus with a warning (PW162)."""
    if len(actions) == len(screens) - 1:
        return actions, screens
    source = ctx.src(folder / EVENTS_FILE, episode=episode_id)
    if len(actions) >= len(screens):
        ctx.report(codes.COUNT_MISMATCH, f"{len(actions)} actions for {len(screens)} screens: the "
                   f"last {len(actions) - len(screens) + 1} action(s) led to no recorded screen "
                   "and were dropped", source)
        return actions[:len(screens) - 1], screens
    ctx.report(codes.COUNT_MISMATCH, f"{len(actions)} actions for {len(screens)} screens: screens "
               f"after {len(actions)}.xml have no action leading to them and were dropped", source)
    return actions, screens[:len(actions) + 1]


def _observation(folder: Path, i: int, screen: Screen, ctx: IngestContext) -> Observation:
    activity_file = folder / f"{i}.activity"
    activity = None
    if activity_file.exists():
        activity = read_activity(ctx.read_text(activity_file, ctx.src(activity_file, step=i))
                                 or "")
    shot = folder / f"{i}.png"
    return Observation(root=screen.root, package=screen.package, activity=activity,
                       xml_file=f"{i}.xml", screenshot=shot.name if ctx.is_file(shot) else None,
                       rotation=screen.rotation)


def read_activity(text: str) -> str | None:
    """The window an `N.activity` file names (see the module docstring); None for "null", an
    empty file or a `...=null` line."""
    for line in text.splitlines():
        line = line.strip()
        found = _WINDOW.search(line)
        name = found.group("name") if found else line.rsplit("=", 1)[-1].strip()
        if name and name != "null":
            return name
    return None


def _instruction(path: Path, ctx: IngestContext) -> str | None:
    if not path.exists():
        return None
    text = ctx.read_text(path, ctx.src(path))
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    if len(lines) > 1 and lines[0].isdigit():
        lines = lines[1:]
    return " ".join(lines) or None
