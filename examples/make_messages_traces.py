#!/usr/bin/env python3
"""Write the second bundled example: a tiny messages app, `com.example.messages`, for cross-app worlds.

    python examples/make_messages_traces.py   # writes examples/traces_messages/com.example.messages/ep_NNNN/

Same method as `make_example_traces.py` (a reference model of the app renders every screen as a
`uiautomator dump`; scripted episodes of taps, `type` and `back`), and the same device. The output is
deterministic: re-running writes byte-identical files.

The app (exact texts and ids):
- Messages list `.MainActivity`: toolbar title "Messages", ListView `message_list` of LinearLayout
  `message_item` rows (TextView `message_to` + TextView `message_text`, 168 px pitch), ImageButton
  `new_message` ("New message", bottom-right FAB).
- Compose `.ComposeActivity`: toolbar "Navigate up" + "New message", EditText `to_input` (recipient),
  EditText `body_input` (message), ImageButton `attach_button` ("Attach file"; on a phone it opens
  the system file picker, which the traces never record), Button `send_button` "Send". Send with an
  empty recipient or message does nothing (the traces never try it); otherwise it appends the message to the list and returns
  to it. Back / "Navigate up" discards the draft.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

PKG = "com.example.messages"
DEVICE = {"width": 1080, "height": 1920, "density": 420, "sdk": 29}
OUT_ROOT = Path(__file__).resolve().parent / "traces_messages" / PKG
ACT_MAIN, ACT_COMPOSE = f"{PKG}/.MainActivity", f"{PKG}/.ComposeActivity"
W, H, STATUS_BOTTOM, NAV_TOP = 1080, 1920, 63, 1794
LIST_TOP, PITCH, MAX_ROWS = 210, 168, 6
FAB = (891, 1605, 1038, 1752)
INITIAL = [("Alice", "See you at noon"), ("Bob", "Thanks!")]


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


@dataclass
class Node:
    cls: str
    bounds: tuple[int, int, int, int]
    rid: str = ""
    text: str = ""
    desc: str = ""
    clickable: bool = False
    focused: bool = False
    long_clickable: bool = False
    children: list[Node] = field(default_factory=list)

    def walk(self):  # type: ignore[no-untyped-def]
        yield self
        for c in self.children:
            yield from c.walk()


def _esc(s: str) -> str:
    return "".join({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}.get(ch, ch)
                   if ord(ch) >= 32 else f"&#{ord(ch)};" for ch in s)


def _b(v: bool) -> str:
    return "true" if v else "false"


def _node_xml(n: Node, index: int, parts: list[str]) -> None:
    l, t, r, b = n.bounds
    parts.append(
        f'<node index="{index}" text="{_esc(n.text)}" resource-id="{_esc(n.rid)}" class="{n.cls}" '
        f'package="{PKG}" content-desc="{_esc(n.desc)}" checkable="false" checked="false" '
        f'clickable="{_b(n.clickable)}" enabled="true" focusable="{_b(n.clickable)}" '
        f'focused="{_b(n.focused)}" scrollable="false" long-clickable="{_b(n.long_clickable)}" '
        f'password="false" selected="false" bounds="[{l},{t}][{r},{b}]"')
    if not n.children:
        parts.append(" />")
        return
    parts.append(">")
    for i, c in enumerate(n.children):
        _node_xml(c, i, parts)
    parts.append("</node>")


def to_xml(root: Node) -> str:
    parts = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"]
    _node_xml(root, 0, parts)
    parts.append("</hierarchy>")
    return "".join(parts)


def decor(app_root: Node) -> Node:
    content = Node("android.widget.FrameLayout", (0, STATUS_BOTTOM, W, NAV_TOP),
                   rid="android:id/content", children=[app_root])
    return Node("android.widget.FrameLayout", (0, 0, W, H), children=[
        Node("android.widget.LinearLayout", (0, 0, W, NAV_TOP), children=[content]),
        Node("android.view.View", (0, NAV_TOP, W, H), rid="android:id/navigationBarBackground"),
        Node("android.view.View", (0, 0, W, STATUS_BOTTOM), rid="android:id/statusBarBackground"),
    ])


def toolbar(title: str, up: bool) -> Node:
    kids = []
    x = 42
    if up:
        kids.append(Node("android.widget.ImageButton", (0, 63, 147, 210), desc="Navigate up",
                         clickable=True))
        x = 189
    kids.append(Node("android.widget.TextView", (x, 103, x + 22 * len(title), 171), text=title))
    return Node("android.view.ViewGroup", (0, STATUS_BOTTOM, W, 210), rid=rid("toolbar"), children=kids)


@dataclass
class MessagesApp:
    messages: list[tuple[str, str]]
    screen: str = "list"  # list | compose
    to: str = ""
    body: str = ""
    focus: str = ""

    def activity(self) -> str:
        return ACT_MAIN if self.screen == "list" else ACT_COMPOSE

    def render(self) -> Node:
        if self.screen == "list":
            assert 2 <= len(self.messages) <= MAX_ROWS
            rows = []
            for i, (to, text) in enumerate(self.messages):
                top = LIST_TOP + i * PITCH
                rows.append(Node("android.widget.LinearLayout", (0, top, W, top + PITCH),
                                 rid=rid("message_item"), clickable=True, children=[
                    Node("android.widget.TextView", (42, top + 21, 1038, top + 84),
                         rid=rid("message_to"), text=to),
                    Node("android.widget.TextView", (42, top + 84, 1038, top + 147),
                         rid=rid("message_text"), text=text),
                ]))
            body = Node("android.widget.FrameLayout", (0, LIST_TOP, W, NAV_TOP), children=[
                Node("android.widget.ListView", (0, LIST_TOP, W, NAV_TOP), rid=rid("message_list"),
                     children=rows),
                Node("android.widget.ImageButton", FAB, rid=rid("new_message"), desc="New message",
                     clickable=True),
            ])
            return decor(Node("android.widget.LinearLayout", (0, STATUS_BOTTOM, W, NAV_TOP),
                              children=[toolbar("Messages", False), body]))
        return decor(Node("android.widget.LinearLayout", (0, STATUS_BOTTOM, W, NAV_TOP), children=[
            toolbar("New message", True),
            Node("android.widget.EditText", (42, 252, 1038, 378), rid=rid("to_input"), text=self.to,
                 clickable=True, focused=self.focus == "to_input", long_clickable=True),
            Node("android.widget.EditText", (42, 420, 1038, 672), rid=rid("body_input"),
                 text=self.body, clickable=True, focused=self.focus == "body_input",
                 long_clickable=True),
            Node("android.widget.ImageButton", (42, 714, 189, 861), rid=rid("attach_button"),
                 desc="Attach file", clickable=True),
            Node("android.widget.Button", (690, 714, 1038, 861), rid=rid("send_button"),
                 text="Send", clickable=True),
        ]))

    def tap(self, target: str) -> None:
        if self.screen == "list" and target == "new_message":
            self.screen, self.to, self.body, self.focus = "compose", "", "", ""
        elif self.screen == "compose" and target in ("to_input", "body_input"):
            self.focus = target
        elif self.screen == "compose" and target == "attach_button":
            pass  # the system picker is not part of the app (a world wires it)
        elif self.screen == "compose" and target == "send_button":
            if self.to and self.body:
                self.messages.append((self.to, self.body))
                self.screen = "list"
        elif self.screen == "compose" and target == "up":
            self.screen = "list"
        else:
            raise AssertionError(f"no tap on {target!r} from {self.screen}")

    def type(self, text: str) -> None:
        assert self.screen == "compose" and self.focus
        setattr(self, "to" if self.focus == "to_input" else "body", text)


EPISODES: list[tuple[str, list[tuple[str, ...]]]] = [
    ("Text Carol \"Lunch at one?\"", [
        ("tap", "new_message"), ("tap", "to_input"), ("type", "Carol"), ("tap", "body_input"),
        ("type", "Lunch at one?"), ("tap", "send_button")]),
    ("Send Dan the message: running late", [
        ("tap", "new_message"), ("tap", "to_input"), ("type", "Dan"),
        ("tap", "body_input"), ("type", "running late"),
        ("tap", "attach_button"), ("tap", "send_button")]),
    ("Start a message to Erin and discard it", [
        ("tap", "new_message"), ("tap", "to_input"), ("type", "Erin"), ("tap", "body_input"),
        ("type", "Draft"), ("tap", "up")]),
    ("Write to Alice \"On my way\"", [
        ("tap", "new_message"), ("tap", "to_input"), ("type", "Alice"), ("tap", "body_input"),
        ("type", "On my way"), ("back",)]),
    ("Tell Frank \"Call me\"", [
        ("tap", "new_message"), ("tap", "body_input"), ("type", "Call me"),
        ("tap", "to_input"), ("type", "Frank"), ("tap", "send_button")]),
]


def _find(root: Node, target: str) -> Node:
    hits = ([n for n in root.walk() if n.desc == "Navigate up"] if target == "up"
            else [n for n in root.walk() if n.rid == rid(target)])
    assert len(hits) == 1, (target, len(hits))
    return hits[0]


def build_episode(app: MessagesApp, instruction: str,
                  script: list[tuple[str, ...]]) -> tuple[dict, list[str]]:  # type: ignore[type-arg]
    steps, screens = [], []
    for k, op in enumerate([*script, None]):
        root = app.render()
        screens.append(to_xml(root))
        activity = app.activity()
        action: dict | None  # type: ignore[type-arg]
        if op is None:
            action = None
        elif op[0] == "tap":
            l, t, r, b = _find(root, op[1]).bounds
            action = {"type": "click", "x": (l + r) // 2, "y": (t + b) // 2}
            app.tap(op[1])
        elif op[0] == "type":
            action = {"type": "type", "text": op[1]}
            app.type(op[1])
        else:
            action = {"type": "back"}
            app.tap("up")
        steps.append({"screen": f"{k:04d}.xml", "activity": activity, "action": action})
    assert app.screen == "list"
    return {"format": "phoneworld-trace/1", "app": PKG, "device": DEVICE,
            "instruction": instruction, "steps": steps}, screens


def main() -> None:
    app = MessagesApp(list(INITIAL))
    if OUT_ROOT.exists():
        shutil.rmtree(OUT_ROOT)
    for e, (instruction, script) in enumerate(EPISODES, start=1):
        episode, screens = build_episode(app, instruction, script)
        folder = OUT_ROOT / f"ep_{e:04d}"
        folder.mkdir(parents=True)
        (folder / "episode.json").write_text(json.dumps(episode, indent=2) + "\n", encoding="utf-8")
        for step, xml in zip(episode["steps"], screens):
            (folder / step["screen"]).write_bytes(xml.encode("utf-8"))
        print(f"ep_{e:04d}: {len(screens):2d} steps, {len(app.messages)} messages")
    print(f"wrote {len(EPISODES)} episodes under {OUT_ROOT}")


if __name__ == "__main__":
    main()
