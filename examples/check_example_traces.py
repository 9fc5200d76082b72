#!/usr/bin/env python3
"""Check the bundled example traces (examples/traces/com.example.notes) written by make_example_traces.py.

    python examples/check_example_traces.py

Reads only the files on disk (standard library only, independent of the generator) and asserts:
- episode.json is `phoneworld-trace/1` with the expected device, consecutive screens 0000.xml.., an
  activity per step, no screenshots, and a null action on the last step only;
- every XML reads like a `uiautomator dump`: the usual one-line header, `<hierarchy rotation="0">`, all
  node attributes in uiautomator's order, package com.example.notes, `index` = position among the
  siblings, children inside their parents, plain android.widget / android.view classes;
- every click hits (deepest clickable node under the point) a clickable widget of that screen, and at
  its centre; every `type` directly follows a click on an EditText, and the next screen shows that
  field focused with exactly the typed text;
- list rows are identical in structure, start at one fixed top and are stacked at a constant pitch;
- replaying the actions on an independent model of the app (data carried over from one episode to the
  next) predicts every screen: list titles and checkboxes, editor text and focus, detail title and
  status, switch values; and the list at the end of each episode agrees with the story below.
"""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

PKG = "com.example.notes"
ROOT = Path(__file__).resolve().parent / "traces" / PKG
HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
ATTRS = ["index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked",
         "clickable", "enabled", "focusable", "focused", "scrollable", "long-clickable", "password",
         "selected", "bounds"]
ACTIVITIES = {f"{PKG}/.MainActivity": "list", f"{PKG}/.EditorActivity": "editor",
              f"{PKG}/.DetailActivity": "detail", f"{PKG}/.SettingsActivity": "settings"}
PITCH, LIST_TOP = 168, 210

INITIAL = [("Buy milk", False), ("Call Alice", True), ("Pay rent", False)]
# The story: the list at the end of each episode.
STORY = {
    "ep_0001": [("Buy milk", False), ("Call Alice", True), ("Pay rent", False), ("Water plants 2x a week", False)],
    "ep_0002": [("Buy milk", False), ("Call Alice", True), ("Pay rent", False), ("Water plants 2x a week", False),
                ('Don\'t forget "keys"', False)],
    "ep_0003": [("Buy milk", False), ("Call Alice", True), ("Pay rent", True), ("Water plants 2x a week", False),
                ('Don\'t forget "keys"', False)],
    "ep_0004": [("Buy milk", False), ("Call Alice", False), ("Pay rent", True), ("Water plants 2x a week", False),
                ('Don\'t forget "keys"', False)],
    "ep_0005": [("Buy milk and 12 eggs", False), ("Call Alice", False), ("Pay rent", True),
                ("Water plants 2x a week", False), ('Don\'t forget "keys"', False)],
    "ep_0006": [("Buy milk and 12 eggs", False), ("Call Alice", False), ("Pay rent", True),
                ('Don\'t forget "keys"', False)],
    "ep_0007": [("Buy milk and 12 eggs", False), ("Call Alice", False), ("Pay rent", True),
                ('Don\'t forget "keys"', False)],
    "ep_0008": [("Buy milk and 12 eggs", False), ("Call Alice", False), ("Pay rent", True),
                ('Don\'t forget "keys"', False)],
    "ep_0009": [("Buy milk and 12 eggs", False), ("Call Alice", False), ("Pay rent", True),
                ('Don\'t forget "keys"', False)],
    "ep_0010": [("Buy milk and 12 eggs", False), ("Call Alice", False), ('Don\'t forget "keys"', False),
                ("Dentist at 10:15", False)],
    "ep_0011": [("Buy milk and 12 eggs", False), ("Call Alice", False), ('Don\'t forget "keys"', False),
                ("Dentist at 10:15", False)],
    "ep_0012": [("Buy milk and 12 eggs", True), ("Call Alice", False), ('Don\'t forget "keys"', True),
                ("Dentist at 10:15", False)],
}
SETTINGS_STORY = {"ep_0007": (True, True), "ep_0009": (False, True)}  # (dark mode, keep done at bottom)


def fail(where: str, msg: str) -> None:
    raise AssertionError(f"{where}: {msg}")


# ---------------------------------------------------------------------------------------------- parsing
class N:
    def __init__(self, el: ET.Element, depth: int, parent: "N | None"):
        a = el.attrib
        self.a, self.depth, self.parent = a, depth, parent
        self.cls, self.rid, self.text, self.desc = a["class"], a["resource-id"], a["text"], a["content-desc"]
        m = re.fullmatch(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]", a["bounds"])
        self.b = tuple(int(v) for v in m.groups())
        self.children: list[N] = []
        for k in ("checkable", "checked", "clickable", "enabled", "focusable", "focused", "scrollable",
                  "long-clickable", "password", "selected"):
            assert a[k] in ("true", "false"), (k, a[k])
        self.clickable = a["clickable"] == "true" and a["enabled"] == "true"
        self.checked = a["checked"] == "true"
        self.focused = a["focused"] == "true"

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def contains(self, x: int, y: int) -> bool:
        l, t, r, b = self.b
        return l <= x < r and t <= y < b

    def centre(self) -> tuple[int, int]:
        l, t, r, b = self.b
        return (l + r) // 2, (t + b) // 2


def parse_screen(path: Path) -> N:
    raw = path.read_bytes()
    text = raw.decode("utf-8")
    where = str(path.relative_to(ROOT))
    if not text.startswith(HEADER) or not text.endswith("</hierarchy>") or "\n" in text:
        fail(where, "not a one-line uiautomator dump with the usual header")
    for m in re.finditer(r"<node ([^>]*?)\s*/?>", text):
        names = re.findall(r'([a-z-]+)="', m.group(1))
        if names != ATTRS:
            fail(where, f"node attributes {names} differ from uiautomator's {ATTRS}")
    try:
        hier = ET.fromstring(raw)
    except ET.ParseError as e:
        fail(where, f"not well-formed XML: {e}")
    if hier.tag != "hierarchy" or hier.attrib != {"rotation": "0"} or len(hier) != 1:
        fail(where, "expected <hierarchy rotation=\"0\"> with one root node")

    def build(el: ET.Element, depth: int, parent: N | None) -> N:
        n = N(el, depth, parent)
        for i, c in enumerate(el):
            child = build(c, depth + 1, n)
            if child.a["index"] != str(i):
                fail(where, f"index {child.a['index']} at position {i}")
            n.children.append(child)
        return n

    root = build(hier[0], 0, None)
    if root.b != (0, 0, 1080, 1920):
        fail(where, f"root bounds {root.b}")
    for n in root.walk():
        if n.a["package"] != PKG:
            fail(where, f"package {n.a['package']}")
        if not (n.cls.startswith("android.widget.") or n.cls.startswith("android.view.")):
            fail(where, f"class {n.cls}")
        if n.rid and not (n.rid.startswith(f"{PKG}:id/") or n.rid.startswith("android:id/")):
            fail(where, f"resource-id {n.rid}")
        l, t, r, b = n.b
        if not (l <= r and t <= b):
            fail(where, f"bad bounds {n.b}")
        for c in n.children:
            cl, ct, cr, cb = c.b
            if not (l <= cl and t <= ct and cr <= r and cb <= b):
                fail(where, f"{c.cls} {c.b} outside its parent {n.cls} {n.b}")
    if sum(1 for n in root.walk() if n.rid == "android:id/content") != 1:
        fail(where, "no android:id/content frame")
    return root


def hit(root: N, x: int, y: int) -> N | None:
    """Deepest enabled clickable node under (x, y); among equals, the last drawn (document order)."""
    best = None
    for n in root.walk():
        if n.clickable and n.contains(x, y) and (best is None or n.depth >= best.depth):
            best = n
    return best


def by_id(root: N, name: str) -> list[N]:
    return [n for n in root.walk() if n.rid == f"{PKG}:id/{name}"]


def one(root: N, name: str, where: str) -> N:
    found = by_id(root, name)
    if len(found) != 1:
        fail(where, f"expected one {name}, found {len(found)}")
    return found[0]


def toolbar_title(root: N, where: str) -> str:
    tb = one(root, "toolbar", where)
    titles = [c.text for c in tb.children if c.cls == "android.widget.TextView"]
    if len(titles) != 1:
        fail(where, "toolbar without one title")
    return titles[0]


def facts(root: N, kind: str, where: str):
    """What the model predicts, read back from a screen."""
    title = toolbar_title(root, where)
    expected_title = {"list": "Notes", "editor": "Edit note", "detail": "Note", "settings": "Settings"}[kind]
    if title != expected_title:
        fail(where, f"toolbar title {title!r} on a {kind} screen")
    up = [n for n in root.walk() if n.desc == "Navigate up"]
    if len(up) != (0 if kind == "list" else 1) or any(n.cls != "android.widget.ImageButton" for n in up):
        fail(where, "Navigate up button missing or unexpected")
    if kind == "list":
        lst = one(root, "note_list", where)
        one(root, "add_note", where)
        one(root, "settings_button", where)
        rows = lst.children
        if not 2 <= len(rows) <= 6:
            fail(where, f"{len(rows)} notes (keep 2-6)")
        shape = None
        out = []
        for i, row in enumerate(rows):
            if row.rid != f"{PKG}:id/note_item" or not row.clickable:
                fail(where, f"row {i} is not a clickable note_item")
            if row.b[1] != LIST_TOP + i * PITCH or row.b[3] - row.b[1] != PITCH:
                fail(where, f"row {i} at {row.b}: not stacked at pitch {PITCH} from {LIST_TOP}")
            rel = [(c.cls, c.rid, tuple(v - row.b[1] if k % 2 else v for k, v in enumerate(c.b)))
                   for c in row.children]
            if shape is None:
                shape = rel
            elif rel != shape:
                fail(where, f"row {i} differs in structure from row 0")
            box = one(row, "note_done", where)
            ttl = one(row, "note_title", where)
            if box.cls != "android.widget.CheckBox" or box.a["checkable"] != "true" or not box.clickable or box.text:
                fail(where, "note_done is not a clickable, checkable, text-less CheckBox")
            out.append((ttl.text, box.checked))
        return out
    if kind == "editor":
        field = one(root, "title_input", where)
        save = one(root, "save_button", where)
        if field.cls != "android.widget.EditText" or save.text != "Save":
            fail(where, "editor widgets")
        return field.text, field.focused
    if kind == "detail":
        status = one(root, "detail_status", where).text
        if status not in ("Done", "Open"):
            fail(where, f"status {status!r}")
        if one(root, "edit_button", where).text != "Edit" or one(root, "delete_button", where).text != "Delete":
            fail(where, "detail buttons")
        return one(root, "detail_title", where).text, status
    if kind == "settings":
        dark = one(root, "dark_mode_switch", where)
        sort = one(root, "sort_switch", where)
        if (dark.text, sort.text) != ("Dark mode", "Keep done notes at the bottom"):
            fail(where, "switch labels")
        for s in (dark, sort):
            if s.cls != "android.widget.Switch" or s.a["checkable"] != "true" or not s.clickable:
                fail(where, "switches must be clickable, checkable android.widget.Switch")
        return dark.checked, sort.checked
    raise AssertionError(kind)


# ---------------------------------------------------------------------------------------------- model
class Model:
    """Independent model of the app, driven by the widget each action hits."""

    def __init__(self):
        self.notes = [list(n) for n in INITIAL]
        self.dark = self.sort = False
        self.kind = "list"
        self.sel = None
        self.mode = None
        self.text, self.focused = "", False

    def expected(self):
        if self.kind == "list":
            return [tuple(n) for n in self.notes]
        if self.kind == "editor":
            return self.text, self.focused
        if self.kind == "detail":
            t, d = self.notes[self.sel]
            return t, "Done" if d else "Open"
        return self.dark, self.sort

    def home(self):
        self.kind, self.sel, self.mode, self.text, self.focused = "list", None, None, "", False

    def click(self, node: N, root: N, where: str):
        name = node.rid.split("/")[-1] if node.rid.startswith(PKG) else ""
        k = self.kind
        if node.desc == "Navigate up":
            self.home()
        elif k == "list" and name == "add_note":
            self.kind, self.mode, self.text, self.focused = "editor", "add", "", False
        elif k == "list" and name == "settings_button":
            self.kind = "settings"
        elif k == "list" and name in ("note_done", "note_item"):
            row = node if name == "note_item" else node.parent
            i = one(root, "note_list", where).children.index(row)
            if name == "note_done":
                self.notes[i][1] = not self.notes[i][1]
            else:
                self.kind, self.sel = "detail", i
        elif k == "editor" and name == "title_input":
            self.focused = True
        elif k == "editor" and name == "save_button":
            if self.text:
                if self.mode == "add":
                    self.notes.append([self.text, False])
                else:
                    self.notes[self.sel][0] = self.text
                self.home()
        elif k == "detail" and name == "edit_button":
            self.kind, self.mode, self.text, self.focused = "editor", "edit", self.notes[self.sel][0], False
        elif k == "detail" and name == "delete_button":
            del self.notes[self.sel]
            self.home()
        elif k == "settings" and name == "dark_mode_switch":
            self.dark = not self.dark
        elif k == "settings" and name == "sort_switch":
            self.sort = not self.sort
        else:
            fail(where, f"click on {node.cls} {node.rid or node.desc!r} has no meaning on the {k} screen")


# ---------------------------------------------------------------------------------------------- main
def check() -> dict:
    episodes = sorted(p for p in ROOT.iterdir() if p.is_dir())
    if [p.name for p in episodes] != sorted(STORY):
        fail(str(ROOT), f"episodes {[p.name for p in episodes]} differ from the story {sorted(STORY)}")
    model = Model()
    covered: set[str] = set()
    n_steps = 0
    for ep in episodes:
        where = ep.name
        doc = json.loads((ep / "episode.json").read_text(encoding="utf-8"))
        if doc.get("format") != "phoneworld-trace/1" or doc.get("app") != PKG:
            fail(where, "format/app")
        if doc.get("device") != {"width": 1080, "height": 1920, "density": 420, "sdk": 29}:
            fail(where, "device")
        if not isinstance(doc.get("instruction"), str) or not doc["instruction"]:
            fail(where, "instruction")
        steps = doc["steps"]
        if not 4 <= len(steps) <= 12:
            fail(where, f"{len(steps)} steps (want 4-12)")
        files = sorted(p.name for p in ep.iterdir())
        if files != sorted(["episode.json"] + [f"{i:04d}.xml" for i in range(len(steps))]):
            fail(where, f"files {files}")
        if model.kind != "list":
            fail(where, "previous episode did not end on the list")
        prev_hit: N | None = None
        for i, step in enumerate(steps):
            w = f"{where}/{step.get('screen')}"
            if set(step) != {"screen", "activity", "action"} or step["screen"] != f"{i:04d}.xml":
                fail(w, f"step keys {sorted(step)}")
            kind = ACTIVITIES.get(step["activity"]) or fail(w, f"activity {step['activity']}")
            root = parse_screen(ep / step["screen"])
            if kind != model.kind:
                fail(w, f"model expects the {model.kind} screen, trace shows {kind}")
            got = facts(root, kind, w)
            if got != model.expected():
                fail(w, f"screen shows {got!r}, model expects {model.expected()!r}")
            act = step["action"]
            if (act is None) != (i == len(steps) - 1):
                fail(w, "only the last action is null")
            if act is None:
                break
            t = act["type"]
            covered.add(t)
            if t == "click":
                if set(act) != {"type", "x", "y"}:
                    fail(w, f"click keys {sorted(act)}")
                node = hit(root, act["x"], act["y"])
                if node is None:
                    fail(w, f"click ({act['x']},{act['y']}) hits no clickable node")
                if node.rid.endswith("/note_item"):
                    # a tap on the row's title: the title TextView is what was aimed at
                    ttl = one(node, "note_title", w)
                    if not ttl.contains(act["x"], act["y"]) or ttl.centre() != (act["x"], act["y"]):
                        fail(w, "row tap not at the centre of its note_title")
                elif node.centre() != (act["x"], act["y"]):
                    fail(w, f"click ({act['x']},{act['y']}) not at the centre {node.centre()} of {node.rid}")
                covered.add(node.rid.split("/")[-1] if node.rid else node.desc)
                model.click(node, root, w)
                prev_hit = node
            elif t == "type":
                if set(act) != {"type", "text"} or not isinstance(act["text"], str):
                    fail(w, "type keys")
                prev = steps[i - 1]["action"] if i else None
                if not (prev and prev["type"] == "click" and prev_hit is not None
                        and prev_hit.cls == "android.widget.EditText"):
                    fail(w, "type does not follow a click on an EditText")
                if kind != "editor" or not model.focused:
                    fail(w, "type without a focused field")
                model.text = act["text"]
                prev_hit = None
            elif t == "back":
                if set(act) != {"type"} or kind == "list":
                    fail(w, "back")
                model.home()
                prev_hit = None
            else:
                fail(w, f"unexpected action {t}")
            n_steps += 1
        if [tuple(n) for n in model.notes] != STORY[where]:
            fail(where, f"list after the episode {model.notes} differs from the story {STORY[where]}")
        if where in SETTINGS_STORY and (model.dark, model.sort) != SETTINGS_STORY[where]:
            fail(where, "settings differ from the story")
    want = {"click", "type", "back", "add_note", "save_button", "title_input", "note_done", "note_item",
            "edit_button", "delete_button", "settings_button", "dark_mode_switch", "sort_switch", "Navigate up"}
    if want - covered:
        fail(str(ROOT), f"not covered: {sorted(want - covered)}")
    return {"episodes": len(episodes), "actions": n_steps}


def main() -> int:
    try:
        summary = check()
    except AssertionError as e:
        print(f"FAIL {e}")
        return 1
    print(f"OK: {summary['episodes']} episodes, {summary['actions']} actions checked under {ROOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
