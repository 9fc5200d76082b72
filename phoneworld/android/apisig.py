"""Parser of Android API signature files (`api/current.txt`, "Signature format: 2.0").

The file lists every public class of the platform with its constructors, methods and fields, one
declaration a line, without parameter names. `parse_api` turns it into `ApiClass` records that
`stubs` writes out as compilable Java stubs (the offline `android.jar`, see `platform`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MEMBER_KINDS = ("ctor", "method", "field", "enum_constant", "property")
_HEADER = re.compile(r"^(?P<mods>(?:[a-z]+ )*)(?P<kind>class|interface|enum|@interface) (?P<rest>.*) \{$")


@dataclass
class ApiMember:
    kind: str  # ctor, method, field, enum_constant
    mods: list[str]
    type_params: str  # "<T extends X>" or ""
    type: str  # return or field type ("" for ctors)
    name: str
    params: list[str]
    throws: list[str]
    value: str | None = None  # a field's constant, as a Java literal


@dataclass
class ApiClass:
    package: str
    name: str  # "Outer.Inner" for nested classes
    kind: str  # class, interface, enum, @interface
    mods: list[str]
    type_params: str
    extends: list[str]
    implements: list[str]
    members: list[ApiMember] = field(default_factory=list)

    @property
    def simple(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    @property
    def qualified(self) -> str:
        return f"{self.package}.{self.name}"

    def ctors(self) -> list[ApiMember]:
        return [m for m in self.members if m.kind == "ctor"]


def strip_annotations(text: str) -> str:
    """`text` without its annotations (`@Name` and `@Name(args, with (nested) parens)`)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] in "\"'":
            j = _skip_literal(text, i)
            out.append(text[i:j])
            i = j
            continue
        if text[i] == "@" and i + 1 < n and (text[i + 1].isalpha() or text[i + 1] == "_"):
            if text.startswith("@interface", i):
                out.append("@interface")
                i += len("@interface")
                continue
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "._"):
                j += 1
            if j < n and text[j] == "(":
                j = _skip_parens(text, j)
            while j < n and text[j] == " ":
                j += 1
            i = j
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def _skip_literal(text: str, i: int) -> int:
    """The index after the string or char literal that starts at `i`."""
    quote, j = text[i], i + 1
    while j < len(text) and text[j] != quote:
        j += 2 if text[j] == "\\" else 1
    return j + 1


def _skip_parens(text: str, i: int) -> int:
    depth, quote = 0, ""
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def split_top(text: str, sep: str) -> list[str]:
    """Split on `sep` outside angle brackets; empty parts are dropped."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur).strip())
    return [p for p in parts if p]


def type_var_names(type_params: str) -> set[str]:
    """Names declared by a type parameter list such as "<T, V extends java.lang.Number>"."""
    inner = type_params.strip()[1:-1] if type_params.strip().startswith("<") else ""
    return {p.split(" ")[0].strip() for p in split_top(inner, ",")}


def erasure(type_name: str) -> str:
    """The type without its generic arguments ("java.util.List<T>[]" -> "java.util.List[]")."""
    out, depth = [], 0
    for ch in type_name:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).replace("...", "[]").strip()


def qualify(type_name: str) -> str:
    """A class name as the index keys it (format 2.0 writes java.lang types unqualified)."""
    base = erasure(type_name)
    return base if "." in base else f"java.lang.{base}"


def _take_type_params(text: str) -> tuple[str, str]:
    """("<...>", rest) when `text` starts with a type parameter list, else ("", text)."""
    if not text.startswith("<"):
        return "", text
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "<"
        depth -= ch == ">"
        if depth == 0:
            return text[: i + 1], text[i + 1:].lstrip()
    return "", text


def _name_and_generics(text: str) -> tuple[str, str, str]:
    """"Foo.Bar<T, U> extends X" -> ("Foo.Bar", "<T, U>", "extends X")."""
    m = re.match(r"[\w.$]+", text)
    name = m.group(0) if m else text
    tparams, rest = _take_type_params(text[len(name):])
    return name, tparams, rest.strip()


def _parse_header(package: str, line: str) -> ApiClass:
    m = _HEADER.match(line)
    if m is None:
        raise ValueError(f"not a class header: {line!r}")
    name, tparams, rest = _name_and_generics(m.group("rest"))
    extends: list[str] = []
    implements: list[str] = []
    target: list[str] | None = None
    for word in split_top(rest, " "):
        if word == "extends":
            target = extends
        elif word == "implements":
            target = implements
        elif target is not None:
            target.append(word)
    return ApiClass(package, name, m.group("kind"), m.group("mods").split(), tparams, extends,
                    implements)


def _parse_member(line: str) -> ApiMember | None:
    kind, _, rest = line.partition(" ")
    if kind not in MEMBER_KINDS or kind == "property":
        return None
    rest = rest.rstrip(";").strip()
    value = None
    if kind in ("field", "enum_constant"):
        decl, eq, val = rest.partition(" = ")
        rest, value = decl.strip(), (_literal(val) if eq else None)
    throws: list[str] = []
    if kind in ("ctor", "method") and " throws " in rest:
        rest, _, thr = rest.rpartition(" throws ")
        throws = [t.strip() for t in thr.split(",") if t.strip()]
    params: list[str] = []
    if kind in ("ctor", "method"):
        head, _, plist = rest.partition("(")
        params = split_top(plist.rsplit(")", 1)[0], ",")
        rest = head.strip()
    words = split_top(rest, " ")
    mods = []
    while words and words[0] in _MODIFIERS:
        mods.append(words.pop(0))
    tparams = ""
    if words and words[0].startswith("<"):
        tparams = words.pop(0)
    name = words.pop() if words else ""
    return ApiMember(kind, mods, tparams, " ".join(words), name, params, throws, value)


def _literal(text: str) -> str:
    """The Java literal at the start of `text` (a field's value, before its `; // 0x..` comment)."""
    text = text.strip()
    if text[:1] in ("\"", "'"):
        return text[: _skip_literal(text, 0)]
    return text.split(";")[0].strip()


_MODIFIERS = {"public", "protected", "private", "static", "final", "abstract", "default",
              "synchronized", "native", "transient", "volatile", "strictfp", "deprecated"}


def parse_api(text: str) -> list[ApiClass]:
    """Every class of a signature file, in file order."""
    classes: list[ApiClass] = []
    package, current = "", None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        if line.startswith("package ") and line.endswith("{"):
            package = line[len("package "):-1].strip()
        elif line == "}":
            current = None
        elif current is None:
            current = _parse_header(package, strip_annotations(line))
            classes.append(current)
        else:
            member = _parse_member(strip_annotations(line))
            if member is not None:
                current.members.append(member)
    return classes
