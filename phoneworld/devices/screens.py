"""Which screen of an app spec a device's view hierarchy shows (the `screen` of an observation).

The simulator knows its screen; a device only shows views. Each spec screen has a structural
signature: the (class, resource-id, content-desc) of its widgets, required outside lists and
optional inside list items, plus the texts of widgets whose text is a literal. A dump is scored
against every screen by recall of the required keys and precision of the dump's keys against all
the screen's keys; the activity in front only breaks ties (a generated APK shows every screen in
one activity). A dump of another package is the home screen (`@launcher`), as in the simulator.
The generated APK also says which screen it is on (`files/screen.json`); `AdbBackend` prefers
that and uses this matcher when it cannot be read (another build of the app, a real app).
"""

from __future__ import annotations

from dataclasses import dataclass

from phoneworld.ir.app import AppSpec, Lit, Widget
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import ViewNode
from phoneworld.runtime.compiled import LAUNCHER

Key = tuple[str, str, str]
TextKey = tuple[str, str, str, str]
CACHE_SIZE = 4096


@dataclass(frozen=True)
class _Signature:
    screen: str
    activity: str | None
    required: frozenset[Key]
    optional: frozenset[Key]
    texts: frozenset[TextKey]


def _walk(w: Widget, in_item: bool, req: set[Key], opt: set[Key], texts: set[TextKey]) -> None:
    key = (w.cls, w.resource_id, w.content_desc)
    (opt if in_item else req).add(key)
    if not in_item and isinstance(w.text, Lit) and isinstance(w.text.value, str) and w.text.value:
        texts.add((*key, w.text.value))
    for ch in w.children:
        _walk(ch, in_item, req, opt, texts)
    if w.list is not None:
        _walk(w.list.item, True, req, opt, texts)
        if w.list.empty is not None:  # shown only while the list is empty
            _walk(w.list.empty, True, req, opt, texts)


class ScreenMatcher:
    """`match(root, activity)` → the id of the spec screen a dumped tree shows."""

    def __init__(self, spec: AppSpec) -> None:
        self.package = spec.package
        self.sigs: list[_Signature] = []
        for s in spec.screens:
            req: set[Key] = set()
            opt: set[Key] = set()
            texts: set[TextKey] = set()
            _walk(s.root, False, req, opt, texts)
            self.sigs.append(_Signature(s.id, s.activity, frozenset(req), frozenset(opt - req),
                                        frozenset(texts)))
        self._cache: dict[tuple[frozenset[TextKey], str | None], str] = {}

    def match(self, root: ViewNode, activity: str | None = None) -> str:
        if (root.package or self.package) != self.package:
            return LAUNCHER
        nodes = root.walk()
        tkeys = frozenset((n.cls, n.resource_id, n.content_desc, n.text) for n in nodes)
        hit = self._cache.get((tkeys, activity))
        if hit is not None:
            return hit
        best = self._best(tkeys, activity)
        if len(self._cache) >= CACHE_SIZE:
            self._cache.clear()
        self._cache[(tkeys, activity)] = best
        return best

    def _best(self, tkeys: frozenset[TextKey], activity: str | None) -> str:
        keys = frozenset(k[:3] for k in tkeys)
        best, best_score = self.sigs[0].screen, -1.0
        for s in self.sigs:
            want = len(s.required) + len(s.texts)
            recall = (len(s.required & keys) + len(s.texts & tkeys)) / want if want else 1.0
            precision = len(keys & (s.required | s.optional)) / len(keys) if keys else 0.0
            score = recall + precision + (1e-6 if activity and s.activity == activity else 0.0)
            if score > best_score:
                best, best_score = s.screen, score
        return best


def scale_view(n: ViewNode, fx: float, fy: float) -> ViewNode:
    """`n` with every bound multiplied by (fx, fy) and rounded (one screen size to another)."""
    b = n.bounds
    bounds = Bounds(x1=round(b.x1 * fx), y1=round(b.y1 * fy), x2=round(b.x2 * fx),
                    y2=round(b.y2 * fy))
    kids = tuple(scale_view(c, fx, fy) for c in n.children)
    return n.model_copy(update={"bounds": bounds, "children": kids})
