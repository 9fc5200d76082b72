"""A screen's widget tree as readable Kotlin: one function per container, named after the widget.

Leaf widgets are written inline in their parent's function; a container with many children spreads
them over several functions, so that no JVM method grows past its 64 KiB limit however large the
recorded screen is.

Recorded screens carry the window decor the framework draws around an app's own views (the frame,
the system bar backgrounds, the `android:id/content` view). That part is written once per app, in
the `Decor` object (`DecorTable`), as functions that take the content view's children; a screen's
`build()` passes its own views in. Screens whose decor differs get a variant each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from phoneworld.android.codegen import KotlinCode, kt_value
from phoneworld.android.escape import kt
from phoneworld.android.names import NameTable, camel
from phoneworld.ir.app import ScreenSpec, Widget

CHILDREN_PER_FUNCTION = 60
CONTENT_ID = "android:id/content"  # the framework view an activity's own views hang from
BODY = "body: List<Widget>"
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
    ("selected", "SELECTED"), ("text_in_desc", "TEXT_IN_DESC"),
)


@dataclass
class Function:
    name: str
    type: str
    doc: str
    body: str
    params: str = ""  # BODY for the decor functions above the content view
    public: bool = False


@dataclass
class ScreenCode:
    root_fn: str
    functions: list[Function] = field(default_factory=list)
    widget_count: int = 0
    build: str = ""  # the Kotlin expression `build()` returns


def decor_path(root: Widget) -> list[Widget] | None:
    """The widgets from the root down to the framework's content view, when the screen has one
    below its root and no list on the way (None otherwise)."""
    path: list[Widget] = []

    def walk(w: Widget) -> bool:
        path.append(w)
        if w.resource_id == CONTENT_ID and w is not root:
            return True
        if any(walk(c) for c in w.children):
            return True
        path.pop()
        return False

    if not walk(root) or any(w.list is not None or len(w.children) > CHILDREN_PER_FUNCTION
                              for w in path):
        return None
    return path


class DecorTable:
    """The app's decor variants: one set of `Decor` functions per distinct decor text."""

    def __init__(self, code: KotlinCode) -> None:
        self.code = code
        self.names = NameTable(SCREEN_RESERVED)
        self.functions: list[Function] = []
        self._entries: dict[tuple[tuple[str, str, str], ...], str] = {}

    def entry(self, path: list[Widget]) -> tuple[str, int]:
        """(the `Decor` function that builds `path` around a body, its widget count)."""
        local = ScreenLayout(self.code)
        local._container(path[0], path)
        key = tuple((f.doc, f.params, f.body) for f in local.out.functions)
        if key not in self._entries:
            shared = ScreenLayout(self.code, self.names)
            shared._container(path[0], path)
            top = shared.out.functions[0]  # called by screens only: free to rename
            top.name, top.public = self.names.take("window"), True
            self._entries[key] = top.name
            self.functions += shared.out.functions
        return self._entries[key], local.out.widget_count


def is_editable(w: Widget) -> bool:
    return w.editable or w.cls.endswith(EDITABLE_CLASSES)


class ScreenLayout:
    """Writes the widget functions of one screen."""

    def __init__(self, code: KotlinCode, names: NameTable | None = None) -> None:
        self.code = code
        self.names = names or NameTable(SCREEN_RESERVED)
        self.out = ScreenCode(root_fn="")

    def screen(self, s: ScreenSpec, decor: DecorTable | None = None) -> ScreenCode:
        path = decor_path(s.root) if decor is not None else None
        if decor is None or path is None:
            self.out.root_fn = self._container(s.root)
            self.out.build = self.out.root_fn + "()"
            return self.out
        entry, count = decor.entry(path)
        self.out.widget_count += count
        kids = [self._child(c) for c in path[-1].children]
        self.out.build = f"Decor.{entry}(" + (
            "listOf(\n" + ",\n".join(" " * 8 + k for k in kids) + "\n" + " " * 4 + "))"
            if kids else "emptyList())")
        return self.out

    def _container(self, w: Widget, decor: list[Widget] | None = None) -> str:
        """Emit `w`'s function (and its subtrees'); return the function name. With `decor`
        (the path down to the content view), the functions along it take the content view's
        children as `body`."""
        path = decor or []
        on_path = any(w is p for p in path)
        name = self.names.take(camel(w.wid, "widget"))
        slot = len(self.out.functions)  # functions read top-down: a parent before its subtrees
        self.out.functions.append(Function(name, "Widget", "", ""))
        args = self._args(w)
        kids: list[str] = []
        if on_path and w is path[-1]:
            args.append("children = body")
        for c in [] if on_path and w is path[-1] else w.children:
            below = on_path and any(c is p for p in path)
            kids.append(self._container(c, path) + "(body)" if below else self._child(c))
        if len(kids) > CHILDREN_PER_FUNCTION:
            args.append(f"children = {self._chunks(name, kids)}")
        elif kids:
            args.append("children = listOf(\n" + ",\n".join(" " * 12 + k for k in kids)
                        + "\n" + " " * 8 + ")")
        if w.list is not None:
            lst = w.list
            item = self._container(lst.item)
            empty = "" if lst.empty is None else (f", empty = {self._child(lst.empty)}, "
                                                  f"emptyReplaces = {str(lst.empty_replaces).lower()}")
            scroll = f", scroll = {lst.scroll}" if lst.scroll > 0 else ""
            args.append(f"list = ListSpec({kt(lst.collection)}, pitch = {lst.pitch}, "
                        f"maxVisible = {max(0, lst.max_visible)}, item = {item}(){empty}{scroll})")
        body = "Widget(\n" + ",\n".join(" " * 8 + a for a in args) + "\n" + " " * 4 + ")"
        self.out.functions[slot] = Function(name, "Widget", f"{w.wid} ({w.cls})", body,
                                            BODY if on_path else "")
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
        if w.shown is not None:
            args.append(f"shownExpr = Dyn(\"{{}}\") {{ c -> {self.code.raw(w.shown)} }}")
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
