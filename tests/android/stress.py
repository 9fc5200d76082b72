"""A synthetic app past what the traces hold: a screen of 1,100 widgets (built in one JVM method they
would pass its 64 KiB), a 30,000-character text, 250 initial records and a scrolling list, to
check that the generated Kotlin stays within the JVM's limits (64 KiB methods, 64 KiB string
constants, 65,535 constant-pool entries a class), a row's optional badge drawn only on the
records that hold its flag, rows cut at the list's bottom edge, the bulk list effects (clear the done
records, mark every record not done) next to a selection, a screen left by `wait`, and back
that first stays (recording that the screen was entered again) and leaves the second time."""

from __future__ import annotations

from phoneworld.ir.app import (
    AppSpec, FieldSpec, Guard, ItemField, ListSpec, Lit, RecordRef, RemoveEffect, RemoveWhereEffect, ScreenSpec,
    Selected, SelectEffect, SetEachEffect, SetEffect, StateVar, ToggleEffect, Transition, Var,
    VarRef, Widget,
)
from phoneworld.ir.app import Input as InputExpr
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device

PKG = "com.phoneworld.stress"
W, H = 1080, 1920
WIDGETS = 1100
RECORDS = 250
LONG_TEXT = ("A very long label, with \"quotes\", $dollars and \\backslashes\\. " * 500)[:30000]


def _b(x1: int, y1: int, x2: int, y2: int) -> Bounds:
    return Bounds(x1=x1, y1=y1, x2=x2, y2=y2)


def _big_screen() -> ScreenSpec:
    cells = tuple(
        Widget(wid=f"cell_{i}", cls="android.widget.TextView", resource_id=f"{PKG}:id/cell_{i}",
               text=Lit(value=f"Cell {i} \u00e9\U0001F600 {'x' * (i % 40)}"),
               bounds=_b((i % 30) * 36, 700 + (i // 30) * 20, (i % 30) * 36 + 36,
                         720 + (i // 30) * 20))
        for i in range(WIDGETS)
    )
    row = Widget(wid="row", cls="android.widget.LinearLayout", bounds=_b(0, 200, W, 260),
                 clickable=True, children=(
                     Widget(wid="row_title", cls="android.widget.TextView", bounds=_b(80, 200, 900, 260),
                            text=ItemField(field="title", fmt="#{}")),
                     # an optional badge: drawn only on the records that are done
                     Widget(wid="row_badge", cls="android.widget.TextView", bounds=_b(900, 200, 1000, 260),
                            text=Lit(value="Done"), shown=ItemField(field="done")),
                     Widget(wid="row_done", cls="android.widget.CheckBox", bounds=_b(0, 235, 80, 260),
                            checkable=True, clickable=True, checked=ItemField(field="done")),
                 ))
    # nine rows fit the list's count but not its bounds: the ninth lies past its bottom edge, and
    # the eighth is cut there (its box, in the row's lower part, does not show)
    rows = Widget(wid="rows", cls="android.widget.ListView", bounds=_b(0, 200, W, 650),
                  scrollable=True, list=ListSpec(collection="rows", item=row, pitch=60, max_visible=9,
                                                 scroll=3))
    root = Widget(wid="root", cls="android.widget.FrameLayout", bounds=_b(0, 0, W, H), children=(
        Widget(wid="query", cls="android.widget.EditText", bounds=_b(0, 60, W, 180), clickable=True,
               focusable=True, text=Var(name="query")),
        Widget(wid="long_label", cls="android.widget.TextView", bounds=_b(0, 180, W, 200),
               text=Lit(value=LONG_TEXT)),
        rows, *cells,
    ))
    return ScreenSpec(id="s00_big", name="big", package=PKG, root=root)


def _detail_screen() -> ScreenSpec:
    root = Widget(wid="root", cls="android.widget.FrameLayout", bounds=_b(0, 0, W, H), children=(
        Widget(wid="title", cls="android.widget.TextView", bounds=_b(0, 100, W, 200),
               text=Selected(collection="rows", field="title")),
        Widget(wid="n", cls="android.widget.TextView", bounds=_b(0, 200, W, 300),
               text=Selected(collection="rows", field="n", fmt="{} points")),
        Widget(wid="rename", cls="android.widget.Button", bounds=_b(0, 300, W, 400),
               clickable=True, text=Lit(value="Rename to query")),
        Widget(wid="close", cls="android.widget.Button", bounds=_b(0, 400, W, 500),
               clickable=True, text=Lit(value="Close")),
    ))
    return ScreenSpec(id="s01_detail", name="detail", package=PKG, root=root)


def _grown_screen() -> ScreenSpec:
    """Where the detail screen's Close goes back to: not on the stack, so it takes the place of
    the screen below (`pop` to a target not on the stack)."""
    root = Widget(wid="root", cls="android.widget.FrameLayout", bounds=_b(0, 0, W, H), children=(
        Widget(wid="again", cls="android.widget.Button", bounds=_b(0, 100, W, 200),
               clickable=True, text=Lit(value="Again")),
        Widget(wid="clear_done", cls="android.widget.Button", bounds=_b(0, 200, W, 300),
               clickable=True, text=Lit(value="Clear done")),
        Widget(wid="undo_all", cls="android.widget.Button", bounds=_b(0, 300, W, 400),
               clickable=True, text=Lit(value="Mark all not done")),
        # a list that shows a message while it is empty (its one record is removed by a tap)
        Widget(wid="pending", cls="androidx.recyclerview.widget.RecyclerView",
               bounds=_b(0, 500, W, 800), list=ListSpec(
                   collection="pending", pitch=60, max_visible=5,
                   item=Widget(wid="pending_row", cls="android.widget.TextView",
                               bounds=_b(0, 500, W, 560), clickable=True,
                               text=ItemField(field="title")),
                   empty=Widget(wid="pending_empty", cls="android.widget.TextView",
                                bounds=_b(0, 600, W, 660), text=Lit(value="Nothing pending")))),
    ))
    return ScreenSpec(id="s02_grown", name="grown", package=PKG, root=root)


def stress_spec() -> AppSpec:
    records = [{"title": f"Record {i} <&> \"{i}\"", "done": i % 3 == 0, "n": i}
               for i in range(RECORDS)]
    return AppSpec(
        package=PKG, label="Stress", device=Device(width=W, height=H), start_screen="s00_big",
        screens=(_big_screen(), _detail_screen(), _grown_screen()),
        transitions=(
            Transition(id="t0", screen="s00_big", action="click", widget="row",
                       effects=(SelectEffect(collection="rows"),
                                SetEffect(ref=VarRef(name="entered_detail"),
                                          value=Lit(value="s00_big:click:row"))),
                       target="s01_detail"),
            Transition(id="t1", screen="s00_big", action="type", widget="query",
                       effects=(SetEffect(ref=VarRef(name="query"), value=InputExpr()),), nav="stay"),
            Transition(id="t2", screen="s01_detail", action="click", widget="rename",
                       effects=(SetEffect(ref=RecordRef(collection="rows", target="selected",
                                                        field="title"), value=Var(name="query")),
                                ToggleEffect(ref=RecordRef(collection="rows", target="selected",
                                                           field="done"))),
                       target="s00_big", nav="pop"),
            Transition(id="t3", screen="s01_detail", action="click", widget="close",
                       target="s02_grown", nav="pop"),
            Transition(id="t4", screen="s02_grown", action="click", widget="again",
                       target="s00_big"),
            Transition(id="t5", screen="s02_grown", action="click", widget="clear_done",
                       effects=(RemoveWhereEffect(collection="rows", field="done", value=True),),
                       nav="stay"),
            Transition(id="t6", screen="s02_grown", action="click", widget="undo_all",
                       effects=(SetEachEffect(collection="rows", field="done", value=False),),
                       nav="stay"),
            # back that hid the keyboard stays and records it; the back after it leaves
            Transition(id="t8", screen="s01_detail", action="back",
                       guard=Guard(op="eq", left=Var(name="entered_detail"),
                                   right=Lit(value="s01_detail:back:")), nav="pop"),
            Transition(id="t9", screen="s01_detail", action="back", nav="stay",
                       effects=(SetEffect(ref=VarRef(name="entered_detail"),
                                          value=Lit(value="s01_detail:back:")),)),
            Transition(id="t10", screen="s02_grown", action="click", widget="pending_row",
                       effects=(RemoveEffect(collection="pending", target="item"),), nav="stay"),
            # a recorded scroll that stays: it fires and the list moves by its recorded 3 rows
            Transition(id="t11", screen="s00_big", action="scroll_down", widget="rows",
                       nav="stay"),
            # a screen the app leaves by itself (a splash): the walk's `wait` takes it
            Transition(id="t7", screen="s02_grown", action="wait", target="s00_big",
                       nav="replace"),
        ),
        state=(
            StateVar(name="query", kind="text"),
            StateVar(name="entered_detail", kind="text"),
            StateVar(name="rows", kind="collection", fields=(
                FieldSpec(name="title", kind="text"), FieldSpec(name="done", kind="flag", default=False),
                FieldSpec(name="n", kind="number", default=0))),
            StateVar(name="rows_selected", kind="selection", collection="rows"),
            StateVar(name="pending", kind="collection", fields=(
                FieldSpec(name="title", kind="text"),)),
        ),
        initial_state={"query": "", "entered_detail": "", "rows": records,
                       "rows_selected": None, "pending": [{"title": "Call Bob"}]},
    )
