"""Parser of real `uiautomator dump` XML into the IR's `ViewNode` tree (ingest pass).

lxml stays inside this module. Problems are reported with the file's line numbers: malformed XML
(PW102), no <hierarchy>/<node> (PW103), bad bounds (PW104, one error per file with a count). Real
dumps contain views with negative width or height (x2 < x1: off-screen views); they are collapsed
to zero size at (x1, y1) so that hit-testing never lands on them, with one PW105 warning per file.
Several top-level nodes (several windows) are wrapped in one synthetic root (PW106). Coordinates
beyond +-`MAX_COORD` (PW172) and trees nested deeper than `MAX_XML_DEPTH` (PW171) are errors:
no screen has them, and every later pass walks the tree.
"""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from phoneworld.ingest import codes
from phoneworld.ingest.context import IngestContext
from phoneworld.inputs import MAX_COORD
from phoneworld.ir.base import Bounds, SourceRef
from phoneworld.ir.trace import ViewNode

logger = logging.getLogger(__name__)
MAX_XML_DEPTH = 120  # <node> levels; real dumps nest under 60, later passes recurse per level

_NUM = r"\s*(-?\d+)\s*"
_BOUNDS_RE = re.compile(rf"^\s*\[{_NUM},{_NUM}\]\s*\[{_NUM},{_NUM}\]\s*$")
_BOOL_ATTRS = {
    "checkable": "checkable", "checked": "checked", "clickable": "clickable",
    "long-clickable": "long_clickable", "scrollable": "scrollable", "focusable": "focusable",
    "focused": "focused", "enabled": "enabled", "selected": "selected", "password": "password",
}
_TEXT_ATTRS = {"text": "text", "resource-id": "resource_id", "content-desc": "content_desc",
               "package": "package"}


@dataclass(frozen=True)
class Screen:
    """One parsed dump: the view tree, the screen rotation and the package of the root node."""

    root: ViewNode
    rotation: int
    package: str


def parse_bounds(text: str) -> tuple[int, int, int, int] | None:
    """`"[x1,y1][x2,y2]"` as four ints, or None when the string has another shape."""
    match = _BOUNDS_RE.match(text)
    if match is None:
        return None
    # a number of thousands of digits is not converted (Python refuses); it is out of range
    x1, y1, x2, y2 = (int(g) if len(g) <= 12 else MAX_COORD + 1 for g in match.groups())
    return x1, y1, x2, y2


def in_range(*values: int) -> bool:
    """Whether every coordinate is within +-MAX_COORD device pixels."""
    return all(-MAX_COORD <= v <= MAX_COORD for v in values)


def normalise_bounds(x1: int, y1: int, x2: int, y2: int) -> tuple[Bounds, bool]:
    """Bounds with negative width/height collapsed to zero size at (x1, y1); True if collapsed."""
    collapsed = x2 < x1 or y2 < y1
    return Bounds(x1=x1, y1=y1, x2=max(x1, x2), y2=max(y1, y2)), collapsed


@dataclass
class _FileState:
    """Per-file bookkeeping, so repeated problems become one diagnostic with a count."""

    source: SourceRef
    bad_bounds: list[tuple[int | None, str]] = field(default_factory=list)
    negative: list[tuple[int | None, str]] = field(default_factory=list)
    bad_attrs: list[tuple[int | None, str]] = field(default_factory=list)
    far: list[tuple[int | None, str]] = field(default_factory=list)

    def at(self, line: int | None) -> SourceRef:
        return self.source.model_copy(update={"line": line})


def read_uixml(path: Path, ctx: IngestContext, episode: str | None = None,
               step: int | None = None) -> Screen | None:
    """Parse one dump file; None (after reporting errors) when it cannot be used."""
    source = ctx.src(path, episode=episode, step=step)
    data = ctx.read_bytes(path, source)
    return None if data is None else parse_uixml(data, ctx, source)


_PARSER_OPTIONS = {"resolve_entities": False, "no_network": True, "huge_tree": True,
                   "remove_comments": True, "remove_pis": True}


def parse_uixml(data: bytes, ctx: IngestContext, source: SourceRef) -> Screen | None:
    """Parse dump bytes; `source` names the file (its line is filled in per problem)."""
    state = _FileState(source)
    try:
        doc = _stream(data, state)
    except etree.XMLSyntaxError as exc:
        _report_syntax(data, exc, ctx, source)
        return None
    except _TooDeep as exc:
        _too_deep(ctx, source.model_copy(update={"line": exc.line}))
        return None
    if doc.tag != "hierarchy":
        ctx.report(codes.XML_STRUCTURE, f"the root element is <{doc.tag}>, not <hierarchy>",
                   source.model_copy(update={"line": doc.line}))
        return None
    if not doc.tops:
        ctx.report(codes.XML_STRUCTURE, "<hierarchy> holds no <node>",
                   source.model_copy(update={"line": doc.line}))
        return None
    _flush(state, ctx)
    if state.bad_bounds or state.far:
        return None
    roots = doc.tops
    root = roots[0] if len(roots) == 1 else _wrap(roots, ctx, state.at(doc.top_lines[1]))
    rotation = _int_or(doc.rotation, 0) or 0
    return Screen(root=root, rotation=rotation, package=root.package or _first_package(root))


def _report_syntax(data: bytes, exc: etree.XMLSyntaxError, ctx: IngestContext,
                   source: SourceRef) -> None:
    """Report malformed XML as the whole-document parser words it (the streaming parser says
    another thing of an empty file, say)."""
    try:
        whole = etree.fromstring(data, etree.XMLParser(**_PARSER_OPTIONS))
    except etree.XMLSyntaxError as error:
        exc = error
    else:
        if whole is None:
            ctx.report(codes.XML_SYNTAX, "the file is empty", source)
            return
    line = exc.lineno if exc.lineno else None
    if "depth" in str(exc.msg).lower():  # libxml2's own bound ("use XML_PARSE_HUGE")
        _too_deep(ctx, source.model_copy(update={"line": line}))
        return
    ctx.report(codes.XML_SYNTAX, f"malformed XML: {exc.msg}", source.model_copy(update={"line": line}))


class _TooDeep(Exception):
    def __init__(self, line: int | None) -> None:
        super().__init__(line)
        self.line = line


def _too_deep(ctx: IngestContext, source: SourceRef) -> None:
    ctx.report(codes.TOO_DEEP, f"the <node> tree is nested more than {MAX_XML_DEPTH} levels deep",
               source, f"real dumps nest far less than {MAX_XML_DEPTH} levels: the file is "
               "damaged or generated; re-run `uiautomator dump`")


@dataclass
class _Document:
    """What `parse_uixml` needs of a parsed dump: the root element and its top-level nodes."""

    tag: str
    line: int | None
    rotation: str | None
    tops: list[ViewNode] = field(default_factory=list)
    top_lines: list[int | None] = field(default_factory=list)


def _stream(data: bytes, state: _FileState) -> _Document:
    """Parse `data` element by element, converting the <node>s under <hierarchy> (direct children
    of it or of such a node, as `iterchildren("node")` reads them) and dropping each element once
    it is converted: a whole lxml tree of a large dump takes several times the memory of the
    view nodes. Attributes are read on each start tag, so problems are recorded in document
    order, parents before children."""
    doc: _Document | None = None
    # Per open element: its fields and converted children if it is a node that is read, else None.
    open_: list[tuple[dict[str, object], list[ViewNode]] | None] = []
    for event, el in etree.iterparse(io.BytesIO(data), events=("start", "end"), **_PARSER_OPTIONS):
        if event == "start":
            line: int | None = getattr(el, "sourceline", None)
            if doc is None:
                doc = _Document(el.tag, line, el.get("rotation"))
                open_.append(None)
                continue
            parent = open_[-1]
            if el.tag != "node" or (parent is None and len(open_) > 1) or doc.tag != "hierarchy":
                open_.append(None)
                continue
            if parent is None:
                doc.top_lines.append(line)
            if len(open_) > MAX_XML_DEPTH:  # <hierarchy> and the <node>s above this one
                raise _TooDeep(line)
            open_.append((_fields(el, line, state), []))
            continue
        entry = open_.pop()
        if entry is not None:
            fields, children = entry
            node = ViewNode(children=tuple(children), **fields)  # type: ignore[arg-type]
            parent = open_[-1]
            (parent[1] if parent is not None else doc.tops).append(node)  # type: ignore[union-attr]
        if open_:
            el.clear(keep_tail=True)
            while el.getprevious() is not None:
                del el.getparent()[0]
    assert doc is not None  # iterparse raises on a document without an element
    return doc


def _fields(el: etree._Element, line: int | None, state: _FileState) -> dict[str, object]:
    """The `ViewNode` fields of one <node> but its children (unusable bounds are recorded in
    `state` and read as empty)."""
    attrs = dict(el.items())  # one call into lxml instead of one per attribute
    raw = attrs.get("bounds")
    parsed = parse_bounds(raw) if raw is not None else None
    if parsed is not None and not in_range(*parsed):
        state.far.append((line, raw or ""))
        parsed = (0, 0, 0, 0)
    if parsed is None:
        state.bad_bounds.append((line, "no bounds attribute" if raw is None else f'"{raw}"'))
        bounds = Bounds(x1=0, y1=0, x2=0, y2=0)
    else:
        bounds, collapsed = normalise_bounds(*parsed)
        if collapsed:
            state.negative.append((line, raw or ""))
    fields: dict[str, object] = {key: attrs.get(attr, "") for attr, key in _TEXT_ATTRS.items()}
    for attr, key in _BOOL_ATTRS.items():
        fields[key] = _bool(attrs.get(attr), key == "enabled", attr, line, state)
    index_raw = attrs.get("index", "0")
    index = _int_or(index_raw, None)
    if index is None:
        state.bad_attrs.append((line, f'index="{index_raw}"'))
        index = 0
    return {"cls": attrs.get("class", ""), "bounds": bounds, "index": index, **fields}


def _bool(value: str | None, default: bool, attr: str, line: int | None, state: _FileState) -> bool:
    if value is None:
        return default
    if value == "true" or value == "false":  # what uiautomator writes: no need to normalise
        return value == "true"
    low = value.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    state.bad_attrs.append((line, f'{attr}="{value}"'))
    return default


def _int_or(value: str | None, default: int | None) -> int | None:
    try:
        number = int(value) if value is not None else default
    except ValueError:
        return default
    return number if number is None or in_range(number) else default


def _flush(state: _FileState, ctx: IngestContext) -> None:
    def more(items: list[tuple[int | None, str]]) -> str:
        return f" ({len(items) - 1} more in this file)" if len(items) > 1 else ""

    if state.bad_bounds:
        line, what = state.bad_bounds[0]
        message = f"bounds {what} is not \"[x1,y1][x2,y2]\"{more(state.bad_bounds)}"
        ctx.report(codes.BAD_BOUNDS, message, state.at(line))
    if state.negative:
        line, what = state.negative[0]
        ctx.report(codes.NEGATIVE_BOUNDS, f"bounds \"{what}\" have negative width or height"
                   f"{more(state.negative)}; collapsed to zero size at (x1, y1)", state.at(line))
    if state.far:
        line, what = state.far[0]
        ctx.report(codes.OUT_OF_RANGE, f"bounds \"{what[:80]}\" lie more than {MAX_COORD} pixels "
                   f"away{more(state.far)}", state.at(line))
    if state.bad_attrs:
        line, what = state.bad_attrs[0]
        ctx.report(codes.BAD_ATTRIBUTE, f"{what} is not valid{more(state.bad_attrs)}; "
                   "the default was used", state.at(line))


def _wrap(roots: list[ViewNode], ctx: IngestContext, source: SourceRef) -> ViewNode:
    ctx.report(codes.MANY_WINDOWS, f"{len(roots)} top-level nodes; wrapped in one FrameLayout",
               source)
    bounds = Bounds(x1=min(r.bounds.x1 for r in roots), y1=min(r.bounds.y1 for r in roots),
                    x2=max(r.bounds.x2 for r in roots), y2=max(r.bounds.y2 for r in roots))
    return ViewNode(cls="android.widget.FrameLayout", bounds=bounds, package=roots[0].package,
                    children=tuple(roots))


def _first_package(root: ViewNode) -> str:
    for node in root.walk():
        if node.package:
            return node.package
    return ""
