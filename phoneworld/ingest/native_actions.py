"""Actions of the native format (ingest pass): a step's raw `action` object → an IR `Action`.

Checks, each with its own code so a user knows exactly what to fix: unknown type with "did you
mean" (PW120), missing argument (PW121), bad argument value such as a scroll direction (PW122),
point outside the screen (PW123), normalized coordinate outside [0, 1000] (PW124). Unknown fields
are ignored with a warning (PW113). Normalized coordinates become device pixels as
`min(size - 1, round(v * size / 1000))`; fractional pixel coordinates are rounded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, get_args

from pydantic import TypeAdapter, ValidationError

from phoneworld.ingest import codes
from phoneworld.ingest.context import IngestContext, did_you_mean
from phoneworld.ingest.jsonpos import Path as JsonPath
from phoneworld.ingest.jsonpos import line_of
from phoneworld.ir.base import SourceRef
from phoneworld.ir.trace import (
    ACTION_TYPES,
    Action,
    Click,
    Device,
    DoubleClick,
    Drag,
    LongPress,
    Scroll,
)

_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
_CLASSES = get_args(get_args(Action)[0])
FIELDS: dict[str, tuple[str, ...]] = {
    cls.model_fields["type"].default: tuple(cls.model_fields) for cls in _CLASSES
}
X_KEYS = ("x", "x1", "x2")
Y_KEYS = ("y", "y1", "y2")


@dataclass(frozen=True)
class ActionSite:
    """Where an action sits: the step's source, the JSON path and line map, and the frame."""

    ctx: IngestContext
    source: SourceRef
    path: JsonPath
    lines: dict[JsonPath, int]
    device: Device
    normalized: bool

    def at(self, *keys: str) -> SourceRef:
        return self.source.model_copy(update={"line": line_of(self.lines, (*self.path, *keys))})

    def name(self, key: str | None = None) -> str:
        return f"steps[{self.source.step}].action" + (f".{key}" if key else "")


def convert_action(raw: Any, site: ActionSite) -> Action | None:
    """The IR action of `raw`, or None after reporting why it cannot be one."""
    if not isinstance(raw, dict):
        site.ctx.report(codes.ACTION_BAD_VALUE, f"{site.name()} must be an object or null, "
                        f"not {type(raw).__name__}", site.at())
        return None
    kind = raw.get("type")
    if kind is None:
        site.ctx.report(codes.ACTION_MISSING_FIELD, f'{site.name()} has no "type"', site.at())
        return None
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        site.ctx.report(codes.UNKNOWN_ACTION, f'unknown action type "{kind}"'
                        f"{did_you_mean(str(kind), ACTION_TYPES)}", site.at("type"))
        return None
    data = _known_fields(raw, kind, site)
    if not _coordinates(data, site):
        return None
    try:
        action = _ADAPTER.validate_python(data)
    except ValidationError as exc:
        _report_validation(exc, kind, site)
        return None
    return action if _on_screen(action, site) else None


def _known_fields(raw: dict[str, Any], kind: str, site: ActionSite) -> dict[str, Any]:
    allowed = FIELDS[kind]
    for key in raw:
        if key not in allowed:
            site.ctx.report(codes.UNKNOWN_FIELD, f'{site.name(key)} is not an argument of '
                            f'"{kind}"{did_you_mean(key, allowed)}; ignored', site.at(key))
    return {k: v for k, v in raw.items() if k in allowed}


def _coordinates(data: dict[str, Any], site: ActionSite) -> bool:
    """Convert coordinates in place (normalized → pixels, floats → ints); False on a bad one."""
    ok = True
    for key in (*X_KEYS, *Y_KEYS):
        value = data.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            site.ctx.report(codes.ACTION_BAD_VALUE, f"{site.name(key)} must be a number, "
                            f"not {value!r}", site.at(key))
            ok = False
            continue
        size = site.device.width if key in X_KEYS else site.device.height
        if site.normalized:
            if not 0 <= value <= 1000:
                site.ctx.report(codes.NORMALIZED_RANGE, f"{site.name(key)} = {value} is outside "
                                "[0, 1000] (coords are normalized)", site.at(key))
                ok = False
                continue
            value = min(size - 1, round(value * size / 1000))
        data[key] = round(value)
    return ok


def _report_validation(exc: ValidationError, kind: str, site: ActionSite) -> None:
    for err in exc.errors():
        key = next((str(p) for p in reversed(err["loc"]) if str(p) in FIELDS[kind]), "")
        if err["type"] == "missing":
            site.ctx.report(codes.ACTION_MISSING_FIELD, f'"{kind}" action has no "{key}"',
                            site.at(), hint=codes.ACTION_MISSING_FIELD.hint)
        else:
            shown = repr(err.get("input"))
            site.ctx.report(codes.ACTION_BAD_VALUE, f"{site.name(key)} = {shown} is invalid: "
                            f"{err['msg']}", site.at(key))


def _on_screen(action: Action, site: ActionSite) -> bool:
    ok = True
    for x, y in points(action):
        if not (0 <= x < site.device.width and 0 <= y < site.device.height):
            site.ctx.report(codes.POINT_OFF_SCREEN, f"{action.type} at ({x}, {y}) is outside the "
                            f"{site.device.width}x{site.device.height} screen", site.at())
            ok = False
    return ok


def points(action: Action) -> list[tuple[int, int]]:
    """The screen points an action touches (none for key presses and text)."""
    if isinstance(action, (Click, DoubleClick, LongPress)):
        return [(action.x, action.y)]
    if isinstance(action, Drag):
        return [(action.x1, action.y1), (action.x2, action.y2)]
    if isinstance(action, Scroll) and action.x is not None and action.y is not None:
        return [(action.x, action.y)]
    return []
