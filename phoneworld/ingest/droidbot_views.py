"""DroidBot state files (ingest pass): `states/state_*.json` → view trees and the device size.

Kea, a DroidBot fork for property-based testing, writes the same state files to `all_states/`,
numbered (`state_1.json`, its screenshot `screen_1.png`) where DroidBot names them by time;
`states_folder` finds either, `states/` first.

A state holds `views[]`, a flat list linked by `parent`/`children` indices, with bounds
`[[x1, y1], [x2, y2]]`. Decisions:
- Invisible views (`visible: false`) and their subtrees are left out of the tree, as uiautomator
  leaves them out of its dumps (one PW138 note per folder). In real data an invisible parent never
  has a visible child.
- Bounds with negative width/height (off-screen views, x2 < x1) are collapsed to zero size at
  (x1, y1), as for XML dumps, with one PW105 warning per folder (they are all invisible in the
  Habitica run, so they are dropped anyway).
- A view's `index` is its position among all of its parent's children, as uiautomator writes it.
- The device size is the largest root view extent over all states (dialog windows have smaller
  roots), since DroidBot records no screen size.
- A state with an empty `views` list (DroidBot writes one when it cannot read the screen, often on
  the launcher) is a real state with nothing to show: it is set apart in `StateFiles.empty`, for
  the importer to drop with its events (PW139), rather than reported as a damaged file (PW131).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from phoneworld.inputs import MAX_COORD, MAX_DEPTH
from phoneworld.ingest import codes
from phoneworld.ingest.context import IngestContext, Tally
from phoneworld.ingest.uixml import normalise_bounds
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device, ViewNode

_TEXT_FIELDS = {"text": "text", "resource_id": "resource_id",
                "content_description": "content_desc", "package": "package"}
_BOOL_FIELDS = {"checkable": "checkable", "checked": "checked", "clickable": "clickable",
                "long_clickable": "long_clickable", "scrollable": "scrollable",
                "focusable": "focusable", "focused": "focused", "selected": "selected",
                "is_password": "password"}


STATE_FOLDERS = ("states", "all_states")


def states_folder(folder: Path) -> Path:
    """The folder of `folder`'s state files: DroidBot's `states/`, else Kea's `all_states/`."""
    return next((folder / name for name in STATE_FOLDERS if (folder / name).is_dir()),
                folder / STATE_FOLDERS[0])


@dataclass
class ViewStats:
    """Per-folder tallies of what tree building had to normalise or drop."""

    negative: Tally
    invisible: Tally

    @classmethod
    def create(cls, scope: str) -> ViewStats:
        return cls(Tally(codes.NEGATIVE_BOUNDS, scope), Tally(codes.INVISIBLE_DROPPED, scope))


@dataclass
class DroidState:
    """One state file: its hash, app, activity, flat views and (cached) tree."""

    state_str: str
    tag: str
    path: Path
    package: str
    activity: str | None
    views: list[dict[str, Any]]
    _tree: ViewNode | None = field(default=None, repr=False)

    def tree(self, ctx: IngestContext, stats: ViewStats | None) -> ViewNode:
        if self._tree is None:
            self._tree = build_tree(self, ctx, stats)
        return self._tree


@dataclass
class StateFiles:
    """The state files of one folder: the usable ones, and those with no views, by state_str."""

    states: dict[str, DroidState]
    empty: dict[str, list[Path]]  # several files can share one (DroidBot hashes the views)


def load_states(folder: Path, ctx: IngestContext) -> StateFiles:
    """All readable states of `folder`'s states folder, by state_str; bad files are reported
    (PW131)."""
    states: dict[str, DroidState] = {}
    empty: dict[str, list[Path]] = {}
    for path in sorted(states_folder(folder).glob("state_*.json")):
        state = _load_state(path, ctx)
        if state is None:
            continue
        if state.views:
            states.setdefault(state.state_str, state)
        else:
            empty.setdefault(state.state_str, []).append(path)
    # A state_str with a usable file is not missing; its empty duplicates are ignored like any.
    return StateFiles(states, {s: paths for s, paths in empty.items() if s not in states})


def _load_state(path: Path, ctx: IngestContext) -> DroidState | None:
    source = ctx.src(path)
    text = ctx.read_text(path, source)
    if text is None:
        return None
    ok, data = ctx.load_json(text, source, codes.UNREADABLE_RECORD)
    if not ok:
        return None
    views = data.get("views") if isinstance(data, dict) else None
    state_str = data.get("state_str") if isinstance(data, dict) else None
    if not isinstance(views, list) or not isinstance(state_str, str) or \
            not all(isinstance(v, dict) for v in views):
        ctx.report(codes.UNREADABLE_RECORD, "a state needs \"state_str\" and a \"views\" list "
                   "of objects", source)
        return None
    bad = next((i for i, v in enumerate(views) if _bounds(v) is None), None)
    if bad is not None:
        raw = views[bad].get("bounds")
        if _bounds(views[bad], checked=False) is not None:
            ctx.report(codes.OUT_OF_RANGE, f"views[{bad}].bounds {str(raw)[:80]} lie more than "
                       f"{MAX_COORD} pixels away", source)
        else:
            ctx.report(codes.BAD_BOUNDS, f"views[{bad}].bounds is not [[x1, y1], [x2, y2]]",
                       source)
        return None
    if views and _tree_depth(views) > MAX_DEPTH:
        ctx.report(codes.TOO_DEEP, f"the views are nested more than {MAX_DEPTH} levels deep "
                   "through \"children\"", source)
        return None
    activity = data.get("foreground_activity")
    activity = activity if isinstance(activity, str) and activity else None
    if activity:
        package = activity.split("/", 1)[0]
    else:
        package = str(views[0].get("package") or "") if views else ""
    return DroidState(state_str=state_str, tag=str(data.get("tag", path.stem[6:])), path=path,
                      package=package, activity=activity, views=views)


def _bounds(view: Any, checked: bool = True) -> tuple[int, int, int, int] | None:
    """Four ints, or None when malformed (or, when `checked`, beyond +-MAX_COORD)."""
    try:
        (x1, y1), (x2, y2) = view["bounds"]
        out = int(x1), int(y1), int(x2), int(y2)
    except (KeyError, TypeError, ValueError, OverflowError):
        return None
    if checked and not all(-MAX_COORD <= v <= MAX_COORD for v in out):
        return None
    return out


def _tree_depth(views: list[dict[str, Any]]) -> int:
    """The depth of the tree that `build_tree` walks (without recursion; loops are cut)."""
    deepest, seen = 0, set()
    stack = [(root_index(views), 1)]
    while stack:
        i, depth = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        deepest = max(deepest, depth)
        if deepest > MAX_DEPTH:
            break
        stack.extend((c, depth + 1) for c in _children(views[i], len(views)))
    return deepest


def view_bounds(view: dict[str, Any]) -> tuple[int, int, int, int] | None:
    """The raw `[[x1, y1], [x2, y2]]` of a view dict as four ints (None when malformed)."""
    return _bounds(view)


def find_view(state: DroidState, view: dict[str, Any] | None) -> int | None:
    """The index in `state.views` of an event's target view: its temp_id if the view_str agrees,
    else the first view with that view_str (None when it is not there)."""
    if view is None:
        return None
    temp_id, view_str = view.get("temp_id"), view.get("view_str")
    views = state.views
    if isinstance(temp_id, int) and 0 <= temp_id < len(views) and (
            view_str is None or views[temp_id].get("view_str") == view_str):
        return temp_id
    return next((i for i, v in enumerate(views) if view_str and v.get("view_str") == view_str),
                None)


def root_index(views: list[dict[str, Any]]) -> int:
    return next((i for i, v in enumerate(views) if v.get("parent", -1) in (-1, None)), 0)


def build_tree(state: DroidState, ctx: IngestContext, stats: ViewStats | None,
               focus: int | None = None) -> ViewNode:
    """The visible view tree of a state; `focus` makes that view index the only focused one."""
    views = state.views
    if stats is not None:
        _tally(state, ctx, stats)
    seen: set[int] = set()

    def node(i: int, index: int) -> ViewNode | None:
        if i in seen or views[i].get("visible") is False:  # a loop in a malformed file, or hidden
            return None
        seen.add(i)
        view = views[i]
        bounds = normalise_bounds(*(_bounds(view) or (0, 0, 0, 0)))[0]
        kids = [node(c, k) for k, c in enumerate(_children(view, len(views)))]
        focused = None if focus is None else i == focus  # one view holds the input focus
        return _view_node(view, bounds, index, tuple(k for k in kids if k is not None), focused)

    root = node(root_index(views), 0)
    if root is None:  # an invisible root: keep an empty screen rather than lose the state
        x1, y1, x2, y2 = _bounds(views[root_index(views)]) or (0, 0, 0, 0)
        root = _view_node(views[root_index(views)], normalise_bounds(x1, y1, x2, y2)[0], 0, (),
                          None)
    return root


def _tally(state: DroidState, ctx: IngestContext, stats: ViewStats) -> None:
    """Count, over all views of the state, those with negative-size bounds and the invisible."""
    where = ctx.src(state.path)
    for i, view in enumerate(state.views):
        x1, y1, x2, y2 = _bounds(view) or (0, 0, 0, 0)
        if x2 < x1 or y2 < y1:
            hidden = " (invisible)" if view.get("visible") is False else ""
            stats.negative.add(f"views[{i}] has bounds [[{x1}, {y1}], [{x2}, {y2}]] with "
                               f"negative size{hidden}", where)
        if view.get("visible") is False:
            stats.invisible.add(f"views[{i}] ({view.get('class')}) is invisible", where)


def _children(view: dict[str, Any], count: int) -> list[int]:
    kids = view.get("children")
    if not isinstance(kids, list):  # `children: 5` in a damaged file: no children
        return []
    return [c for c in kids if isinstance(c, int) and not isinstance(c, bool) and 0 <= c < count]


def _view_node(view: dict[str, Any], bounds: Bounds, index: int,
               children: tuple[ViewNode, ...], focused: bool | None) -> ViewNode:
    """`focused` overrides the recorded focus when not None."""
    fields: dict[str, Any] = {key: str(view.get(src) or "") for src, key in _TEXT_FIELDS.items()}
    fields.update({key: bool(view.get(src)) for src, key in _BOOL_FIELDS.items()})
    fields["enabled"] = view.get("enabled") is not False
    if focused is not None:
        fields["focused"] = focused
    return ViewNode(cls=str(view.get("class") or ""), bounds=bounds, index=index,
                    children=children, **fields)


def device_size(states: dict[str, DroidState]) -> Device:
    """The largest root extent over all states (see the module docstring)."""
    width = height = 0
    for state in states.values():
        _, _, x2, y2 = _bounds(state.views[root_index(state.views)]) or (0, 0, 0, 0)
        width, height = max(width, x2), max(height, y2)
    return Device(width=max(width, 1), height=max(height, 1))
