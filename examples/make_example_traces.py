#!/usr/bin/env python3
"""Write the bundled example traces: a small notes / to-do app, `com.example.notes`.

    python examples/make_example_traces.py          # writes examples/traces/com.example.notes/ep_NNNN/
    python examples/check_example_traces.py         # checks what was written

The traces are in the native format `phoneworld-trace/1` (DESIGN.md section 2): one folder per episode
holding `episode.json` and one `uiautomator dump`-style XML file per step (`0000.xml`, `0001.xml`, ...),
as a Pixel-2-like device (1080x1920, density 420, API 29) would record them. No screenshots.

How it works: a tiny reference model of the app (`NotesApp`) holds the data (notes, settings) and the
current screen; `render()` draws the current screen as a widget tree with fixed, realistic bounds; each
episode is a short script of taps (named by widget, e.g. the checkbox of the note "Pay rent"), `type`
and `back`. A tap is written to the trace as a click at the centre of that widget's bounds on the
screen it is taken on, and the model then moves to its next screen. Episodes are consecutive sessions:
each one starts on the notes list as the previous one left it.

The output is deterministic: re-running writes byte-identical files (the script first removes its own
output folder, so stale episodes never linger).

The app (exact texts and ids; the compiler infers its state from the diffs between these screens):
- Notes list `.MainActivity`: toolbar title "Notes", ImageButton `settings_button` ("Settings"),
  ListView `note_list` of LinearLayout `note_item` rows (CheckBox `note_done` + TextView `note_title`,
  168 px pitch), ImageButton `add_note` ("Add note", bottom-right FAB).
- Editor `.EditorActivity`: toolbar "Navigate up" + "Edit note", EditText `title_input`, Button
  `save_button` "Save". Save with an empty title does nothing. Save after "Add note" appends a new,
  unchecked note at the end of the list; save after a note's "Edit" renames that note; both return to
  the list. The detail screen finishes itself when it opens the editor, so back / "Navigate up" from
  the editor always returns to the list (discarding the input).
- Detail `.DetailActivity`: toolbar "Navigate up" + "Note", TextView `detail_title`, TextView
  `detail_status` ("Done" / "Open"), Button `edit_button` "Edit", Button `delete_button` "Delete"
  (removes the note, back to the list).
- Settings `.SettingsActivity`: toolbar "Navigate up" + "Settings", Switch `dark_mode_switch`
  "Dark mode", Switch `sort_switch` "Keep done notes at the bottom"; tapping toggles, values persist,
  no other visible effect.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

PKG = "com.example.notes"
DEVICE = {"width": 1080, "height": 1920, "density": 420, "sdk": 29}
OUT_ROOT = Path(__file__).resolve().parent / "traces" / PKG

ACT_MAIN = f"{PKG}/.MainActivity"
ACT_EDITOR = f"{PKG}/.EditorActivity"
ACT_DETAIL = f"{PKG}/.DetailActivity"
ACT_SETTINGS = f"{PKG}/.SettingsActivity"

# ---------------------------------------------------------------------------------------------- geometry
# Pixel 2: 1080x1920 px at 420 dpi (1 dp = 2.625 px); status bar 24 dp = 63 px, navigation bar
# 48 dp = 126 px (so the app window ends at 1794), toolbar 56 dp = 147 px, margins 16 dp = 42 px.
W, H = 1080, 1920
STATUS_BOTTOM = 63
NAV_TOP = 1794
TOOLBAR = (0, STATUS_BOTTOM, W, 210)
MARGIN = 42
NAV_UP = (0, 63, 147, 210)              # toolbar navigation ImageButton, 56 dp square
TITLE_TOP, TITLE_BOTTOM = 103, 171       # toolbar title TextView (20 sp)
TITLE_CHAR_PX = 22                       # width per character of the toolbar title (wrap_content)

LIST_TOP = 210                           # first note row starts right under the toolbar
PITCH = 168                              # note row height (64 dp), no dividers
MAX_NOTES = 6                            # everything fits on screen, no scrolling
FAB = (891, 1605, 1038, 1752)            # 56 dp, 16 dp from the right and bottom edges


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


# ---------------------------------------------------------------------------------------------- nodes
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
    password: bool = False
    selected: bool = False
    children: list["Node"] = field(default_factory=list)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()


def _esc(s: str) -> str:
    """Attribute escaping as Android's XmlSerializer (KXmlSerializer) writes it in uiautomator dumps."""
    out = []
    for ch in s:
        if ch == "&":
            out.append("&amp;")
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == '"':
            out.append("&quot;")
        elif ord(ch) < 32:
            out.append(f"&#{ord(ch)};")
        else:
            out.append(ch)
    return "".join(out)


def _b(v: bool) -> str:
    return "true" if v else "false"


def _node_xml(n: Node, index: int, parts: list[str]) -> None:
    l, t, r, b = n.bounds
    parts.append(
        f'<node index="{index}" text="{_esc(n.text)}" resource-id="{_esc(n.rid)}" class="{n.cls}" '
        f'package="{PKG}" content-desc="{_esc(n.desc)}" checkable="{_b(n.checkable)}" '
        f'checked="{_b(n.checked)}" clickable="{_b(n.clickable)}" enabled="{_b(n.enabled)}" '
        f'focusable="{_b(n.focusable)}" focused="{_b(n.focused)}" scrollable="{_b(n.scrollable)}" '
        f'long-clickable="{_b(n.long_clickable)}" password="{_b(n.password)}" '
        f'selected="{_b(n.selected)}" bounds="[{l},{t}][{r},{b}]"'
    )
    if not n.children:
        parts.append(" />")
        return
    parts.append(">")
    for i, c in enumerate(n.children):
        _node_xml(c, i, parts)
    parts.append("</node>")


def to_xml(root: Node) -> str:
    """One line, no trailing newline, like `uiautomator dump` writes it."""
    parts = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"]
    _node_xml(root, 0, parts)
    parts.append("</hierarchy>")
    return "".join(parts)


# ---------------------------------------------------------------------------------------------- widgets
def decor(app_root: Node) -> Node:
    """Framework window layers: DecorView > LinearLayout > FrameLayout android:id/content > app root."""
    content = Node("android.widget.FrameLayout", (0, STATUS_BOTTOM, W, NAV_TOP), rid="android:id/content",
                   children=[app_root])
    return Node("android.widget.FrameLayout", (0, 0, W, H), children=[
        Node("android.widget.LinearLayout", (0, 0, W, NAV_TOP), children=[content]),
        Node("android.view.View", (0, NAV_TOP, W, H), rid="android:id/navigationBarBackground"),
        Node("android.view.View", (0, 0, W, STATUS_BOTTOM), rid="android:id/statusBarBackground"),
    ])


def toolbar(title: str, *, up: bool, extra: list[Node] | None = None) -> Node:
    """android.widget.Toolbar reports itself as a plain ViewGroup; its title TextView has no id."""
    children: list[Node] = []
    x = MARGIN
    if up:
        children.append(Node("android.widget.ImageButton", NAV_UP, desc="Navigate up",
                             clickable=True, focusable=True))
        x = 189  # 72 dp keyline
    children.append(Node("android.widget.TextView", (x, TITLE_TOP, x + TITLE_CHAR_PX * len(title), TITLE_BOTTOM),
                         text=title))
    children.extend(extra or [])
    return Node("android.view.ViewGroup", TOOLBAR, rid=rid("toolbar"), children=children)


def note_row(i: int, title: str, done: bool) -> Node:
    top = LIST_TOP + i * PITCH
    return Node("android.widget.LinearLayout", (0, top, W, top + PITCH), rid=rid("note_item"),
                clickable=True, focusable=True, children=[
        Node("android.widget.CheckBox", (21, top + 21, 147, top + 147), rid=rid("note_done"),
             checkable=True, checked=done, clickable=True),
        Node("android.widget.TextView", (168, top + 49, 1038, top + 119), rid=rid("note_title"), text=title),
    ])


# ---------------------------------------------------------------------------------------------- the app
@dataclass
class Note:
    title: str
    done: bool = False


@dataclass
class NotesApp:
    """Reference model of com.example.notes: data + the screen on top."""

    notes: list[Note]
    dark_mode: bool = False
    sort_done: bool = False
    screen: str = "list"          # list | editor | detail | settings
    selected: int | None = None   # note index shown in the detail / being edited
    editor_mode: str = "add"      # add | edit
    editor_text: str = ""
    editor_focused: bool = False

    # ---- drawing
    def activity(self) -> str:
        return {"list": ACT_MAIN, "editor": ACT_EDITOR, "detail": ACT_DETAIL, "settings": ACT_SETTINGS}[self.screen]

    def render(self) -> Node:
        return decor(getattr(self, f"_render_{self.screen}")())

    def _render_list(self) -> Node:
        assert 2 <= len(self.notes) <= MAX_NOTES, "keep lists between 2 and 6 notes (no scrolling)"
        settings = Node("android.widget.ImageButton", (933, 63, 1080, 210), rid=rid("settings_button"),
                        desc="Settings", clickable=True, focusable=True)
        rows = [note_row(i, n.title, n.done) for i, n in enumerate(self.notes)]
        body = Node("android.widget.FrameLayout", (0, LIST_TOP, W, NAV_TOP), children=[
            Node("android.widget.ListView", (0, LIST_TOP, W, NAV_TOP), rid=rid("note_list"),
                 focusable=True, children=rows),
            Node("android.widget.ImageButton", FAB, rid=rid("add_note"), desc="Add note",
                 clickable=True, focusable=True),
        ])
        return Node("android.widget.LinearLayout", (0, STATUS_BOTTOM, W, NAV_TOP), children=[
            toolbar("Notes", up=False, extra=[settings]), body])

    def _render_editor(self) -> Node:
        return Node("android.widget.LinearLayout", (0, STATUS_BOTTOM, W, NAV_TOP), children=[
            toolbar("Edit note", up=True),
            Node("android.widget.EditText", (MARGIN, 252, W - MARGIN, 399), rid=rid("title_input"),
                 text=self.editor_text, clickable=True, focusable=True, focused=self.editor_focused,
                 long_clickable=True),
            Node("android.widget.Button", (MARGIN, 441, W - MARGIN, 567), rid=rid("save_button"),
                 text="Save", clickable=True, focusable=True),
        ])

    def _render_detail(self) -> Node:
        note = self.notes[self.selected]
        return Node("android.widget.LinearLayout", (0, STATUS_BOTTOM, W, NAV_TOP), children=[
            toolbar("Note", up=True),
            Node("android.widget.TextView", (MARGIN, 252, W - MARGIN, 336), rid=rid("detail_title"),
                 text=note.title),
            Node("android.widget.TextView", (MARGIN, 357, W - MARGIN, 414), rid=rid("detail_status"),
                 text="Done" if note.done else "Open"),
            Node("android.widget.LinearLayout", (MARGIN, 456, W - MARGIN, 582), children=[
                Node("android.widget.Button", (MARGIN, 456, 530, 582), rid=rid("edit_button"),
                     text="Edit", clickable=True, focusable=True),
                Node("android.widget.Button", (551, 456, W - MARGIN, 582), rid=rid("delete_button"),
                     text="Delete", clickable=True, focusable=True),
            ]),
        ])

    def _render_settings(self) -> Node:
        return Node("android.widget.LinearLayout", (0, STATUS_BOTTOM, W, NAV_TOP), children=[
            toolbar("Settings", up=True),
            Node("android.widget.Switch", (0, 210, W, 378), rid=rid("dark_mode_switch"), text="Dark mode",
                 checkable=True, checked=self.dark_mode, clickable=True, focusable=True),
            Node("android.widget.Switch", (0, 378, W, 546), rid=rid("sort_switch"),
                 text="Keep done notes at the bottom",
                 checkable=True, checked=self.sort_done, clickable=True, focusable=True),
        ])

    # ---- behaviour
    def _to_list(self) -> None:
        self.screen, self.selected = "list", None
        self.editor_text, self.editor_focused, self.editor_mode = "", False, "add"

    def tap(self, target: str, item: int | None = None) -> None:
        """Apply a tap on widget `target` (resource-id name, or "up" for Navigate up)."""
        s = self.screen
        if target == "up":
            assert s != "list"
            self._to_list()
        elif s == "list" and target == "add_note":
            self.screen, self.editor_mode, self.editor_text, self.editor_focused = "editor", "add", "", False
        elif s == "list" and target == "settings_button":
            self.screen = "settings"
        elif s == "list" and target == "note_done":
            self.notes[item].done = not self.notes[item].done
        elif s == "list" and target in ("note_title", "note_item"):
            self.screen, self.selected = "detail", item
        elif s == "editor" and target == "title_input":
            self.editor_focused = True
        elif s == "editor" and target == "save_button":
            text = self.editor_text
            if text == "":
                return  # guard: saving an empty title does nothing
            if self.editor_mode == "add":
                self.notes.append(Note(text))
            else:
                self.notes[self.selected].title = text
            self._to_list()
        elif s == "detail" and target == "edit_button":
            # DetailActivity starts the editor and finishes itself: the editor sits right on the list.
            self.screen, self.editor_mode = "editor", "edit"
            self.editor_text, self.editor_focused = self.notes[self.selected].title, False
        elif s == "detail" and target == "delete_button":
            del self.notes[self.selected]
            self._to_list()
        elif s == "settings" and target == "dark_mode_switch":
            self.dark_mode = not self.dark_mode
        elif s == "settings" and target == "sort_switch":
            self.sort_done = not self.sort_done
        else:
            raise AssertionError(f"no tap on {target!r} from screen {s!r}")

    def type(self, text: str) -> None:
        assert self.screen == "editor" and self.editor_focused, "type needs a focused text field"
        self.editor_text = text

    def back(self) -> None:
        assert self.screen != "list", "back on the list would leave the app"
        self._to_list()


# ---------------------------------------------------------------------------------------------- episodes
# A script step is one of:
#   ("tap", "<resource-id name>")            a widget unique on the screen
#   ("tap", "<resource-id name>", "<note>")  that child of the list row showing the note titled <note>
#   ("tap", "up")                            the toolbar's "Navigate up" button
#   ("type", "<text>")                       set the focused field's text
#   ("back",)                                system back
EPISODES: list[tuple[str, list[tuple]]] = [
    ("Add a note called \"Water plants 2x a week\".", [
        ("tap", "add_note"),
        ("tap", "title_input"),
        ("type", "Water plants 2x a week"),
        ("tap", "save_button"),
    ]),
    ("Create a new note that says: Don't forget \"keys\"", [
        ("tap", "add_note"),
        ("tap", "save_button"),          # empty title: nothing happens
        ("tap", "title_input"),
        ("type", "Don't forget \"keys\""),
        ("tap", "save_button"),
    ]),
    ("Mark \"Pay rent\" as done, then open it to check that it shows as Done.", [
        ("tap", "note_done", "Pay rent"),
        ("tap", "note_title", "Pay rent"),
        ("back",),
    ]),
    ("Call Alice isn't finished yet: uncheck it. Then have a look at the \"Buy milk\" note.", [
        ("tap", "note_done", "Call Alice"),
        ("tap", "note_title", "Buy milk"),
        ("tap", "up"),
    ]),
    ("Rename the note \"Buy milk\" to \"Buy milk and 12 eggs\".", [
        ("tap", "note_title", "Buy milk"),
        ("tap", "edit_button"),
        ("tap", "title_input"),
        ("type", "Buy milk and 12 eggs"),
        ("tap", "save_button"),
    ]),
    ("Delete the note \"Water plants 2x a week\".", [
        ("tap", "note_title", "Pay rent"),   # opened the wrong note first
        ("tap", "up"),
        ("tap", "note_title", "Water plants 2x a week"),
        ("tap", "delete_button"),
    ]),
    ("Turn on dark mode. Then reopen the settings and also turn on keeping done notes at the bottom.", [
        ("tap", "settings_button"),
        ("tap", "dark_mode_switch"),
        ("back",),
        ("tap", "settings_button"),
        ("tap", "sort_switch"),
        ("tap", "up"),
    ]),
    ("Start a note \"Ring the bank at 9:30\" but discard it without saving.", [
        ("tap", "add_note"),
        ("tap", "title_input"),
        ("type", "Ring the bank at 9:30"),
        ("tap", "up"),
    ]),
    ("Check whether dark mode is still on, and if it is, switch it off.", [
        ("tap", "settings_button"),
        ("tap", "dark_mode_switch"),
        ("back",),
    ]),
    ("Delete \"Pay rent\" and add a note \"Dentist at 10:15\".", [
        ("tap", "note_title", "Pay rent"),
        ("tap", "delete_button"),
        ("tap", "add_note"),
        ("tap", "title_input"),
        ("type", "Dentist at 10:15"),
        ("tap", "save_button"),
    ]),
    ("Open \"Call Alice\" and start renaming it to \"Call Alice tomorrow\", then change your mind and "
     "leave it as it is.", [
        ("tap", "note_title", "Call Alice"),
        ("tap", "edit_button"),
        ("tap", "title_input"),
        ("type", "Call Alice tomorrow"),
        ("back",),                       # discards the edit
    ]),
    ("Tick off \"Buy milk and 12 eggs\" and the note about the keys, then open the keys note to make "
     "sure it's marked done.", [
        ("tap", "note_done", "Buy milk and 12 eggs"),
        ("tap", "note_done", "Don't forget \"keys\""),
        ("tap", "note_title", "Don't forget \"keys\""),
        ("tap", "up"),
    ]),
]

INITIAL_NOTES = [("Buy milk", False), ("Call Alice", True), ("Pay rent", False)]


def _find(root: Node, app: NotesApp, step: tuple) -> Node:
    """The widget a script step taps, on the rendered screen `root`."""
    if step[1] == "up":
        hits = [n for n in root.walk() if n.desc == "Navigate up"]
    elif len(step) == 3:
        index = [n.title for n in app.notes].index(step[2])
        rows = [n for n in root.walk() if n.rid == rid("note_item")]
        hits = [n for n in rows[index].walk() if n.rid == rid(step[1])]
    else:
        hits = [n for n in root.walk() if n.rid == rid(step[1])]
    assert len(hits) == 1, (step, len(hits))
    return hits[0]


def build_episode(app: NotesApp, instruction: str, script: list[tuple]) -> tuple[dict, list[str]]:
    steps: list[dict] = []
    screens: list[str] = []
    for k, op in enumerate(script + [None]):
        root = app.render()
        name = f"{k:04d}.xml"
        screens.append(to_xml(root))
        activity = app.activity()
        if op is None:
            action = None
        elif op[0] == "tap":
            l, t, r, b = _find(root, app, op).bounds
            action = {"type": "click", "x": (l + r) // 2, "y": (t + b) // 2}
            item = [n.title for n in app.notes].index(op[2]) if len(op) == 3 else None
            app.tap(op[1], item)
        elif op[0] == "type":
            action = {"type": "type", "text": op[1]}
            app.type(op[1])
        elif op[0] == "back":
            action = {"type": "back"}
            app.back()
        else:
            raise AssertionError(op)
        steps.append({"screen": name, "activity": activity, "action": action})
    assert app.screen == "list", "every episode ends on the notes list"
    episode = {
        "format": "phoneworld-trace/1",
        "app": PKG,
        "device": DEVICE,
        "instruction": instruction,
        "steps": steps,
    }
    return episode, screens


def main() -> None:
    app = NotesApp(notes=[Note(t, d) for t, d in INITIAL_NOTES])
    if OUT_ROOT.exists():
        shutil.rmtree(OUT_ROOT)
    for e, (instruction, script) in enumerate(EPISODES, start=1):
        assert app.screen == "list"
        episode, screens = build_episode(app, instruction, script)
        folder = OUT_ROOT / f"ep_{e:04d}"
        folder.mkdir(parents=True)
        (folder / "episode.json").write_text(json.dumps(episode, indent=2) + "\n", encoding="utf-8")
        for step, xml in zip(episode["steps"], screens):
            (folder / step["screen"]).write_bytes(xml.encode("utf-8"))
        titles = ", ".join(("[x] " if n.done else "[ ] ") + n.title for n in app.notes)
        print(f"ep_{e:04d}: {len(screens):2d} steps  list after: {titles}")
    print(f"settings after: dark_mode={app.dark_mode} sort_done={app.sort_done}")
    print(f"wrote {len(EPISODES)} episodes under {OUT_ROOT}")


if __name__ == "__main__":
    main()
