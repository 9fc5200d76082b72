"""The app spec IR: a compiled mock app (output of `lower`, input of emit and of every runtime backend).

An app is a set of screens (widget trees whose texts and checked flags are expressions over the app
state), a state schema with its initial value, and transitions: on screen S, action A on widget W,
if guard G holds, apply effects E and go to screen T (or stay, or pop the screen stack).

Semantics the runtimes implement (and the Kotlin core mirrors):
- Transitions of one (screen, action, widget) are tried guarded first, then unguarded, each in
  spec order; the first whose guard holds fires: its effects run in order, then it navigates.
- A touch goes to the topmost, deepest widget under the point that takes it (one with a
  transition for the action, an editable field, a checkable with a bound `checked`), bubbling up
  to ancestors as on Android. A widget inside a list's item template is hit on a concrete item;
  `item` references in its transitions' effects and guards mean that record.
- `pop` with a target pops down to it; when it is not on the stack, it pops one and the target
  takes the place of the screen below (back to a page that changed while a dialog was over it).
- Unobserved input: `back` pops the screen stack (at the bottom it leaves the app); `type` sets the
  focused editable widget's bound text; a tap on an editable widget focuses it; a tap on a
  checkable whose `checked` is bound toggles it; a scroll over a list moves it; any other
  unmatched action does nothing.
- Value conventions (text of a value, truthiness, emptiness, `eq` comparing texts, coercion on
  write, selections following their record) are defined once, in `phoneworld.runtime.semantics`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field

from phoneworld.ir.base import Bounds, Frozen, SourceRef, WidgetTraits
from phoneworld.ir.trace import Device

APP_FORMAT = "phoneworld-app/1"

JsonScalar = Union[str, int, bool, None]
Record = dict[str, JsonScalar]
StateValue = Union[str, int, bool, None, list[Record]]

# ----------------------------------------------------------------------------- expressions


class Lit(Frozen):
    kind: Literal["lit"] = "lit"
    value: str | int | bool


class Var(Frozen):
    """A scalar state variable; `fmt` lays the value out in text ("{} / 50")."""

    kind: Literal["var"] = "var"
    name: str
    fmt: str = "{}"


class ItemField(Frozen):
    """A field of the list record this widget belongs to (or the record a transition was hit on)."""

    kind: Literal["item"] = "item"
    field: str
    fmt: str = "{}"


class Selected(Frozen):
    """A field of the selected record of a collection."""

    kind: Literal["selected"] = "selected"
    collection: str
    field: str
    fmt: str = "{}"


class Input(Frozen):
    """The text of the `type` action being applied."""

    kind: Literal["input"] = "input"


class Count(Frozen):
    """The number of records in a collection."""

    kind: Literal["count"] = "count"
    collection: str
    fmt: str = "{}"


class Choose(Frozen):
    """`then` when `cond` is truthy, else `otherwise`: a label that mirrors a flag ("Done"/"Open")."""

    kind: Literal["choose"] = "choose"
    cond: Expr
    then: str
    otherwise: str


Expr = Annotated[Union[Lit, Var, ItemField, Selected, Input, Count, Choose],
                 Field(discriminator="kind")]

# ----------------------------------------------------------------------------- references (writable)


class VarRef(Frozen):
    kind: Literal["var"] = "var"
    name: str


class RecordRef(Frozen):
    """A field of a record: the item hit by the action, or the collection's selected record."""

    kind: Literal["record"] = "record"
    collection: str
    target: Literal["item", "selected"]
    field: str


Ref = Annotated[Union[VarRef, RecordRef], Field(discriminator="kind")]

# ----------------------------------------------------------------------------- effects


class SetEffect(Frozen):
    kind: Literal["set"] = "set"
    ref: Ref
    value: Expr


class AddEffect(Frozen):
    """Numeric change of a number-valued reference."""

    kind: Literal["add"] = "add"
    ref: Ref
    delta: int


class ToggleEffect(Frozen):
    kind: Literal["toggle"] = "toggle"
    ref: Ref


class AppendEffect(Frozen):
    """Append a record; fields not given take the collection's defaults."""

    kind: Literal["append"] = "append"
    collection: str
    record: dict[str, Expr]
    position: Literal["end", "start"] = "end"


class RemoveEffect(Frozen):
    kind: Literal["remove"] = "remove"
    collection: str
    target: Literal["item", "selected"]


class RemoveWhereEffect(Frozen):
    """Remove every record whose `field` holds `value` (a list's "Clear completed")."""

    kind: Literal["remove_where"] = "remove_where"
    collection: str
    field: str
    value: str | int | bool


class SetEachEffect(Frozen):
    """Set `field` to `value` on every record (a list's "Uncheck all", "Mark all as read")."""

    kind: Literal["set_each"] = "set_each"
    collection: str
    field: str
    value: str | int | bool


class SelectEffect(Frozen):
    """Make the record hit by the action the collection's selected record."""

    kind: Literal["select"] = "select"
    collection: str


Effect = Annotated[
    Union[SetEffect, AddEffect, ToggleEffect, AppendEffect, RemoveEffect, RemoveWhereEffect,
          SetEachEffect, SelectEffect],
    Field(discriminator="kind"),
]

# ----------------------------------------------------------------------------- guards


class Guard(Frozen):
    """A condition on state: `nonempty`, `empty`, `eq`, `ne`, `true`, `false` of an expression,
    or `all` of several conditions (`terms`)."""

    kind: Literal["cond"] = "cond"
    op: Literal["nonempty", "empty", "eq", "ne", "true", "false", "all"]
    left: Expr | None = None
    right: Expr | None = None
    terms: tuple[Guard, ...] = ()


# ----------------------------------------------------------------------------- screens


class ListSpec(Frozen):
    """A list container: its children are the collection's records laid out by one item template."""

    collection: str
    item: Widget
    pitch: int  # pixels between the tops of consecutive items (vertical lists)
    max_visible: int
    # records one scroll moves the list by, as the recording's scrolls did; 0: max_visible - 1
    scroll: int = 0
    # what the app shows while the collection has no records ("No notes yet"), with its own
    # bounds: in the container's place (`empty_replaces`: the app hides the empty list) or
    # inside it; None: the container stays, empty
    empty: Widget | None = None
    empty_replaces: bool = True


class Widget(WidgetTraits):
    wid: str  # unique within its screen, readable ("btn_save", "list_items", "items_txt_title")
    cls: str
    resource_id: str = ""
    content_desc: str = ""
    text: Expr = Lit(value="")
    checked: Expr = Lit(value=False)
    bounds: Bounds
    children: tuple[Widget, ...] = ()
    list: ListSpec | None = None
    # a list row's optional child (a "High" badge some rows show): drawn only while this reads
    # true (`ItemField` of a flag field); None: always drawn
    shown: Expr | None = None


class ScreenSpec(Frozen):
    id: str  # "s03_editor"
    name: str
    package: str
    activity: str | None = None
    root: Widget
    observations: int = 0
    sources: tuple[SourceRef, ...] = ()


# ----------------------------------------------------------------------------- transitions

ActionKind = Literal[
    "click", "double_click", "long_press", "type", "scroll_up", "scroll_down", "scroll_left",
    "scroll_right", "back", "enter", "menu", "wait",
]


class Transition(Frozen):
    id: str
    screen: str
    action: ActionKind
    # wid on `screen`; None for keys (back, enter, menu), screen scrolls and `wait` (a screen the
    # app leaves by itself: a splash, a loading page; the simulator takes it at the `wait` action)
    widget: str | None = None
    guard: Guard | None = None
    effects: tuple[Effect, ...] = ()
    target: str | None = None  # screen id; None: stay on the screen
    nav: Literal["push", "replace", "pop", "stay"] = "push"
    support: int = 1  # how many recorded steps this transition explains
    sources: tuple[SourceRef, ...] = ()


# ----------------------------------------------------------------------------- state


class FieldSpec(Frozen):
    name: str
    kind: Literal["text", "number", "flag"]
    default: JsonScalar = ""
    fmt: str = "{}"  # how a number field is laid out in text


class StateVar(Frozen):
    name: str
    kind: Literal["text", "number", "flag", "collection", "selection"]
    fields: tuple[FieldSpec, ...] = ()  # for collections
    collection: str | None = None  # for selections
    description: str = ""
    source: SourceRef | None = None


class AppSpec(Frozen):
    format: Literal["phoneworld-app/1"] = APP_FORMAT
    package: str
    label: str
    device: Device
    start_screen: str
    screens: tuple[ScreenSpec, ...]
    transitions: tuple[Transition, ...]
    state: tuple[StateVar, ...]
    initial_state: dict[str, Any]

    def screen(self, screen_id: str) -> ScreenSpec:
        for s in self.screens:
            if s.id == screen_id:
                return s
        raise KeyError(screen_id)

    def distances(self) -> dict[str, int]:
        """Every screen reachable from the start, with its fewest transitions (guards ignored)."""
        out, todo = {self.start_screen: 0}, [self.start_screen]
        for sid in todo:  # breadth first: `todo` grows as it is read
            for t in self.transitions:
                if t.screen == sid and t.target is not None and t.target not in out:
                    out[t.target] = out[sid] + 1
                    todo.append(t.target)
        return out


Choose.model_rebuild()
Guard.model_rebuild()
ListSpec.model_rebuild()
Widget.model_rebuild()
