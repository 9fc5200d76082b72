"""Compiled widget trees: a screen's `Widget`s as `CNode`s with everything static precomputed.

Per node: expressions as tuples, literal texts sanitized, the XML attribute runs around the dynamic
values (text, checked, focused, bounds) pre-escaped, and the text-form line pieces. Subtrees
outside lists with nothing dynamic (literal texts and checked flags, no editable field) are
rendered once, at compile time, and shared by every frame (`CNode.shared`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from phoneworld.ir.app import Widget
from phoneworld.runtime.semantics import (
    E_CHOOSE, E_COUNT, E_INPUT, E_ITEM, E_LIT, E_SEL, E_VAR, CExpr, compile_expr,
)
from phoneworld.runtime.xmltext import escape_attr, sanitize

if TYPE_CHECKING:
    from phoneworld.runtime.frame import RNode

EDITABLE_CLASSES = ("EditText", "AutoCompleteTextView")
ROW_TAGS = (E_LIT, E_ITEM, E_INPUT)
ROW_CACHE_SIZE = 4096


@dataclass(slots=True, eq=False)
class CList:
    collection: str
    item: CNode
    pitch: int
    max_visible: int
    scroll: int = 0  # records one scroll moves it by (`ListSpec.scroll`; 0: max_visible - 1)
    pure: bool = False  # the item template reads only its record: rendered rows can be reused
    empty: CNode | None = None  # drawn while the collection has no records (`ListSpec.empty`)
    empty_replaces: bool = True  # ... in the container's place (else inside it)
    editable: bool = False  # the template has an editable widget (so focus matters)
    rows: dict[Any, Any] = field(default_factory=dict)  # row cache, see frame._Builder.items


@dataclass(slots=True, eq=False)
class CNode:
    """One widget of a screen, ready to render."""

    wid: str
    cls: str  # sanitized, as are resource_id and content_desc
    resource_id: str
    content_desc: str
    text: CExpr
    checked: CExpr
    x1: int
    y1: int
    x2: int
    y2: int
    checkable: bool
    clickable: bool
    long_clickable: bool
    scrollable: bool
    focusable: bool
    enabled: bool
    password: bool
    selected: bool
    editable: bool
    text_in_desc: bool  # the text is drawn as the content-desc (a Flutter node's)
    children: tuple[CNode, ...]
    lst: CList | None
    in_list: bool
    static_text: str | None = None
    static_checked: bool | None = None
    shown: CExpr | None = None  # drawn only while this reads true (`Widget.shown`)
    xa: str = ""  # XML between text and checked (`text_in_desc`: between it and the content-desc)
    xd: str = ""  # `text_in_desc`: XML between the content-desc and checked
    xb: str = ""  # between checked and focused
    xc: str = ""  # between focused and bounds
    bounds: str = ""  # "[x1,y1][x2,y2]" at the template position
    visible: bool = True
    always: bool = False  # in the text form whatever its text
    lp: str = ""  # text-form pieces, see render.node_line
    ldesc: str = ""
    lf1: str = ""
    lf2: str = ""
    lf3: str = ""
    dynamic: bool = True  # the subtree depends on state or focus
    spills: bool = False  # a view under it may lie outside its bounds (touch dispatch descends)
    shared: RNode | None = None
    shared_nodes: list[RNode] = field(default_factory=list)


def _tf(v: bool) -> str:
    return "true" if v else "false"


def _lit_text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def quote(s: str) -> str:
    """A text-form string literal: double quotes, backslash escapes for quote, backslash, CR, LF."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace(
        "\r", "\\r") + '"'


def _xml_runs(w: Widget, n: CNode, package: str) -> None:
    pkg = escape_attr(sanitize(package))
    n.xa = (
        f'" resource-id="{escape_attr(n.resource_id)}" class="{escape_attr(n.cls)}" package="{pkg}"'
        f' content-desc="'
    )
    n.xd = f'" checkable="{_tf(w.checkable)}" checked="'
    if not n.text_in_desc:
        n.xa += escape_attr(n.content_desc) + n.xd
    n.xb = (
        f'" clickable="{_tf(w.clickable)}" enabled="{_tf(w.enabled)}"'
        f' focusable="{_tf(w.focusable)}" focused="'
    )
    n.xc = (
        f'" scrollable="{_tf(w.scrollable)}" long-clickable="{_tf(w.long_clickable)}"'
        f' password="{_tf(w.password)}" selected="{_tf(w.selected)}" bounds="'
    )
    n.bounds = f"[{n.x1},{n.y1}][{n.x2},{n.y2}]"


def _line_pieces(n: CNode) -> None:
    n.visible = n.x2 > n.x1 and n.y2 > n.y1
    n.always = bool(n.clickable or n.long_clickable or n.checkable or n.editable or n.scrollable
                    or n.content_desc)
    n.lp = n.cls.rsplit(".", 1)[-1]
    if n.resource_id:
        n.lp += " id=" + n.resource_id.split(":id/", 1)[-1]
    n.ldesc = " desc=" + quote(n.content_desc) if n.content_desc and not n.text_in_desc else ""
    n.lf1 = " editable" if n.editable and not n.cls.endswith("EditText") else ""
    n.lf2 = (
        (" clickable" if n.clickable and not n.checkable and not n.editable else "")
        + (" long-clickable" if n.long_clickable else "")
        + (" scrollable" if n.scrollable else "")
    )
    n.lf3 = "" if n.enabled else " disabled"


class TreeCompiler:
    """Compiles one screen's widget tree, collecting what the screen reads and its lists."""

    def __init__(self, package: str, selection_of: dict[str, str]) -> None:
        self.package = package
        self.selection_of = selection_of
        self.nodes: dict[str, CNode] = {}
        self.reads: set[str] = set()
        self.lists: list[tuple[str, str, int]] = []

    def _read(self, e: CExpr) -> None:
        tag, a = e[0], e[1]
        if tag in (E_VAR, E_COUNT):
            self.reads.add(a)
        elif tag == E_CHOOSE:
            self._read(a)
        elif tag == E_SEL:
            self.reads.add(a)
            if a in self.selection_of:
                self.reads.add(self.selection_of[a])

    def widget(self, w: Widget, in_list: bool = False) -> CNode:
        text, checked = compile_expr(w.text), compile_expr(w.checked)
        self._read(text)
        self._read(checked)
        children = tuple(self.widget(c, in_list) for c in w.children)
        lst = None
        if w.list is not None:
            self.reads.add(w.list.collection)
            self.lists.append((w.wid, w.list.collection, max(0, w.list.max_visible)))
            item = self.widget(w.list.item, True)
            lst = CList(w.list.collection, item, w.list.pitch, max(0, w.list.max_visible),
                        max(0, w.list.scroll))
            lst.pure, lst.editable = _row_traits(item)
            if w.list.empty is not None:
                lst.empty, lst.empty_replaces = self.widget(w.list.empty), w.list.empty_replaces
        b = w.bounds
        n = CNode(
            wid=w.wid, cls=sanitize(w.cls), resource_id=sanitize(w.resource_id),
            content_desc=sanitize(w.content_desc), text=text, checked=checked,
            x1=b.x1, y1=b.y1, x2=b.x2, y2=b.y2, checkable=w.checkable, clickable=w.clickable,
            long_clickable=w.long_clickable, scrollable=w.scrollable, focusable=w.focusable,
            enabled=w.enabled, password=w.password, selected=w.selected,
            editable=w.editable or w.cls.endswith(EDITABLE_CLASSES),
            text_in_desc=w.text_in_desc, children=children, lst=lst,
            in_list=in_list,
        )
        if text[0] == E_LIT and not w.password:
            n.static_text = sanitize(_lit_text(text[1]))
        if checked[0] == E_LIT:
            n.static_checked = bool(checked[1])
        if w.shown is not None:
            n.shown = compile_expr(w.shown)
            self._read(n.shown)
        n.dynamic = (
            n.static_text is None or n.static_checked is None or lst is not None or n.editable
            or in_list or n.shown is not None or any(c.dynamic for c in children)
        )
        n.spills = any(c.spills or not _within(c, n) for c in children) or (
            lst is not None and (lst.item.spills or not _within(
                lst.item, n, (max(1, lst.max_visible) - 1) * lst.pitch))) or (
            lst is not None and lst.empty is not None and (
                lst.empty.spills or not _within(lst.empty, n)))
        _xml_runs(w, n, self.package)
        _line_pieces(n)
        self.nodes[w.wid] = n
        return n


def _within(inner: CNode, outer: CNode, below: int = 0) -> bool:
    """Whether `inner` (and, `below`: as far again lower down, a list's last shown row) lies in
    `outer`'s bounds."""
    return (outer.x1 <= inner.x1 and inner.x2 <= outer.x2 and outer.y1 <= inner.y1
            and inner.y2 + below <= outer.y2)


def _row_traits(item: CNode) -> tuple[bool, bool]:
    """(reads nothing but its record, has an editable widget) for a list item template."""
    pure, editable, stack = True, False, [item]
    while stack:
        n = stack.pop()
        pure = pure and n.lst is None and n.text[0] in ROW_TAGS and n.checked[0] in ROW_TAGS \
            and (n.shown is None or n.shown[0] in ROW_TAGS)
        editable = editable or n.editable
        stack.extend(n.children)
    return pure, editable
