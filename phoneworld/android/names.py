"""Readable, valid and unique Kotlin names from the app's screens, widgets and state variables.

Names come from untrusted traces: everything outside `[A-Za-z0-9]` separates words, keywords and
names the generated code already uses are avoided, and a `NameTable` keeps names unique by adding a
number. Package names are checked against Android's rules.
"""

from __future__ import annotations

import re

KOTLIN_KEYWORDS = frozenset(
    "as break class continue do else false for fun if in interface is null object package return "
    "super this throw true try typealias typeof val var when while".split()
)
JAVA_KEYWORDS = frozenset(
    "abstract assert boolean break byte case catch char class const continue default do double "
    "else enum extends final finally float for goto if implements import instanceof int interface "
    "long native new package private protected public return short static strictfp super switch "
    "synchronized this throw throws transient try void volatile while true false null var".split()
)
_WORD = re.compile(r"[A-Za-z0-9]+")


def words(text: str) -> list[str]:
    """The ASCII words of `text`; camelCase humps split ("noteTitle2" -> note, Title2)."""
    out: list[str] = []
    for w in _WORD.findall(text):
        out.extend(p for p in re.split(r"(?<=[a-z0-9])(?=[A-Z])", w) if p)
    return out


def pascal(text: str, fallback: str = "X") -> str:
    name = "".join(w[:1].upper() + w[1:] for w in words(text)) or fallback
    return name if not name[0].isdigit() else fallback + name


def camel(text: str, fallback: str = "x") -> str:
    ws = words(text)
    if not ws:
        return fallback
    name = ws[0][:1].lower() + ws[0][1:] + "".join(w[:1].upper() + w[1:] for w in ws[1:])
    return name if not name[0].isdigit() else fallback + name


class NameTable:
    """Hands out unique names; `reserved` names are never given out."""

    def __init__(self, reserved: frozenset[str] | set[str] = frozenset()) -> None:
        # compared case-insensitively: class files of one package must not differ by case only
        self.used: set[str] = {n.lower() for n in set(reserved) | KOTLIN_KEYWORDS | JAVA_KEYWORDS}

    def take(self, base: str) -> str:
        name, n = base, 2
        while name.lower() in self.used:
            name, n = f"{base}{n}", n + 1
        self.used.add(name.lower())
        return name


def android_package(package: str) -> str:
    """`package` as a valid Android application id and Java/Kotlin package (segments of
    `[a-zA-Z][a-zA-Z0-9_]*` that are no keywords; at least two segments)."""
    segs = []
    for raw in package.split("."):
        seg = re.sub(r"[^A-Za-z0-9_]", "_", raw)
        if not seg:
            continue
        if not seg[0].isalpha():
            seg = "p" + seg
        if seg in JAVA_KEYWORDS or seg in KOTLIN_KEYWORDS:
            seg += "_"
        segs.append(seg)
    if len(segs) < 2:
        segs = ["phoneworld", *(segs or ["app"])]
    return ".".join(segs)


_RES_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def own_resource_entry(resource_id: str, package: str) -> str | None:
    """The `id` resource entry to declare for a recorded resource-id of the app's own package
    ("pkg:id/name" -> "name"), when the name is one aapt2 and R.java accept as is."""
    pkg, sep, rest = resource_id.partition(":id/")
    if not sep or pkg != package or not _RES_NAME.fullmatch(rest) or rest in JAVA_KEYWORDS:
        return None
    return rest
