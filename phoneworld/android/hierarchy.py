"""Type hierarchy checks that make API stubs compile where the signature file is incomplete.

Signature files omit a method a class inherits from a hidden class, which leaves a concrete stub
class "not abstract and does not override abstract method X"; and an interface may inherit a
default and an abstract method of one signature from two parents. `extra_methods` returns the
declarations to add so that javac accepts the stubs. Generic supertypes are followed with their
type arguments substituted, so `compareTo(T)` of `Comparable<Foo>` becomes `compareTo(Foo)`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from phoneworld.android.apisig import ApiClass, ApiMember, erasure, qualify, split_top, type_var_names

Mapping = dict[str, str]
_IDENT = re.compile(r"(?<![\w.])([A-Za-z_]\w*)(?!\w)")
_OBJECT_METHODS = {("equals", 1), ("hashCode", 0), ("toString", 0)}


def substitute(type_name: str, mapping: Mapping) -> str:
    if not mapping:
        return type_name
    return _IDENT.sub(lambda m: mapping.get(m.group(1), m.group(1)), type_name)


def type_args(type_name: str) -> list[str]:
    """"a.Foo<X, java.util.List<Y>>" -> ["X", "java.util.List<Y>"]."""
    start = type_name.find("<")
    if start < 0:
        return []
    return split_top(type_name[start + 1: type_name.rfind(">")], ",")


class Hierarchy:
    def __init__(self, index: dict[str, ApiClass]) -> None:
        self.index = index

    def _parents(self, c: ApiClass, mapping: Mapping) -> Iterator[tuple[ApiClass, Mapping]]:
        for sup in c.extends + c.implements:
            k = self.index.get(qualify(sup))
            if k is None:
                continue
            names = [n.split(" ")[0] for n in split_top(k.type_params.strip()[1:-1], ",")] \
                if k.type_params else []
            args = [substitute(a, mapping) for a in type_args(sup)]
            yield k, dict(zip(names, args, strict=False)) if len(args) == len(names) else {}

    def class_chain(self, c: ApiClass) -> list[tuple[ApiClass, Mapping]]:
        """`c` and its superclasses, nearest first, each with its type arguments."""
        out, cur, mapping, seen = [(c, {})], c, {}, {c.qualified}
        while cur.kind == "class" and cur.extends:
            nxt = next(iter(self._parents(ApiClass(cur.package, cur.name, cur.kind, [], "",
                                                   cur.extends[:1], []), mapping)), None)
            if nxt is None or nxt[0].qualified in seen:
                break
            cur, mapping = nxt
            seen.add(cur.qualified)
            out.append((cur, mapping))
        return out

    def interfaces(self, start: list[tuple[ApiClass, Mapping]]) -> list[tuple[ApiClass, Mapping]]:
        """Every interface the classes `start` implement, transitively."""
        out: list[tuple[ApiClass, Mapping]] = []
        seen: set[str] = set()
        todo = list(start)
        while todo:
            c, mapping = todo.pop(0)
            for k, kmap in self._parents(c, mapping):
                if k.kind == "interface" and k.qualified not in seen:
                    seen.add(k.qualified)
                    out.append((k, kmap))
                    todo.append((k, kmap))
        return out


def _methods(c: ApiClass) -> list[ApiMember]:
    return [m for m in c.members if m.kind == "method"]


def _tvars(c: ApiClass, m: ApiMember) -> set[str]:
    return type_var_names(c.type_params) | type_var_names(m.type_params)


_PRIMITIVES = {"boolean", "byte", "short", "char", "int", "long", "float", "double", "void"}


def _canon(type_name: str) -> str:
    base = erasure(type_name)
    dims = base.count("[]")
    core = base.replace("[]", "").strip()
    if "." not in core and core not in _PRIMITIVES:
        core = "java.lang." + core
    return core + "[]" * dims


def _matches(a: list[str], avars: set[str], b: list[str], bvars: set[str]) -> bool:
    return len(a) == len(b) and all(
        _canon(x) == _canon(y) or erasure(x) in avars or erasure(y) in bvars
        for x, y in zip(a, b, strict=True)
    )


class _Table:
    """Methods seen so far, by name, with their (substituted) parameter types."""

    def __init__(self) -> None:
        self.by_name: dict[str, list[tuple[list[str], set[str], ApiMember, Mapping]]] = {}

    def add(self, c: ApiClass, m: ApiMember, mapping: Mapping) -> None:
        params = [substitute(p, mapping) for p in m.params]
        self.by_name.setdefault(m.name, []).append((params, _tvars(c, m), m, mapping))

    def find(self, c: ApiClass, m: ApiMember, mapping: Mapping) -> bool:
        params, tv = [substitute(p, mapping) for p in m.params], _tvars(c, m)
        return any(_matches(params, tv, p, pv) for p, pv, _, _ in self.by_name.get(m.name, []))


def _concrete(decl: ApiMember, mapping: Mapping) -> ApiMember:
    return ApiMember(
        "method", ["public"], decl.type_params, substitute(decl.type, mapping), decl.name,
        [substitute(p, mapping) for p in decl.params], [],
    )


def extra_methods(h: Hierarchy, c: ApiClass) -> list[ApiMember]:
    """Declarations `c`'s stub needs beyond what the signature file lists for it."""
    if c.kind == "interface":
        return _interface_conflicts(h, c)
    if c.kind != "class" or "abstract" in c.mods:
        return []
    chain = h.class_chain(c)
    implemented, abstract = _Table(), []
    for k, mapping in chain:  # nearest first: a nearer declaration hides a farther one
        for m in _methods(k):
            if "static" in m.mods or implemented.find(k, m, mapping):
                continue
            if "abstract" in m.mods:
                abstract.append((k, m, mapping))
            implemented.add(k, m, mapping)
    missing = [_concrete(m, mp) for k, m, mp in abstract if k is not c]
    done = _Table()
    for k, m, mp in abstract:
        done.add(k, m, mp)
    concrete = _Table()
    for k, mapping in chain:
        for m in _methods(k):
            if "abstract" not in m.mods and "static" not in m.mods:
                concrete.add(k, m, mapping)
    for k, mapping in h.interfaces(chain):
        for m in _methods(k):
            if "static" in m.mods or "default" in m.mods or (m.name, len(m.params)) in _OBJECT_METHODS:
                continue
            if concrete.find(k, m, mapping) or done.find(k, m, mapping):
                continue
            done.add(k, m, mapping)
            missing.append(_concrete(m, mapping))
    return missing


def _interface_conflicts(h: Hierarchy, c: ApiClass) -> list[ApiMember]:
    own = _Table()
    for m in _methods(c):
        own.add(c, m, {})
    defaults, abstracts = _Table(), _Table()
    for k, mapping in h.interfaces([(c, {})]):
        for m in _methods(k):
            if "static" not in m.mods:
                (defaults if "default" in m.mods else abstracts).add(k, m, mapping)
    out: list[ApiMember] = []
    for name, entries in defaults.by_name.items():
        for params, tv, m, mapping in entries:
            if abstracts.find(c, ApiMember("method", [], "", "", name, params, []), {}) \
                    and not own.find(c, m, mapping):
                decl = _concrete(m, mapping)
                decl.mods = ["public", "abstract"]
                out.append(decl)
                own.add(c, m, mapping)
    return out
