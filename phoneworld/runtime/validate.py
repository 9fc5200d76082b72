"""Checks the runtime makes before it trusts a spec or a state: dangling references and value types.

`check_spec` lists every inconsistency of an `AppSpec` (one message each, all at once);
`normalize_state` turns a user-given state into the runtime's canonical form (every variable
present, values of the schema's types, records with all their fields, without the reserved
`SCREEN` key) or raises `EnvError` naming the offending path; `written_vars` says which variables a transition may change.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from phoneworld.errors import EnvError
from phoneworld.ir.app import AppSpec, Expr, FieldSpec, StateVar, Transition, Widget

if TYPE_CHECKING:
    from phoneworld.runtime.compiled import CompiledApp

SCALAR_KINDS = ("text", "number", "flag", "selection")
# The reserved key of the state as verifiers read it (every backend's `read_state`): the screen
# the app is on. It is read, never written: a state given to reset drops it.
SCREEN = "@screen"


class _Checker:
    def __init__(self, spec: AppSpec) -> None:
        self.spec = spec
        self.vars = {v.name: v for v in spec.state}
        self.selected = {v.collection for v in spec.state if v.kind == "selection"}
        self.problems: list[str] = []

    def err(self, where: str, msg: str) -> None:
        self.problems.append(f"{where}: {msg}")

    def collection(self, where: str, name: str, need_selection: bool = False) -> None:
        var = self.vars.get(name)
        if var is None or var.kind != "collection":
            self.err(where, f"collection {name!r} is not a collection variable of the state")
        elif need_selection and name not in self.selected:
            self.err(where, f"collection {name!r} has no selection variable")

    def expr(self, where: str, e: Expr | None) -> None:
        if e is None:
            return
        if e.kind == "var" and e.name not in self.vars:
            self.err(where, f"unknown state variable {e.name!r}")
        elif e.kind == "count":
            self.collection(where, e.collection)
        elif e.kind == "selected":
            self.collection(where, e.collection, need_selection=True)
        elif e.kind == "choose":
            self.expr(where, e.cond)

    def ref(self, where: str, ref: Any) -> None:
        if ref.kind == "var":
            var = self.vars.get(ref.name)
            if var is None or var.kind not in SCALAR_KINDS:
                self.err(where, f"{ref.name!r} is not a scalar state variable")
            return
        self.collection(where, ref.collection, need_selection=ref.target == "selected")
        var = self.vars.get(ref.collection)
        if var is not None and ref.field not in {f.name for f in var.fields}:
            self.err(where, f"collection {ref.collection!r} has no field {ref.field!r}")

    def widget(self, where: str, w: Widget, seen: set[str]) -> None:
        if w.wid in seen:
            self.err(where, f"widget id {w.wid!r} is not unique on the screen")
        seen.add(w.wid)
        self.expr(f"{where}/{w.wid}", w.text)
        self.expr(f"{where}/{w.wid}", w.checked)
        if w.shown is not None:
            self.expr(f"{where}/{w.wid}", w.shown)
        for c in w.children:
            self.widget(where, c, seen)
        if w.list is not None:
            self.collection(f"{where}/{w.wid}", w.list.collection)
            self.widget(where, w.list.item, seen)
            if w.list.empty is not None:
                self.widget(where, w.list.empty, seen)

    def transition(self, t: Transition, wids: dict[str, set[str]]) -> None:
        where = f"transition {t.id}"
        if t.screen not in wids:
            self.err(where, f"unknown screen {t.screen!r}")
        elif t.widget is not None and t.widget not in wids[t.screen]:
            self.err(where, f"screen {t.screen!r} has no widget {t.widget!r}")
        if t.target is not None and t.target not in wids:
            self.err(where, f"unknown target screen {t.target!r}")
        if t.guard is not None:
            self.guard(where, t.guard)
        for eff in t.effects:
            self.effect(where, eff)

    def guard(self, where: str, g: Any) -> None:
        if g.op == "all":
            for term in g.terms:
                self.guard(where, term)
        elif g.left is None:
            self.err(where, f"guard {g.op!r} has no left operand")
        else:
            self.expr(where, g.left)
            self.expr(where, g.right)

    def effect(self, where: str, eff: Any) -> None:
        k = eff.kind
        if k in ("set", "add", "toggle"):
            self.ref(where, eff.ref)
            if k == "set":
                self.expr(where, eff.value)
        elif k == "append":
            self.collection(where, eff.collection)
            for e in eff.record.values():
                self.expr(where, e)
        elif k == "remove":
            self.collection(where, eff.collection, need_selection=eff.target == "selected")
        elif k in ("remove_where", "set_each"):
            self.collection(where, eff.collection)
            var = self.vars.get(eff.collection)
            if var is not None and eff.field not in {f.name for f in var.fields}:
                self.err(where, f"collection {eff.collection!r} has no field {eff.field!r}")
        elif k == "select":
            self.collection(where, eff.collection, need_selection=True)


def check_spec(spec: AppSpec) -> list[str]:
    """Every dangling reference or duplicate id in `spec`, one message each."""
    c = _Checker(spec)
    wids: dict[str, set[str]] = {}
    for s in spec.screens:
        if s.id in wids:
            c.err(f"screen {s.id}", "screen id is not unique")
        seen: set[str] = set()
        c.widget(f"screen {s.id}", s.root, seen)
        wids[s.id] = seen
    if spec.start_screen not in wids:
        c.err("app", f"start screen {spec.start_screen!r} is not a screen")
    names = [v.name for v in spec.state]
    for n in sorted({n for n in names if names.count(n) > 1}):
        c.err("state", f"variable {n!r} is declared twice")
    for v in spec.state:
        if v.kind == "selection" and v.collection is not None:
            c.collection(f"state {v.name}", v.collection)
    ids = [t.id for t in spec.transitions]
    for t_id in sorted({i for i in ids if ids.count(i) > 1}):
        c.err(f"transition {t_id}", "transition id is not unique")
    for t in spec.transitions:
        c.transition(t, wids)
    return c.problems


def written_vars(t: Transition, selections: dict[str, list[str]]) -> frozenset[str]:
    """The state variables `t`'s effects may change."""
    out: set[str] = set()
    for eff in t.effects:
        if eff.kind in ("set", "add", "toggle"):
            out.add(eff.ref.name if eff.ref.kind == "var" else eff.ref.collection)
        elif eff.kind in ("append", "remove", "remove_where", "set_each"):
            out.add(eff.collection)
            if eff.kind in ("remove", "remove_where"):
                out.update(selections.get(eff.collection, ()))
        elif eff.kind == "select":
            out.update(selections.get(eff.collection, ()))
    return frozenset(out)


# ----------------------------------------------------------------------------- state values

def kind_default(kind: str) -> Any:
    return {"text": "", "number": 0, "flag": False, "collection": [], "selection": None}[kind]


def field_default(f: FieldSpec) -> Any:
    """A field's default in its kind's type (a spec may leave the text default "" on any kind)."""
    try:
        return coerce_scalar(f.kind, f.default, f.name)
    except EnvError:
        return kind_default(f.kind)


def coerce_scalar(kind: str, value: Any, path: str) -> Any:
    """`value` as a value of `kind`, or EnvError naming `path`."""
    if kind == "text":
        if isinstance(value, str):
            return value
        if value is None:
            return ""
    elif kind == "number":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
    elif kind == "flag":
        if isinstance(value, bool):
            return value
    elif kind == "selection":
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
            return value
    else:
        return value
    raise EnvError(f"state value {path} must be a {kind} value, got {type(value).__name__} {value!r}")


def _record(fields: tuple[FieldSpec, ...], rec: Any, path: str) -> dict[str, Any]:
    if not isinstance(rec, dict):
        raise EnvError(f"state value {path} must be a record (object), got {type(rec).__name__}")
    out: dict[str, Any] = {}
    for f in fields:
        out[f.name] = coerce_scalar(f.kind, rec[f.name], f"{path}.{f.name}") if f.name in rec \
            else field_default(f)
    for k, v in rec.items():
        if k not in out:
            if not isinstance(v, (str, int, bool)) and v is not None:
                raise EnvError(f"state value {path}.{k} must be a scalar, got {type(v).__name__}")
            out[k] = v
    return out


def _value(var: StateVar, value: Any) -> Any:
    if var.kind != "collection":
        return coerce_scalar(var.kind, value, var.name)
    if not isinstance(value, list):
        raise EnvError(f"state value {var.name} must be a list of records, got {type(value).__name__}")
    return [_record(var.fields, r, f"{var.name}[{i}]") for i, r in enumerate(value)]


def normalize_state(app: CompiledApp, state: Any) -> dict[str, Any]:
    """A fresh canonical copy of `state`: every variable present, every value of its schema's type."""
    if not isinstance(state, dict):
        raise EnvError(f"the app state must be a JSON object, got {type(state).__name__}")
    out: dict[str, Any] = {}
    for name, var in app.vars.items():
        out[name] = _value(var, state[name]) if name in state else kind_default(var.kind)
    extra = {k: v for k, v in state.items() if k not in app.vars and k != SCREEN}
    if extra:  # kept for verifiers that read them; never read by the app
        try:
            out.update(json.loads(json.dumps(extra)))
        except (TypeError, ValueError) as exc:
            raise EnvError(f"extra state keys {sorted(extra)} are not JSON-serialisable: {exc}") from exc
    return out


def copy_state(value: Any) -> Any:
    """A deep copy of a JSON-like value (the state, or any part of it); much faster than deepcopy."""
    if isinstance(value, dict):
        return {k: copy_state(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_state(v) for v in value]
    return value


def copy_app_state(state: dict[str, Any], vars: dict[str, StateVar]) -> dict[str, Any]:
    """`copy_state` for a normalized state: records are flat, so a shallow copy of each will do."""
    out: dict[str, Any] = {}
    for k, v in state.items():
        var = vars.get(k)
        if var is None:
            out[k] = copy_state(v)
        elif var.kind == "collection":
            out[k] = [r.copy() for r in v]
        else:
            out[k] = v
    return out
