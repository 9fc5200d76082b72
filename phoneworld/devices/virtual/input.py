"""`input` events of a virtual device, turned into the simulator's trace actions.

Events of one shell command line are queued and applied together when the line ends (or before
any other command runs), so that what a real device does over several events becomes one action:
a clear-and-type (`input keyevent MOVE_END DEL DEL ...` then `input text ...`) sets the focused
field's text once (a trace `type`), two taps at one point are a `double_click`, a swipe that does
not move and lasts 400 ms or more is a `long_press`, and a zero-length shorter one is a tap, as on
Android (`input swipe X Y X Y 200`, what DroidBot sends for a touch, is a click). Other swipes are
drags (the simulator scrolls at their start point; one that moves less than 10 px does nothing,
as the simulator's `drag` does, though Android would take a move inside its touch slop for a tap).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from phoneworld.devices.protocol import KEYCODES
from phoneworld.ir import trace as tr

if TYPE_CHECKING:
    from phoneworld.runtime.sim import Simulator

logger = logging.getLogger(__name__)

LONG_PRESS_MS = 400
TOUCH_SLOP = 10  # px a touch may move and still be a tap or a long press
_EDIT_KEYS = {KEYCODES["DEL"], KEYCODES["FORWARD_DEL"], KEYCODES["MOVE_END"], KEYCODES["MOVE_HOME"]}
_ACTION_KEYS: dict[int, Any] = {
    KEYCODES["BACK"]: tr.Back, KEYCODES["HOME"]: tr.Home, KEYCODES["ENTER"]: tr.Enter,
    KEYCODES["MENU"]: tr.Menu,
}


@dataclass(frozen=True, slots=True)
class Event:
    kind: str  # "tap", "swipe", "key", "text"
    args: tuple[Any, ...]


def _is_edit(e: Event) -> bool:
    return e.kind == "text" or (e.kind == "key" and e.args[0] in _EDIT_KEYS)


def to_actions(events: list[Event], sim: Simulator) -> list[Any]:
    """Apply `events` to `sim` in order; returns the trace actions applied."""
    applied: list[Any] = []
    i = 0
    while i < len(events):
        e = events[i]
        if _is_edit(e):
            j = i
            while j < len(events) and _is_edit(events[j]):
                j += 1
            action: Any = tr.TypeText(text=_edit(events[i:j], _field_text(sim)))
            i = j
        elif e.kind == "tap":
            nxt = events[i + 1] if i + 1 < len(events) else None
            double = nxt is not None and nxt.kind == "tap" and nxt.args == e.args
            x, y = e.args
            action = tr.DoubleClick(x=x, y=y) if double else tr.Click(x=x, y=y)
            i += 2 if double else 1
        elif e.kind == "swipe":
            action = _swipe(*e.args)
            i += 1
        else:
            cls = _ACTION_KEYS.get(e.args[0])
            i += 1
            if cls is None:
                logger.debug("key %s does nothing on a virtual device", e.args[0])
                continue
            action = cls()
        sim.step(action)
        applied.append(action)
    return applied


def _swipe(x1: int, y1: int, x2: int, y2: int, ms: int) -> Any:
    if max(abs(x2 - x1), abs(y2 - y1)) < TOUCH_SLOP and ms >= LONG_PRESS_MS:
        return tr.LongPress(x=x1, y=y1)
    if (x1, y1) == (x2, y2):
        return tr.Click(x=x1, y=y1)
    return tr.Drag(x1=x1, y1=y1, x2=x2, y2=y2)


def _field_text(sim: Simulator) -> str:
    """The text of the field `input text` goes to: the focused one, else (as the simulator's `type`
    does) the first enabled editable on screen."""
    nodes = sim.frame().nodes
    n = next((m for m in nodes if m.focused and m.c.editable), None)
    if n is None:
        n = next((m for m in nodes if m.c.editable and m.c.enabled), None)
    return n.text if n is not None else ""


def _edit(events: list[Event], text: str) -> str:
    """The field's text after a run of editing events; the cursor starts at the end."""
    cursor = len(text)
    for e in events:
        if e.kind == "text":
            s = e.args[0]
            text, cursor = text[:cursor] + s + text[cursor:], cursor + len(s)
            continue
        code = e.args[0]
        if code == KEYCODES["MOVE_END"]:
            cursor = len(text)
        elif code == KEYCODES["MOVE_HOME"]:
            cursor = 0
        elif code == KEYCODES["DEL"] and cursor > 0:
            text, cursor = text[:cursor - 1] + text[cursor:], cursor - 1
        elif code == KEYCODES["FORWARD_DEL"]:
            text = text[:cursor] + text[cursor + 1:]
    return text
