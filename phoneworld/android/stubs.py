"""Java stub sources from a parsed API signature file: the class part of the offline `android.jar`.

Every method body throws; constants keep their values (kotlinc inlines them into the app, so
`LinearLayout.VERTICAL` must be 1, not 0). Constructors call one accessible super constructor with
typed null/zero arguments; classes whose constructors are hidden get a protected no-argument one so
that their API subclasses compile. Packages the JDK already provides are not stubbed: javac and
kotlinc take those classes from the JDK.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from phoneworld.android.apisig import ApiClass, ApiMember, erasure, qualify, type_var_names
from phoneworld.android.hierarchy import Hierarchy, extra_methods

STUB_BODY = '{ throw new RuntimeException("Stub!"); }'
PRIMITIVE_ZERO = {
    "boolean": "false", "byte": "(byte) 0", "short": "(short) 0", "char": "(char) 0",
    "int": "0", "long": "0L", "float": "0f", "double": "0d",
}
_NON_CONSTANT = {
    "boolean": 'Boolean.parseBoolean("false")',
    **{t: f'({t}) Integer.parseInt("0")' for t in ("byte", "short", "char", "int", "long",
                                                    "float", "double")},
}
_DROP_MODS = {"synchronized", "native", "deprecated", "strictfp", "default", "abstract", "static",
              "final"}


@dataclass
class _Node:
    cls: ApiClass
    children: list[_Node] = field(default_factory=list)


class StubWriter:
    """Writes Java sources for the classes of the packages `stub_packages` selects."""

    def __init__(self, classes: Iterable[ApiClass]) -> None:
        self.classes = list(classes)
        self.index = {c.qualified: c for c in self.classes}
        self.hierarchy = Hierarchy(self.index)
        for c in self.classes:
            declare_free_type_vars(c)

    def sources(self, keep_package: object) -> dict[str, str]:
        """Relative path -> Java source, for every top-level class of a package kept."""
        tops: dict[str, _Node] = {}
        nodes: dict[str, _Node] = {}
        for c in self.classes:
            if not keep_package(c.package):  # type: ignore[operator]
                continue
            node = _Node(c)
            nodes[c.qualified] = node
            outer = c.qualified.rsplit(".", 1)[0]
            if "." in c.name and outer in nodes:
                nodes[outer].children.append(node)
            else:
                tops[c.qualified] = node
        out: dict[str, str] = {}
        for qname, node in sorted(tops.items()):
            c = node.cls
            lines = [f"package {c.package};", ""]
            self._class(node, lines, "", top=True)
            out[qname.replace(".", "/") + ".java"] = "\n".join(lines) + "\n"
        return out

    # ------------------------------------------------------------------ classes

    def _class(self, node: _Node, lines: list[str], pad: str, top: bool = False) -> None:
        c = node.cls
        mods = [m for m in c.mods if m in ("public", "protected", "abstract", "final", "static")]
        if top:
            mods = [m for m in mods if m != "static"]
        if c.kind in ("enum", "interface", "@interface"):
            mods = [m for m in mods if m not in ("abstract", "final")]
        head = f"{pad}{' '.join(mods)} {c.kind} {c.simple}{c.type_params}".replace("  ", " ")
        if c.kind == "interface" and c.extends + c.implements:
            head += " extends " + ", ".join(c.extends + c.implements)
        elif c.kind != "interface":
            if c.extends and c.kind == "class":
                head += " extends " + c.extends[0]
            if c.implements:
                head += " implements " + ", ".join(c.implements)
        lines.append(head + " {")
        inner = pad + "  "
        if c.kind == "enum":
            consts = [m.name for m in c.members if m.kind == "enum_constant"]
            lines.append(f"{inner}{', '.join(consts)};")
        if c.kind == "class":
            self._ctors(c, lines, inner)
        for m in c.members:
            if m.kind == "field":
                lines.append(inner + self._field(c, m))
            elif m.kind == "method" and not _implicit_enum_method(c, m):
                lines.append(inner + self._method(c, m))
        for m in extra_methods(self.hierarchy, c):
            lines.append(inner + self._method(c, m))
        for child in node.children:
            self._class(child, lines, inner)
        lines.append(pad + "}")

    def _ctors(self, c: ApiClass, lines: list[str], pad: str) -> None:
        ctors = c.ctors()
        call = self._super_call(c)
        if not ctors:
            vis = "private" if "final" in c.mods else "protected"
            lines.append(f"{pad}{vis} {c.simple}() throws java.lang.Throwable {{ {call}"
                         f'throw new RuntimeException("Stub!"); }}')
            return
        for m in ctors:
            vis = " ".join(x for x in m.mods if x in ("public", "protected"))
            lines.append(f"{pad}{vis} {m.type_params} {c.simple}({_params(m.params)}) throws "
                         f'java.lang.Throwable {{ {call}throw new RuntimeException("Stub!"); }}')

    def _super_call(self, c: ApiClass) -> str:
        if not c.extends:
            return ""
        sup = self.index.get(qualify(c.extends[0]))
        if sup is None:
            return ""
        ctors = [m for m in sup.ctors() if "public" in m.mods or "protected" in m.mods]
        if not ctors:
            return ""  # the stub of `sup` gets a no-argument constructor
        tvars = type_var_names(sup.type_params)
        best = min(ctors, key=lambda m: (len(m.params), any(erasure(p) in tvars for p in m.params)))
        args = ", ".join(_zero(p, tvars) for p in best.params)
        return f"super({args}); "

    # ------------------------------------------------------------------ members

    def _field(self, c: ApiClass, m: ApiMember) -> str:
        mods = [x for x in m.mods if x in ("public", "protected", "static", "final", "transient",
                                           "volatile")]
        decl = f"{' '.join(mods)} {m.type} {m.name}"
        if m.value is not None:
            return f"{decl} = {_java_literal(m.value, m.type)};"
        if "final" in mods or c.kind in ("interface", "@interface"):
            return f"{decl} = {_NON_CONSTANT.get(m.type, 'null')};"
        return decl + ";"

    def _method(self, c: ApiClass, m: ApiMember) -> str:
        vis = [x for x in m.mods if x in ("public", "protected")]
        mods = [x for x in m.mods if x not in _DROP_MODS and x not in vis]
        static, default = "static" in m.mods, "default" in m.mods
        final = "final" in m.mods and c.kind == "class"
        throws = f" throws {', '.join(m.throws)}" if m.throws else ""
        sig = f"{m.type_params} {m.type} {m.name}({_params(m.params)}){throws}".strip()
        if c.kind == "@interface":
            return f"{m.type} {m.name}();"
        if c.kind == "interface":
            if static or default:
                return f"{' '.join(vis)} {'static' if static else 'default'} {sig} {STUB_BODY}"
            return f"{' '.join(vis)} {sig};"
        words = vis + mods + (["static"] if static else []) + (["final"] if final else [])
        if "abstract" in m.mods and c.kind == "class":
            return f"{' '.join(words + ['abstract'])} {sig};"
        return f"{' '.join(words)} {sig} {STUB_BODY}"


_SINGLE_LETTER = re.compile(r"(?<![\w.])([A-Z])(?!\w)")


def declare_free_type_vars(c: ApiClass) -> None:
    """Declare on the member the one-letter type variables a member uses but nobody declares
    (the signature file has `OutputConfiguration(Size, Class<T>)` with no `<T>`)."""
    outer = type_var_names(c.type_params)
    for m in c.members:
        if m.kind not in ("ctor", "method"):
            continue
        declared = outer | type_var_names(m.type_params)
        used = {v for t in [m.type, *m.params] for v in _SINGLE_LETTER.findall(t)}
        free = sorted(used - declared)
        if free:
            inner = m.type_params.strip()[1:-1] if m.type_params else ""
            m.type_params = "<" + ", ".join([p for p in [inner] if p] + free) + ">"


def _implicit_enum_method(c: ApiClass, m: ApiMember) -> bool:
    return c.kind == "enum" and (
        (m.name == "values" and not m.params) or (m.name == "valueOf" and m.params == ["String"])
    )


def _params(params: list[str]) -> str:
    return ", ".join(f"{p} p{i}" for i, p in enumerate(params))


def _zero(param: str, tvars: set[str]) -> str:
    base = erasure(param)
    if base in PRIMITIVE_ZERO:
        return PRIMITIVE_ZERO[base]
    if base in tvars:
        return "null"
    return f"({base}) null"


_FLOAT_SPECIAL = {"NaN": "(0.0{s}/0.0{s})", "Infinity": "(1.0{s}/0.0{s})",
                  "-Infinity": "(-1.0{s}/0.0{s})"}


def _java_literal(value: str, type_name: str) -> str:
    """A field constant as the signature file writes it, made a valid Java expression."""
    if type_name in ("float", "double"):
        suffix = "f" if type_name == "float" else "d"
        bare = value.rstrip("fFdD")
        if bare in _FLOAT_SPECIAL:
            return _FLOAT_SPECIAL[bare].format(s=suffix)
        return value
    if type_name == "long" and re.fullmatch(r"-?\d+", value):
        return value + "L"
    if type_name in ("byte", "short", "char") and re.fullmatch(r"-?\d+", value):
        return f"({type_name}) {value}"
    return value
