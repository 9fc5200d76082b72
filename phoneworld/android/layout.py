"""A screen's widget tree as readable Kotlin: one function per container, named after the widget.

Leaf widgets are written inline in their parent's function; a container with many children spreads
them over several functions, so that no JVM method grows past its 64 KiB limit however large the
recorded screen is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from phoneworld.android.codegen import KotlinCode, kt_value
from phoneworld.android.escape import kt
from phoneworld.android.names import NameTable, camel
from phoneworld.ir.app import ScreenSpec, Widget

CHILDREN_PER_FUNCTION = 60
EDITABLE_CLASSES = ("EditText", "AutoCompleteTextView")  # as phoneworld.runtime.widgets
# Members of the Kotlin `Screen` class and of `Any` that a widget function must not shadow.
SCREEN_RESERVED = frozenset({
    "build", "root", "lists", "id", "name", "packageName", "activity", "transitions", "equals",
    "hashCode", "toString", "getRoot", "getLists", "getId", "getName", "getPackageName",
    "getActivity", "getTransitions", "getClass", "notify", "wait",
})
_FLAGS = (
    ("checkable", "CHECKABLE"), ("clickable", "CLICKABLE"), ("long_clickable", "LONG_CLICKABLE"),
    ("scrollable", "SCROLLABLE"), ("focusable", "FOCUSABLE"), ("password", "PASSWORD"),
    ("selected", "SELECTED"),
)


@dataclass
class Function:
    name: str
    type: str
    doc: str
    body: str


@dataclass
class ScreenCode:
    root_fn: str
    functions: list[Function] = field(default_factory=list)
    widget_count: int = 0


def is_editable(w: Widget) -> bool:
    return w.editable or w.cls.endswith(EDITABLE_CLASSES)


class ScreenLayout:
    """Writes the widget functions of one screen."""

    def __init__(self, code: KotlinCode) -> None:
        self.code = code
        self.names = NameTable(SCREEN_RESERVED)
        self.out = ScreenCode(root_fn="")

    def screen(self, s: ScreenSpec) -> ScreenCode:
        self.out.root_fn = self._container(s.root)
        return self.out

    def _container(self, w: Widget) -> str:
        """Emit `w`'s function (and its subtrees'); return the function name."""
        name = self.names.take(camel(w.wid, "widget"))
        slot = len(self.out.functions)  # functions read top-down: a parent before its subtrees
        self.out.functions.append(Function(name, "Widget", "", ""))
        args = self._args(w)
        kids = [self._child(c) for c in w.children]
        if len(kids) > CHILDREN_PER_FUNCTION:
            args.append(f"children = {self._chunks(name, kids)}")
        elif kids:
            args.append("children = listOf(\n" + ",\n".join(" " * 12 + k for k in kids)
                        + "\n" + " " * 8 + ")")
        if w.list is not None:
            lst = w.list
            item = self._container(lst.item)
            args.append(f"list = ListSpec({kt(lst.collection)}, pitch = {lst.pitch}, "
                        f"maxVisible = {max(0, lst.max_visible)}, item = {item}())")
        body = "Widget(\n" + ",\n".join(" " * 8 + a for a in args) + "\n" + " " * 4 + ")"
        self.out.functions[slot] = Function(name, "Widget", f"{w.wid} ({w.cls})", body)
        return name

    def _child(self, w: Widget) -> str:
        if w.children or w.list is not None:
            return self._container(w) + "()"
        return "Widget(" + ", ".join(self._args(w)) + ")"

    def _chunks(self, name: str, kids: list[str]) -> str:
        parts = []
        for i in range(0, len(kids), CHILDREN_PER_FUNCTION):
            part = self.names.take(f"{name}Children{i // CHILDREN_PER_FUNCTION + 1}")
            body = "listOf(\n" + ",\n".join(" " * 8 + k for k in kids[i:i + CHILDREN_PER_FUNCTION]) \
                + "\n" + " " * 4 + ")"
            self.out.functions.append(Function(part, "List<Widget>",
                                               f"children of {name}, part {len(parts) + 1}", body))
            parts.append(part + "()")
        return " + ".join(parts)

    def _args(self, w: Widget) -> list[str]:
        self.out.widget_count += 1
        b = w.bounds
        args = [kt(w.wid), kt(w.cls), f"Bounds({b.x1}, {b.y1}, {b.x2}, {b.y2})"]
        if w.resource_id:
            args.append(f"resourceId = {kt(w.resource_id)}")
        if w.content_desc:
            args.append(f"contentDesc = {kt(w.content_desc)}")
        args += self._text(w) + self._checked(w)
        flags = [f"Flags.{f}" for attr, f in _FLAGS if getattr(w, attr)]
        if not w.enabled:
            flags.append("Flags.DISABLED")
        if is_editable(w):
            flags.append("Flags.EDITABLE")
        if flags:
            args.append("flags = " + " or ".join(flags))
        return args

    def _text(self, w: Widget) -> list[str]:
        e = w.text
        out = []
        if e.kind == "lit":
            if e.value != "":
                out.append(f"text = Lit({kt_value(e.value)})")
        else:
            fmt = getattr(e, "fmt", "{}")
            out.append(f"text = Dyn({kt(fmt)}) {{ c -> {self.code.raw(e)} }}")
        ref = self.code.binding(e)
        if ref:
            out.append(f"textRef = {ref}")
        return out

    def _checked(self, w: Widget) -> list[str]:
        e = w.checked
        if e.kind == "lit":
            return ["checked = true"] if bool(e.value) else []
        out = [f"checkedExpr = Dyn(\"{{}}\") {{ c -> {self.code.raw(e)} }}"]
        ref = self.code.binding(e)
        if ref:
            out.append(f"checkedRef = {ref}")
        return out
