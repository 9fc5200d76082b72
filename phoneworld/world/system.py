"""The device's own screens in a world, as one compiled app spec: the launcher (an icon per app,
a status bar that opens the notification shade, a "Recent apps" button), the recents list, the
notification shade, the text toolbar (Copy / Paste / Share, as Android's floating toolbar after a
long press on text), the share sheet and the file picker.

They are ordinary `AppSpec` screens (lists over the device services' collections), so they render
exactly as app screens do (XML, text form, screenshots); what their taps do is the world's
business (`phoneworld.world.device`), keyed by widget id, not by app transitions.
"""

from __future__ import annotations

from phoneworld.ir.app import (
    AppSpec, FieldSpec, ItemField, ListSpec, Lit, ScreenSpec, StateVar, Widget,
)
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device

SYSTEM_PACKAGE = "com.android.systemui"
LAUNCHER_PACKAGE = "com.android.launcher3"
HOME = "@home"
RECENTS = "@recents"
SHADE = "@shade"
SHARE = "@share"
PICKER = "@picker"
MENU_COPY = "@menu_copy"  # Copy, Share: text that cannot be edited
MENU_PASTE = "@menu_paste"  # Paste: an empty editable field
MENU_ALL = "@menu_all"  # Copy, Paste, Share
MENUS = {(True, False): MENU_COPY, (False, True): MENU_PASTE, (True, True): MENU_ALL}
STATUS_H = 63
ROW = 147
MAX_ROWS = 8
COLS = 4

TV = "android.widget.TextView"
BUTTON = "android.widget.Button"
FRAME = "android.widget.FrameLayout"
LINEAR = "android.widget.LinearLayout"


def _b(x1: int, y1: int, x2: int, y2: int) -> Bounds:
    return Bounds(x1=x1, y1=y1, x2=x2, y2=y2)


def _text(wid: str, text: str, b: Bounds, clickable: bool = False) -> Widget:
    return Widget(wid=wid, cls=TV, text=Lit(value=text), bounds=b, clickable=clickable,
                  focusable=clickable)


def _list(wid: str, collection: str, top: int, w: int, item: Widget, h: int) -> Widget:
    rows = max(1, min(MAX_ROWS, (h - top) // ROW))
    return Widget(wid=wid, cls="android.widget.ListView", bounds=_b(0, top, w, top + rows * ROW),
                  list=ListSpec(collection=collection, item=item, pitch=ROW, max_visible=rows))


def _screen(sid: str, name: str, package: str, kids: tuple[Widget, ...], w: int, h: int,
            scrim: tuple[int, int] | None = None) -> ScreenSpec:
    if scrim is not None:  # the dimmed screen around a sheet or toolbar: a tap there dismisses it
        kids = (Widget(wid="scrim", cls="android.view.View", bounds=_b(0, scrim[0], w, scrim[1]),
                       clickable=True, content_desc="Dismiss"), *kids)
    root = Widget(wid="root", cls=FRAME, bounds=_b(0, 0, w, h), children=kids)
    return ScreenSpec(id=sid, name=name, package=package, root=root)


def _home(labels: list[str], w: int, h: int) -> ScreenSpec:
    cell = w // COLS
    icons = []
    for i, label in enumerate(labels):
        x, y = (i % COLS) * cell, 300 + (i // COLS) * 300
        icons.append(Widget(wid=f"icon_{i}", cls=TV, text=Lit(value=label), content_desc=label,
                            bounds=_b(x + 20, y, x + cell - 20, y + 260), clickable=True,
                            focusable=True))
    status = Widget(wid="status_bar", cls=TV, text=Lit(value="Notifications"),
                    content_desc="Open notifications", bounds=_b(0, 0, w, STATUS_H), clickable=True)
    recents = Widget(wid="recents_button", cls="android.widget.ImageButton",
                     content_desc="Recent apps", bounds=_b(w * 2 // 3, h - 126, w, h),
                     clickable=True)
    return _screen(HOME, "home", LAUNCHER_PACKAGE, (status, *icons, recents), w, h)


def _sheet(sid: str, title: str, package: str, body: Widget, w: int, h: int) -> ScreenSpec:
    top = h - 126 - (MAX_ROWS + 1) * ROW
    panel = Widget(wid="sheet", cls=LINEAR, bounds=_b(0, top, w, h - 126), children=(
        _text("sheet_title", title, _b(42, top + 30, w - 42, top + ROW - 30)), body))
    return _screen(sid, title.lower(), package, (panel,), w, h, scrim=(STATUS_H, top))


def _menu(sid: str, items: list[str], w: int, h: int) -> ScreenSpec:
    top, width = h // 2 - 80, 260
    x0 = (w - width * len(items)) // 2
    kids = tuple(
        Widget(wid=f"menu_{name.lower()}", cls=BUTTON, text=Lit(value=name), content_desc=name,
               bounds=_b(x0 + i * width, top, x0 + (i + 1) * width, top + 160), clickable=True,
               focusable=True)
        for i, name in enumerate(items))
    panel = Widget(wid="toolbar", cls=LINEAR, bounds=_b(x0, top, x0 + width * len(items), top + 160),
                   children=kids)
    return _screen(sid, "text toolbar", SYSTEM_PACKAGE, (panel,), w, h, scrim=(top + 200, h - 126))


def system_spec(labels: list[str], device: Device) -> AppSpec:
    """The system screens of a world whose apps have these launcher `labels` (in icon order)."""
    w, h = device.width, device.height
    top = h - 126 - MAX_ROWS * ROW
    recent_row = _text("recent_item", "", _b(0, STATUS_H + ROW, w, STATUS_H + 2 * ROW), True)
    recent_row = recent_row.model_copy(update={"text": ItemField(field="label")})
    recents = _screen(RECENTS, "recents", LAUNCHER_PACKAGE, (
        _text("recents_title", "Recent apps", _b(42, STATUS_H, w - 42, STATUS_H + ROW)),
        _list("recent_list", "recents", STATUS_H + ROW, w, recent_row, h - 126)), w, h)
    note_row = Widget(
        wid="notification_item", cls=LINEAR, bounds=_b(0, STATUS_H + ROW, w, STATUS_H + 2 * ROW),
        clickable=True, children=(
            Widget(wid="notification_app", cls=TV, text=ItemField(field="app"),
                   bounds=_b(42, STATUS_H + ROW + 10, w - 42, STATUS_H + ROW + 60)),
            Widget(wid="notification_text", cls=TV, text=ItemField(field="text"),
                   bounds=_b(42, STATUS_H + ROW + 64, w - 42, STATUS_H + 2 * ROW - 10),
                   long_clickable=True)))
    shade = _screen(SHADE, "notification shade", SYSTEM_PACKAGE, (
        _text("shade_title", "Notifications", _b(42, STATUS_H, w // 2, STATUS_H + ROW)),
        Widget(wid="clear_all", cls=BUTTON, text=Lit(value="Clear all"),
               bounds=_b(w // 2, STATUS_H, w - 42, STATUS_H + ROW), clickable=True),
        _list("notification_list", "notifications", STATUS_H + ROW, w, note_row, h - 126)), w, h)
    target = _text("share_target", "", _b(0, top, w, top + ROW), True)
    target = target.model_copy(update={"text": ItemField(field="label")})
    share = _sheet(SHARE, "Share", "android", _list("share_list", "targets", top, w, target, h - 126),
                   w, h)
    file_row = _text("file_item", "", _b(0, top, w, top + ROW), True)
    file_row = file_row.model_copy(update={"text": ItemField(field="name")})
    picker = _sheet(PICKER, "Choose a file", "com.android.documentsui",
                    _list("file_list", "files", top, w, file_row, h - 126), w, h)
    menus = [_menu(MENU_COPY, ["Copy", "Share"], w, h), _menu(MENU_PASTE, ["Paste"], w, h),
             _menu(MENU_ALL, ["Copy", "Paste", "Share"], w, h)]

    def coll(name: str, *fields: str) -> StateVar:
        return StateVar(name=name, kind="collection",
                        fields=tuple(FieldSpec(name=f, kind="text") for f in fields))

    return AppSpec(
        package=SYSTEM_PACKAGE, label="System", device=device, start_screen=HOME,
        screens=(_home(labels, w, h), recents, shade, share, picker, *menus), transitions=(),
        state=(coll("recents", "label"), coll("notifications", "app", "text"),
               coll("targets", "label"), coll("files", "name")),
        initial_state={"recents": [], "notifications": [], "targets": [], "files": []},
    )
