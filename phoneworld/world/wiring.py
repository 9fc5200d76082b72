"""How each app of a world takes part in the device services: which widgets open the share sheet
or the file picker, where a share into the app lands, which transitions post a notification.

Derived from the app itself when its entry says `auto: true` (the default), then overridden by the
entry's hand wiring:
- share: a widget whose label (text or content-desc) is "Share", "Share via", "Send to" or "Send
  via". A bare "Send" is left alone: in a messenger it sends the message.
- pick: a widget labelled "Attach", "Attach file", "Add attachment", "Insert file" or "Open file";
  the picked file's text goes into the screen's last editable field.
- receive (the share sheet's "new item" screen): the screen of a transition that appends a record
  built from a typed field, reached from the start screen by unguarded taps; the shared text goes
  into that screen's last editable field the record reads.
- notify (`notify: auto`): every transition that appends a record.
Copy and paste need no wiring: any text can be copied, any editable field pasted into.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

from phoneworld.ir.app import AppSpec, Widget
from phoneworld.world.spec import AppEntry, Receive

SHARE_LABEL = re.compile(r"\s*(share|share via|send to|send via)\s*[.…]*\s*", re.I)
PICK_LABEL = re.compile(r"\s*(attach|attach file|add attachment|insert file|open file)\s*", re.I)


@dataclass(frozen=True)
class AppWiring:
    package: str
    receive: Receive | None = None
    share: dict[tuple[str, str], str | None] = field(default_factory=dict)  # (screen, wid) -> text_from
    pick: dict[tuple[str, str], str] = field(default_factory=dict)  # (screen, wid) -> field wid
    notify: frozenset[str] = frozenset()  # transition ids that post a notification


def _label(w: Widget) -> str:
    text = w.text.value if w.text.kind == "lit" and isinstance(w.text.value, str) else ""
    return text or w.content_desc


def _editable(w: Widget) -> bool:
    return w.editable or w.cls.endswith(("EditText", "AutoCompleteTextView"))


def screen_widgets(w: Widget, in_list: bool = False) -> list[tuple[Widget, bool]]:
    """Every widget under `w` in document order, with whether it is inside a list item."""
    out = [(w, in_list)]
    for c in w.children:
        out += screen_widgets(c, in_list)
    if w.list is not None:
        out += screen_widgets(w.list.item, True)
    return out


def _path(app: AppSpec, target: str) -> tuple[str, ...] | None:
    """Widget ids tapped from the start screen to `target` by unguarded pushes (shortest)."""
    in_list = {s.id: {w.wid for w, inl in screen_widgets(s.root) if inl} for s in app.screens}
    prev: dict[str, tuple[str, str] | None] = {app.start_screen: None}
    todo = deque([app.start_screen])
    while todo:
        sid = todo.popleft()
        if sid == target:
            out: list[str] = []
            cur = prev[sid]
            while cur is not None:
                out.append(cur[1])
                cur = prev[cur[0]]
            return tuple(reversed(out))
        for t in app.transitions:
            if (t.screen == sid and t.action == "click" and t.widget and t.guard is None
                    and t.target and t.nav in ("push", "replace") and t.target not in prev
                    and t.widget not in in_list.get(sid, set())):
                prev[t.target] = (sid, t.widget)
                todo.append(t.target)
    return None


def auto_receive(app: AppSpec) -> Receive | None:
    for t in app.transitions:
        for e in t.effects:
            if e.kind != "append":
                continue
            read = {x.name for x in e.record.values() if x.kind == "var"}
            fields = [w.wid for w, inl in screen_widgets(app.screen(t.screen).root)
                      if not inl and _editable(w) and w.text.kind == "var" and w.text.name in read]
            path = _path(app, t.screen) if fields else None
            if path is not None:
                return Receive(path=path, field=fields[-1])
    return None


def wire(app: AppSpec, entry: AppEntry) -> AppWiring:
    share: dict[tuple[str, str], str | None] = {}
    pick: dict[tuple[str, str], str] = {}
    receive = entry.receive
    if entry.auto:
        for s in app.screens:
            ws = screen_widgets(s.root)
            edits = [w.wid for w, inl in ws if _editable(w) and not inl]
            for w, _ in ws:
                label = _label(w)
                if SHARE_LABEL.fullmatch(label):
                    share[(s.id, w.wid)] = None
                elif PICK_LABEL.fullmatch(label) and edits:
                    pick[(s.id, w.wid)] = edits[-1]
        receive = receive or auto_receive(app)
    share.update({(s.screen, s.widget): s.text_from for s in entry.share})
    pick.update({(p.screen, p.widget): p.field for p in entry.pick})
    notify = frozenset(t.id for t in app.transitions if entry.notify == "auto"
                       and any(e.kind == "append" for e in t.effects))
    return AppWiring(app.package, receive, share, pick, notify)
