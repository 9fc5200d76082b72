"""A small but complete notes app, built in Python, for the runtime tests.

Screens: s00_list (a `notes` list with a title and a done checkbox per item, an add button, a
settings button, a note counter), s01_editor (an EditText bound to `editor_title`, Save guarded by
`nonempty`, Cancel), s02_detail (the selected note, a Delete button), s03_settings (a dark-mode
Switch toggled by a transition, a name field whose `type` transition sets `user_name` to the input).
"""

from __future__ import annotations

from typing import Any

from phoneworld.ir.app import (
    AddEffect, AppendEffect, AppSpec, Count, FieldSpec, Guard, Input, ItemField, ListSpec, Lit,
    RecordRef, RemoveEffect, ScreenSpec, Selected, SelectEffect, SetEffect, StateVar,
    ToggleEffect, Transition, Var, VarRef, Widget,
)
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device

PKG = "com.example.notes"
W, H = 1080, 1920


def B(x1: int, y1: int, x2: int, y2: int) -> Bounds:
    return Bounds(x1=x1, y1=y1, x2=x2, y2=y2)


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def screen(sid: str, children: list[Widget], activity: str) -> ScreenSpec:
    root = Widget(wid="root", cls="android.widget.FrameLayout", bounds=B(0, 0, W, H),
                  children=tuple(children))
    return ScreenSpec(id=sid, name=sid[4:], package=PKG, activity=f"{PKG}/{activity}", root=root)


def list_screen() -> ScreenSpec:
    item = Widget(
        wid="item_row", cls="android.widget.LinearLayout", resource_id=rid("row"), clickable=True,
        bounds=B(0, 230, W, 430),
        children=(
            Widget(wid="item_title", cls="android.widget.TextView", resource_id=rid("note_title"),
                   text=ItemField(field="title"), bounds=B(40, 250, 800, 410)),
            Widget(wid="item_done", cls="android.widget.CheckBox", resource_id=rid("note_done"),
                   checked=ItemField(field="done"), checkable=True, clickable=True,
                   focusable=True, bounds=B(900, 270, 1040, 390)),
        ),
    )
    return screen("s00_list", [
        Widget(wid="txt_title", cls="android.widget.TextView", text=Lit(value="Notes"),
               bounds=B(0, 0, 880, 150)),
        Widget(wid="btn_settings", cls="android.widget.ImageButton", content_desc="Settings",
               clickable=True, focusable=True, bounds=B(900, 0, W, 150)),
        Widget(wid="txt_count", cls="android.widget.TextView", resource_id=rid("count"),
               text=Count(collection="notes", fmt="{} notes"), bounds=B(0, 150, W, 230)),
        Widget(wid="list_notes", cls="androidx.recyclerview.widget.RecyclerView",
               resource_id=rid("list"), scrollable=True, focusable=True, bounds=B(0, 230, W, 1700),
               list=ListSpec(collection="notes", item=item, pitch=200, max_visible=3)),
        Widget(wid="btn_add", cls="android.widget.ImageButton", resource_id=rid("fab_add"),
               content_desc="Add note", clickable=True, focusable=True,
               bounds=B(880, 1720, 1040, 1880)),
    ], ".MainActivity")


def editor_screen() -> ScreenSpec:
    return screen("s01_editor", [
        Widget(wid="txt_header", cls="android.widget.TextView", text=Lit(value="New note"),
               bounds=B(0, 0, W, 150)),
        Widget(wid="edit_title", cls="android.widget.EditText", resource_id=rid("title_input"),
               text=Var(name="editor_title"), editable=True, clickable=True, focusable=True,
               bounds=B(40, 200, 1040, 320)),
        Widget(wid="btn_save", cls="android.widget.Button", resource_id=rid("save"),
               text=Lit(value="Save"), clickable=True, focusable=True, bounds=B(40, 400, 520, 520)),
        Widget(wid="btn_cancel", cls="android.widget.Button", text=Lit(value="Cancel"),
               clickable=True, focusable=True, bounds=B(560, 400, 1040, 520)),
    ], ".EditorActivity")


def detail_screen() -> ScreenSpec:
    return screen("s02_detail", [
        Widget(wid="txt_detail_title", cls="android.widget.TextView", resource_id=rid("detail"),
               text=Selected(collection="notes", field="title"), bounds=B(40, 200, 1040, 320)),
        Widget(wid="chk_detail_done", cls="android.widget.CheckBox", text=Lit(value="Done"),
               checked=Selected(collection="notes", field="done"), checkable=True,
               clickable=True, bounds=B(40, 360, 1040, 460)),
        Widget(wid="btn_delete", cls="android.widget.Button", text=Lit(value="Delete"),
               clickable=True, bounds=B(40, 500, 520, 620)),
    ], ".DetailActivity")


def settings_screen() -> ScreenSpec:
    return screen("s03_settings", [
        Widget(wid="sw_dark", cls="android.widget.Switch", resource_id=rid("dark"),
               text=Lit(value="Dark mode"), checked=Var(name="dark_mode"), checkable=True,
               clickable=True, bounds=B(40, 200, 1040, 320)),
        Widget(wid="txt_mode", cls="android.widget.TextView", text=Var(name="dark_mode", fmt="Dark: {}"),
               bounds=B(40, 340, 1040, 420)),
        Widget(wid="edit_name", cls="android.widget.EditText", editable=True, clickable=True,
               text=Var(name="user_name"), bounds=B(40, 460, 1040, 580)),
        Widget(wid="txt_saves", cls="android.widget.TextView", text=Var(name="saves", fmt="{} saves"),
               bounds=B(40, 600, 1040, 680)),
    ], ".SettingsActivity")


def transitions() -> list[Transition]:
    title = Var(name="editor_title")
    return [
        Transition(id="t_add", screen="s00_list", action="click", widget="btn_add",
                   effects=(SetEffect(ref=VarRef(name="editor_title"), value=Lit(value="")),),
                   target="s01_editor", nav="push"),
        Transition(id="t_open", screen="s00_list", action="click", widget="item_row",
                   effects=(SelectEffect(collection="notes"),), target="s02_detail", nav="push"),
        Transition(id="t_toggle_item", screen="s00_list", action="click", widget="item_done",
                   effects=(ToggleEffect(ref=RecordRef(collection="notes", target="item",
                                                       field="done")),), nav="stay"),
        Transition(id="t_settings", screen="s00_list", action="click", widget="btn_settings",
                   target="s03_settings", nav="push"),
        Transition(id="t_save", screen="s01_editor", action="click", widget="btn_save",
                   guard=Guard(op="nonempty", left=title),
                   effects=(AppendEffect(collection="notes",
                                         record={"title": title, "done": Lit(value=False)}),
                            AddEffect(ref=VarRef(name="saves"), delta=1)),
                   target="s00_list", nav="pop"),
        Transition(id="t_cancel", screen="s01_editor", action="click", widget="btn_cancel",
                   nav="pop"),
        Transition(id="t_delete", screen="s02_detail", action="click", widget="btn_delete",
                   effects=(RemoveEffect(collection="notes", target="selected"),), nav="pop"),
        Transition(id="t_dark", screen="s03_settings", action="click", widget="sw_dark",
                   effects=(ToggleEffect(ref=VarRef(name="dark_mode")),), nav="stay"),
        Transition(id="t_name", screen="s03_settings", action="type", widget="edit_name",
                   effects=(SetEffect(ref=VarRef(name="user_name"), value=Input()),), nav="stay"),
    ]


INITIAL: dict[str, Any] = {
    "notes": [{"title": "Buy milk", "done": False}, {"title": "Call mom", "done": True}],
    "selected_note": None, "editor_title": "", "dark_mode": False, "user_name": "", "saves": 0,
}


def notes_app() -> AppSpec:
    return AppSpec(
        package=PKG, label="Notes", device=Device(width=W, height=H), start_screen="s00_list",
        screens=(list_screen(), editor_screen(), detail_screen(), settings_screen()),
        transitions=tuple(transitions()),
        state=(
            StateVar(name="notes", kind="collection", fields=(
                FieldSpec(name="title", kind="text"), FieldSpec(name="done", kind="flag", default=False))),
            StateVar(name="selected_note", kind="selection", collection="notes"),
            StateVar(name="editor_title", kind="text"),
            StateVar(name="dark_mode", kind="flag"),
            StateVar(name="user_name", kind="text"),
            StateVar(name="saves", kind="number"),
        ),
        initial_state=INITIAL,
    )


def five_notes() -> dict[str, Any]:
    notes = [{"title": f"Note {i}", "done": i % 2 == 1} for i in range(5)]
    return {**INITIAL, "notes": notes}


def mini_app(
    screens: dict[str, list[Widget]], trans: list[Transition], state: tuple[StateVar, ...] = (),
    initial: dict[str, Any] | None = None,
) -> AppSpec:
    """A throwaway app for one semantic: screens by id (the first is the start), transitions."""
    return AppSpec(
        package="com.example.mini", label="Mini", device=Device(width=W, height=H),
        start_screen=next(iter(screens)),
        screens=tuple(
            ScreenSpec(id=sid, name=sid, package="com.example.mini",
                       root=Widget(wid="root", cls="android.widget.FrameLayout",
                                   bounds=B(0, 0, W, H), children=tuple(kids)))
            for sid, kids in screens.items()
        ),
        transitions=tuple(trans), state=state, initial_state=initial or {},
    )


def button(wid: str, b: Bounds, text: str = "", **kw: Any) -> Widget:
    return Widget(wid=wid, cls="android.widget.Button", text=Lit(value=text or wid),
                  clickable=True, bounds=b, **kw)


def go(tid: str, screen: str, widget: str, target: str | None, nav: str = "push") -> Transition:
    return Transition(id=tid, screen=screen, action="click", widget=widget, target=target,
                      nav=nav)  # type: ignore[arg-type]
