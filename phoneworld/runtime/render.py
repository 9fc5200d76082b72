"""Observation forms of a rendered screen: uiautomator XML, ViewNode trees, and the LM text form.

The XML is byte-for-byte the layout of a real `uiautomator dump` (attribute order, ` />` for
leaves, no newlines, `&#10;` for newlines in values). The text form lists one line per
interesting node (clickable, long-clickable, checkable, editable, scrollable, or with a text or
content-desc) with the element id the env accepts in actions:

    [0] TextView "Notes"
    [1] ImageButton id=btn_add desc="Add note" clickable
    [4] EditText id=title_input "Buy milk" focused
    [7] CheckBox "Done" checked

Both forms can be made from a simulator `Frame` (fast path) or from any `ViewNode` tree (for
backends that read a device's dump), and agree for the same tree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import ViewNode
from phoneworld.runtime.widgets import quote
from phoneworld.runtime.xmltext import escape_attr, sanitize

if TYPE_CHECKING:
    from phoneworld.runtime.frame import Frame, RNode
    from phoneworld.runtime.widgets import CNode

XML_HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"


class Element(NamedTuple):
    """One line of the text form; `x`, `y` is where the env taps for `{"element": id}`."""

    id: int
    cls: str
    resource_id: str
    text: str
    content_desc: str
    clickable: bool
    long_clickable: bool
    checkable: bool
    checked: bool
    editable: bool
    scrollable: bool
    focused: bool
    enabled: bool
    x: int
    y: int
    wid: str | None = None  # the spec widget (simulator only)
    item: int | None = None  # the record index inside a list (simulator only)


# ----------------------------------------------------------------------------- XML


def frame_xml(frame: Frame, rotation: int = 0) -> str:
    out = [XML_HEADER, f'<hierarchy rotation="{rotation}">']
    _node_xml(frame.root, out)
    out.append("</hierarchy>")
    return "".join(out)


def subtree_xml(n: RNode) -> str:
    out: list[str] = []
    _node_xml(n, out)
    return "".join(out)


def _node_xml(n: RNode, out: list[str]) -> None:
    if n.xml is not None:
        out.append(n.xml)
        return
    c = n.c
    bounds = c.bounds if n.y1 == c.y1 else f"[{n.x1},{n.y1}][{n.x2},{n.y2}]"
    text = f'{c.xa}{escape_attr(n.text)}{c.xd}' if c.text_in_desc else f'{escape_attr(n.text)}{c.xa}'
    out.append(
        f'<node index="{n.idx}" text="{text}{"true" if n.checked else "false"}'
        f'{c.xb}{"true" if n.focused else "false"}{c.xc}{bounds}"'
    )
    if n.children:
        out.append(">")
        for ch in n.children:
            _node_xml(ch, out)
        out.append("</node>")
    else:
        out.append(" />")


def view_xml(root: ViewNode, rotation: int = 0) -> str:
    """The uiautomator XML of any ViewNode tree (values are sanitized and escaped)."""
    out = [XML_HEADER, f'<hierarchy rotation="{rotation}">']
    _view_node_xml(root, out)
    out.append("</hierarchy>")
    return "".join(out)


def _tf(v: bool) -> str:
    return "true" if v else "false"


def drawn_text(text: str, content_desc: str, text_in_desc: bool) -> tuple[str, str]:
    """(text, content-desc) as a device shows them: a text drawn as the description
    (`ViewNode.text_in_desc`) in its place."""
    return ("", text) if text_in_desc else (text, content_desc)


def _view_node_xml(n: ViewNode, out: list[str]) -> None:
    def a(s: str) -> str:
        return escape_attr(sanitize(s))

    text, desc = drawn_text(n.text, n.content_desc, n.text_in_desc)
    out.append(
        f'<node index="{n.index}" text="{a(text)}" resource-id="{a(n.resource_id)}"'
        f' class="{a(n.cls)}" package="{a(n.package)}" content-desc="{a(desc)}"'
        f' checkable="{_tf(n.checkable)}" checked="{_tf(n.checked)}" clickable="{_tf(n.clickable)}"'
        f' enabled="{_tf(n.enabled)}" focusable="{_tf(n.focusable)}" focused="{_tf(n.focused)}"'
        f' scrollable="{_tf(n.scrollable)}" long-clickable="{_tf(n.long_clickable)}"'
        f' password="{_tf(n.password)}" selected="{_tf(n.selected)}" bounds="{n.bounds.render()}"'
    )
    if n.children:
        out.append(">")
        for ch in n.children:
            _view_node_xml(ch, out)
        out.append("</node>")
    else:
        out.append(" />")


# ----------------------------------------------------------------------------- ViewNode


def frame_view(frame: Frame) -> ViewNode:
    """The frame as the trace IR's ViewNode tree (what the XML parses back to)."""
    return _rnode_view(frame.root, frame.package)


def _rnode_view(n: RNode, package: str) -> ViewNode:
    c = n.c
    return ViewNode(  # type: ignore[call-arg]  # `cls` is the populate-by-name of alias `class`
        cls=c.cls, resource_id=c.resource_id, text=n.text, content_desc=c.content_desc,
        text_in_desc=c.text_in_desc, package=sanitize(package),
        bounds=Bounds(x1=n.x1, y1=n.y1, x2=n.x2, y2=n.y2), index=n.idx,
        checkable=c.checkable, checked=n.checked, clickable=c.clickable,
        long_clickable=c.long_clickable, scrollable=c.scrollable, focusable=c.focusable,
        focused=n.focused, enabled=c.enabled, selected=c.selected, password=c.password,
        children=tuple(_rnode_view(ch, package) for ch in n.children),
    )


# ----------------------------------------------------------------------------- text form


def node_line(c: CNode, text: str, checked: bool, focused: bool) -> str | None:
    """A rendered node's text-form line without its "[id] ", or None when it is not listed."""
    if not c.visible or not (c.always or text):
        return None
    s = c.lp
    if c.text_in_desc:
        s = f"{s} desc={quote(text)}" if text else s
    elif text:
        s = f"{s} {quote(text)}"
    if c.ldesc and c.content_desc != text:
        s += c.ldesc
    s += c.lf1
    if c.checkable:
        s += " checked" if checked else " unchecked"
    s += c.lf2
    if focused:
        s += " focused"
    return s + c.lf3


def frame_text(frame: Frame) -> str:
    lines = [n.line for n in frame.nodes if n.line is not None]
    return "\n".join([f"[{i}] {line}" for i, line in enumerate(lines)])


def frame_elements(frame: Frame) -> tuple[Element, ...]:
    out: list[Element] = []
    for n in frame.nodes:
        if n.line is None:
            continue
        c = n.c
        text, desc = drawn_text(n.text, c.content_desc, c.text_in_desc)
        out.append(Element(
            len(out), c.cls, c.resource_id, text, desc, c.clickable,
            c.long_clickable, c.checkable, n.checked, c.editable, c.scrollable, n.focused,
            c.enabled, (n.x1 + n.x2) // 2, (n.y1 + n.y2) // 2, c.wid, n.item,
        ))
    return tuple(out)


def elements_from_view(root: ViewNode) -> tuple[Element, ...]:
    """The text-form elements of any ViewNode tree (e.g. a device's parsed dump)."""
    out: list[Element] = []
    for n in root.walk():
        b = n.bounds
        if b.x2 <= b.x1 or b.y2 <= b.y1:
            continue
        if not (n.clickable or n.long_clickable or n.checkable or n.editable or n.scrollable
                or n.text or n.content_desc):
            continue
        cx, cy = b.center
        text, desc = drawn_text(n.text, n.content_desc, n.text_in_desc)
        out.append(Element(
            len(out), n.cls, n.resource_id, text, desc, n.clickable, n.long_clickable,
            n.checkable, n.checked, n.editable, n.scrollable, n.focused, n.enabled, cx, cy,
        ))
    return tuple(out)


def element_line(e: Element) -> str:
    parts = [f"[{e.id}]", e.cls.rsplit(".", 1)[-1]]
    if e.resource_id:
        parts.append("id=" + e.resource_id.split(":id/", 1)[-1])
    if e.text:
        parts.append(quote(e.text))
    if e.content_desc and e.content_desc != e.text:
        parts.append("desc=" + quote(e.content_desc))
    if e.editable and not e.cls.endswith("EditText"):
        parts.append("editable")
    if e.checkable:
        parts.append("checked" if e.checked else "unchecked")
    elif e.clickable and not e.editable:
        parts.append("clickable")
    if e.long_clickable:
        parts.append("long-clickable")
    if e.scrollable:
        parts.append("scrollable")
    if e.focused:
        parts.append("focused")
    if not e.enabled:
        parts.append("disabled")
    return " ".join(parts)


def text_form(elements: tuple[Element, ...]) -> str:
    return "\n".join(element_line(e) for e in elements)
