"""Scrolled lists: the records a list holds beyond the screenful one reading shows.

A reading shows a list's window, the records on screen. Read as the whole collection, a list
longer than the screen lost every record below the first screenful, a scroll that showed the next
ones read as records replaced, and a tap on the eighth row selected the third. Now a scroll (up or
down, staying on the screen) whose window overlaps the one before joins them into one collection:
the window shows the list from an offset, and the records it scrolled past stay. The first
reading after a scroll that shows a window of the known records moves the offset only; any other
step whose window differs from what the known records show at the offset changed the list: the
window replaces what was shown there and the records out of view stay (joined where they overlap
it: a deleted row's place taken by the next one), unless the window is all of the list now (it
holds two or more records fewer than the one before, mostly records it did not show, or records
the ones out of view hold: `spliced`). A list no scroll ever joined
reads as today: each window is the whole collection.

Records are compared field by field, a field one of them shows empty, or shows the first lines of
the other's, matching it (a row cut at the window's edge shows its title and not the line below
it), and the fuller one is kept; rows
that repeat make a join ambiguous, and the longest overlap wins. The offsets go with the tracked state (`Tracked.windows`), so a tapped row's index is
the record's (`absolute_item`) and replay shows the recorded window. How far one scroll moves a
list is learned from the recorded ones (`scroll_steps`, the app's `ListSpec.scroll`): a swipe
moves a long list by a few rows, not by a screenful.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from phoneworld.ir.graph import TransitionGraph
    from phoneworld.state.track import Tracked

__all__ = ["SCROLLS", "Window", "join", "runs_at", "scroll_steps", "scrolled", "spliced"]

SCROLLS = {"scroll_down": 1, "scroll_up": -1}
Window = tuple[int, int]  # (offset of the first record shown, records shown)


def _same(a: Any, b: Any) -> bool:
    """One record, the fields either shows empty aside, at least one field shown by both."""
    if a == b:
        return True
    if not isinstance(a, dict) or not isinstance(b, dict) or a.keys() != b.keys():
        return False
    both = [k for k in a if a[k] not in ("", None) and b[k] not in ("", None)]
    return bool(both) and all(_cut(a[k], b[k]) or _cut(b[k], a[k]) for k in both)


def _cut(short: Any, long: Any) -> bool:
    """Whether `short` is `long` or its first lines: a row that merges its lines into one text
    (a Flutter list tile's description) shows only those inside the window at its edge."""
    return short == long or (isinstance(short, str) and isinstance(long, str)
                             and long.startswith(short + "\n"))


def _fuller(a: Any, b: Any) -> Any:
    if not isinstance(a, dict) or not isinstance(b, dict):
        return a
    return {k: b[k] if a[k] in ("", None) or _cut(a[k], b[k]) else a[k] for k in a}


def _overlap(left: list[Any], right: list[Any]) -> bool:
    return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right))


def _merged(left: list[Any], right: list[Any]) -> list[Any]:
    """Two runs of the same records, each as the fuller of the two shows it."""
    return [_fuller(a, b) for a, b in zip(left, right)]


def join(left: list[Any], right: list[Any]) -> list[Any]:
    """`left` then `right`, with the longest run that ends `left` and starts `right` once."""
    for k in range(min(len(left), len(right)), 0, -1):
        if _overlap(left[-k:], right[:k]):
            return left[:-k] + _merged(left[-k:], right[:k]) + right[k:]
    return left + right


def runs_at(known: list[Any], window: list[Any], at: int) -> bool:
    """Whether `window` shows the records of `known` from offset `at`."""
    return 0 <= at and at + len(window) <= len(known) \
        and _overlap(known[at:at + len(window)], window)


def _runs(known: list[Any], window: list[Any]) -> list[int]:
    """Every offset at which `window` is a run of `known`."""
    return [i for i in range(len(known) - len(window) + 1) if runs_at(known, window, i)]


def scrolled(known: list[Any], at: int, window: list[Any], direction: int
             ) -> tuple[list[Any], int] | None:
    """The records and the window's offset after a scroll (`direction` 1: down, -1: up) from
    offset `at` showed `window`: a run of `known` (the one nearest the way it scrolled), or
    `known` extended by what the window shows past its end (down) or before its start (up),
    the two overlapping by one record or more. None where they do not overlap."""
    if not window:
        return None
    runs = _runs(known, window)
    if runs:
        ahead = [i for i in runs if (i - at) * direction >= 0]
        i = min(ahead or runs, key=lambda i: abs(i - at))
        return known[:i] + _merged(known[i:i + len(window)], window) \
            + known[i + len(window):], i
    top = min(len(known), len(window))
    if direction > 0:
        for k in range(top, 0, -1):
            if _overlap(known[-k:], window[:k]):
                return known[:-k] + _merged(known[-k:], window[:k]) + window[k:], len(known) - k
    else:
        for k in range(top, 0, -1):
            if _overlap(window[-k:], known[:k]):
                return window[:-k] + _merged(known[:k], window[-k:]) + known[k:], 0
    return None


def spliced(known: list[Any], at: Window, window: list[Any]) -> list[Any] | None:
    """The records after a step changed what the window at `at` showed into `window`: the
    records above and below it kept, joined where they overlap it. None where the window is all
    of the list now: it shows two or more records fewer than before (the list fits the screen;
    one fewer is a row cut at the window's edge), half of its records or more were not in the
    window before (another list in its place: a tab, a filter), or keeping the records out of
    view would show one twice (the list sorted anew)."""
    offset, shown = at
    before = known[offset:offset + shown]
    kept = sum(1 for r in window if any(_same(r, b) for b in before))
    if len(window) < shown - 1 or 2 * kept <= len(window):
        return None
    out = join(join(known[:offset], window), known[offset + shown:])
    return out if _repeats(out) <= _repeats(known) else None


def _repeats(records: list[Any]) -> int:
    """How many records repeat one before them."""
    keys = [repr(sorted(r.items())) if isinstance(r, dict) else repr(r) for r in records]
    return len(keys) - len(set(keys))


def scroll_steps(list_vars: dict[tuple[str, str], str], graph: TransitionGraph,
                 tracked: list[list[Tracked]]) -> dict[tuple[str, str], int]:
    """(screen, list wid) -> the records one scroll moved the list by, where the recording
    scrolled it (`list_vars`: each list's collection): the most common move among the scrolls
    that stopped short of the list's end (the larger on a tie), else the largest (a scroll that
    hit the end moved it less)."""
    free: dict[tuple[str, str], Counter[int]] = {}
    ended: dict[tuple[str, str], int] = {}
    for step in graph.steps:
        direction = SCROLLS.get(step.action or "")
        if direction is None or step.screen != step.next_screen:
            continue
        before, after = tracked[step.episode][step.step], tracked[step.episode][step.step + 1]
        for key, (at, shown) in after.windows.items():
            if key[0] != step.screen or key not in before.windows or key not in list_vars:
                continue
            moved = (at - before.windows[key][0]) * direction
            if moved <= 0:
                continue
            records = after.state.get(list_vars[key])
            count = len(records) if isinstance(records, list) else 0
            if (at == 0) if direction < 0 else (at + shown >= count):
                ended[key] = max(ended.get(key, 0), moved)
            else:
                free.setdefault(key, Counter())[moved] += 1
    out = {key: max(c.items(), key=lambda kv: (kv[1], kv[0]))[0] for key, c in free.items()}
    return {**{k: v for k, v in ended.items() if k not in out}, **out}
