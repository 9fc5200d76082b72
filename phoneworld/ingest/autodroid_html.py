"""AutoDroid screens (ingest pass): the simplified HTML of a `State` → a synthesised view tree.

A State lists elements such as `<button id=3 text='Settings'></button>`, `<p id=0>Timer</p>`,
`<checkbox id=6 checked=True>Start week on Sunday</checkbox>`, `<input id=0 >Search</input>`;
`<br>` separates lines of one label. The label is the element's text; a `text='..'` attribute is
its content description (icon buttons have only that). AutoDroid appends a synthetic
`<button>go back</button>` that stands for the BACK key: it is not a widget, so it is left out of
the tree and choosing it is a `back` action.

There are no bounds, so a plausible uiautomator tree is synthesised: a FrameLayout root filling a
1080x1920 screen with the elements stacked in full-width rows in document order (rows of 160 px,
or less when there are more than 12 elements); classes: button → Button (ImageButton when it has
only a content description), p → TextView, checkbox → CheckBox (checkable, checked),
input → EditText, anything else → android.view.View.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device, ViewNode

DEVICE = Device(width=1080, height=1920)
MAX_ROW = 160
GO_BACK = "go back"
_ELEMENT = re.compile(
    r"<(?P<tag>[A-Za-z][\w-]*)\s+id=(?P<id>-?\d+)(?P<attrs>(?:'[^']*'|\"[^\"]*\"|[^'\">])*)>"
    r"(?P<label>.*?)</(?P=tag)\s*>", re.S)
MAX_ID_DIGITS = 9
_LONG_ID = re.compile(rf"<[A-Za-z][\w-]*\s+id=(-?\d{{{MAX_ID_DIGITS + 1},}})")
_ATTR = re.compile(r"(\w+)=(?:'([^']*)'|\"([^\"]*)\"|(\S+))")
_BR = re.compile(r"<br\s*/?>", re.I)
CLASSES = {"button": "android.widget.Button", "p": "android.widget.TextView",
           "checkbox": "android.widget.CheckBox", "input": "android.widget.EditText"}


@dataclass(frozen=True)
class Element:
    """One element of a State."""

    id: int
    tag: str
    label: str
    attrs: dict[str, str]

    @property
    def is_go_back(self) -> bool:
        return self.tag == "button" and self.label.strip().lower() == GO_BACK

    @property
    def content_desc(self) -> str:
        return self.attrs.get("text", "")


def out_of_range_id(state: str) -> str | None:
    """The first element id of a State with more than MAX_ID_DIGITS digits, if any."""
    match = _LONG_ID.search(state)
    return match.group(1) if match else None


def parse_state(state: str) -> list[Element]:
    """The elements of a State string, in document order."""
    out: list[Element] = []
    for match in _ELEMENT.finditer(state):
        attrs = {m.group(1): html.unescape(m.group(2) or m.group(3) or m.group(4) or "")
                 for m in _ATTR.finditer(match.group("attrs"))}
        label = html.unescape(_BR.sub("\n", match.group("label"))).strip()
        raw_id = match.group("id")
        if len(raw_id) > MAX_ID_DIGITS:  # refused by `out_of_range_id`; never converted
            continue
        out.append(Element(int(raw_id), match.group("tag").lower(), label, attrs))
    return out


def layout(elements: list[Element]) -> dict[int, Bounds]:
    """Synthesised bounds of the widget elements (all but "go back"), by element id."""
    widgets = [e for e in elements if not e.is_go_back]
    row = min(MAX_ROW, DEVICE.height // max(len(widgets), 1))
    return {e.id: Bounds(x1=0, y1=k * row, x2=DEVICE.width, y2=(k + 1) * row)
            for k, e in enumerate(widgets)}


def synthesize(elements: list[Element], package: str, focus: int | None = None) -> ViewNode:
    """The synthesised tree of a State; `focus` marks that element id as the focused field."""
    bounds = layout(elements)
    children = tuple(
        _node(e, bounds[e.id], index, package, e.id == focus)
        for index, e in enumerate(e for e in elements if not e.is_go_back)
    )
    return ViewNode(cls="android.widget.FrameLayout", package=package, children=children,
                    bounds=Bounds(x1=0, y1=0, x2=DEVICE.width, y2=DEVICE.height))


def _node(element: Element, bounds: Bounds, index: int, package: str, focused: bool) -> ViewNode:
    tag = element.tag
    cls = CLASSES.get(tag, "android.view.View")
    if tag == "button" and not element.label and element.content_desc:
        cls = "android.widget.ImageButton"
    interactive = tag in ("button", "checkbox", "input")
    return ViewNode(
        cls=cls, text=element.label, content_desc=element.content_desc, package=package,
        bounds=bounds, index=index, clickable=interactive, focusable=interactive,
        focused=focused, checkable=tag == "checkbox",
        checked=element.attrs.get("checked", "").lower() == "true",
    )
