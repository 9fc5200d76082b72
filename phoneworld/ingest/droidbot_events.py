"""DroidBot events (ingest pass): one `event` dict → the IR action(s) it stands for.

The mapping and its reasons are documented in `droidbot.py`; this module holds the details:
target points, key names, intent commands, and the per-folder tallies of repeated warnings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from phoneworld.ingest import codes
from phoneworld.ingest.context import IngestContext, Tally
from phoneworld.ingest.draft import clip
from phoneworld.ingest.droidbot_views import view_bounds
from phoneworld.ir.base import SourceRef
from phoneworld.ir.trace import (
    Action,
    Back,
    Click,
    CloseApp,
    Device,
    Drag,
    Enter,
    Home,
    LongPress,
    Menu,
    OpenApp,
    Scroll,
    TypeText,
)
from phoneworld.runtime.frame import MASKS

KEYS: dict[str, type[Back] | type[Home] | type[Menu] | type[Enter]] = {
    "BACK": Back, "HOME": Home, "MENU": Menu, "ENTER": Enter,
}
Direction = Literal["up", "down", "left", "right"]
DIRECTIONS: dict[str, Direction] = {"UP": "up", "DOWN": "down", "LEFT": "left", "RIGHT": "right"}


@dataclass
class EventTallies:
    """Warnings that repeat once per event, reported once per folder with a count."""

    degenerate: Tally
    clipped: Tally
    unfocused: Tally
    quoted: Tally

    @classmethod
    def create(cls, scope: str) -> EventTallies:
        return cls(Tally(codes.DEGENERATE_TARGET, scope), Tally(codes.POINT_CLIPPED, scope),
                   Tally(codes.FIELD_NOT_FOCUSED, scope), Tally(codes.TEXT_QUOTED, scope))

    def flush(self, ctx: IngestContext) -> None:
        self.degenerate.flush(ctx, "clicked at the centre of its raw bounds, clipped to the screen")
        self.clipped.flush(ctx, "moved to the nearest on-screen pixel")
        self.unfocused.flush(ctx, "a click on the field was inserted before the type action")
        self.quoted.flush(ctx, "the type action types it with the quotes")


@dataclass(frozen=True)
class Mapped:
    """The action(s) of one event; two when a click was inserted before a set_text, and then
    `target` is the field (the event's view dict) to show focused between them."""

    actions: list[Action]
    target: dict[str, Any] | None = None


def map_event(event: dict[str, Any], device: Device, tallies: EventTallies,
              where: SourceRef, ctx: IngestContext) -> Mapped | None:
    """The actions of `event`, or None when it has no equivalent (reported as PW136)."""
    kind = event.get("event_type")
    action: Action | None = None
    if kind in ("touch", "long_touch"):
        point = target_point(event, device, tallies, where)
        if point is not None:
            action = Click(x=point[0], y=point[1]) if kind == "touch" else \
                LongPress(x=point[0], y=point[1])
    elif kind == "scroll":
        action = _scroll(event, device, tallies, where)
    elif kind == "swipe":
        action = _swipe(event, device)
    elif kind == "key" and str(event.get("name", "")).upper() in KEYS:
        action = KEYS[str(event["name"]).upper()]()
    elif kind == "intent":
        action = intent_action(str(event.get("intent", "")))
    elif kind == "kill_app":
        action = CloseApp()
    elif kind == "set_text":
        mapped = _set_text(event, device, tallies, where)
        if mapped is not None:
            return mapped
    if action is None:
        _unsupported(event, where, ctx)
        return None
    return Mapped([action])


def _unsupported(event: dict[str, Any], where: SourceRef, ctx: IngestContext) -> None:
    if not event.get("event_type") and event.get("event_str"):
        what = f"event {event['event_str']}"
    else:
        detail = {k: v for k, v in event.items() if k not in ("view", "event_type")}
        what = f"event_type {event.get('event_type')!r} {detail}"
    ctx.report(codes.UNSUPPORTED_EVENT, f"{what} has no equivalent action; the episode is split "
               "here", where)


def target_point(event: dict[str, Any], device: Device, tallies: EventTallies,
                 where: SourceRef) -> tuple[int, int] | None:
    """The event's x, y, else the centre of its target view as DroidBot computes it, clipped."""
    x, y = event.get("x"), event.get("y")
    degenerate = False
    if isinstance(x, (int, float)) and isinstance(y, (int, float)):
        px, py = int(x), int(y)
    else:
        bounds = view_bounds(event["view"]) if isinstance(event.get("view"), dict) else None
        if bounds is None:
            return None
        x1, y1, x2, y2 = bounds
        px, py = (x1 + x2) // 2, (y1 + y2) // 2
        degenerate = x2 <= x1 or y2 <= y1
    cx, cy = clip(px, py, device)
    if degenerate:
        view = event["view"]
        tallies.degenerate.add(f"{event.get('event_type')} target {view.get('class')} has bounds "
                               f"{view.get('bounds')}, clicked at ({cx}, {cy})", where)
    elif (cx, cy) != (px, py):
        tallies.clipped.add(f"point ({px}, {py}) is off the screen, moved to ({cx}, {cy})", where)
    return cx, cy


def _scroll(event: dict[str, Any], device: Device, tallies: EventTallies,
            where: SourceRef) -> Action | None:
    direction = DIRECTIONS.get(str(event.get("direction", "")).upper())
    if direction is None:
        return None
    point = target_point(event, device, tallies, where)
    if point is None:
        return Scroll(direction=direction)
    return Scroll(direction=direction, x=point[0], y=point[1])


def _swipe(event: dict[str, Any], device: Device) -> Action | None:
    ends = []
    for side in ("start", "end"):
        x, y = event.get(f"{side}_x"), event.get(f"{side}_y")
        view = event.get(f"{side}_view")
        if isinstance(x, (int, float)) and isinstance(y, (int, float)):
            ends.append(clip(int(x), int(y), device))
        elif isinstance(view, dict) and view_bounds(view) is not None:
            x1, y1, x2, y2 = view_bounds(view)  # type: ignore[misc]
            ends.append(clip((x1 + x2) // 2, (y1 + y2) // 2, device))
        else:
            return None
    (x1, y1), (x2, y2) = ends
    return Drag(x1=x1, y1=y1, x2=x2, y2=y2)


def quoted_text(event: dict[str, Any], after: list[dict[str, Any]]) -> str | None:
    """The text a set_text event typed as the app received it, where that is the event's text
    in double quotes: some DroidBot setups pass the shell command's quotes on, and the field
    then shows `"HelloWorld"` for "HelloWorld" (a password field, two more bullets). `after` is
    the stop state's views; the field is the editable view at the event's view's place. None
    where the field shows anything else."""
    text, view = event.get("text"), event.get("view")
    if not isinstance(text, str) or not isinstance(view, dict):
        return None
    bounds = view_bounds(view)
    shown = [v.get("text") for v in after
             if v.get("editable") and bounds is not None and view_bounds(v) == bounds]
    quoted = f'"{text}"'
    if len(shown) != 1 or not isinstance(shown[0], str):
        return None
    masked = view.get("is_password") and len(shown[0]) == len(quoted) and set(shown[0]) <= MASKS
    return quoted if shown[0] == quoted or masked else None


def _set_text(event: dict[str, Any], device: Device, tallies: EventTallies,
              where: SourceRef) -> Mapped | None:
    text = event.get("text")
    if not isinstance(text, str):
        return None
    view = event.get("view")
    if not isinstance(view, dict) or view.get("focused"):
        return Mapped([TypeText(text=text)])
    point = target_point(event, device, tallies, where)
    if point is None:
        return Mapped([TypeText(text=text)])
    tallies.unfocused.add(f"set_text {text!r} targets {view.get('class')} "
                          f"{view.get('resource_id') or ''} which was not focused", where)
    return Mapped([Click(x=point[0], y=point[1]), TypeText(text=text)], target=view)


def restarts_app(event: dict[str, Any]) -> bool:
    """Whether the event kills the app (so its state and back stack do not carry over)."""
    kind = event.get("event_type")
    return kind == "kill_app" or (kind == "intent"
                                  and "force-stop" in str(event.get("intent", "")).split())


def intent_action(command: str) -> Action | None:
    """`am start [-n] pkg/act` → open_app(pkg); `am force-stop pkg` → close_app."""
    tokens = command.split()
    if "force-stop" in tokens:
        return CloseApp()
    if "start" in tokens:
        component = next((t for t in tokens if "/" in t and not t.startswith("-")), None)
        if component:
            return OpenApp(package=component.split("/", 1)[0])
    if "monkey" in tokens and "-p" in tokens[:-1]:
        return OpenApp(package=tokens[tokens.index("-p") + 1])
    return None
