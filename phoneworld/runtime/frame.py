"""A rendered screen: the widget tree evaluated against one state, and touch dispatch over it.

A `Frame` is immutable once built and depends only on (screen, the state it reads, list offsets,
focus), so the compiled app caches frames by that key and shares them between simulators. Its
observation forms (XML, text, elements, ViewNode) are built on first use and memoised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from phoneworld.runtime.render import (
    Element, frame_elements, frame_text, frame_view, frame_xml, node_line, subtree_xml,
)
from phoneworld.runtime.semantics import eval_expr, fmt_text, truthy
from phoneworld.runtime.widgets import ROW_CACHE_SIZE
from phoneworld.runtime.xmltext import sanitize

if TYPE_CHECKING:
    from phoneworld.ir.trace import ViewNode
    from phoneworld.runtime.compiled import CompiledApp, CScreen
    from phoneworld.runtime.widgets import CList, CNode

Focus = tuple[str, int | None]  # (wid, record index for a widget inside a list item)


class RNode:
    """One rendered view: its compiled widget, the record it shows (if in a list item), its values."""

    __slots__ = (
        "c", "coll", "item", "idx", "x1", "y1", "x2", "y2", "text", "checked", "focused", "children",
        "line", "xml",
    )

    def __init__(
        self, c: CNode, coll: str | None, item: int | None, idx: int, dy: int,
        text: str, checked: bool, focused: bool,
    ) -> None:
        self.c = c
        self.coll = coll
        self.item = item
        self.idx = idx
        self.x1, self.y1, self.x2, self.y2 = c.x1, c.y1 + dy, c.x2, c.y2 + dy
        self.text = text
        self.checked = checked
        self.focused = focused
        self.children: list[RNode] = []
        self.line = node_line(c, text, checked, focused)  # text-form line, None if not listed
        self.xml: str | None = None  # the whole subtree's XML, for shared static subtrees

    def contains(self, x: float, y: float) -> bool:
        return self.x1 <= x < self.x2 and self.y1 <= y < self.y2

    @property
    def center(self) -> tuple[int, int]:
        return (self.x1 + self.x2) // 2, (self.y1 + self.y2) // 2


class Frame:
    """The rendered tree of one screen in one state; observation forms are memoised."""

    __slots__ = ("screen", "package", "activity", "root", "nodes", "_xml", "_elements", "_text", "_view")

    def __init__(self, screen: CScreen, root: RNode, nodes: list[RNode]) -> None:
        self.screen = screen.id
        self.package = screen.package
        self.activity = screen.activity
        self.root = root
        self.nodes = nodes  # document (pre-)order
        self._xml: str | None = None
        self._elements: tuple[Element, ...] | None = None
        self._text: str | None = None
        self._view: ViewNode | None = None

    @property
    def xml(self) -> str:
        if self._xml is None:
            self._xml = frame_xml(self)
        return self._xml

    @property
    def elements(self) -> tuple[Element, ...]:
        if self._elements is None:
            self._elements = frame_elements(self)
        return self._elements

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = frame_text(self)
        return self._text

    @property
    def view(self) -> ViewNode:
        if self._view is None:
            self._view = frame_view(self)
        return self._view


class _Builder:
    def __init__(
        self, app: CompiledApp, state: dict[str, Any], offsets: dict[str, int], focus: Focus | None
    ) -> None:
        self.app, self.state, self.offsets, self.focus = app, state, offsets, focus
        self.nodes: list[RNode] = []
        # while drawing a list's rows: the list's bottom edge, past which nothing of a row shows
        self.clip: int | None = None

    def node(
        self, c: CNode, coll: str | None, rec: dict[str, Any] | None, item: int | None,
        idx: int, dy: int,
    ) -> RNode:
        if c.shared is not None:
            self.nodes.extend(c.shared_nodes)
            return c.shared
        lst = c.lst
        if lst is not None and lst.empty is not None and lst.empty_replaces \
                and not self.state.get(lst.collection):  # the app hides the empty list
            return self.node(lst.empty, coll, rec, item, idx, dy)
        text = c.static_text
        if text is None:
            raw = eval_expr(self.app, self.state, c.text, rec)
            text = sanitize(fmt_text(raw, c.text[3]))
            if c.password:
                text = masked(text)
        checked = c.static_checked
        if checked is None:
            checked = truthy(eval_expr(self.app, self.state, c.checked, rec))
        f = self.focus
        focused = c.editable and f is not None and f[0] == c.wid and f[1] == item
        n = RNode(c, coll, item, idx, dy, text, checked, focused)
        self.nodes.append(n)
        kids = n.children
        clip = self.clip
        for ch in c.children:
            if (clip is None or ch.y1 + dy < clip) and (
                    ch.shown is None or truthy(eval_expr(self.app, self.state, ch.shown, rec))):
                kids.append(self.node(ch, coll, rec, item, len(kids), dy))
        if c.lst is not None:
            self.items(n, c, dy)
        return n

    def items(self, n: RNode, c: CNode, dy: int) -> None:
        lst = c.lst
        assert lst is not None
        recs = self.state.get(lst.collection)
        if not isinstance(recs, list):
            return
        off = self.offsets.get(c.wid, 0)
        base = len(n.children)
        if not recs and lst.empty is not None:  # (`empty_replaces` drew it in the list's place)
            n.children.append(self.node(lst.empty, None, None, None, base, dy))
        outer = self.clip
        top = lst.item.y1 + dy
        if n.y1 <= top and top + lst.pitch < n.y2:  # bounds that hold two rows' tops: a list laid
            self.clip = n.y2 if outer is None else min(outer, n.y2)  # out downwards
        for slot in range(min(lst.max_visible, len(recs) - off)):
            ri, at = off + slot, dy + slot * lst.pitch
            if self.clip is not None and lst.item.y1 + at >= self.clip:
                break  # the row lies past the list's bottom edge
            if lst.pure:
                n.children.append(self.row(lst, recs[ri], ri, base + slot, at))
            else:
                n.children.append(self.node(lst.item, lst.collection, recs[ri], ri, base + slot, at))
        self.clip = outer

    def row(self, lst: CList, rec: dict[str, Any], ri: int, idx: int, dy: int) -> RNode:
        """A list row that reads only its record: reused across frames while it is unchanged."""
        f = self.focus
        fk = f if lst.editable and f is not None and f[1] == ri else None
        key = (ri, idx, dy, tuple(rec.items()), fk, self.clip)
        hit = lst.rows.get(key)
        if hit is not None:
            self.nodes.extend(hit[1])
            return hit[0]  # type: ignore[no-any-return]
        start = len(self.nodes)
        node = self.node(lst.item, lst.collection, rec, ri, idx, dy)
        node.xml = subtree_xml(node)
        if len(lst.rows) >= ROW_CACHE_SIZE:
            lst.rows.clear()
        lst.rows[key] = (node, self.nodes[start:])
        return node


def effective_offsets(
    screen: CScreen, state: dict[str, Any], offsets: dict[tuple[str, str], int]
) -> tuple[int, ...]:
    """Each list's scroll offset on `screen`, clamped to what its collection can show."""
    out = []
    for wid, coll, max_visible in screen.lists:
        recs = state.get(coll)
        n = len(recs) if isinstance(recs, list) else 0
        out.append(max(0, min(offsets.get((screen.id, wid), 0), n - max_visible)))
    return tuple(out)


def build_frame(
    app: CompiledApp, screen: CScreen, state: dict[str, Any], offsets: tuple[int, ...],
    focus: Focus | None,
) -> Frame:
    """Render `screen` in `state` with the given effective list offsets and focus."""
    b = _Builder(app, state, {wid: o for (wid, _, _), o in zip(screen.lists, offsets, strict=True)}, focus)
    root = b.node(screen.root, None, None, None, 0, 0)
    return Frame(screen, root, b.nodes)


# What a password field shows for each character: Android's bullet. A text already made of mask
# characters is what a recording showed (a masked value, or a placeholder such as "●●●●●●●●"
# that the field shows while empty) and is shown as it is.
BULLET = "\u2022"
MASKS = frozenset("\u2022\u25cf")


def masked(text: str) -> str:
    """A password field's text as the field shows it."""
    return "".join(ch if ch in MASKS else BULLET for ch in text)


def dispatch(node: RNode, x: float, y: float, accept: Callable[[RNode], bool]) -> RNode | None:
    """Android-style touch dispatch: children topmost (last) first, depth first; the first node
    containing the point that `accept`s the event handles it, else the event bubbles to the parent.
    A child is tried even where the point is outside its parent: dumps place views outside their
    parents' bounds (a WebView's popup menu under a short toolbar, a dialog's buttons below its
    panel), and a recorded tap on one landed there (the graph pass's flat hit test agrees)."""
    inside = node.x1 <= x < node.x2 and node.y1 <= y < node.y2
    if not inside and not node.c.spills:
        return None
    for ch in reversed(node.children):
        got = dispatch(ch, x, y, accept)
        if got is not None:
            return got
    return node if inside and accept(node) else None


def first_list(n: RNode) -> RNode | None:
    """The first list node under `n` in document order."""
    for ch in n.children:
        if ch.c.lst is not None:
            return ch
        got = first_list(ch)
        if got is not None:
            return got
    return None


def share_static(c: CNode, idx: int = 0) -> None:
    """Pre-render every static subtree under `c` once, to be shared by all frames."""
    if c.in_list:
        return
    if not c.dynamic:
        b = _Builder(cast("CompiledApp", None), {}, {}, None)  # static: never evaluates
        root = b.node(c, None, None, None, idx, 0)
        root.xml = subtree_xml(root)
        c.shared, c.shared_nodes = root, b.nodes
        return
    for i, ch in enumerate(c.children):
        share_static(ch, i)
