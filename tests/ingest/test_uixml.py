"""The uiautomator XML parser: bounds, attributes, and one diagnostic per kind of damage."""

from __future__ import annotations

from pathlib import Path

import pytest

from phoneworld.ingest.context import IngestContext
from phoneworld.ingest.uixml import (
    normalise_bounds,
    parse_bounds,
    parse_uixml,
    read_uixml,
)
from phoneworld.ir.base import SourceRef
from phoneworld.ir.diagnostics import Diagnostics

from .support import dump, node, real_folder


def parse(text: str) -> tuple[object, Diagnostics]:
    diagnostics = Diagnostics()
    ctx = IngestContext(root=Path("/traces"), diagnostics=diagnostics)
    screen = parse_uixml(text.encode(), ctx, SourceRef(file="traces/ep/0000.xml", episode="ep",
                                                        step=0))
    return screen, diagnostics


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[0,0][1080,1920]", (0, 0, 1080, 1920)),
        ("[ 10 , 20 ][30,40]", (10, 20, 30, 40)),
        ("[1438,493][1080,532]", (1438, 493, 1080, 532)),
        ("[-5,-7][3,4]", (-5, -7, 3, 4)),
        ("[0,0][1080", None),
        ("0,0,1080,1920", None),
        ("[0,0][1080,1920]x", None),
        ("[a,0][1,1]", None),
        ("", None),
    ],
    ids=["plain", "spaces", "negative-width", "negative-coords", "truncated", "csv", "trailing",
         "letter", "empty"],
)
def test_parse_bounds(text: str, expected: tuple[int, int, int, int] | None) -> None:
    assert parse_bounds(text) == expected


@pytest.mark.parametrize(
    ("raw", "expected", "collapsed"),
    [
        ((0, 0, 10, 10), (0, 0, 10, 10), False),
        ((1438, 493, 1080, 532), (1438, 493, 1438, 532), True),
        ((5, 50, 10, 40), (5, 50, 10, 50), True),
        ((5, 5, 5, 5), (5, 5, 5, 5), False),
    ],
    ids=["normal", "negative-width", "negative-height", "empty"],
)
def test_normalise_bounds(raw: tuple[int, int, int, int], expected: tuple[int, int, int, int],
                          collapsed: bool) -> None:
    bounds, was_collapsed = normalise_bounds(*raw)
    assert (bounds.x1, bounds.y1, bounds.x2, bounds.y2) == expected
    assert was_collapsed is collapsed
    assert bounds.area == 0 or not collapsed


def test_parses_a_tree_with_all_attributes() -> None:
    child = ('<node index="1" text="Save" resource-id="com.x:id/save" '
             'class="android.widget.Button" package="com.x" content-desc="save it" '
             'checkable="true" checked="true" '
             'clickable="true" enabled="false" focusable="true" focused="true" scrollable="true" '
             'long-clickable="true" password="true" selected="true" bounds="[1,2][3,4]" />')
    screen, diagnostics = parse(dump(node(pkg="com.x", children=child), rotation=1))
    assert diagnostics.items == []
    assert screen is not None
    root = screen.root  # type: ignore[attr-defined]
    assert screen.rotation == 1 and screen.package == "com.x"  # type: ignore[attr-defined]
    button = root.children[0]
    assert (button.cls, button.text, button.resource_id, button.content_desc) == (
        "android.widget.Button", "Save", "com.x:id/save", "save it")
    assert button.index == 1 and button.bounds.render() == "[1,2][3,4]"
    flags = ("checkable", "checked", "clickable", "long_clickable", "scrollable", "focusable",
             "focused", "selected", "password")
    assert all(getattr(button, f) for f in flags)
    assert button.enabled is False


@pytest.mark.parametrize(
    ("text", "code", "line"),
    [
        ("<hierarchy><node bounds='[0,0][1,1]'", "PW102", 1),
        ("", "PW102", 1),
        ("<?xml version='1.0'?>\n<dump>\n</dump>", "PW103", 2),
        ("<hierarchy rotation='0'>\n</hierarchy>", "PW103", 1),
        (dump(node(children=node(bounds="[0,0][1080"))), "PW104", 3),
        (dump(node(children=node(bounds="X"))).replace(' bounds="X"', ""), "PW104", 3),
    ],
    ids=["truncated", "empty", "wrong-root", "no-node", "bad-bounds", "no-bounds"],
)
def test_unusable_dumps_are_errors_with_lines(text: str, code: str, line: int | None) -> None:
    screen, diagnostics = parse(text)
    assert screen is None
    assert [(d.severity, d.code) for d in diagnostics.items] == [("error", code)]
    found = diagnostics.items[0]
    assert found.source.line == line
    assert (found.source.file, found.source.step) == ("traces/ep/0000.xml", 0)
    assert found.hint


def test_bad_bounds_are_one_error_per_file_with_a_count() -> None:
    kids = "\n".join(node(bounds=f"[0,0][{i}") for i in range(3))
    screen, diagnostics = parse(dump(node(children="\n" + kids)))
    assert screen is None
    assert len(diagnostics.items) == 1
    assert "2 more in this file" in diagnostics.items[0].message


def test_negative_bounds_are_collapsed_with_one_warning() -> None:
    kids = "\n" + node(bounds="[1438,493][1080,532]") + "\n" + node(bounds="[1259,10][1080,20]")
    screen, diagnostics = parse(dump(node(children=kids)))
    assert screen is not None
    assert [(d.severity, d.code, d.source.line) for d in diagnostics.items] == [
        ("warning", "PW105", 4)]
    assert "1 more in this file" in diagnostics.items[0].message
    first = screen.root.children[0]  # type: ignore[attr-defined]
    assert (first.bounds.x1, first.bounds.x2, first.bounds.area) == (1438, 1438, 0)


def test_several_windows_are_wrapped() -> None:
    bar = node(bounds="[0,1800][1080,1920]", pkg="com.android.systemui")
    screen, diagnostics = parse(dump(node(bounds="[0,0][1080,1800]"), bar))
    assert [d.code for d in diagnostics.items] == ["PW106"]
    root = screen.root  # type: ignore[attr-defined]
    assert len(root.children) == 2 and root.bounds.render() == "[0,0][1080,1920]"


def test_bad_boolean_uses_the_default_with_a_warning() -> None:
    screen, diagnostics = parse(dump(node().replace('clickable="false"', 'clickable="yes"')))
    assert screen is not None
    assert [(d.severity, d.code) for d in diagnostics.items] == [("warning", "PW107")]


def test_unreadable_file_is_reported(tmp_path: Path) -> None:
    diagnostics = Diagnostics()
    ctx = IngestContext(root=tmp_path, diagnostics=diagnostics)
    assert read_uixml(tmp_path / "nope.xml", ctx, "ep", 3) is None
    assert diagnostics.items[0].source.step == 3


def test_real_llamatouch_dump_keeps_every_node() -> None:
    folder = real_folder("llamatouch") / "trace_7"
    diagnostics = Diagnostics()
    ctx = IngestContext(root=folder, diagnostics=diagnostics)
    for i in range(12):
        path = folder / f"{i}.xml"
        screen = read_uixml(path, ctx)
        assert screen is not None
        assert len(screen.root.walk()) == path.read_text(encoding="utf-8").count("<node ")
    assert diagnostics.items == []


# The parser streams the document (a whole lxml tree of a large dump took several times the memory
# of the view nodes); these pin what it reads as the whole-tree reading did.

def test_nodes_under_another_element_are_not_read() -> None:
    hidden = "<extra>" + node(bounds="[0,0][1080") + "</extra>"
    screen, diagnostics = parse(dump(node(children=hidden + node(text="kept"))))
    assert screen is not None and not diagnostics.items
    assert [n.text for n in screen.root.walk()] == ["", "kept"]


def test_problems_are_reported_parent_first() -> None:
    inner = node(bounds="[0,0][2", children="\n")
    screen, diagnostics = parse(dump(node(bounds="[0,0][1", children="\n" + inner)))
    assert screen is None
    (error,) = diagnostics.items
    assert error.code == "PW104" and error.source.line == 3 and '"[0,0][1"' in error.message


def test_nesting_up_to_the_limit_is_read_and_deeper_is_an_error() -> None:
    from phoneworld.ingest.uixml import MAX_XML_DEPTH

    for depth in (MAX_XML_DEPTH, 1500):
        text = dump("<node bounds='[0,0][1,1]'>" * depth + "</node>" * depth)
        screen, diagnostics = parse(text)
        if depth <= MAX_XML_DEPTH:
            assert screen is not None and len(screen.root.walk()) == depth
        else:
            assert screen is None and [d.code for d in diagnostics.items] == ["PW171"]


@pytest.mark.parametrize("text", ["", "<hierarchy>", "<hierarchy/>junk"],
                         ids=["empty", "truncated", "trailing"])
def test_malformed_xml_is_worded_as_the_whole_document_parser_does(text: str) -> None:
    from lxml import etree

    with pytest.raises(etree.XMLSyntaxError) as whole:
        etree.fromstring(text.encode(), etree.XMLParser())
    screen, diagnostics = parse(text)
    (error,) = diagnostics.items
    assert screen is None and error.code == "PW102" and whole.value.msg in error.message
