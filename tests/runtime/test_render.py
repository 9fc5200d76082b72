"""Observation forms: uiautomator XML (format, escaping), ViewNode, text form, screenshots."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lxml import etree

from phoneworld.ingest.context import IngestContext
from phoneworld.ingest.uixml import parse_uixml
from phoneworld.ir.app import AppSpec, StateVar, Var, Widget
from phoneworld.ir.base import Bounds, SourceRef
from phoneworld.ir.diagnostics import Diagnostics
from phoneworld.ir.trace import Click, TypeText, ViewNode
from phoneworld.runtime import Simulator
from phoneworld.runtime.backend import SimBackend
from phoneworld.runtime.render import elements_from_view, text_form, view_xml
from phoneworld.runtime.screenshot import render_frame

from ..conftest import real_set
from .notes_app import INITIAL, B, five_notes, mini_app

SCREENS = ["s00_list", "s01_editor", "s02_detail", "s03_settings"]
HOSTILE = [
    '"); Runtime.exec("rm -rf /', '</node><node text="pwned">', "a & b < c > d 'q'",
    "line1\nline2\r\tend", "ctrl\x01\x1f\x7f\x85x", "lone\ud800surrogate\ufffe", "ünïcødé 中文 🎉",
]
BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
ATTRS = ["index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked",
         "clickable", "enabled", "focusable", "focused", "scrollable", "long-clickable", "password",
         "selected", "bounds"]


def parse_dump(xml: str) -> ViewNode:
    """A uiautomator dump back into the trace IR (single root window)."""
    root = etree.fromstring(xml.encode("utf-8"))
    assert root.tag == "hierarchy" and len(root) == 1
    return _node(root[0])


def _node(el: Any) -> ViewNode:
    a = el.attrib
    assert list(a.keys()) == ATTRS
    x1, y1, x2, y2 = map(int, BOUNDS.fullmatch(a["bounds"]).groups())  # type: ignore[union-attr]
    flags = {k.replace("-", "_"): a[k] == "true" for k in ATTRS[6:16]}
    return ViewNode(cls=a["class"], resource_id=a["resource-id"], text=a["text"],
                    content_desc=a["content-desc"], package=a["package"], index=int(a["index"]),
                    bounds=Bounds(x1=x1, y1=y1, x2=x2, y2=y2), children=tuple(_node(c) for c in el),
                    **flags)


def sim_at(app: AppSpec, screen: str, state: dict[str, Any] | None = None) -> Simulator:
    sim = Simulator(app)
    sim.set_position(screen, state if state is not None else {**five_notes(), "selected_note": 2})
    return sim


@pytest.mark.parametrize("screen", SCREENS)
def test_xml_parses_back_to_the_view(app: AppSpec, screen: str) -> None:
    sim = sim_at(app, screen)
    assert parse_dump(sim.xml()) == sim.view()
    assert view_xml(sim.view()) == sim.xml()


@pytest.mark.parametrize("screen", SCREENS)
def test_the_compilers_dump_parser_reads_the_view_back(app: AppSpec, screen: str) -> None:
    sim = sim_at(app, screen, {**INITIAL, "notes": [{"title": h, "done": False} for h in HOSTILE]})
    ctx = IngestContext(root=Path("."), diagnostics=Diagnostics())
    parsed = parse_uixml(sim.xml().encode("utf-8"), ctx, SourceRef(file="sim.xml"))
    assert parsed is not None and not ctx.diagnostics.items
    assert parsed.root == sim.view() and parsed.package == "com.example.notes"


def test_xml_layout_matches_a_real_dump(app: AppSpec) -> None:
    xml = Simulator(app).xml()
    assert xml.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
                          '<hierarchy rotation="0"><node index="0" text="" resource-id="" '
                          'class="android.widget.FrameLayout" package="com.example.notes"')
    assert "\n" not in xml and xml.endswith("</node></hierarchy>")
    assert ' />' in xml and "/>" not in xml.replace(" />", "")


def test_attribute_order_is_that_of_a_recorded_dump() -> None:
    real = real_set("llamatouch") / "trace_7" / "0.xml"
    first = etree.fromstring(real.read_bytes()).find(".//node")
    assert list(first.attrib.keys()) == ATTRS


@pytest.mark.parametrize("hostile", HOSTILE, ids=["code", "markup", "entities", "newlines",
                                                  "control", "surrogate", "unicode"])
def test_hostile_text_stays_text(app: AppSpec, hostile: str) -> None:
    notes = [{"title": hostile, "done": False}]
    sim = sim_at(app, "s00_list", {**INITIAL, "notes": notes})
    xml = sim.xml()
    assert xml.count("<node ") == len(sim.view().walk())
    parsed = parse_dump(xml)
    assert parsed == sim.view()
    title = next(n for n in parsed.walk() if n.resource_id.endswith("note_title")).text
    expected = re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]", ".",
                      hostile)
    assert title == expected
    assert all(line.startswith("[") for line in sim.text().split("\n"))


def test_newlines_are_written_as_character_references(app: AppSpec) -> None:
    sim = sim_at(app, "s00_list", {**INITIAL, "notes": [{"title": "a\nb", "done": False}]})
    assert 'text="a&#10;b"' in sim.xml()
    assert '"a\\nb"' in sim.text()


def test_password_fields_show_bullets(app: AppSpec) -> None:
    pw = Widget(wid="pw", cls="android.widget.EditText", editable=True, password=True,
                text=Var(name="secret"), bounds=B(0, 0, 1080, 100))
    sim = Simulator(mini_app({"a": [pw]}, [], (StateVar(name="secret", kind="text"),)))
    sim.step(TypeText(text="hunter2"))
    assert sim.state["secret"] == "hunter2"
    assert 'text="\u2022\u2022\u2022\u2022\u2022\u2022\u2022"' in sim.xml() and "hunter2" not in sim.xml()


def test_a_password_field_shows_a_recorded_mask_as_it_is(app: AppSpec) -> None:
    # The recording read the field's display text: its placeholder while empty ("●●●●●●●●", not
    # Android's bullets) or a masked value; typed characters are masked, mask characters kept.
    pw = Widget(wid="pw", cls="android.widget.EditText", editable=True, password=True,
                text=Var(name="secret"), bounds=B(0, 0, 1080, 100))
    spec = mini_app({"a": [pw]}, [], (StateVar(name="secret", kind="text"),),
                    initial={"secret": "●●●●"})
    sim = Simulator(spec)
    assert 'text="●●●●"' in sim.xml()
    sim.set_position("a", {"secret": "••x"})
    assert 'text="•••"' in sim.xml()


def test_text_form_lines_and_ids(app: AppSpec) -> None:
    sim = Simulator(app)
    lines = sim.text().split("\n")
    assert [int(line[1:line.index("]")]) for line in lines] == list(range(len(lines)))
    assert lines[0] == '[0] TextView "Notes"'
    assert '[1] ImageButton desc="Settings" clickable' in lines
    assert '[5] TextView id=note_title "Buy milk"' in lines
    assert "[6] CheckBox id=note_done unchecked" in lines
    assert "[3] RecyclerView id=list scrollable" in lines


@pytest.mark.parametrize("screen", SCREENS)
def test_text_form_from_a_view_equals_the_simulators(app: AppSpec, screen: str) -> None:
    sim = sim_at(app, screen)
    sim.step(TypeText(text="x"))
    assert text_form(elements_from_view(sim.view())) == sim.text()
    els = sim.frame().elements
    assert [(e.x, e.y) for e in els] == [(e.x, e.y) for e in elements_from_view(sim.view())]


@pytest.mark.parametrize(("scale", "shape"), [(0.5, (960, 540, 3)), (0.25, (480, 270, 3)),
                                              (1.0, (1920, 1080, 3))], ids=["half", "quarter", "full"])
def test_screenshot_size(app: AppSpec, scale: float, shape: tuple[int, int, int]) -> None:
    backend = SimBackend(app, screenshot_scale=scale)
    backend.reset()
    shot = backend.observe(screenshot=True).screenshot
    assert shot is not None and shot.shape == shape and shot.dtype == np.uint8
    assert backend.screenshot_shape == shape


def test_screenshot_shows_state_and_is_a_fresh_copy(app: AppSpec) -> None:
    sim = Simulator(app)
    before = render_frame(sim.frame(), 1080, 1920)
    before[:] = 0
    again = render_frame(sim.frame(), 1080, 1920)
    assert again.any()
    sim.step(Click(x=970, y=330))
    after = render_frame(sim.frame(), 1080, 1920)
    box = (slice(135, 195), slice(450, 520))
    assert not np.array_equal(again[box], after[box])
