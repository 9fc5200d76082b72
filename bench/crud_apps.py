"""Small, clean CRUD apps recorded as traces: does the compiler generalize past the bundled notes app?

    python bench/crud_apps.py [--out DIR] [--json PATH] [--only NAME] [--timeout S]
                              [--format native|droidbot] [--explore N [--lag P]] [--misses]
                              [--ui views|react-native|flutter|compose]

Seven apps of shapes the bundled example (`examples/make_example_traces.py`) does not have, each
modelled from ordinary Android conventions, not from what the compiler handles:

- contacts  `com.example.contacts`: a RecyclerView of two-text rows (name + number) kept sorted by
  name, a FAB to a form with two EditTexts (hints as text while empty) and a toolbar "Save", a detail
  screen whose toolbar has Edit and Delete, delete through an AlertDialog (Cancel / Delete);
- shopping  `com.example.shopping`: inline add (EditText + "Add" on the list screen, the field keeps
  focus), a CheckBox labelled with the item per row, a quantity stepper (− is disabled at 1), and an
  overflow popup ("Uncheck all", "Clear checked items");
- reading   `com.example.reading`: one activity with a BottomNavigationView (Books, Wishlist,
  Settings), a FAB that opens a dialog with one EditText (its Add disabled while empty), long press
  to remove a book, a per-row remove button on the wishlist, switches on the settings tab;
- todo      `com.example.todo`: rows with a CheckBox, a text, a "High" badge when the task has high
  priority, and a per-row overflow popup (Edit / Delete); new tasks go on top;
- tally     `com.example.tally`: a counter with + / − (− disabled at 0 unless negative values are
  allowed), an overflow popup with Reset (confirm dialog) and Settings, switches that persist;
- playlist  `com.example.playlist`: 16 songs in a RecyclerView longer than the screen (nine rows
  shown, the last cut at the edge so that it shows its title and not its artist), scrolled four
  rows a swipe, a song page with a Like switch and a toolbar Delete; back keeps the list where
  it was scrolled;
- notes     `com.example.notes`: no Save button: back or Up from the editor keeps what was typed (a
  new note left blank is not kept), new notes on top of a RecyclerView of title + text rows, the
  editor's toolbar Delete asks first.

Each app is a tiny reference model whose `window()` draws the current window as a uiautomator-dump
tree (a dialog or popup is its own window, as `uiautomator dump` shows the active one) with
realistic bounds; every tappable node carries a script key and the model change a tap makes.
Episodes are a tester's recording session; the LAST episodes in each app's recording do the same
kinds of operations with values never used before, sized so that `--heldout 0.2` holds out exactly
them (checked when the traces are written). Output is deterministic. `--format droidbot` writes
each app's recording as one DroidBot run instead (`states/` + `events/`, the run started by
kill_app and the intent from the launcher, as DroidBot starts its runs), the path the real sets
of `../shared/data/real/droidbot-more/` take through the ingest. `--explore N` records N events of
DroidBot's random exploration instead of the scripts (seeded, as one DroidBot run): what DroidBot's
input policy offers on each screen, chosen at random, texts typed at random; the held-out steps
are then the run's last fifth. `--lag P` makes a share P of those events read too early, as
DroidBot does when it reads the screen before the app drew the change: the event stops where it
started and the next one starts on the changed screen (a chain break). `--ui` dumps every window
as another toolkit would (`restyle`): React Native's (no resource ids, ViewGroups, a Touchable
around its Text, a FlatList as a ScrollView), Flutter's (no ids, android.view.View nodes, texts
as content-descs merged into the tappable node that holds them) or Jetpack Compose's (no ids,
layouts and lists as android.view.View nodes, texts in TextViews, a Button / CheckBox / Switch
around its label's TextView); Flutter and Compose windows all report one activity, as such apps
run in one: the same apps and scripts, so the figures say what the compiler owes to Android's
own views.

Each app is then built with the real CLI as `bench/fidelity_suite.py` does (its `build_set`), one
row per app: training changing steps, training match and change F1, the stateless reference F1, the
held-out match over all and covered steps, the known-trigger share and match, the tasks kept and
their kinds. A closing line gives the means.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import math
import random
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from fidelity_suite import build_set, cell  # noqa: E402

HELDOUT = 0.2


# ---------------------------------------------------------------------------------------- devices
@dataclass(frozen=True)
class Device:
    width: int
    height: int
    density: int

    def dp(self, v: float) -> int:
        return round(v * self.density / 160)

    @property
    def status(self) -> int:  # bottom of the status bar
        return self.dp(24)

    @property
    def nav(self) -> int:  # top of the navigation bar
        return self.height - self.dp(48)

    def json(self) -> dict[str, int]:
        return {"width": self.width, "height": self.height, "density": self.density, "sdk": 29}


PIXEL_2 = Device(1080, 1920, 420)
PIXEL_4A = Device(1080, 2340, 440)


# ---------------------------------------------------------------------------------------- nodes
@dataclass
class Node:
    cls: str
    bounds: tuple[int, int, int, int]
    rid: str = ""
    text: str = ""
    desc: str = ""
    checkable: bool = False
    checked: bool = False
    clickable: bool = False
    enabled: bool = True
    focusable: bool = False
    focused: bool = False
    scrollable: bool = False
    long_clickable: bool = False
    selected: bool = False
    children: list[Node] = field(default_factory=list)
    key: str = ""                                  # the script's name for it (not dumped)
    on: Callable[[], None] | None = None           # what a tap does to the model
    on_long: Callable[[], None] | None = None      # what a long press does

    def walk(self) -> Iterator[Node]:
        yield self
        for c in self.children:
            yield from c.walk()


def _esc(s: str) -> str:
    """Attribute escaping as Android's XmlSerializer writes it in uiautomator dumps."""
    table = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}
    return "".join(table.get(ch, f"&#{ord(ch)};" if ord(ch) < 32 else ch) for ch in s)


def _node_xml(n: Node, index: int, pkg: str, parts: list[str]) -> None:
    flags = {"checkable": n.checkable, "checked": n.checked, "clickable": n.clickable,
             "enabled": n.enabled, "focusable": n.focusable, "focused": n.focused,
             "scrollable": n.scrollable, "long-clickable": n.long_clickable, "password": False,
             "selected": n.selected}
    l, t, r, b = n.bounds
    parts.append(f'<node index="{index}" text="{_esc(n.text)}" resource-id="{n.rid}" class="{n.cls}" '
                 f'package="{pkg}" content-desc="{_esc(n.desc)}" '
                 + "".join(f'{k}="{str(v).lower()}" ' for k, v in flags.items())
                 + f'bounds="[{l},{t}][{r},{b}]"')
    if not n.children:
        parts.append(" />")
        return
    parts.append(">")
    for i, c in enumerate(n.children):
        _node_xml(c, i, pkg, parts)
    parts.append("</node>")


def to_xml(root: Node, pkg: str) -> str:
    parts = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"]
    _node_xml(root, 0, pkg, parts)
    parts.append("</hierarchy>")
    return "".join(parts)


# ---------------------------------------------------------------------------------------- widgets
TEXT, BUTTON, IMAGE_BUTTON, IMAGE = ("android.widget.TextView", "android.widget.Button",
                                     "android.widget.ImageButton", "android.widget.ImageView")
EDIT, CHECKBOX, SWITCH = "android.widget.EditText", "android.widget.CheckBox", "android.widget.Switch"
FRAME, LINEAR, GROUP = "android.widget.FrameLayout", "android.widget.LinearLayout", "android.view.ViewGroup"
RECYCLER, LISTVIEW = "androidx.recyclerview.widget.RecyclerView", "android.widget.ListView"
SCROLL, VIEW = "android.widget.ScrollView", "android.view.View"

# How the app's toolkit exposes its views in a dump (`--ui`): Android's own views (resource ids,
# TextViews, RecyclerViews), React Native's (no resource ids unless a testID is set; layouts are
# ViewGroups, a Touchable is a clickable ViewGroup around its Text, a FlatList a ScrollView around a
# content ViewGroup) or Flutter's (no ids; every node an android.view.View but the fields, buttons
# and toggles; a text is the content-desc of its node, and a tappable node merges the texts inside
# it into its own content-desc, as Flutter's semantics tree does) or Jetpack Compose's (no ids
# unless testTagsAsResourceId is set; layouts and lists are android.view.View nodes; texts stay
# TextViews; a node's role names its class: a button, icon button or text action is an
# android.widget.Button around its TextView or its described ImageView, a labelled toggle a
# CheckBox / Switch around its TextView). Flutter and Compose apps run in one activity, so every
# window of theirs reports the same one.
UIS = ("views", "react-native", "flutter", "compose")
ONE_ACTIVITY = ("flutter", "compose")
_CONTAINERS = (FRAME, LINEAR, GROUP)
_LISTS = (RECYCLER, LISTVIEW)


def restyle(node: Node, ui: str) -> Node:
    """`node`'s tree as toolkit `ui` dumps it (see `UIS`); script keys, handlers and bounds kept."""
    if ui == "views":
        return node
    kids = [restyle(c, ui) for c in node.children]
    out = replace(node, rid="", children=kids)
    if ui == "react-native":
        if node.cls in _CONTAINERS:
            out.cls = GROUP
        elif node.cls in _LISTS:
            out.cls, out.children = SCROLL, [Node(GROUP, node.bounds, children=kids)]
        elif node.cls in (BUTTON, IMAGE_BUTTON):
            out.cls, out.text = GROUP, ""
            if node.text:
                out.children = [Node(TEXT, node.bounds, text=node.text), *kids]
        return out
    if ui == "compose":
        return _compose(node, out, kids)
    if node.cls in (BUTTON, IMAGE_BUTTON):
        out.cls = BUTTON
    elif node.cls not in (EDIT, CHECKBOX, SWITCH, IMAGE):
        out.cls = VIEW
    if node.cls != EDIT and node.text:
        out.desc, out.text = node.text, ""
    if out.clickable and out.cls != EDIT:
        merged = [c for c in kids if not _acts(c) and c.desc and not c.children]
        if merged:
            out.desc = "\n".join([out.desc] * bool(out.desc) + [c.desc for c in merged])
            out.children = [c for c in kids if not any(c is m for m in merged)]
    return out


def _compose(node: Node, out: Node, kids: list[Node]) -> Node:
    """`restyle` for Compose: `out` is `node` without its id, over the restyled `kids`."""
    if node.cls in (CHECKBOX, SWITCH) and node.text:
        out.text, out.children = "", [Node(TEXT, node.bounds, text=node.text), *kids]
    elif node.cls in (EDIT, CHECKBOX, SWITCH) or (node.cls in (TEXT, IMAGE) and not node.clickable):
        pass
    elif node.clickable and not kids and (node.text or node.desc):
        label = (Node(TEXT, node.bounds, text=node.text) if node.text
                 else Node(IMAGE, node.bounds, desc=node.desc))
        out.cls, out.text, out.desc, out.children = BUTTON, "", "", [label]
    else:
        out.cls = VIEW
    return out


def _acts(n: Node) -> bool:
    return n.clickable or n.checkable or n.cls == EDIT or n.long_clickable


class Model:
    """A reference app: its data, the window on top, and what taps, typing and back do."""

    package = ""
    device = PIXEL_2
    ui = "views"  # the toolkit its dumps look like (`UIS`)

    def __init__(self) -> None:
        self.fields: dict[str, str] = {}
        self.focus: str | None = None
        self.screen = ""

    def drawn(self) -> tuple[str, Node]:
        """The window as the app's toolkit dumps it (`restyle`)."""
        activity, root = self.window()
        if self.ui in ONE_ACTIVITY:
            activity = f"{self.package}/.MainActivity"
        return activity, restyle(root, self.ui)

    def rid(self, name: str) -> str:
        return f"{self.package}:id/{name}"

    def window(self) -> tuple[str, Node]:
        raise NotImplementedError

    def back(self) -> None:
        raise NotImplementedError

    def at_home(self) -> bool:
        raise NotImplementedError

    def type(self, text: str) -> None:
        assert self.focus is not None, "type needs a focused field"
        self.fields[self.focus] = text

    def _go(self, screen: str) -> None:
        """Show `screen` (a window of the app's own naming), no field focused."""
        self.screen, self.focus = screen, None

    def scroll(self, direction: str) -> None:
        """A scroll over the app's list (only apps whose lists scroll have one marked `list`)."""
        raise NotImplementedError

    # ---- building blocks
    def decor(self, body: Node) -> Node:
        """An activity window: DecorView > LinearLayout > content > the app's root."""
        d = self.device
        content = Node(FRAME, (0, d.status, d.width, d.nav), rid="android:id/content", children=[body])
        return Node(FRAME, (0, 0, d.width, d.height), children=[
            Node(LINEAR, (0, 0, d.width, d.nav), children=[content]),
            Node("android.view.View", (0, d.nav, d.width, d.height),
                 rid="android:id/navigationBarBackground"),
            Node("android.view.View", (0, 0, d.width, d.status), rid="android:id/statusBarBackground"),
        ])

    def toolbar(self, title: str, up: Callable[[], None] | None = None,
                actions: list[Node] | None = None) -> Node:
        d, top = self.device, self.device.status
        bottom = top + d.dp(56)
        kids: list[Node] = []
        x = d.dp(16)
        if up is not None:
            kids.append(Node(IMAGE_BUTTON, (0, top, d.dp(56), bottom), desc="Navigate up",
                             clickable=True, focusable=True, key="up", on=up))
            x = d.dp(72)
        kids.append(Node(TEXT, (x, top + d.dp(14), x + d.dp(11) * len(title), bottom - d.dp(14)),
                         text=title))
        if actions:
            left = d.width - d.dp(48) * len(actions)
            for i, a in enumerate(actions):
                a.bounds = (left + i * d.dp(48), top, left + (i + 1) * d.dp(48), bottom)
            kids.append(Node("androidx.appcompat.widget.LinearLayoutCompat",
                             (left, top, d.width, bottom), children=actions))
        return Node(GROUP, (0, top, d.width, bottom), rid=self.rid("toolbar"), children=kids)

    def action(self, rid: str, desc: str, on: Callable[[], None], text: str = "") -> Node:
        """A toolbar action item (bounds set by `toolbar`)."""
        return Node(TEXT, (0, 0, 0, 0), rid=self.rid(rid) if rid else "", text=text, desc=desc,
                    clickable=True, focusable=True, long_clickable=bool(desc), key=rid or desc, on=on)

    def overflow(self, on: Callable[[], None]) -> Node:
        return Node(IMAGE, (0, 0, 0, 0), desc="More options", clickable=True, focusable=True,
                    key="more", on=on)

    def edit(self, name: str, hint: str, bounds: tuple[int, int, int, int]) -> Node:
        """An EditText: while empty, the dump shows its hint as the text (API 26+)."""
        def focus() -> None:
            self.focus = name
        return Node(EDIT, bounds, rid=self.rid(name), text=self.fields.get(name, "") or hint,
                    clickable=True, focusable=True, focused=self.focus == name,
                    long_clickable=True, key=name, on=focus)

    def fab(self, rid: str, desc: str, on: Callable[[], None], bottom: int | None = None) -> Node:
        d = self.device
        b = (bottom if bottom is not None else d.nav) - d.dp(16)
        return Node(IMAGE_BUTTON, (d.width - d.dp(72), b - d.dp(56), d.width - d.dp(16), b),
                    rid=self.rid(rid), desc=desc, clickable=True, focusable=True, key="fab", on=on)

    def dialog(self, title: str, body: Node | str, ok: str, on_ok: Callable[[], None] | None,
               on_cancel: Callable[[], None]) -> Node:
        """An AlertDialog window (its own window in the dump): title, message or custom view,
        Cancel (button2) and the positive button (button1, disabled when `on_ok` is None)."""
        d = self.device
        left, right = d.dp(27), d.width - d.dp(27)
        top = d.height // 2 - d.dp(110)
        y = top + d.dp(24)
        title_node = Node(LINEAR, (left, top, right, y + d.dp(32)), rid="android:id/topPanel", children=[
            Node(TEXT, (left + d.dp(24), y, right - d.dp(24), y + d.dp(32)), rid="android:id/alertTitle",
                 text=title)])
        y += d.dp(48)
        if isinstance(body, str):
            content = Node(FRAME, (left, y, right, y + d.dp(48)), rid="android:id/contentPanel", children=[
                Node("android.widget.ScrollView", (left, y, right, y + d.dp(48)),
                     rid="android:id/scrollView", children=[
                         Node(TEXT, (left + d.dp(24), y, right - d.dp(24), y + d.dp(40)),
                              rid="android:id/message", text=body)])])
        else:
            body.bounds = (left + d.dp(20), y, right - d.dp(20), y + d.dp(48))
            content = Node(FRAME, (left, y, right, y + d.dp(48)), rid="android:id/customPanel",
                           children=[Node(FRAME, (left, y, right, y + d.dp(48)), rid="android:id/custom",
                                          children=[body])])
        y += d.dp(64)
        bottom = y + d.dp(52)
        cancel = Node(BUTTON, (right - d.dp(200), y + d.dp(4), right - d.dp(112), bottom - d.dp(4)),
                      rid="android:id/button2", text="Cancel", clickable=True, focusable=True,
                      key="cancel", on=on_cancel)
        positive = Node(BUTTON, (right - d.dp(104), y + d.dp(4), right - d.dp(8), bottom - d.dp(4)),
                        rid="android:id/button1", text=ok, clickable=True, focusable=True,
                        enabled=on_ok is not None, key="ok", on=on_ok)
        buttons = Node("android.widget.ScrollView", (left, y, right, bottom), rid="android:id/buttonPanel",
                       children=[Node(LINEAR, (left, y, right, bottom), children=[cancel, positive])])
        panel = Node(LINEAR, (left, top, right, bottom), rid="android:id/parentPanel",
                     children=[title_node, content, buttons])
        return Node(FRAME, (left, top, right, bottom), children=[
            Node(FRAME, (left, top, right, bottom), rid="android:id/content", children=[panel])])

    def popup(self, items: dict[str, Callable[[], None]], top: int) -> Node:
        """A PopupMenu window anchored at `top`: a ListView of rows holding android:id/title."""
        d = self.device
        left, right = d.width - d.dp(196), d.width - d.dp(4)
        rows = []
        for i, (label, on) in enumerate(items.items()):
            y = top + d.dp(8) + i * d.dp(48)
            rows.append(Node(LINEAR, (left, y, right, y + d.dp(48)), clickable=True, focusable=True,
                             key=f"pop:{label}", on=on, children=[
                Node("android.widget.RelativeLayout", (left + d.dp(16), y, right - d.dp(16), y + d.dp(48)),
                     children=[Node(TEXT, (left + d.dp(16), y + d.dp(13), right - d.dp(16), y + d.dp(35)),
                                    rid="android:id/title", text=label)])]))
        bottom = top + d.dp(16) + len(items) * d.dp(48)
        return Node(FRAME, (left, top, right, bottom), children=[
            Node(LISTVIEW, (left, top, right, bottom), children=rows)])

    def switch(self, name: str, label: str, on: bool, top: int, flip: Callable[[], None]) -> Node:
        d = self.device
        return Node(SWITCH, (0, top, d.width, top + d.dp(56)), rid=self.rid(name), text=label,
                    checkable=True, checked=on, clickable=True, focusable=True, key=f"switch:{name}",
                    on=flip)


# ---------------------------------------------------------------------------------------- contacts
class Contacts(Model):
    """A contacts book kept sorted by name; add / edit through one form, delete after a confirm."""

    package = "com.example.contacts"
    device = PIXEL_4A

    def __init__(self) -> None:
        super().__init__()
        self.people = {"Ana Souza": "555-0134", "Ben Okafor": "555-0188", "Chloé Martin": "555-0102"}
        self.screen = "list"          # list | form | detail | confirm
        self.selected: str | None = None
        self.form_edit = False

    def at_home(self) -> bool:
        return self.screen == "list"

    def window(self) -> tuple[str, Node]:
        act = {"list": ".ContactsActivity", "form": ".EditContactActivity",
               "detail": ".ContactDetailActivity", "confirm": ".ContactDetailActivity"}[self.screen]
        return f"{self.package}/{act}", getattr(self, f"_{self.screen}")()

    def _list(self) -> Node:
        d = self.device
        top, pitch = d.status + d.dp(56), d.dp(72)
        rows = []
        for i, name in enumerate(sorted(self.people)):
            y = top + i * pitch
            rows.append(Node(GROUP, (0, y, d.width, y + pitch), rid=self.rid("contact_row"),
                             clickable=True, focusable=True, key=f"row:{name}",
                             on=lambda n=name: self._open(n), children=[
                Node(IMAGE, (d.dp(16), y + d.dp(16), d.dp(56), y + d.dp(56)), rid=self.rid("avatar")),
                Node(TEXT, (d.dp(72), y + d.dp(14), d.width - d.dp(16), y + d.dp(38)),
                     rid=self.rid("contact_name"), text=name),
                Node(TEXT, (d.dp(72), y + d.dp(40), d.width - d.dp(16), y + d.dp(60)),
                     rid=self.rid("contact_number"), text=self.people[name])]))
        body = Node(FRAME, (0, top, d.width, d.nav), children=[
            Node(RECYCLER, (0, top, d.width, d.nav), rid=self.rid("contacts_recycler"),
                 scrollable=False, focusable=True, children=rows),
            self.fab("add_contact_fab", "Add contact", self._new)])
        return self.decor(Node(LINEAR, (0, d.status, d.width, d.nav), children=[
            self.toolbar("Contacts"), body]))

    def _open(self, name: str) -> None:
        self.selected = name
        self._go("detail")

    def _new(self) -> None:
        self.fields, self.form_edit = {"name_input": "", "phone_input": ""}, False
        self._go("form")

    def _edit(self) -> None:
        assert self.selected is not None
        self.fields = {"name_input": self.selected, "phone_input": self.people[self.selected]}
        self.form_edit = True
        self._go("form")

    def _save(self) -> None:
        name, phone = self.fields["name_input"], self.fields["phone_input"]
        if not name:
            return  # a contact needs a name: Save does nothing
        if self.form_edit:
            assert self.selected is not None
            del self.people[self.selected]
            self.people[name], self.selected = phone, name
            self._go("detail")
        else:
            self.people[name] = phone
            self._go("list")

    def _form(self) -> Node:
        d = self.device
        top = d.status + d.dp(56)
        save = self.action("menu_save", "", self._save, text="Save")
        bar = self.toolbar("Edit contact" if self.form_edit else "New contact", up=self.back,
                           actions=[save])
        fields = Node(LINEAR, (0, top, d.width, top + d.dp(144)), children=[
            self.edit("name_input", "Name", (d.dp(16), top + d.dp(16), d.width - d.dp(16), top + d.dp(64))),
            self.edit("phone_input", "Phone",
                      (d.dp(16), top + d.dp(80), d.width - d.dp(16), top + d.dp(128))),
        ])
        return self.decor(Node(LINEAR, (0, d.status, d.width, d.nav), children=[
            bar, Node("android.widget.ScrollView", (0, top, d.width, d.nav), rid=self.rid("form_scroll"),
                      children=[fields])]))

    def _detail(self) -> Node:
        d = self.device
        assert self.selected is not None
        top = d.status + d.dp(56)
        bar = self.toolbar(self.selected, up=self.back, actions=[
            self.action("menu_edit", "Edit", self._edit),
            self.action("menu_delete", "Delete", lambda: self._go("confirm"))])
        phone = Node(LINEAR, (0, top + d.dp(72), d.width, top + d.dp(144)), rid=self.rid("phone_row"),
                     clickable=True, focusable=True, children=[
            Node(TEXT, (d.dp(72), top + d.dp(84), d.width - d.dp(16), top + d.dp(108)),
                 rid=self.rid("detail_phone"), text=self.people[self.selected]),
            Node(TEXT, (d.dp(72), top + d.dp(110), d.width - d.dp(16), top + d.dp(130)),
                 rid=self.rid("phone_label"), text="Mobile")])
        return self.decor(Node(LINEAR, (0, d.status, d.width, d.nav), children=[
            bar, Node(TEXT, (d.dp(16), top + d.dp(16), d.width - d.dp(16), top + d.dp(56)),
                      rid=self.rid("detail_name"), text=self.selected), phone]))

    def _delete(self) -> None:
        assert self.selected is not None
        del self.people[self.selected]
        self.selected = None
        self._go("list")

    def _confirm(self) -> Node:
        assert self.selected is not None
        return self.dialog("Delete contact?", f"{self.selected} will be deleted from your contacts.",
                           "Delete", self._delete, lambda: self._go("detail"))

    def back(self) -> None:
        self._go({"form": "detail" if self.form_edit else "list", "detail": "list",
                  "confirm": "detail"}[self.screen])


CONTACTS_EPISODES: list[tuple[str, list[tuple[str, ...]]]] = [
    ("Add Dmitri Ivanov, 555-0147", [
        ("tap", "fab"), ("tap", "name_input"), ("type", "Dmitri Ivanov"), ("tap", "phone_input"),
        ("type", "555-0147"), ("tap", "menu_save")]),
    ("Look up Ben Okafor's number", [("tap", "row:Ben Okafor"), ("tap", "up")]),
    ("Add Aaron Blake, 555-0199", [
        ("tap", "fab"), ("tap", "menu_save"), ("tap", "name_input"), ("type", "Aaron Blake"),
        ("tap", "phone_input"), ("type", "555-0199"), ("tap", "menu_save")]),
    ("Change Ben Okafor's number to 555-0111", [
        ("tap", "row:Ben Okafor"), ("tap", "menu_edit"), ("tap", "phone_input"), ("type", "555-0111"),
        ("tap", "menu_save"), ("tap", "up")]),
    ("Delete Chloé Martin", [
        ("tap", "row:Chloé Martin"), ("tap", "menu_delete"), ("tap", "cancel"), ("tap", "menu_delete"),
        ("tap", "ok")]),
    ("Start adding Eva Lind, then give up", [
        ("tap", "fab"), ("tap", "name_input"), ("type", "Eva Lind"), ("back",)]),
    ("Rename Ana Souza to Ana Souza-Reis", [
        ("tap", "row:Ana Souza"), ("tap", "menu_edit"), ("tap", "name_input"), ("type", "Ana Souza-Reis"),
        ("tap", "menu_save"), ("back",)]),
    ("Add Grace Kim, 555-0121", [
        ("tap", "fab"), ("tap", "name_input"), ("type", "Grace Kim"), ("tap", "phone_input"),
        ("type", "555-0121"), ("tap", "menu_save")]),
    ("Grace's surname is Kimura", [
        ("tap", "row:Grace Kim"), ("tap", "menu_edit"), ("tap", "name_input"), ("type", "Grace Kimura"),
        ("tap", "menu_save"), ("tap", "up")]),
    ("Delete Grace Kimura", [("tap", "row:Grace Kimura"), ("tap", "menu_delete"), ("tap", "ok")]),
    ("Open Aaron Blake's delete dialog but keep him", [
        ("tap", "row:Aaron Blake"), ("tap", "menu_delete"), ("back",), ("tap", "up")]),
    ("Add Hugo Lopes, 555-0156", [
        ("tap", "fab"), ("tap", "name_input"), ("type", "Hugo Lopes"), ("tap", "phone_input"),
        ("type", "555-0156"), ("tap", "menu_save")]),
]
CONTACTS_NEW = [
    ("Add Farid Haddad, 555-0163", [
        ("tap", "fab"), ("tap", "name_input"), ("type", "Farid Haddad"), ("tap", "phone_input"),
        ("type", "555-0163"), ("tap", "menu_save")]),
    ("Dmitri's new number is 555-0170", [
        ("tap", "row:Dmitri Ivanov"), ("tap", "menu_edit"), ("tap", "phone_input"), ("type", "555-0170"),
        ("tap", "menu_save"), ("tap", "up")]),
    ("Delete Aaron Blake", [("tap", "row:Aaron Blake"), ("tap", "menu_delete"), ("tap", "ok")]),
]


# ---------------------------------------------------------------------------------------- shopping
@dataclass
class Item:
    name: str
    qty: int = 1
    bought: bool = False


class Shopping(Model):
    """A shopping list with inline add, a checkbox and a quantity stepper per row."""

    package = "com.example.shopping"

    def __init__(self) -> None:
        super().__init__()
        self.items = [Item("Milk"), Item("Bread", 2), Item("Apples", 6)]
        self.menu_open = False
        self.fields = {"new_item_input": ""}

    def at_home(self) -> bool:
        return not self.menu_open

    def window(self) -> tuple[str, Node]:
        d = self.device
        act = f"{self.package}/.ShoppingListActivity"
        if self.menu_open:
            return act, self.popup({"Uncheck all": self._uncheck, "Clear checked items": self._clear},
                                   d.status + d.dp(4))
        top = d.status + d.dp(56)
        row_top = top + d.dp(64)
        pitch = d.dp(56)
        rows = [self._row(i, it, row_top + i * pitch, pitch) for i, it in enumerate(self.items)]
        add = Node(LINEAR, (0, top, d.width, row_top), rid=self.rid("add_bar"), children=[
            self.edit("new_item_input", "Add an item", (d.dp(16), top + d.dp(8), d.width - d.dp(104),
                                                        row_top - d.dp(8))),
            Node(BUTTON, (d.width - d.dp(96), top + d.dp(8), d.width - d.dp(16), row_top - d.dp(8)),
                 rid=self.rid("add_item_button"), text="Add", clickable=True, focusable=True,
                 key="add", on=self._add)])
        body = Node(LINEAR, (0, d.status, d.width, d.nav), children=[
            self.toolbar("Shopping list", actions=[self.overflow(self._menu)]), add,
            Node(LISTVIEW, (0, row_top, d.width, d.nav), rid=self.rid("shopping_list"), focusable=True,
                 children=rows)])
        return act, self.decor(body)

    def _row(self, i: int, it: Item, y: int, pitch: int) -> Node:
        d = self.device
        mid = y + pitch // 2
        return Node(LINEAR, (0, y, d.width, y + pitch), rid=self.rid("item_row"), children=[
            Node(CHECKBOX, (d.dp(8), y, d.width - d.dp(152), y + pitch), rid=self.rid("item_checkbox"),
                 text=it.name, checkable=True, checked=it.bought, clickable=True, focusable=True,
                 key=f"check:{it.name}", on=lambda: setattr(it, "bought", not it.bought)),
            Node(IMAGE_BUTTON, (d.width - d.dp(144), mid - d.dp(20), d.width - d.dp(104), mid + d.dp(20)),
                 rid=self.rid("qty_minus"), desc="Decrease quantity", clickable=True, focusable=True,
                 enabled=it.qty > 1, key=f"minus:{it.name}", on=lambda: self._step(it, -1)),
            Node(TEXT, (d.width - d.dp(100), mid - d.dp(12), d.width - d.dp(60), mid + d.dp(12)),
                 rid=self.rid("qty_text"), text=str(it.qty)),
            Node(IMAGE_BUTTON, (d.width - d.dp(56), mid - d.dp(20), d.width - d.dp(16), mid + d.dp(20)),
                 rid=self.rid("qty_plus"), desc="Increase quantity", clickable=True, focusable=True,
                 key=f"plus:{it.name}", on=lambda: self._step(it, 1)),
        ])

    def _step(self, it: Item, by: int) -> None:
        if it.qty + by >= 1:  # − is disabled at 1
            it.qty += by

    def _add(self) -> None:
        name = self.fields["new_item_input"]
        if name:  # an empty field adds nothing; the field is cleared and keeps its focus
            self.items.append(Item(name))
            self.fields["new_item_input"] = ""

    def _menu(self) -> None:
        self.menu_open, self.focus = True, None

    def _uncheck(self) -> None:
        for it in self.items:
            it.bought = False
        self.menu_open = False

    def _clear(self) -> None:
        self.items = [it for it in self.items if not it.bought]
        self.menu_open = False

    def back(self) -> None:
        assert self.menu_open, "back on the list would leave the app"
        self.menu_open = False


SHOPPING_EPISODES: list[tuple[str, list[tuple[str, ...]]]] = [
    ("Add eggs and butter", [
        ("tap", "new_item_input"), ("type", "Eggs"), ("tap", "add"), ("type", "Butter"), ("tap", "add")]),
    ("Two milks, one bread less", [("tap", "plus:Milk"), ("tap", "plus:Milk"), ("tap", "minus:Bread")]),
    ("Got the bread and apples", [("tap", "check:Bread"), ("tap", "check:Apples")]),
    ("Start over: uncheck everything", [("tap", "more"), ("tap", "pop:Uncheck all")]),
    ("Got the milk; clear what's in the basket", [
        ("tap", "check:Milk"), ("tap", "more"), ("tap", "pop:Clear checked items")]),
    ("Add rice", [("tap", "new_item_input"), ("tap", "add"), ("type", "Rice"), ("tap", "add")]),
    ("More eggs, two rice, no three", [
        ("tap", "plus:Eggs"), ("tap", "plus:Rice"), ("tap", "plus:Rice"), ("tap", "minus:Rice")]),
    ("Tick and untick the eggs", [("tap", "check:Eggs"), ("tap", "check:Eggs")]),
    ("Look at the menu", [("tap", "more"), ("back",)]),
    ("Add two bottles of olive oil", [
        ("tap", "new_item_input"), ("type", "Olive oil"), ("tap", "add"), ("tap", "plus:Olive oil")]),
    ("Bought butter and rice", [
        ("tap", "check:Butter"), ("tap", "check:Rice"), ("tap", "more"), ("tap", "pop:Clear checked items")]),
    ("Fewer apples", [("tap", "minus:Apples"), ("tap", "minus:Apples")]),
    ("One more bread, tick it, untick it", [
        ("tap", "plus:Bread"), ("tap", "check:Bread"), ("tap", "check:Bread")]),
]
SHOPPING_NEW = [
    ("Add three tomatoes", [
        ("tap", "new_item_input"), ("type", "Tomatoes"), ("tap", "add"), ("tap", "plus:Tomatoes"),
        ("tap", "plus:Tomatoes")]),
    ("Got the olive oil; one egg is enough", [("tap", "check:Olive oil"), ("tap", "minus:Eggs")]),
    ("Got the apples too; clear them", [
        ("tap", "check:Apples"), ("tap", "more"), ("tap", "pop:Clear checked items")]),
]


# ---------------------------------------------------------------------------------------- reading
class Reading(Model):
    """One activity with bottom navigation: two lists and a settings tab; add through a dialog."""

    package = "com.example.reading"
    device = PIXEL_4A
    TABS = ("Books", "Wishlist", "Settings")

    def __init__(self) -> None:
        super().__init__()
        self.lists = {"Books": ["Dune", "Emma", "Beloved"], "Wishlist": ["Middlemarch", "Kindred"]}
        self.switches = {"switch_reminders": False, "switch_wifi": True}
        self.tab = "Books"
        self.dialog_kind: str | None = None   # None | add | remove
        self.target = ""

    def at_home(self) -> bool:
        return self.tab == "Books" and self.dialog_kind is None

    def window(self) -> tuple[str, Node]:
        act = f"{self.package}/.HomeActivity"
        if self.dialog_kind == "add":
            title = "New book" if self.tab == "Books" else "Add to wishlist"
            field_ = self.edit("dialog_input", "Title", (0, 0, 0, 0))
            ok = self._add if self.fields.get("dialog_input") else None
            return act, self.dialog(title, field_, "Add", ok, self._close)
        if self.dialog_kind == "remove":
            return act, self.dialog(f"Remove \u201c{self.target}\u201d?",
                                    "It will be removed from your books.",
                                    "Remove", self._remove, self._close)
        d = self.device
        nav_top = d.nav - d.dp(56)
        top = d.status + d.dp(56)
        page = self._settings(top) if self.tab == "Settings" else self._list(top, nav_top)
        kids = [self.toolbar(self.tab), page, self._bottom_nav(nav_top)]
        if self.tab != "Settings":
            desc = "Add book" if self.tab == "Books" else "Add to wishlist"
            kids.insert(2, self.fab("fab_add", desc, self._open_add, bottom=nav_top))
        return act, self.decor(Node(GROUP, (0, d.status, d.width, d.nav), rid=self.rid("container"),
                                    children=kids))

    def _list(self, top: int, bottom: int) -> Node:
        d, pitch = self.device, self.device.dp(56)
        book = self.tab == "Books"
        rows = []
        for i, title in enumerate(self.lists[self.tab]):
            y = top + i * pitch
            kids = [Node(TEXT, (d.dp(16), y + d.dp(16), d.width - d.dp(72), y + d.dp(40)),
                         rid=self.rid("book_title" if book else "wish_title"), text=title)]
            if not book:
                kids.append(Node(IMAGE_BUTTON, (d.width - d.dp(56), y + d.dp(8), d.width - d.dp(16),
                                                y + d.dp(48)), rid=self.rid("wish_remove"),
                                 desc="Remove", clickable=True, focusable=True, key=f"remove:{title}",
                                 on=lambda t=title: self.lists["Wishlist"].remove(t)))
            rows.append(Node(GROUP, (0, y, d.width, y + pitch),
                             rid=self.rid("book_item" if book else "wish_item"),
                             clickable=book, long_clickable=book, focusable=book, key=f"item:{title}",
                             on_long=(lambda t=title: self._ask_remove(t)) if book else None,
                             on=(lambda: None) if book else None, children=kids))
        return Node(RECYCLER, (0, top, d.width, bottom), rid=self.rid("book_list" if book else "wish_list"),
                    focusable=True, children=rows)

    def _settings(self, top: int) -> Node:
        d = self.device
        labels = {"switch_reminders": "Daily reading reminder", "switch_wifi": "Download over Wi-Fi only"}
        kids = [self.switch(k, labels[k], v, top + i * d.dp(56),
                            lambda k=k: self.switches.__setitem__(k, not self.switches[k]))
                for i, (k, v) in enumerate(self.switches.items())]
        return Node("android.widget.ScrollView", (0, top, d.width, d.nav - d.dp(56)),
                    rid=self.rid("settings_scroll"), children=[
                        Node(LINEAR, (0, top, d.width, top + len(kids) * d.dp(56)), children=kids)])

    def _bottom_nav(self, top: int) -> Node:
        d = self.device
        w = d.width // len(self.TABS)
        items = []
        for i, tab in enumerate(self.TABS):
            x, sel = i * w, tab == self.tab
            label = "largeLabel" if sel else "smallLabel"
            items.append(Node(FRAME, (x, top, x + w, d.nav), desc=tab, clickable=True, focusable=True,
                              selected=sel, key=f"tab:{tab}", on=lambda t=tab: self._switch_tab(t),
                              children=[
                Node(IMAGE, (x + w // 2 - d.dp(12), top + d.dp(8), x + w // 2 + d.dp(12), top + d.dp(32)),
                     rid=self.rid("icon")),
                Node(TEXT, (x + w // 2 - d.dp(30), top + d.dp(34), x + w // 2 + d.dp(30), top + d.dp(50)),
                     rid=self.rid(label), text=tab)]))
        return Node(FRAME, (0, top, d.width, d.nav), rid=self.rid("bottom_navigation"), children=[
            Node(GROUP, (0, top, d.width, d.nav), children=items)])

    def _switch_tab(self, tab: str) -> None:
        self.tab = tab

    def _open_add(self) -> None:
        self.dialog_kind, self.fields, self.focus = "add", {"dialog_input": ""}, None

    def _ask_remove(self, title: str) -> None:
        self.dialog_kind, self.target = "remove", title

    def _add(self) -> None:
        self.lists[self.tab].append(self.fields["dialog_input"])
        self._close()

    def _remove(self) -> None:
        self.lists["Books"].remove(self.target)
        self._close()

    def _close(self) -> None:
        self.dialog_kind, self.focus = None, None

    def back(self) -> None:
        if self.dialog_kind is not None:
            self._close()
        else:
            assert self.tab != "Books", "back on the first tab would leave the app"
            self.tab = "Books"


READING_EPISODES: list[tuple[str, list[tuple[str, ...]]]] = [
    ("Add Persuasion to my books", [
        ("tap", "fab"), ("tap", "dialog_input"), ("type", "Persuasion"), ("tap", "ok")]),
    ("Put The Dispossessed on the wishlist", [
        ("tap", "tab:Wishlist"), ("tap", "fab"), ("tap", "dialog_input"), ("type", "The Dispossessed"),
        ("tap", "ok"), ("tap", "tab:Books")]),
    ("Turn on the daily reminder", [
        ("tap", "tab:Settings"), ("tap", "switch:switch_reminders"), ("tap", "tab:Books")]),
    ("Remove Emma", [
        ("long", "item:Emma"), ("tap", "cancel"), ("long", "item:Emma"), ("tap", "ok")]),
    ("I bought Kindred: take it off the wishlist", [
        ("tap", "tab:Wishlist"), ("tap", "remove:Kindred"), ("back",)]),
    ("Start adding Ulysses, then cancel", [
        ("tap", "fab"), ("tap", "ok"), ("tap", "dialog_input"), ("type", "Ulysses"), ("tap", "cancel")]),
    ("Allow downloads on mobile data", [
        ("tap", "tab:Settings"), ("tap", "switch:switch_wifi"), ("back",)]),
    ("Look around, turn the reminder off", [
        ("tap", "tab:Wishlist"), ("tap", "tab:Settings"), ("tap", "switch:switch_reminders"),
        ("tap", "tab:Wishlist"), ("tap", "tab:Books")]),
    ("Add Kafka on the Shore", [
        ("tap", "fab"), ("tap", "dialog_input"), ("type", "Kafka on the Shore"), ("tap", "ok")]),
    ("Got The Dispossessed", [("tap", "tab:Wishlist"), ("tap", "remove:The Dispossessed"), ("back",)]),
    ("Almost remove Persuasion", [("long", "item:Persuasion"), ("tap", "cancel")]),
    ("Wi-Fi only again", [
        ("tap", "tab:Settings"), ("tap", "switch:switch_wifi"), ("tap", "tab:Books")]),
    ("Wishlist Gilead", [
        ("tap", "tab:Wishlist"), ("tap", "fab"), ("tap", "dialog_input"), ("type", "Gilead"), ("tap", "ok"),
        ("back",)]),
]
READING_NEW = [
    ("Add The Left Hand of Darkness", [
        ("tap", "fab"), ("tap", "dialog_input"), ("type", "The Left Hand of Darkness"), ("tap", "ok")]),
    ("Wishlist Piranesi", [
        ("tap", "tab:Wishlist"), ("tap", "fab"), ("tap", "dialog_input"), ("type", "Piranesi"), ("tap", "ok"),
        ("tap", "tab:Books")]),
    ("Remove Dune", [("long", "item:Dune"), ("tap", "ok")]),
]


# ---------------------------------------------------------------------------------------- todo
@dataclass
class Task:
    title: str
    high: bool = False
    done: bool = False


class Todo(Model):
    """To-dos with a per-row overflow popup (Edit / Delete); new tasks go on top."""

    package = "com.example.todo"

    def __init__(self) -> None:
        super().__init__()
        self.tasks = [Task("Book flights"), Task("Renew passport", high=True),
                      Task("Water the garden", done=True)]
        self.screen = "list"          # list | popup | editor
        self.selected: Task | None = None
        self.high = False

    def at_home(self) -> bool:
        return self.screen == "list"

    def window(self) -> tuple[str, Node]:
        if self.screen == "editor":
            return f"{self.package}/.EditTodoActivity", self._editor()
        act = f"{self.package}/.TodoActivity"
        if self.screen == "popup":
            assert self.selected is not None
            row = self.tasks.index(self.selected)
            d = self.device
            top = d.status + d.dp(56) + (row + 1) * d.dp(64) - d.dp(16)
            return act, self.popup({"Edit": self._edit, "Delete": self._delete}, top)
        return act, self._list()

    def _list(self) -> Node:
        d = self.device
        top, pitch = d.status + d.dp(56), d.dp(64)
        rows = [self._row(t, top + i * pitch, pitch) for i, t in enumerate(self.tasks)]
        bar = self.toolbar("Tasks", actions=[self.action("action_add", "Add task", self._new)])
        return self.decor(Node(LINEAR, (0, d.status, d.width, d.nav), children=[
            bar, Node(RECYCLER, (0, top, d.width, d.nav), rid=self.rid("todo_list"), focusable=True,
                      children=rows)]))

    def _row(self, t: Task, y: int, pitch: int) -> Node:
        d = self.device
        kids = [
            Node(CHECKBOX, (d.dp(8), y + d.dp(8), d.dp(56), y + d.dp(56)), rid=self.rid("todo_check"),
                 checkable=True, checked=t.done, clickable=True, focusable=True, key=f"check:{t.title}",
                 on=lambda: setattr(t, "done", not t.done)),
            Node(TEXT, (d.dp(64), y + d.dp(12), d.width - d.dp(136), y + d.dp(36)), rid=self.rid("todo_text"),
                 text=t.title)]
        if t.high:
            kids.append(Node(TEXT, (d.dp(64), y + d.dp(38), d.dp(104), y + d.dp(54)),
                             rid=self.rid("todo_badge"), text="High"))
        kids.append(Node(IMAGE_BUTTON, (d.width - d.dp(56), y + d.dp(8), d.width - d.dp(8), y + d.dp(56)),
                         rid=self.rid("todo_menu"), desc="More options", clickable=True, focusable=True,
                         key=f"menu:{t.title}", on=lambda: self._popup(t)))
        return Node(GROUP, (0, y, d.width, y + pitch), rid=self.rid("todo_row"), children=kids)

    def _popup(self, t: Task) -> None:
        self.selected, self.screen = t, "popup"

    def _new(self) -> None:
        self.selected, self.fields, self.high, self.focus = None, {"todo_input": ""}, False, None
        self.screen = "editor"

    def _edit(self) -> None:
        assert self.selected is not None
        self.fields, self.high = {"todo_input": self.selected.title}, self.selected.high
        self.screen, self.focus = "editor", None

    def _delete(self) -> None:
        self.tasks.remove(self.selected)
        self.selected, self.screen = None, "list"

    def _done(self) -> None:
        text = self.fields["todo_input"]
        if not text:
            return  # an empty task is not saved
        if self.selected is None:
            self.tasks.insert(0, Task(text, high=self.high))
        else:
            self.selected.title, self.selected.high = text, self.high
        self._to_list()

    def _to_list(self) -> None:
        self.selected, self.screen, self.focus = None, "list", None

    def _editor(self) -> Node:
        d = self.device
        top = d.status + d.dp(56)
        title = "New task" if self.selected is None else "Edit task"
        kids = [
            self.toolbar(title, up=self._to_list),
            self.edit("todo_input", "What needs doing?", (d.dp(16), top + d.dp(16), d.width - d.dp(16),
                                                          top + d.dp(64))),
            self.switch("priority_switch", "High priority", self.high, top + d.dp(80),
                        lambda: setattr(self, "high", not self.high)),
            Node(BUTTON, (d.dp(16), top + d.dp(152), d.width - d.dp(16), top + d.dp(200)),
                 rid=self.rid("done_button"), text="Done", clickable=True, focusable=True, key="done",
                 on=self._done)]
        return self.decor(Node(LINEAR, (0, d.status, d.width, d.nav), children=kids))

    def back(self) -> None:
        assert self.screen != "list", "back on the list would leave the app"
        self._to_list()


TODO_EPISODES: list[tuple[str, list[tuple[str, ...]]]] = [
    ("Add: call the plumber", [
        ("tap", "action_add"), ("tap", "todo_input"), ("type", "Call the plumber"), ("tap", "done")]),
    ("It's flights to Lisbon", [
        ("tap", "menu:Book flights"), ("tap", "pop:Edit"), ("tap", "todo_input"),
        ("type", "Book flights to Lisbon"), ("tap", "done")]),
    ("Passport and garden are done", [("tap", "check:Renew passport"), ("tap", "check:Water the garden")]),
    ("Drop the garden task", [("tap", "menu:Water the garden"), ("tap", "pop:Delete")]),
    ("Add an important one: pick up dry cleaning", [
        ("tap", "action_add"), ("tap", "done"), ("tap", "todo_input"), ("type", "Pick up dry cleaning"),
        ("tap", "switch:priority_switch"), ("tap", "done")]),
    ("Open a menu and close it", [("tap", "menu:Call the plumber"), ("back",)]),
    ("The passport isn't urgent any more", [
        ("tap", "menu:Renew passport"), ("tap", "pop:Edit"), ("tap", "switch:priority_switch"),
        ("tap", "done")]),
    ("Start a task for stamps, then drop it", [
        ("tap", "action_add"), ("tap", "todo_input"), ("type", "Buy stamps"), ("tap", "up")]),
    ("The plumber is called", [("tap", "check:Call the plumber")]),
    ("Start renaming the dry cleaning, then leave it", [
        ("tap", "menu:Pick up dry cleaning"), ("tap", "pop:Edit"), ("tap", "todo_input"),
        ("type", "Pick up dry cleaning at 5"), ("back",)]),
    ("Add: return library books", [
        ("tap", "action_add"), ("tap", "todo_input"), ("type", "Return library books"), ("tap", "done")]),
    ("Already returned them", [("tap", "menu:Return library books"), ("tap", "pop:Delete")]),
    ("Tick and untick the flights", [
        ("tap", "check:Book flights to Lisbon"), ("tap", "check:Book flights to Lisbon")]),
    ("Flights are urgent", [
        ("tap", "menu:Book flights to Lisbon"), ("tap", "pop:Edit"), ("tap", "switch:priority_switch"),
        ("tap", "done")]),
    ("Dry cleaning picked up", [("tap", "check:Pick up dry cleaning")]),
]
TODO_NEW = [
    ("Add an important one: send the invoice", [
        ("tap", "action_add"), ("tap", "todo_input"), ("type", "Send the invoice"),
        ("tap", "switch:priority_switch"), ("tap", "done")]),
    ("Renew the ID as well", [
        ("tap", "menu:Renew passport"), ("tap", "pop:Edit"), ("tap", "todo_input"),
        ("type", "Renew passport and ID"), ("tap", "done")]),
    ("Drop the plumber task", [("tap", "menu:Call the plumber"), ("tap", "pop:Delete")]),
]


# ---------------------------------------------------------------------------------------- tally
class Tally(Model):
    """A counter with + / −, an overflow popup (Reset with a confirm, Settings) and settings."""

    package = "com.example.tally"

    def __init__(self) -> None:
        super().__init__()
        self.count = 0
        self.settings = {"allow_negative": False, "vibrate": True, "keep_awake": False}
        self.screen = "counter"       # counter | menu | confirm | settings

    def at_home(self) -> bool:
        return self.screen == "counter"

    def window(self) -> tuple[str, Node]:
        d = self.device
        if self.screen == "settings":
            return f"{self.package}/.SettingsActivity", self._settings()
        act = f"{self.package}/.CounterActivity"
        if self.screen == "menu":
            return act, self.popup({"Reset": lambda: self._go("confirm"),
                                    "Settings": lambda: self._go("settings")}, d.status + d.dp(4))
        if self.screen == "confirm":
            return act, self.dialog("Reset counter?", "The count goes back to 0.", "Reset", self._reset,
                                    lambda: self._go("counter"))
        top = d.status + d.dp(56)
        mid = (top + d.nav) // 2
        can_dec = self.count > 0 or self.settings["allow_negative"]
        kids = [
            self.toolbar("Tally", actions=[self.overflow(lambda: self._go("menu"))]),
            Node(TEXT, (d.dp(16), mid - d.dp(140), d.width - d.dp(16), mid - d.dp(112)),
                 rid=self.rid("counter_label"), text="Glasses of water"),
            Node(TEXT, (d.dp(16), mid - d.dp(100), d.width - d.dp(16), mid - d.dp(20)),
                 rid=self.rid("counter_value"), text=str(self.count)),
            Node(LINEAR, (d.dp(16), mid, d.width - d.dp(16), mid + d.dp(72)), children=[
                Node(BUTTON, (d.dp(16), mid, d.width // 2 - d.dp(8), mid + d.dp(72)),
                     rid=self.rid("decrement"),
                     text="\u2212", clickable=True, focusable=True, enabled=can_dec, key="dec",
                     on=lambda: self._add(-1)),
                Node(BUTTON, (d.width // 2 + d.dp(8), mid, d.width - d.dp(16), mid + d.dp(72)),
                     rid=self.rid("increment"), text="+", clickable=True, focusable=True, key="inc",
                     on=lambda: self._add(1))])]
        return act, self.decor(Node(LINEAR, (0, d.status, d.width, d.nav), children=kids))

    def _add(self, by: int) -> None:
        if self.count + by >= 0 or self.settings["allow_negative"]:
            self.count += by

    def _reset(self) -> None:
        self.count = 0
        self._go("counter")

    def _settings(self) -> Node:
        d = self.device
        top = d.status + d.dp(56)
        labels = {"allow_negative": "Allow negative values", "vibrate": "Vibrate on tap",
                  "keep_awake": "Keep screen on"}
        rows = [self.switch(k, labels[k], v, top + i * d.dp(56),
                            lambda k=k: self.settings.__setitem__(k, not self.settings[k]))
                for i, (k, v) in enumerate(self.settings.items())]
        return self.decor(Node(LINEAR, (0, d.status, d.width, d.nav), children=[
            self.toolbar("Settings", up=lambda: self._go("counter")),
            Node(LINEAR, (0, top, d.width, top + len(rows) * d.dp(56)), rid=self.rid("settings_list"),
                 children=rows)]))

    def back(self) -> None:
        assert self.screen != "counter", "back on the counter would leave the app"
        self._go("counter")


TALLY_EPISODES: list[tuple[str, list[tuple[str, ...]]]] = [
    ("Three glasses", [("tap", "inc"), ("tap", "inc"), ("tap", "inc")]),
    ("Oops, only two", [("tap", "dec")]),
    ("Nearly reset", [("tap", "more"), ("tap", "pop:Reset"), ("tap", "cancel")]),
    ("Reset the counter", [("tap", "more"), ("tap", "pop:Reset"), ("tap", "ok")]),
    ("Try below zero, then count one", [("tap", "dec"), ("tap", "inc")]),
    ("No vibration", [("tap", "more"), ("tap", "pop:Settings"), ("tap", "switch:vibrate"), ("tap", "up")]),
    ("Allow negative values", [
        ("tap", "more"), ("tap", "pop:Settings"), ("tap", "switch:allow_negative"), ("back",)]),
    ("Go below zero", [("tap", "dec"), ("tap", "dec")]),
    ("Peek at the menu", [("tap", "more"), ("back",)]),
    ("Keep the screen on... no", [
        ("tap", "more"), ("tap", "pop:Settings"), ("tap", "switch:keep_awake"), ("tap", "switch:keep_awake"),
        ("tap", "up")]),
    ("Two up, then reset", [
        ("tap", "inc"), ("tap", "inc"), ("tap", "more"), ("tap", "pop:Reset"), ("tap", "ok")]),
    ("Down to minus three", [("tap", "dec"), ("tap", "dec"), ("tap", "dec")]),
    ("Vibration back on", [("tap", "more"), ("tap", "pop:Settings"), ("tap", "switch:vibrate"), ("back",)]),
    ("Back to zero", [("tap", "inc"), ("tap", "inc"), ("tap", "inc")]),
]
TALLY_NEW = [
    ("Six glasses today", [("tap", "inc")] * 6),
    ("No negative values", [
        ("tap", "more"), ("tap", "pop:Settings"), ("tap", "switch:allow_negative"), ("tap", "up")]),
    ("One less", [("tap", "dec")]),
]


# ---------------------------------------------------------------------------------------- playlist
@dataclass
class Song:
    title: str
    artist: str
    liked: bool = False


class Playlist(Model):
    """A playlist longer than the screen: a RecyclerView scrolled by four rows a swipe (the row
    cut at its bottom edge shows its title and not its artist), a song page with a Like switch
    and a toolbar Delete; back keeps the list where it was scrolled."""

    package = "com.example.playlist"
    STEP = 4  # rows one scroll moves the list by

    def __init__(self) -> None:
        super().__init__()
        self.songs = [Song(t, a) for t, a in (
            ("Blue Monday", "New Order"), ("Clocks", "Coldplay"), ("Dreams", "Fleetwood Mac"),
            ("Everlong", "Foo Fighters"), ("Fast Car", "Tracy Chapman"), ("Hallelujah", "Jeff Buckley"),
            ("Heroes", "David Bowie"), ("Jolene", "Dolly Parton"), ("Karma Police", "Radiohead"),
            ("Le Freak", "Chic"), ("Midnight City", "M83"), ("Roxanne", "The Police"),
            ("Superstition", "Stevie Wonder"), ("Teardrop", "Massive Attack"), ("Vogue", "Madonna"),
            ("Wonderwall", "Oasis"))]
        self.screen = "list"          # list | song
        self.selected: Song | None = None
        self.first = 0                # the first row shown

    def at_home(self) -> bool:
        return self.screen == "list"

    def window(self) -> tuple[str, Node]:
        if self.screen == "song":
            return f"{self.package}/.SongActivity", self._song()
        return f"{self.package}/.PlaylistActivity", self._list()

    def _geometry(self) -> tuple[int, int, int]:
        d = self.device
        top = d.status + d.dp(56)
        return top, d.nav, d.dp(72)

    def _fits(self) -> int:
        top, bottom, pitch = self._geometry()
        return -(-(bottom - top) // pitch)  # rows the list shows, the last one cut

    def scroll(self, direction: str) -> None:
        last = max(0, len(self.songs) - self._fits() + 1)
        self.first = max(0, min(last, self.first + (self.STEP if direction == "down" else -self.STEP)))

    def _list(self) -> Node:
        d = self.device
        top, bottom, pitch = self._geometry()
        self.first = min(self.first, max(0, len(self.songs) - self._fits() + 1))
        rows = []
        for i, song in enumerate(self.songs[self.first:self.first + self._fits()]):
            y = top + i * pitch
            kids = [Node(TEXT, (d.dp(16), y + d.dp(12), d.width - d.dp(16), min(bottom, y + d.dp(36))),
                         rid=self.rid("song_title"), text=song.title)]
            if y + d.dp(40) < bottom:  # the artist line of a row cut at the edge is not shown
                kids.append(Node(TEXT, (d.dp(16), y + d.dp(40), d.width - d.dp(16),
                                        min(bottom, y + d.dp(60))),
                                 rid=self.rid("song_artist"), text=song.artist))
            rows.append(Node(GROUP, (0, y, d.width, min(bottom, y + pitch)), rid=self.rid("song_row"),
                             clickable=True, focusable=True, key=f"row:{song.title}",
                             on=lambda s=song: self._open(s), children=kids))
        return self.decor(Node(LINEAR, (0, d.status, d.width, d.nav), children=[
            self.toolbar("Playlist"),
            Node(RECYCLER, (0, top, d.width, bottom), rid=self.rid("playlist"), focusable=True,
                 scrollable=True, key="list", children=rows)]))

    def _open(self, song: Song) -> None:
        self.selected, self.screen = song, "song"

    def _song(self) -> Node:
        d = self.device
        song = self.selected
        assert song is not None
        top = d.status + d.dp(56)
        bar = self.toolbar(song.title, up=self.back,
                           actions=[self.action("menu_delete", "Delete", self._delete)])
        return self.decor(Node(LINEAR, (0, d.status, d.width, d.nav), children=[
            bar,
            Node(TEXT, (d.dp(16), top + d.dp(16), d.width - d.dp(16), top + d.dp(40)),
                 rid=self.rid("artist"), text=song.artist),
            self.switch("like_switch", "Like", song.liked, top + d.dp(56),
                        lambda: setattr(song, "liked", not song.liked))]))

    def _delete(self) -> None:
        self.songs.remove(self.selected)
        self.back()

    def back(self) -> None:
        assert self.screen != "list", "back on the list would leave the app"
        self.selected, self.screen = None, "list"


PLAYLIST_EPISODES: list[tuple[str, list[tuple[str, ...]]]] = [
    ("Who sings Clocks?", [("tap", "row:Clocks"), ("tap", "up")]),
    ("Like Jolene", [("scroll", "down"), ("tap", "row:Jolene"), ("tap", "switch:like_switch"),
                     ("tap", "up"), ("scroll", "up")]),
    ("Like Roxanne, further down", [
        ("scroll", "down"), ("scroll", "down"), ("tap", "row:Roxanne"), ("tap", "switch:like_switch"),
        ("back",), ("scroll", "up"), ("scroll", "up")]),
    ("Drop Everlong", [("tap", "row:Everlong"), ("tap", "menu_delete")]),
    ("Look at the end of the list", [
        ("scroll", "down"), ("scroll", "down"), ("scroll", "down"), ("tap", "row:Wonderwall"),
        ("back",), ("scroll", "up"), ("scroll", "up"), ("scroll", "up")]),
    ("Drop Karma Police", [("scroll", "down"), ("tap", "row:Karma Police"), ("tap", "menu_delete"),
                           ("scroll", "up")]),
    ("Unlike Jolene", [("scroll", "down"), ("tap", "row:Jolene"), ("tap", "switch:like_switch"),
                       ("back",), ("scroll", "up")]),
    ("Like Dreams", [("tap", "row:Dreams"), ("tap", "switch:like_switch"), ("tap", "up")]),
    ("Who made Teardrop?", [("scroll", "down"), ("scroll", "down"), ("tap", "row:Teardrop"),
                            ("tap", "up"), ("scroll", "up"), ("scroll", "up")]),
]
PLAYLIST_NEW = [
    ("Like Vogue", [("scroll", "down"), ("scroll", "down"), ("tap", "row:Vogue"),
                    ("tap", "switch:like_switch"), ("back",), ("scroll", "up")]),
    ("Drop Superstition", [("tap", "row:Superstition"), ("tap", "menu_delete"), ("scroll", "up"),
                           ("scroll", "up")]),
]


# ---------------------------------------------------------------------------------------- notes
@dataclass
class Note:
    title: str
    body: str


class Notes(Model):
    """Notes kept as the editor is left, with no Save button: a RecyclerView of title + text rows
    (new notes on top), a FAB to a blank editor, a row to its note's editor; back or Up keeps
    what was typed (a new note left blank is not kept), the editor's toolbar Delete asks first."""

    package = "com.example.notes"

    def __init__(self) -> None:
        super().__init__()
        self.notes = [Note("Groceries", "Eggs, milk"), Note("Ideas", "A garden shed"),
                      Note("Books", "Dune, Emma")]
        self.screen = "list"          # list | editor | confirm
        self.selected: Note | None = None

    def at_home(self) -> bool:
        return self.screen == "list"

    def window(self) -> tuple[str, Node]:
        if self.screen == "list":
            return f"{self.package}/.NotesActivity", self._list()
        if self.screen == "confirm":
            return f"{self.package}/.EditorActivity", self.dialog(
                "Delete note?", "This note will be deleted.", "Delete", self._delete,
                lambda: self._go("editor"))
        return f"{self.package}/.EditorActivity", self._editor()

    def _list(self) -> Node:
        d = self.device
        top, pitch = d.status + d.dp(56), d.dp(72)
        rows = []
        for i, note in enumerate(self.notes):
            y = top + i * pitch
            rows.append(Node(GROUP, (0, y, d.width, y + pitch), rid=self.rid("note_row"),
                             clickable=True, focusable=True, key=f"row:{note.title}",
                             on=lambda n=note: self._open(n), children=[
                Node(TEXT, (d.dp(16), y + d.dp(12), d.width - d.dp(16), y + d.dp(36)),
                     rid=self.rid("row_title"), text=note.title),
                Node(TEXT, (d.dp(16), y + d.dp(40), d.width - d.dp(16), y + d.dp(60)),
                     rid=self.rid("row_text"), text=note.body)]))
        body = Node(FRAME, (0, top, d.width, d.nav), children=[
            Node(RECYCLER, (0, top, d.width, d.nav), rid=self.rid("notes_list"), focusable=True,
                 children=rows),
            self.fab("new_note_fab", "New note", self._new)])
        return self.decor(Node(LINEAR, (0, d.status, d.width, d.nav), children=[
            self.toolbar("Notes"), body]))

    def _open(self, note: Note) -> None:
        self.selected = note
        self.fields = {"title_input": note.title, "text_input": note.body}
        self._go("editor")

    def _new(self) -> None:
        self.selected, self.fields = None, {"title_input": "", "text_input": ""}
        self._go("editor")

    def _editor(self) -> Node:
        d = self.device
        top = d.status + d.dp(56)
        bar = self.toolbar("Note", up=self._leave, actions=[
            self.action("menu_delete", "Delete", lambda: self._go("confirm"))])
        return self.decor(Node(LINEAR, (0, d.status, d.width, d.nav), children=[
            bar,
            self.edit("title_input", "Title", (d.dp(16), top + d.dp(8), d.width - d.dp(16),
                                               top + d.dp(56))),
            self.edit("text_input", "Note", (d.dp(16), top + d.dp(64), d.width - d.dp(16),
                                             top + d.dp(200)))]))

    def _leave(self) -> None:
        """Back and Up keep the note: a new one when anything was typed, an open one updated."""
        title, body = self.fields["title_input"], self.fields["text_input"]
        if self.selected is not None:
            self.selected.title, self.selected.body = title, body
        elif title or body:
            self.notes.insert(0, Note(title, body))
        self.selected = None
        self._go("list")

    def _delete(self) -> None:
        if self.selected is not None:
            self.notes.remove(self.selected)
        self.selected = None
        self._go("list")

    def back(self) -> None:
        assert self.screen != "list", "back on the list would leave the app"
        if self.screen == "confirm":
            self._go("editor")
        else:
            self._leave()


NOTES_EPISODES: list[tuple[str, list[tuple[str, ...]]]] = [
    ("Note down what to pack: passport, charger", [
        ("tap", "fab"), ("tap", "title_input"), ("type", "Packing"), ("tap", "text_input"),
        ("type", "Passport, charger"), ("back",)]),
    ("What was on the groceries note?", [("tap", "row:Groceries"), ("back",)]),
    ("Add bread to the groceries", [
        ("tap", "row:Groceries"), ("tap", "text_input"), ("type", "Eggs, milk, bread"),
        ("tap", "up")]),
    ("Delete the ideas note", [("tap", "row:Ideas"), ("tap", "menu_delete"), ("tap", "ok")]),
    ("Start a note, then leave it blank", [("tap", "fab"), ("back",)]),
    ("Note: call mum on Sunday at noon", [
        ("tap", "fab"), ("tap", "title_input"), ("type", "Call mum"), ("tap", "text_input"),
        ("type", "Sunday at noon"), ("tap", "up")]),
    ("Rename the books note to Reading list", [
        ("tap", "row:Books"), ("tap", "title_input"), ("type", "Reading list"), ("back",)]),
    ("Open the packing note's delete dialog but keep it", [
        ("tap", "row:Packing"), ("tap", "menu_delete"), ("tap", "cancel"), ("back",)]),
    ("Note: gym on Monday, legs", [
        ("tap", "fab"), ("tap", "title_input"), ("type", "Gym"), ("tap", "text_input"),
        ("type", "Monday legs"), ("back",)]),
    ("Delete the gym note", [("tap", "row:Gym"), ("tap", "menu_delete"), ("tap", "ok")]),
    ("Note the pancake recipe", [
        ("tap", "fab"), ("tap", "title_input"), ("type", "Recipes"), ("tap", "text_input"),
        ("type", "Pancakes"), ("back",)]),
    ("Call mum at five, not noon", [
        ("tap", "row:Call mum"), ("tap", "text_input"), ("type", "Sunday at five"), ("back",)]),
    ("Look at the packing note", [("tap", "row:Packing"), ("tap", "up")]),
]
NOTES_NEW = [
    ("Note: dentist on Tuesday at 9", [
        ("tap", "fab"), ("tap", "title_input"), ("type", "Dentist"), ("tap", "text_input"),
        ("type", "Tuesday at 9"), ("back",)]),
    ("Add Middlemarch to the reading list", [
        ("tap", "row:Reading list"), ("tap", "text_input"), ("type", "Dune, Emma, Middlemarch"),
        ("back",)]),
    ("Delete the recipes note", [("tap", "row:Recipes"), ("tap", "menu_delete"), ("tap", "ok")]),
]


# ---------------------------------------------------------------------------------------- recording
@dataclass(frozen=True)
class AppDef:
    name: str
    model: Callable[[], Model]
    episodes: list[tuple[str, list[tuple[str, ...]]]]
    new: list[tuple[str, list[tuple[str, ...]]]]   # last in the recording: the held-out ones


APPS = (
    AppDef("contacts", Contacts, CONTACTS_EPISODES, CONTACTS_NEW),
    AppDef("shopping", Shopping, SHOPPING_EPISODES, SHOPPING_NEW),
    AppDef("reading", Reading, READING_EPISODES, READING_NEW),
    AppDef("todo", Todo, TODO_EPISODES, TODO_NEW),
    AppDef("tally", Tally, TALLY_EPISODES, TALLY_NEW),
    AppDef("playlist", Playlist, PLAYLIST_EPISODES, PLAYLIST_NEW),
    AppDef("notes", Notes, NOTES_EPISODES, NOTES_NEW),
)


def _target(root: Node, key: str) -> Node:
    hits = [n for n in root.walk() if n.key == key]
    assert len(hits) == 1, f"{key!r}: {len(hits)} nodes on the screen"
    return hits[0]


def record(model: Model, instruction: str, script: list[tuple[str, ...]]) -> tuple[dict[str, Any], list[str]]:
    """Play `script` on `model`: the episode's JSON and its screens' XML."""
    steps: list[dict[str, Any]] = []
    screens: list[str] = []
    for k, op in enumerate([*script, None]):
        activity, root = model.drawn()
        screens.append(to_xml(root, model.package))
        action: dict[str, Any] | None
        if op is None:
            action = None
        elif op[0] in ("tap", "long"):
            node = _target(root, op[1])
            l, t, r, b = node.bounds
            action = {"type": "click" if op[0] == "tap" else "long_press",
                      "x": (l + r) // 2, "y": (t + b) // 2}
            handler = node.on if op[0] == "tap" else node.on_long
            if node.enabled and handler is not None:  # a disabled widget ignores the tap
                handler()
        elif op[0] == "type":
            action = {"type": "type", "text": op[1]}
            model.type(op[1])
        elif op[0] == "back":
            action = {"type": "back"}
            model.back()
        elif op[0] == "scroll":
            l, t, r, b = _target(root, "list").bounds
            action = {"type": "scroll", "direction": op[1], "x": (l + r) // 2, "y": (t + b) // 2}
            model.scroll(op[1])
        else:
            raise AssertionError(op)
        steps.append({"screen": f"{k:04d}.xml", "activity": activity, "action": action})
    assert model.at_home(), f"{instruction!r} does not end where it started"
    return ({"format": "phoneworld-trace/1", "app": model.package, "device": model.device.json(),
             "instruction": instruction, "steps": steps}, screens)


FORMATS = ("native", "droidbot")


def write_app(app: AppDef, out: Path, fmt: str = "native", explore: int = 0,
              lag: float = 0.0, ui: str = "views") -> Path:
    """Write `app`'s recording under `out/<package>/` (replacing it) as native episodes
    (`ep_NNNN/`) or as one DroidBot run (of `explore` random events instead of the scripts, when
    given); the package folder. The new-values episodes are exactly the last `HELDOUT` of the
    recorded actions."""
    model = app.model()
    model.ui = ui
    folder = out / model.package
    if folder.exists():
        shutil.rmtree(folder)
    train = sum(len(s) for _, s in app.episodes)
    new = sum(len(s) for _, s in app.new)
    held = math.floor((train + new) * HELDOUT)
    assert held == new, f"{app.name}: {train} training and {new} new actions hold out {held}, not {new}"
    if fmt == "droidbot" and explore:
        DroidBotRun(folder, model).explore(explore, seed=0, lag=lag)
        return folder
    if fmt == "droidbot":
        DroidBotRun(folder, model).record([*app.episodes, *app.new])
        return folder
    for e, (instruction, script) in enumerate([*app.episodes, *app.new], start=1):
        episode, screens = record(model, instruction, script)
        ep = folder / f"ep_{e:04d}"
        ep.mkdir(parents=True)
        (ep / "episode.json").write_text(json.dumps(episode, indent=2, ensure_ascii=False) + "\n",
                                         encoding="utf-8")
        for step, xml in zip(episode["steps"], screens):
            (ep / step["screen"]).write_bytes(xml.encode("utf-8"))
    return folder


# ---------------------------------------------------------------------------------------- DroidBot
LAUNCHER = "com.google.android.apps.nexuslauncher"


def droidbot_views(root: Node, pkg: str) -> list[dict[str, Any]]:
    """`root` as a DroidBot state's `views`: a flat list in depth-first order linked by
    `parent` / `children` ids, bounds as [[x1, y1], [x2, y2]], absent strings as null."""
    views: list[dict[str, Any]] = []

    def add(n: Node, parent: int) -> int:
        i = len(views)
        (l, t, r, b), rid, text = n.bounds, n.rid or None, n.text or None
        flags = ",".join(("enabled" if n.enabled else "", "checked" if n.checked else "",
                          "selected" if n.selected else ""))
        view: dict[str, Any] = {
            "package": pkg, "visible": True, "checkable": n.checkable,
            "child_count": len(n.children), "editable": n.cls == EDIT, "clickable": n.clickable,
            "is_password": False, "focusable": n.focusable, "enabled": n.enabled,
            "content_description": n.desc or None, "children": [], "focused": n.focused,
            "bounds": [[l, t], [r, b]], "resource_id": rid, "checked": n.checked, "text": text,
            "class": n.cls, "scrollable": n.scrollable, "selected": n.selected,
            "long_clickable": n.long_clickable, "parent": parent, "temp_id": i,
            "size": f"{r - l}*{b - t}",
            "signature": f"[class]{n.cls}[resource_id]{rid}[text]{text}[{flags}]",
            "content_free_signature": f"[class]{n.cls}[resource_id]{rid}",
        }
        key = json.dumps([view["signature"], view["bounds"]]).encode()
        view["view_str"] = hashlib.md5(key).hexdigest()
        views.append(view)
        view["children"] = [add(c, i) for c in n.children]
        return i

    add(root, -1)
    return views


class DroidBotRun:
    """One DroidBot run over a model, as DroidBot writes it: `states/state_<tag>.json` for every
    state it saw (`state_str` hashes the views, so a screen seen again has the same one) and
    `events/event_<tag>.json` for every event, each from its start state to its stop state. The
    run starts as DroidBot's do: kill_app (from a state it wrote no file for) to the launcher,
    then the intent that starts the app; the episodes follow without a restart, so the app's
    data carries from one to the next, as in one exploration session."""

    def __init__(self, folder: Path, model: Model) -> None:
        self.folder, self.model, self.n = folder, model, 0
        for sub in ("states", "events"):
            (folder / sub).mkdir(parents=True)

    def _tag(self) -> str:
        self.n += 1
        s = 10 * 3600 + 2 * self.n
        return f"2024-03-01_{s // 3600:02d}{s // 60 % 60:02d}{s % 60:02d}"

    def state(self, activity: str, root: Node, pkg: str) -> tuple[str, list[dict[str, Any]]]:
        """Write one state file; its state_str and views."""
        views = droidbot_views(root, pkg)
        digest = hashlib.md5(json.dumps([activity, views], sort_keys=True).encode()).hexdigest()
        d = self.model.device
        state = {"tag": self._tag(), "state_str": digest,
                 "state_str_content_free": hashlib.md5(digest.encode()).hexdigest(),
                 "foreground_activity": activity, "activity_stack": [activity],
                 "background_services": [], "width": d.width, "height": d.height, "views": views}
        self._write("states", f"state_{state['tag']}.json", state)
        return digest, views

    def event(self, event: dict[str, Any], start: str, stop: str) -> None:
        tag = self._tag()
        self._write("events", f"event_{tag}.json", {
            "tag": tag, "event": {"log_lines": None, **event}, "start_state": start,
            "stop_state": stop, "event_str": f"{event['event_type']}(state={start})"})

    def _write(self, sub: str, name: str, data: dict[str, Any]) -> None:
        (self.folder / sub / name).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")

    def _start(self) -> tuple[str, Node, list[dict[str, Any]]]:
        """The launcher, kill_app to it and the intent that starts the app: the app's first
        state, its window and views."""
        model, d = self.model, self.model.device
        home = Node(FRAME, (0, 0, d.width, d.height), children=[
            Node(TEXT, (d.dp(24), d.dp(300), d.dp(104), d.dp(340)),
                 text=model.package.rsplit(".", 1)[-1], clickable=True)])
        launcher, _ = self.state(f"{LAUNCHER}/.NexusLauncherActivity", home, LAUNCHER)
        self.event({"event_type": "kill_app", "stop_intent": f"am force-stop {model.package}"},
                   hashlib.md5(b"unseen").hexdigest(), launcher)
        activity, root = model.drawn()
        current, views = self.state(activity, root, model.package)
        self.event({"event_type": "intent", "intent": f"am start {activity}"}, launcher, current)
        return current, root, views

    def _then(self, current: str, event: dict[str, Any], late: bool = False
              ) -> tuple[str, Node, list[dict[str, Any]]]:
        """The state after `event` (already applied to the model), and the event's file; `late`:
        DroidBot read the screen before the app drew the change, so the event stops where it
        started and the next one starts on the changed screen."""
        activity, root = self.model.drawn()
        after, views = self.state(activity, root, self.model.package)
        self.event(event, current, current if late else after)
        return after, root, views

    def record(self, episodes: list[tuple[str, list[tuple[str, ...]]]]) -> None:
        current, root, views = self._start()
        for instruction, script in episodes:
            for op in script:
                if op[0] in ("tap", "long"):
                    event = self._act(op[0], _target(root, op[1]), root, views)
                elif op[0] == "type":
                    field_node = next(n for n in root.walk() if n.focused)
                    event = self._act("type", field_node, root, views, op[1])
                elif op[0] == "back":
                    event = self._act("back", None, root, views)
                elif op[0] == "scroll":
                    event = self._act(f"scroll_{op[1]}", _target(root, "list"), root, views)
                else:
                    raise AssertionError(op)
                current, root, views = self._then(current, event)
            assert self.model.at_home(), f"{instruction!r} does not end where it started"

    def explore(self, events: int, seed: int, lag: float = 0.0) -> None:
        """`events` events of DroidBot's random exploration instead of the scripts: each a random
        choice among what DroidBot's input policy offers on the screen (a touch on an enabled
        clickable view, a long touch on a long-clickable one, a set_text on an editable one with
        a random text, a scroll up or down on a scrollable list, back where back does not leave
        the app). `lag`: the share of events whose
        change DroidBot read too early (see `_then`)."""
        rng = random.Random(seed)
        current, root, views = self._start()
        for _ in range(events):
            shown = [n for n in root.walk() if n.enabled and n.bounds[2] > n.bounds[0]
                     and n.bounds[3] > n.bounds[1]]
            options: list[tuple[str, Node | None]] = [
                *(("tap", n) for n in shown if n.clickable and n.cls != EDIT),
                *(("long", n) for n in shown if n.long_clickable and n.cls != EDIT),
                *(("type", n) for n in shown if n.cls == EDIT),
                *((f"scroll_{d}", n) for n in shown if n.scrollable and n.key
                  for d in ("down", "up")),
            ]
            if not self.model.at_home():
                options.append(("back", None))
            kind, node = rng.choice(options)
            if kind == "type" and node is not None and node.on is not None:
                node.on()  # set_text taps the field first (the event shows it unfocused)
            text = f"{rng.choice(EXPLORE_WORDS)} {rng.randint(1, 99)}" if kind == "type" else ""
            event = self._act(kind, node, root, views, text)
            current, root, views = self._then(current, event, late=rng.random() < lag)

    def _act(self, kind: str, node: Node | None, root: Node, views: list[dict[str, Any]],
             text: str = "") -> dict[str, Any]:
        """Apply one event to the model; the DroidBot event that stands for it."""
        nodes = list(root.walk())  # in the views' depth-first order

        def view(n: Node) -> dict[str, Any]:
            return views[next(i for i, m in enumerate(nodes) if m is n)]
        if kind == "back":
            self.model.back()
            return {"event_type": "key", "name": "BACK"}
        assert node is not None
        if kind == "type":
            self.model.type(text)
            return {"event_type": "set_text", "x": None, "y": None, "text": text,
                    "view": view(node)}
        if kind.startswith("scroll_"):
            direction = kind.split("_", 1)[1]
            self.model.scroll(direction)
            return {"event_type": "scroll", "x": None, "y": None, "direction": direction.upper(),
                    "view": view(node)}
        handler = node.on if kind == "tap" else node.on_long
        if node.enabled and handler is not None:  # a disabled widget ignores the tap
            handler()
        return {"event_type": "touch" if kind == "tap" else "long_touch", "x": None, "y": None,
                "view": view(node)}


EXPLORE_WORDS = ("Hello", "Milk", "Call Ana", "Pay rent", "Dune", "Walk", "Notes", "Report")


# ---------------------------------------------------------------------------------------- table
COLUMNS = (  # (key, heading, width): bench/fidelity_suite.py's figures
    ("chg", "chg", 4), ("train_match", "train match", 11), ("train_f1", "train F1", 8),
    ("ref_f1", "ref F1", 6), ("held_match", "held match", 10), ("coverage", "cov", 5),
    ("covered_match", "cov match", 9), ("known", "known", 5), ("known_match", "known match", 11),
    ("tasks", "tasks", 5),
)


def task_kinds(out: Path, package: str) -> dict[str, int]:
    report = out / package / "report.json"
    if not report.is_file():
        return {}
    tasks = json.loads(report.read_text(encoding="utf-8")).get("tasks") or {}
    return dict(sorted((tasks.get("kinds") or {}).items()))


def print_table(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    head = f"{'app':<9} {'exit':>4} " + " ".join(f"{h:>{w}}" for _, h, w in COLUMNS) + "  kinds kept"
    print(head)
    print("-" * len(head))
    for r in rows:
        kinds = " ".join(f"{k}:{v}" for k, v in r["kinds"].items()) or "-"
        print(f"{r['name']:<9} {str(r['exit']) + ('!' if r['traceback'] else ''):>4} "
              + " ".join(cell(k, r.get(k), w) for k, _, w in COLUMNS) + f"  {kinds}")
    means: dict[str, float | None] = {}
    for key, _, _ in COLUMNS:
        vals = [r[key] for r in rows if isinstance(r.get(key), (int, float))]
        means[key] = round(sum(vals) / len(vals), 4) if vals else None
    print("-" * len(head))
    print(f"{'mean':<9} {'':>4} " + " ".join(cell(k, means[k], w) for k, _, w in COLUMNS))
    for r in rows:
        if "error" in r:
            print(f"  {r['name']}: exit {r['exit']}: {r['error']}")
    return means


# ---------------------------------------------------------------------------------------- misses
def _key(k: tuple[str, str, str, str, str]) -> str:
    cls, rid, text, desc, checked = k
    return f"{cls.rsplit('.', 1)[-1]}:{rid.rsplit('/', 1)[-1]}:{text or desc}" + (
        f":{checked}" if checked else "")


def _flags(root: Any) -> frozenset[tuple[str, str, bool]]:
    """The checked flags on a screen, which the content keys of the fidelity figures leave out."""
    return frozenset((n.resource_id.rsplit("/", 1)[-1], n.text, n.checked) for n in root.walk()
                     if n.checkable and n.bounds.area > 0)


def misses(folder: Path) -> list[str]:
    """Every replayed step the mock got wrong, in the build's own replay (in process, as
    `phoneworld build --heldout 0.2` replays): a changing step that missed its next screen or
    its change, an unchanged step (not typing) where the mock changed what it shows, and a step
    that reached the right screen with other checked flags than recorded (the fidelity figures
    do not see flags)."""
    from phoneworld.fidelity import readings_for
    from phoneworld.graph import graph
    from phoneworld.ir.diagnostics import Diagnostics
    from phoneworld.pipeline import BuildConfig, build_app, check
    from phoneworld.runtime.sim import Simulator

    traces, _ = check(folder)
    config = BuildConfig(traces=folder, heldout=HELDOUT, write=False, tasks=False)
    inputs = build_app(traces, config, Diagnostics()).inputs
    assert inputs is not None
    known = {v.name for v in inputs.spec.state}
    sim = Simulator(inputs.spec)
    out: list[str] = []
    for label, replay, part in (("train", inputs.train_replay, inputs.train),
                                ("held", inputs.held_replay, inputs.held)):
        if replay is None:
            continue
        view = inputs.abstraction if label == "train" else readings_for(inputs.abstraction, part)
        for step, result in zip(graph(part, view).steps, replay.steps):
            line = _miss(sim, part.episodes[step.episode], step, result,
                         replay.tracked[step.episode][step.step], known)
            if line:
                out.append(f"{label} {line}")
    return out


def _miss(sim: Any, ep: Any, step: Any, result: Any, before: Any, known: set[str]) -> str:
    """One replayed step, described where the mock got it wrong ("" where it got it right)."""
    from phoneworld.abstract.shape import content_keys
    from phoneworld.fidelity import on_widget, place
    from phoneworld.state.track import absolute_item

    action = ep.steps[step.step].action
    if action is None:
        return ""
    recorded = ep.steps[step.step + 1].observation.root
    rec = content_keys(recorded)
    if not place(sim, step, before, known):
        shown, flags_wrong, mock = "cannot be put there (a screen it does not know)", False, rec
    else:
        sim.step(on_widget(sim, action, step, absolute_item(step, before.windows)))
        mock = content_keys(sim.view())
        extra = ", ".join(sorted(_key(k) for k in mock - rec)[:4])
        lacking = ", ".join(sorted(_key(k) for k in rec - mock)[:4])
        shown = f"shows [{extra}] and lacks [{lacking}]"
        got, want = _flags(sim.view()), _flags(recorded)
        flags_wrong = result.transition_match and got != want
        if flags_wrong:
            shown += f"; checked {sorted(got - want)} where recorded {sorted(want - got)}"
    if result.changing:
        wrong = not result.transition_match or (result.change_f1 or 0.0) < 0.999
    else:
        wrong = action.type != "type" and (mock != rec or not result.mock_screen)
    if not (wrong or flags_wrong):
        return ""
    what = action.model_dump(exclude_none=True, exclude_defaults=True)
    f1 = None if result.change_f1 is None else round(result.change_f1, 3)
    return (f"{ep.id}.{step.step} {ep.instruction!r}: {what} on {step.screen or '?'}/"
            f"{step.widget or '-'} ({'changing' if result.changing else 'unchanged'}): recorded -> "
            f"{step.next_screen or '?'}, mock -> {result.mock_screen or '-'}, F1 {f1}; mock {shown}")


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="where the traces are written (default: a temporary folder)")
    parser.add_argument("--json", dest="json_path", help="also write the table as JSON here")
    parser.add_argument("--only", help="one app: " + ", ".join(a.name for a in APPS))
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per build")
    parser.add_argument("--format", dest="fmt", choices=FORMATS, default="native",
                        help="write the recordings as native episodes or as DroidBot runs")
    parser.add_argument("--explore", type=int, default=0, metavar="N",
                        help="record N events of DroidBot's random exploration instead of the "
                        "scripts (as a DroidBot run)")
    parser.add_argument("--lag", type=float, default=0.0, metavar="P",
                        help="with --explore: the share of events whose change DroidBot read "
                        "too early (the event stops where it started, the next starts changed)")
    parser.add_argument("--ui", choices=UIS, default="views",
                        help="the toolkit whose dumps the recordings look like: Android's views, "
                        "React Native's, Flutter's or Jetpack Compose's")
    parser.add_argument("--misses", action="store_true",
                        help="also list every replayed step each app's mock got wrong")
    args = parser.parse_args(argv)
    names = [a.name for a in APPS]
    if args.only is not None and args.only not in names:
        close = difflib.get_close_matches(args.only, names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        parser.error(f"--only {args.only!r} is not an app: {hint}choose one of {', '.join(names)}")
    if args.timeout <= 0:
        parser.error(f"--timeout {args.timeout} must be a positive number of seconds")
    if args.explore < 0:
        parser.error(f"--explore {args.explore} must be a number of events (0: the scripts)")
    if not 0.0 <= args.lag < 1.0 or (args.lag and not args.explore):
        parser.error(f"--lag {args.lag} must be a share in [0, 1) and goes with --explore N")
    if args.out is not None and Path(args.out).exists() and not Path(args.out).is_dir():
        parser.error(f"--out {args.out} is a file, not a folder")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    try:
        return run(args)
    except OSError as exc:  # an --out or --json that cannot be written
        print(f"crud_apps.py: error: {exc.strerror}: {exc.filename}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace) -> int:
    apps = [a for a in APPS if args.only in (None, a.name)]
    rows = []
    folders: dict[str, Path] = {}
    with tempfile.TemporaryDirectory(prefix="crud_apps_") as tmp:
        traces = Path(args.out) if args.out else Path(tmp) / "traces"
        for app in apps:
            folder = folders[app.name] = write_app(
                app, traces / app.name, "droidbot" if args.explore else args.fmt, args.explore,
                args.lag, args.ui)
            built = Path(tmp) / f"{app.name}.build"
            row = build_set(folder, HELDOUT, built, args.timeout)
            row = {"name": app.name, **row, "kinds": task_kinds(built, folder.name)}
            print(f"{app.name}: exit {row['exit']}, {row['seconds']} s", file=sys.stderr, flush=True)
            rows.append(row)
        means = print_table(rows)
        if args.misses:
            for name, folder in folders.items():
                found = misses(folder)
                print(f"\n{name}: {len(found)} steps the mock got wrong")
                for line in found:
                    print(f"  {line}")
    if args.json_path:
        out = Path(args.json_path)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps({"heldout": HELDOUT, "rows": rows, "means": means}, indent=1,
                                  sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {out}", file=sys.stderr)
    return 0 if all(r["exit"] == 0 and not r["traceback"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
