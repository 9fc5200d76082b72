"""The strict parser of a policy's output into an action, and the canonical action text.

The policy answers with exactly one JSON object in the paper's action format: `click` /
`long_press` / `double_click` on an `element` id of the text observation or at normalized `x`, `y`
in [0, 1000]; `type` (`text`, optional `element`); `scroll` (`direction`, optional point); `back`,
`home`, `enter`, `wait`; `done` (optional `answer`). Anything else (prose around the JSON, unknown
keys, wrong types, out-of-range coordinates) is a parse error: the step becomes a no-op, counted,
with the configured penalty. The env is stricter still about what exists on screen.
"""

from __future__ import annotations

import json
from typing import Any

POINT = ("click", "long_press", "double_click")
NO_ARGS = ("back", "home", "enter", "wait")
TYPES = (*POINT, "type", "scroll", *NO_ARGS, "done")
DIRECTIONS = ("up", "down", "left", "right")
KEYS: dict[str, set[str]] = {
    **{t: {"element", "x", "y"} for t in POINT},
    "type": {"text", "element"},
    "scroll": {"direction", "element", "x", "y"},
    **{t: set() for t in NO_ARGS},
    "done": {"answer"},
}
ORDER = ("type", "element", "x", "y", "text", "direction", "answer")


class ActionParseError(ValueError):
    """The policy's output is not exactly one valid action."""


def _check_point(spec: dict[str, Any], required: bool) -> None:
    has_el, has_xy = "element" in spec, ("x" in spec or "y" in spec)
    if has_el and has_xy:
        raise ActionParseError("give either 'element' or 'x'/'y', not both")
    if has_el:
        el = spec["element"]
        if isinstance(el, bool) or not isinstance(el, int) or el < 0:
            raise ActionParseError(f"'element' must be a non-negative integer, got {el!r}")
    elif has_xy:
        for key in ("x", "y"):
            v = spec.get(key)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 1000:
                raise ActionParseError(f"{key!r} must be a number in [0, 1000], got {v!r}")
    elif required:
        raise ActionParseError(f"{spec['type']!r} needs an 'element' or 'x' and 'y'")


def validate(spec: Any) -> dict[str, Any]:
    """Check one action dict strictly; returns it in canonical key order."""
    if not isinstance(spec, dict):
        raise ActionParseError(f"an action must be a JSON object, got {type(spec).__name__}")
    t = spec.get("type")
    if t not in TYPES:
        raise ActionParseError(f"unknown action type {t!r} (known: {', '.join(TYPES)})")
    extra = set(spec) - KEYS[t] - {"type"}
    if extra:
        raise ActionParseError(f"{t!r} takes no {sorted(extra)}")
    if t in POINT:
        _check_point(spec, required=True)
    elif t == "scroll":
        if spec.get("direction") not in DIRECTIONS:
            raise ActionParseError(f"scroll needs a direction in {DIRECTIONS}")
        _check_point(spec, required=False)
    elif t == "type":
        if not isinstance(spec.get("text"), str):
            raise ActionParseError("type needs a string 'text'")
        _check_point(spec, required=False)
    elif t == "done" and "answer" in spec and not isinstance(spec["answer"], (str, int, float)):
        raise ActionParseError("done's 'answer' must be a string")
    return {k: spec[k] for k in ORDER if k in spec}


def parse_action_text(text: str) -> dict[str, Any]:
    """The action in a policy's raw output, or `ActionParseError`."""
    s = text.strip()
    if not (s.startswith("{") and s.endswith("}")):
        raise ActionParseError(f"the output is not one JSON object: {s[:80]!r}")
    try:
        spec = json.loads(s)
    except ValueError as exc:
        raise ActionParseError(f"invalid JSON ({exc.args[0][:60]}): {s[:80]!r}") from exc
    return validate(spec)


def format_action(spec: dict[str, Any]) -> str:
    """The canonical text of an action (what SFT teaches and the history shows)."""
    canon = {k: spec[k] for k in ORDER if k in spec and spec[k] is not None}
    if "answer" in canon and not isinstance(canon["answer"], str):
        canon["answer"] = str(canon["answer"])
    for key in ("x", "y"):
        if isinstance(canon.get(key), float) and canon[key].is_integer():
            canon[key] = int(canon[key])
    return json.dumps(canon, ensure_ascii=False, separators=(",", ":"))
