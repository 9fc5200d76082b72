"""Trace actions as device shell command lines (`input`, `am`, `monkey`), in device pixels.

- click: `input tap`; double_click: two taps in one command line; long_press: a swipe that does
  not move, held 1 s; drag: `input swipe`; scroll: a swipe from the point (or the first scrollable
  element) a quarter screen against the scroll direction (scroll down = finger up).
- type: the field is cleared first (DESIGN section 2): `input keyevent MOVE_END DEL...` as many
  DELs as the field has characters, then `input text` with spaces as `%s`. `input text` cannot
  type a literal `%s`, and real phones type ASCII only (other text needs an IME such as
  ADBKeyboard); the virtual device types anything.
- back, home, enter, menu: `input keyevent`; open_app of the app: restart its launch activity;
  open_app of another package: HOME, then `monkey` (the simulator leaves the app either way);
  close_app: `am force-stop`; wait and done send nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from phoneworld.devices.protocol import (
    ACTION_KEYS,
    KEYCODES,
    LAUNCHER_CATEGORY,
    input_text_arg,
    start_command,
)
from phoneworld.runtime.render import Element

logger = logging.getLogger(__name__)
LONG_PRESS_MS = 1000
SWIPE_MS = 300


@dataclass(frozen=True)
class Frame:
    """How to reach the device: its size, and the spec → device pixel mapping."""

    width: int
    height: int
    to_device: Callable[[float, float], tuple[int, int]]


def field_text(elements: Sequence[Element]) -> str:
    """The text `type` will replace: the focused field's, else the first enabled editable's."""
    e = next((e for e in elements if e.editable and e.focused), None)
    if e is None:
        e = next((e for e in elements if e.editable and e.enabled), None)
    return e.text if e is not None else ""


def scroll_point(elements: Sequence[Element], width: int, height: int) -> tuple[int, int]:
    e = next((e for e in elements if e.scrollable), None)
    return (e.x, e.y) if e is not None else (width // 2, height // 2)


def _swipe(f: Frame, x: float, y: float, direction: str) -> str:
    x1, y1 = f.to_device(x, y)
    dx = {"left": 1, "right": -1}.get(direction, 0) * f.width // 4
    dy = {"up": 1, "down": -1}.get(direction, 0) * f.height // 4
    x2 = min(f.width - 1, max(0, x1 + dx))
    y2 = min(f.height - 1, max(0, y1 + dy))
    return f"input swipe {x1} {y1} {x2} {y2} {SWIPE_MS}"


def command(action: Any, f: Frame, elements: Sequence[Element], package: str,
            component: str | None, spec_size: tuple[int, int]) -> str | None:
    """The shell line that performs `action` (None: nothing to send)."""
    t = action.type
    if t in ("click", "double_click", "long_press"):
        x, y = f.to_device(action.x, action.y)
        if t == "click":
            return f"input tap {x} {y}"
        if t == "double_click":
            return f"input tap {x} {y}; input tap {x} {y}"
        return f"input swipe {x} {y} {x} {y} {LONG_PRESS_MS}"
    if t == "type":
        dels = " ".join([str(KEYCODES["DEL"])] * len(field_text(elements)))
        line = f"input keyevent {KEYCODES['MOVE_END']} {dels}".rstrip()
        if action.text:
            if not action.text.isascii():
                logger.warning("typing non-ASCII text with `input text` fails on real phones")
            line += f" && input text {input_text_arg(action.text)}"
        return line
    if t == "scroll":
        if action.x is None or action.y is None:
            x, y = scroll_point(elements, *spec_size)
        else:
            x, y = action.x, action.y
        return _swipe(f, x, y, action.direction)
    if t == "drag":
        x1, y1 = f.to_device(action.x1, action.y1)
        x2, y2 = f.to_device(action.x2, action.y2)
        return f"input swipe {x1} {y1} {x2} {y2} {SWIPE_MS}"
    if t in ACTION_KEYS:
        return f"input keyevent {KEYCODES[ACTION_KEYS[t]]}"
    if t == "open_app":
        if action.package == package:
            return start_command(component, package)
        return (f"input keyevent {KEYCODES['HOME']}; monkey -p {action.package} "
                f"-c {LAUNCHER_CATEGORY} 1")
    if t == "close_app":
        return f"am force-stop {package}"
    return None  # wait, done
