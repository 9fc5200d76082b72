"""The guard in front of real apps: exploration on a real phone has real side effects.

`Guard.check(action, root, package)` returns why an action must not be sent, or None:
- an `open_app` of a package outside `allow_apps`, or any action while an app outside
  `allow_apps` (and outside the launcher and system surfaces) is in front;
- a tap, long press or double tap whose target matches a deny rule: the target is the topmost
  view under the point, the views above it up to the one that handles the touch (the first
  clickable, long-clickable or checkable one), and that handler's descendants (a clickable row
  holding a "Send" label); each view's text, content-desc and resource-id name (`btn_send` reads
  "btn send", `sendButton` "send button") is matched;
- `type` and `enter` on the field that takes them, with the typing rules too (passwords, cards).

Rules are regular expressions matched case-insensitively; `DEFAULT_DENY` covers sending, paying,
calling, deleting, sharing and money transfers. Configure with `Guard(deny=...)`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from phoneworld.ingest.split import is_launcher, is_system_overlay
from phoneworld.ir.trace import ViewNode

logger = logging.getLogger(__name__)

DEFAULT_DENY: dict[str, str] = {
    "send": r"\b(send|submit|reply|post|publish|tweet)\b",
    "pay": r"\b(pay|payment|purchase|buy|checkout|check out|place order|order now|subscribe)\b",
    "call": r"\b(call|dial|video call)\b",
    "delete": r"\b(delete|remove|erase|uninstall|wipe|factory reset|clear data)\b",
    "share": r"\b(share|export|upload|invite)\b",
    "transfer": r"\b(transfer|withdraw|send money)\b",
}
TYPING_DENY: dict[str, str] = {
    "personal data": r"\b(password|passcode|pin|credit card|card number|cvv|cvc|ssn|"
                     r"social security|iban)\b",
}
_POINT = ("click", "double_click", "long_press")
_MAX_DESCENDANTS = 64


def label(s: str) -> str:
    """A text, desc or resource-id as words: ids lose their package and split on _ and case."""
    s = s.split(":id/", 1)[-1]
    s = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", s)
    return re.sub(r"[_\-.]+", " ", s).strip().lower()


def _contains(n: ViewNode, x: int, y: int) -> bool:
    b = n.bounds
    return b.x1 <= x < b.x2 and b.y1 <= y < b.y2


def hit_chain(root: ViewNode, x: int, y: int) -> list[ViewNode]:
    """Views under (x, y) from the root down to the topmost one (later siblings are on top)."""
    if not _contains(root, x, y):
        return []
    chain = [root]
    while True:
        nxt = next((ch for ch in reversed(chain[-1].children) if _contains(ch, x, y)), None)
        if nxt is None:
            return chain
        chain.append(nxt)


def touch_targets(root: ViewNode, x: int, y: int) -> list[ViewNode]:
    """The views whose labels say what a touch at (x, y) does (see the module docstring)."""
    chain = hit_chain(root, x, y)
    out: list[ViewNode] = []
    for n in reversed(chain):
        out.append(n)
        if n.clickable or n.long_clickable or n.checkable:
            out.extend(n.walk()[1:_MAX_DESCENDANTS])
            break
    return out


def _field(root: ViewNode) -> ViewNode | None:
    nodes = root.walk()
    n = next((m for m in nodes if m.editable and m.focused), None)
    return n or next((m for m in nodes if m.editable and m.enabled), None)


@dataclass
class Guard:
    """Allow-list of apps and deny rules on targets (see the module docstring)."""

    allow_apps: frozenset[str] = frozenset()
    deny: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_DENY))
    typing_deny: Mapping[str, str] = field(default_factory=lambda: dict(TYPING_DENY))

    def __post_init__(self) -> None:
        self.allow_apps = frozenset(self.allow_apps)
        self._deny = {k: re.compile(v, re.IGNORECASE) for k, v in self.deny.items()}
        self._typing = {k: re.compile(v, re.IGNORECASE) for k, v in self.typing_deny.items()}

    def check(self, action: Any, root: ViewNode | None, package: str | None) -> str | None:
        """Why `action` must not be sent on a screen showing `root` of `package`, or None."""
        t = action.type
        if t == "open_app" and action.package not in self.allow_apps:
            return f"open_app {action.package!r}: the app is not on the allow-list"
        if package and package not in self.allow_apps and not is_launcher(package) \
                and not is_system_overlay(package) and t not in ("back", "home", "close_app"):
            return f"{package!r} is in front and is not on the allow-list"
        if root is None:
            return None
        if t in _POINT:
            return self._match(touch_targets(root, action.x, action.y), self._deny, t)
        if t in ("type", "enter"):
            f = _field(root)
            rules = {**self._deny, **self._typing} if t == "type" else self._deny
            return self._match([f] if f is not None else [], rules, t)
        return None

    @staticmethod
    def _match(nodes: Iterable[ViewNode], rules: Mapping[str, re.Pattern[str]],
               what: str) -> str | None:
        for n in nodes:
            for kind, value in (("text", n.text), ("content-desc", n.content_desc),
                                ("resource-id", n.resource_id)):
                words = label(value) if kind == "resource-id" else value
                if not words:
                    continue
                for name, rx in rules.items():
                    if rx.search(words):
                        return f"{what} on a view whose {kind} is {value!r}: matches the " \
                               f"deny rule {name!r}"
        return None
