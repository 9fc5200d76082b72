"""Agent actions for the env: the paper's JSON action format turned into trace action models.

Accepted: a JSON string, a dict, or a `phoneworld.ir.trace` action model (device pixels, passed
through). JSON/dict coordinates are normalized to [0, 1000] unless `"coords": "pixels"`; instead of
x, y a point action may name an `element` (the id in the text form; `index` is an alias), which
taps that element's centre. `{"type": "type", "text": ..., "element": N}` taps N, then types.
A few AndroidWorld spellings are accepted (`action_type`, `input_text`, `navigate_back`, ...).
Unknown keys are ignored (policies often add a "reason"). Every problem raises `EnvError`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from difflib import get_close_matches
from typing import Any

from pydantic import BaseModel

from phoneworld.errors import EnvError
from phoneworld.ir import trace as tr
from phoneworld.runtime.render import Element

ALIASES = {
    "tap": "click", "long_click": "long_press", "input_text": "type", "navigate_back": "back",
    "navigate_home": "home", "keyboard_enter": "enter", "answer": "done", "status": "done",
    "swipe": "drag",
}
_NO_ARGS: dict[str, type[BaseModel]] = {
    "back": tr.Back, "home": tr.Home, "menu": tr.Menu, "enter": tr.Enter,
    "close_app": tr.CloseApp, "wait": tr.Wait,
}
_POINT: dict[str, type[BaseModel]] = {
    "click": tr.Click, "double_click": tr.DoubleClick, "long_press": tr.LongPress,
}
DIRECTIONS = ("up", "down", "left", "right")


class _Frame:
    """Converts the action's coordinates to device pixels."""

    def __init__(self, spec: dict[str, Any], width: int, height: int) -> None:
        coords = spec.get("coords", "normalized")
        if coords not in ("normalized", "pixels"):
            raise EnvError(f'"coords" must be "normalized" or "pixels", got {coords!r}')
        self.pixels = coords == "pixels"
        self.width, self.height = width, height

    def conv(self, spec: dict[str, Any], key: str, size: int) -> int:
        if key not in spec:
            raise EnvError(f"action {spec.get('type')!r} needs {key!r} (or an 'element')")
        v = spec[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise EnvError(f"{key!r} must be a number, got {v!r}")
        limit = size if self.pixels else 1000
        if not 0 <= v <= limit:
            raise EnvError(f"{key}={v} is outside [0, {limit}]")
        px = v if self.pixels else v * size / 1000
        return min(size - 1, max(0, round(px)))


Elements = Callable[[], Sequence[Element]]


def _element(spec: dict[str, Any], elements_fn: Elements) -> Element | None:
    eid = spec.get("element", spec.get("index"))
    if eid is None:
        return None
    elements = elements_fn()
    if isinstance(eid, str) and eid.strip().isdigit():
        eid = int(eid)
    if isinstance(eid, bool) or not isinstance(eid, int):
        raise EnvError(f"'element' must be an integer id from the text observation, got {eid!r}")
    if not 0 <= eid < len(elements):
        raise EnvError(f"no element {eid} on this screen (ids are 0..{len(elements) - 1})")
    return elements[eid]


def _point(spec: dict[str, Any], elements: Elements, fr: _Frame) -> tuple[int, int]:
    el = _element(spec, elements)
    if el is not None:
        return el.x, el.y
    return fr.conv(spec, "x", fr.width), fr.conv(spec, "y", fr.height)


def _action_type(spec: dict[str, Any]) -> str:
    t = spec.get("type", spec.get("action_type"))
    if not isinstance(t, str):
        raise EnvError(f'an action needs a "type" string, got {spec!r:.200}')
    t = ALIASES.get(t, t)
    if t not in tr.ACTION_TYPES:
        near = get_close_matches(t, [*tr.ACTION_TYPES, *ALIASES], n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise EnvError(f"unknown action type {t!r}{hint} (known: {', '.join(tr.ACTION_TYPES)})")
    return t


def _text_arg(spec: dict[str, Any], key: str, required: bool) -> str | None:
    v = spec.get(key)
    if v is None and not required:
        return None
    if not isinstance(v, str):
        raise EnvError(f"action {spec.get('type')!r} needs a string {key!r}, got {v!r}")
    return v


def from_dict(
    spec: dict[str, Any], elements: Elements, width: int, height: int
) -> tuple[Any, ...]:
    """The trace actions (device pixels) one JSON action stands for."""
    t = _action_type(spec)
    fr = _Frame(spec, width, height)
    if t in _POINT:
        x, y = _point(spec, elements, fr)
        return (_POINT[t](x=x, y=y),)
    if t in _NO_ARGS:
        return (_NO_ARGS[t](),)
    if t == "type":
        text = _text_arg(spec, "text", True)
        el = _element(spec, elements)
        typed = tr.TypeText(text=text or "")
        return (tr.Click(x=el.x, y=el.y), typed) if el is not None else (typed,)
    if t == "scroll":
        d = spec.get("direction")
        if d not in DIRECTIONS:
            raise EnvError(f"scroll needs a 'direction' in {DIRECTIONS}, got {d!r}")
        has_point = "element" in spec or "index" in spec or "x" in spec or "y" in spec
        if not has_point:
            return (tr.Scroll(direction=d),)
        x, y = _point(spec, elements, fr)
        return (tr.Scroll(direction=d, x=x, y=y),)
    if t == "drag":
        x1, x2 = fr.conv(spec, "x1", width), fr.conv(spec, "x2", width)
        y1, y2 = fr.conv(spec, "y1", height), fr.conv(spec, "y2", height)
        return (tr.Drag(x1=x1, y1=y1, x2=x2, y2=y2),)
    if t == "open_app":
        pkg = spec.get("package", spec.get("app_name"))
        if not isinstance(pkg, str):
            raise EnvError(f"open_app needs a 'package' string, got {pkg!r}")
        return (tr.OpenApp(package=pkg),)
    answer = spec.get("answer")
    return (tr.Done(answer=None if answer is None else str(answer)),)


def parse_action(
    raw: Any, elements: Elements | Sequence[Element], width: int, height: int
) -> tuple[Any, ...]:
    """Turn an env action (JSON string, dict, or trace action model) into trace actions.

    `elements` is the current observation's element list, or a function giving it (called only
    when the action names an element)."""
    if not callable(elements):
        elements = (lambda els: lambda: els)(elements)
    if isinstance(raw, BaseModel):
        if getattr(raw, "type", None) not in tr.ACTION_TYPES:
            raise EnvError(f"{type(raw).__name__} is not a phoneworld.ir.trace action")
        return (raw,)
    if isinstance(raw, (str, bytes)):
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise EnvError(f"the action is not valid JSON ({exc}): {raw!r:.200}") from exc
    if not isinstance(raw, dict):
        raise EnvError(f"an action must be a JSON object, got {type(raw).__name__}")
    try:
        return from_dict(raw, elements, width, height)
    except (ValueError, TypeError) as exc:  # pydantic rejected a value we let through
        raise EnvError(f"bad action {raw!r:.200}: {exc}") from exc
