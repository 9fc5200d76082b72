"""Sentences around a record's field: a widget whose text lays the selected record's field out in
constant words ("Chloé Martin will be deleted from your contacts.", "Remove “Emma”?"), as a
confirm dialog does, reads `Selected(collection, field, fmt)` (see `_selected_bindings`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from phoneworld.ir.app import Expr, Selected
from phoneworld.runtime.semantics import fmt_text, value_text

__all__ = ["Sentences"]


class Sentences:
    """Votes for widgets whose text is the selected record's field inside a constant sentence
    ("Emma will be deleted."): for each layout of the text around a field's value, the readings
    it explains and the values it showed. A layout counts only where at least two different
    values showed in it, so a constant text is not taken for a sentence around its first record."""

    def __init__(self) -> None:
        self.readings: dict[tuple[str, str], Counter[tuple[str, str, str]]] = defaultdict(Counter)
        self.values: dict[tuple[str, str, str, str, str], set[str]] = defaultdict(set)

    def vote(self, key: tuple[str, str], coll: str, field: str, value: Any, text: str) -> None:
        shown = value_text(value)
        for fmt in _layouts(shown, text):
            self.readings[key][(coll, field, fmt)] += 1
            self.values[(*key, coll, field, fmt)].add(shown)

    def bindings(self, seen: Counter[tuple[str, str]]) -> dict[tuple[str, str], Expr]:
        """The widgets every reading of which one layout explains, with at least two values (of
        several, the one that showed the most values, then the one with the shortest text)."""
        out: dict[tuple[str, str], Expr] = {}
        for key, counter in sorted(self.readings.items()):
            fits = [(len(self.values[(*key, *c)]), -len(c[2]), c) for c, n in counter.items()
                    if n == seen[key] and len(self.values[(*key, *c)]) > 1]
            if fits:
                coll, field, fmt = max(fits)[2]
                out[key] = Selected(collection=coll, field=field, fmt=fmt)
        return out


def _layouts(shown: str, text: str) -> set[str]:
    """The formats ("Remove “{}”?") that lay `shown` out as `text`, one per place it occurs."""
    out: set[str] = set()
    start = text.find(shown) if shown else -1
    while start >= 0:
        fmt = text[:start] + "{}" + text[start + len(shown):]
        if fmt != "{}" and fmt_text(shown, fmt) == text:
            out.add(fmt)
        start = text.find(shown, start + 1)
    return out
