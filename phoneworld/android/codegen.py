"""App spec expressions, guards and effects as Kotlin code over the generated `AppState`.

The Kotlin mirrors `phoneworld.runtime.semantics`: expressions yield raw values (`Any?`), guards
compare them with `Values` helpers, effects write through typed properties with the same coercions
(a number written with text that is no number stays unchanged). `item` references read the record
the action hit, looked up again for every effect as the simulator does. Every literal goes through
`escape.kt`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from phoneworld.android.escape import kt
from phoneworld.android.names import NameTable, camel, pascal
from phoneworld.ir.app import AppSpec, Expr, Guard, StateVar

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
KOTLIN_TYPES = {"text": "String", "number": "Long", "flag": "Boolean", "selection": "Long?"}
STATE_RESERVED = frozenset({"extra", "copy", "deepCopy", "toJson", "writeJson", "readVar",
                            "writeVar", "records", "selectedIndex", "selectedRecord", "select",
                            "add", "remove", "removeWhere", "setEach", "shiftSelections", "get",
                            "put", "putRaw", "set", "equals", "hashCode", "toString",
                            "component1", "NAMES", "FIELDS"})


@dataclass
class FieldNames:
    name: str
    prop: str
    kind: str


@dataclass
class CollectionNames:
    name: str
    prop: str
    cls: str
    fields: dict[str, FieldNames] = field(default_factory=dict)
    selections: list[str] = field(default_factory=list)  # selection var props, first = primary


@dataclass
class StateNames:
    vars: dict[str, tuple[str, str]]  # var name -> (property, kind)
    collections: dict[str, CollectionNames]

    @classmethod
    def of(cls, spec: AppSpec, classes: NameTable) -> StateNames:
        props = NameTable(STATE_RESERVED)
        vars_ = {v.name: (props.take(camel(v.name, "v")), v.kind) for v in spec.state}
        colls: dict[str, CollectionNames] = {}
        for v in spec.state:
            if v.kind == "collection":
                colls[v.name] = _collection(v, vars_[v.name][0], classes)
        for v in spec.state:
            if v.kind == "selection" and v.collection in colls:
                colls[v.collection].selections.append(vars_[v.name][0])
        return cls(vars_, colls)


def _collection(v: StateVar, prop: str, classes: NameTable) -> CollectionNames:
    c = CollectionNames(v.name, prop, classes.take(pascal(v.name, "Collection") + "Record"))
    table = NameTable(STATE_RESERVED)
    for f in v.fields:
        c.fields[f.name] = FieldNames(f.name, table.take(camel(f.name, "f")), f.kind)
    return c


def kt_value(v: Any) -> str:
    """A JSON scalar (or a list of them, as JSON) as a Kotlin value of the core's value model."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return f"{v}L" if LONG_MIN < v <= LONG_MAX else f"JsonNumber({kt(str(v))})"
    if isinstance(v, float):
        return f"JsonNumber({kt(repr(v))})"
    if isinstance(v, str):
        return kt(v)
    raise TypeError(f"no Kotlin form for {type(v).__name__}")


def assign(target: str, kind: str, value: str) -> str:
    """A statement writing `value` (raw) to the typed `target`, coerced to `kind`."""
    if kind == "text":
        return f"{target} = Values.asText({value})"
    if kind == "flag":
        return f"{target} = Values.asFlag({value})"
    if kind == "number":
        return f"Values.asNumber({value}).let {{ if (it is Long) {target} = it }}"
    if kind == "selection":
        return f"Values.asSelection({value}).let {{ if (it !== Values.SKIP) {target} = it as Long? }}"
    raise ValueError(f"cannot assign to a {kind} value")


class KotlinCode:
    """Kotlin for one app's expressions, guards and effects; `c` is the `Ctx` in scope."""

    def __init__(self, names: StateNames) -> None:
        self.names = names

    # ------------------------------------------------------------------ expressions

    def raw(self, e: Expr) -> str:
        k = e.kind
        if k == "lit":
            return kt_value(e.value)
        if k == "var":
            return f"c.state.{self.names.vars[e.name][0]}"
        if k == "item":
            return f"c.item()?.get({kt(e.field)})"
        if k == "selected":
            return self._selected_field(e.collection, e.field)
        if k == "count":
            coll = self.names.collections.get(e.collection)
            return f"c.state.{coll.prop}.size.toLong()" if coll else "0L"
        if k == "choose":
            return (f"(if (Values.truthy({self.raw(e.cond)})) {kt(e.then)} "
                    f"else {kt(e.otherwise)})")
        return "c.input"

    def _selected_field(self, collection: str, fld: str) -> str:
        coll = self.names.collections[collection]
        f = coll.fields.get(fld)
        if f is not None:
            return f"c.state.selected{coll.cls}()?.{f.prop}"
        return f"c.state.selectedRecord({kt(collection)})?.get({kt(fld)})"

    def binding(self, e: Expr) -> str | None:
        """The `Ref` a widget's text or checked flag reads (what typing or a tap writes)."""
        if e.kind == "var":
            return f"Ref.Var({kt(e.name)})"
        if e.kind == "item":
            return f"Ref.Item({kt(e.field)})"
        if e.kind == "selected":
            return f"Ref.Selected({kt(e.collection)}, {kt(e.field)})"
        return None

    # ------------------------------------------------------------------ guards

    def guard(self, g: Guard) -> str:
        if g.op == "all":
            terms = [self.guard(t) for t in g.terms]
            return "(" + " && ".join(terms) + ")" if terms else "true"
        left = self.raw(g.left) if g.left is not None else '""'
        if g.op in ("nonempty", "empty"):
            return f"{'!' if g.op == 'nonempty' else ''}Values.isEmpty({left})"
        if g.op in ("true", "false"):
            return f"{'!' if g.op == 'false' else ''}Values.truthy({left})"
        right = self.raw(g.right) if g.right is not None else "null"
        return f"{'!' if g.op == 'ne' else ''}Values.same({left}, {right})"

    # ------------------------------------------------------------------ effects

    def effects(self, effects: tuple[Any, ...]) -> list[str]:
        return [self.effect(e) for e in effects]

    def effect(self, eff: Any) -> str:
        k = eff.kind
        if k == "set":
            return self._write(eff.ref, lambda cur: self.raw(eff.value))
        if k == "add":
            return self._write(eff.ref, lambda cur: f"Values.plus({cur}, {eff.delta}L)")
        if k == "toggle":
            return self._write(eff.ref, lambda cur: f"!Values.truthy({cur})")
        if k == "append":
            return self._append(eff)
        coll = kt(eff.collection)
        if k == "remove":
            idx = (f"c.hitIndexIn({coll})" if eff.target == "item"
                   else f"c.state.selectedIndex({coll})")
            return f"{idx}?.let {{ c.state.remove({coll}, it) }}"
        if k in ("remove_where", "set_each"):
            method = "removeWhere" if k == "remove_where" else "setEach"
            return f"c.state.{method}({coll}, {kt(eff.field)}, {kt_value(eff.value)})"
        return f"c.hitIndexIn({coll})?.let {{ c.state.select({coll}, it) }}"

    def _write(self, ref: Any, value: Any) -> str:
        if ref.kind == "var":
            prop, kind = self.names.vars[ref.name]
            return assign(f"c.state.{prop}", kind, value(f"c.state.{prop}"))
        coll = kt(ref.collection)
        rec = f"c.hitRecord({coll})" if ref.target == "item" else f"c.state.selectedRecord({coll})"
        fld = kt(ref.field)
        return f"{rec}?.let {{ r -> r.put({fld}, {value(f'r.get({fld})')}) }}"

    def _append(self, eff: Any) -> str:
        coll = self.names.collections[eff.collection]
        puts = "; ".join(f"putRaw({kt(name)}, {self.raw(e)})" for name, e in eff.record.items())
        rec = f"{coll.cls}().apply {{ {puts} }}" if puts else f"{coll.cls}()"
        at_start = "true" if eff.position == "start" else "false"
        return f"c.state.add({kt(eff.collection)}, {rec}, atStart = {at_start})"
