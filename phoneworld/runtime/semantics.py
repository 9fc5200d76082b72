"""The meaning of the app spec's expressions, guards and effects, over the runtime's plain state dict.

Expressions, guards and effects are compiled once into tuples (`compile_expr`, `compile_guard`,
`compile_effect`, `compile_transition`) and interpreted here, against the state schema a `Layout`
gives: the simulator's `CompiledApp`, or state inference's `StateLayout` (inference scores its
candidate effects with these same functions, so the effect it picks is the effect that runs).
Conventions (the Kotlin core must mirror them):
- Text of a value: str as is, bool as "true"/"false", None as "", a collection as its length.
  `fmt` is plain text in which every "{}" is replaced by that text (no other format syntax:
  formats come from untrusted traces, so Python's `str.format` is never used).
- Truthiness: bool as is, number != 0, text not in {"", "false", "0"} (case-insensitive, stripped),
  a collection non-empty, None false.
- Guards compare raw values (fmt ignored): `empty`/`nonempty` (None, "" and [] are empty),
  `eq`/`ne` on the values' texts, `true`/`false` on truthiness, `all` of its terms.
- Writes coerce to the target's kind; a value that is no number leaves a number unchanged
  (`add` counts a current value that is no number as 0).
  Removing a record, or appending one at the start, shifts the collection's selections so they
  keep pointing at the same record (a removed selected record becomes None).
- An `item` reference without a hit item of that collection, or a `selected` one without a valid
  selection, is a no-op. `Input` is the typed text during a `type` action and "" otherwise (so a
  widget text bound to it renders empty).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from phoneworld.ir.app import (
    Choose, Count, Expr, Guard, ItemField, Lit, Selected, StateVar, Transition, Var,
)

E_LIT, E_VAR, E_ITEM, E_SEL, E_INPUT, E_COUNT, E_CHOOSE = range(7)
CExpr = tuple[int, Any, Any, str]
Hit = tuple[str, int]  # (collection, record index) an action was taken on
_INT = re.compile(r"\s*[-+]?\d+\s*")
_SKIP = object()


class Layout(Protocol):
    """What the semantics reads of an app besides the state: variable kinds, record fields and
    selections. `compiled.CompiledApp` is one (the simulator), `compiled.StateLayout` another
    (state inference, before there is an app)."""

    @property
    def vars(self) -> dict[str, StateVar]: ...
    @property
    def field_defaults(self) -> dict[str, dict[str, Any]]: ...
    @property
    def field_kinds(self) -> dict[str, dict[str, str]]: ...
    @property
    def selection_of(self) -> dict[str, str]: ...
    @property
    def selections_of(self) -> dict[str, tuple[str, ...]]: ...


def compile_expr(e: Expr) -> CExpr:
    """Turn an IR expression into the runtime's tuple form: (tag, name_or_value, field, fmt)."""
    if isinstance(e, Lit):
        return (E_LIT, e.value, None, "{}")
    if isinstance(e, Var):
        return (E_VAR, e.name, None, e.fmt)
    if isinstance(e, ItemField):
        return (E_ITEM, None, e.field, e.fmt)
    if isinstance(e, Selected):
        return (E_SEL, e.collection, e.field, e.fmt)
    if isinstance(e, Count):
        return (E_COUNT, e.collection, None, e.fmt)
    if isinstance(e, Choose):
        return (E_CHOOSE, compile_expr(e.cond), (e.then, e.otherwise), "{}")
    return (E_INPUT, None, None, "{}")


@dataclass(frozen=True, slots=True)
class CTransition:
    id: str
    guard: tuple[Any, ...] | None  # see compile_guard
    effects: tuple[tuple[Any, ...], ...]
    target: str | None
    nav: str


def _ref(ref: Any) -> tuple[Any, ...]:
    if ref.kind == "var":
        return ("var", ref.name)
    return ("rec", ref.collection, ref.target, ref.field)


def compile_effect(eff: Any) -> tuple[Any, ...]:
    """Turn an IR effect into the runtime's tuple form (interpreted by `apply_effects`)."""
    k = eff.kind
    if k == "set":
        return ("set", _ref(eff.ref), compile_expr(eff.value))
    if k == "add":
        return ("add", _ref(eff.ref), eff.delta)
    if k == "toggle":
        return ("toggle", _ref(eff.ref))
    if k == "append":
        fields = tuple((f, compile_expr(e)) for f, e in eff.record.items())
        return ("append", eff.collection, fields, eff.position)
    if k == "remove":
        return ("remove", eff.collection, eff.target)
    if k in ("remove_where", "set_each"):
        return (k, eff.collection, eff.field, eff.value)
    return ("select", eff.collection)


def compile_guard(g: Guard) -> tuple[Any, ...]:
    """(op, left, right); a conjunction is ("all", (compiled terms...), None)."""
    if g.op == "all":
        return ("all", tuple(compile_guard(term) for term in g.terms), None)
    right = compile_expr(g.right) if g.right is not None else None
    left = compile_expr(g.left) if g.left is not None else compile_expr(Lit(value=""))
    return (g.op, left, right)


def compile_transition(t: Transition) -> CTransition:
    guard = compile_guard(t.guard) if t.guard is not None else None
    return CTransition(t.id, guard, tuple(compile_effect(e) for e in t.effects), t.target, t.nav)


# ----------------------------------------------------------------------------- values


def value_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return ""
    if isinstance(v, list):
        return str(len(v))
    return str(v)


def fmt_text(v: Any, fmt: str) -> str:
    t = value_text(v)
    return t if fmt == "{}" else fmt.replace("{}", t)


def truthy(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, str):
        return v.strip().lower() not in ("", "false", "0")
    if isinstance(v, list):
        return bool(v)
    return bool(v)


def selected_record(app: Layout, state: dict[str, Any], coll: str) -> dict[str, Any] | None:
    sel = app.selection_of.get(coll)
    idx = state.get(sel) if sel is not None else None
    recs = state.get(coll)
    if isinstance(idx, int) and isinstance(recs, list) and 0 <= idx < len(recs):
        return recs[idx]  # type: ignore[no-any-return]
    return None


def eval_expr(
    app: Layout, state: dict[str, Any], e: CExpr, rec: dict[str, Any] | None, inp: str = ""
) -> Any:
    """The raw value of a compiled expression; `rec` is the record `item` refers to."""
    tag = e[0]
    if tag == E_LIT:
        return e[1]
    if tag == E_VAR:
        return state.get(e[1])
    if tag == E_ITEM:
        return rec.get(e[2]) if rec is not None else None
    if tag == E_SEL:
        srec = selected_record(app, state, e[1])
        return srec.get(e[2]) if srec is not None else None
    if tag == E_COUNT:
        v = state.get(e[1])
        return len(v) if isinstance(v, list) else 0
    if tag == E_CHOOSE:
        return e[2][0] if truthy(eval_expr(app, state, e[1], rec, inp)) else e[2][1]
    return inp


class Traits(Protocol):
    """What touch dispatch reads of a widget (a recorded `HitBox`, a compiled `CNode`)."""

    @property
    def clickable(self) -> bool: ...
    @property
    def long_clickable(self) -> bool: ...
    @property
    def checkable(self) -> bool: ...
    @property
    def editable(self) -> bool: ...
    @property
    def scrollable(self) -> bool: ...


def takes(w: Traits, kind: str) -> bool:
    """Whether a widget can take an action of `kind` (click, long_press, scroll_*): the one test
    that the graph pass hit-tests recorded actions with and that touch dispatch uses."""
    if kind == "long_press":
        return w.long_clickable or w.clickable
    if kind.startswith("scroll"):
        return w.scrollable
    return w.clickable or w.checkable or w.editable


def binding_ref(e: CExpr, coll: str | None) -> tuple[Any, ...] | None:
    """The writable reference a widget's text or checked expression reads, if any (`coll`: the
    collection of the list item the widget belongs to)."""
    tag = e[0]
    if tag == E_VAR:
        return ("var", e[1])
    if tag == E_ITEM and coll is not None:
        return ("rec", coll, "item", e[2])
    if tag == E_SEL:
        return ("rec", e[1], "selected", e[2])
    return None


def hit_record(state: dict[str, Any], hit: Hit | None) -> dict[str, Any] | None:
    if hit is None:
        return None
    recs = state.get(hit[0])
    if isinstance(recs, list) and 0 <= hit[1] < len(recs):
        return recs[hit[1]]  # type: ignore[no-any-return]
    return None


def guard_holds(
    app: Layout, state: dict[str, Any], t: CTransition, hit: Hit | None, inp: str
) -> bool:
    if t.guard is None:
        return True
    return _holds(app, state, t.guard, hit, inp)


def _holds(app: Layout, state: dict[str, Any], guard: tuple[Any, ...], hit: Hit | None,
           inp: str) -> bool:
    op, left, right = guard
    if op == "all":
        return all(_holds(app, state, term, hit, inp) for term in left)
    rec = hit_record(state, hit)
    lv = eval_expr(app, state, left, rec, inp)
    if op == "nonempty" or op == "empty":
        empty = lv is None or lv == "" or lv == []
        return empty if op == "empty" else not empty
    if op == "true":
        return truthy(lv)
    if op == "false":
        return not truthy(lv)
    rv = eval_expr(app, state, right, rec, inp) if right is not None else None
    same = value_text(lv) == value_text(rv)
    return same if op == "eq" else not same


# ----------------------------------------------------------------------------- writes


def coerce(kind: str, v: Any) -> Any:
    """`v` as a value of `kind`, or `_SKIP` when it has none (text that is no number)."""
    if kind == "text":
        return value_text(v)
    if kind == "flag":
        return truthy(v)
    if kind == "number" or kind == "selection":
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, int):
            return v
        if isinstance(v, str) and _INT.fullmatch(v):
            return int(v)
        if v is None:
            return None if kind == "selection" else _SKIP
        return _SKIP
    return v


def _locate(
    app: Layout, state: dict[str, Any], ref: tuple[Any, ...], hit: Hit | None
) -> tuple[dict[str, Any], str, str] | None:
    """The container dict, key and kind a reference points at, or None when it points nowhere."""
    if ref[0] == "var":
        var = app.vars[ref[1]]
        return state, ref[1], var.kind
    _, coll, target, field = ref
    if target == "item":
        rec = hit_record(state, hit) if hit is not None and hit[0] == coll else None
    else:
        rec = selected_record(app, state, coll)
    if rec is None:
        return None
    return rec, field, app.field_kinds.get(coll, {}).get(field, "text")


def write(
    app: Layout, state: dict[str, Any], ref: tuple[Any, ...], value: Any, hit: Hit | None
) -> None:
    """Write `value` (coerced to the target's kind) through a compiled reference."""
    loc = _locate(app, state, ref, hit)
    if loc is None:
        return
    box, key, kind = loc
    v = coerce(kind, value)
    if v is not _SKIP:
        box[key] = v


def read(app: Layout, state: dict[str, Any], ref: tuple[Any, ...], hit: Hit | None) -> Any:
    loc = _locate(app, state, ref, hit)
    return None if loc is None else loc[0].get(loc[1])


def apply_effects(
    app: Layout, state: dict[str, Any], t: CTransition, hit: Hit | None, inp: str
) -> None:
    """Apply a transition's effects in order (each sees the previous ones' writes)."""
    for eff in t.effects:
        k = eff[0]
        if k == "set":
            write(app, state, eff[1], eval_expr(app, state, eff[2], hit_record(state, hit), inp), hit)
        elif k == "add":
            cur = coerce("number", read(app, state, eff[1], hit))
            write(app, state, eff[1], (0 if cur is _SKIP or cur is None else cur) + eff[2], hit)
        elif k == "toggle":
            write(app, state, eff[1], not truthy(read(app, state, eff[1], hit)), hit)
        elif k == "append":
            _append(app, state, eff[1], eff[2], hit, inp, eff[3])
        elif k == "remove":
            _remove(app, state, eff[1], eff[2], hit)
        elif k == "remove_where":
            _remove_where(app, state, eff[1], eff[2], eff[3])
        elif k == "set_each":
            _set_each(app, state, eff[1], eff[2], eff[3])
        elif k == "select" and hit is not None and hit[0] == eff[1]:
            sel = app.selection_of.get(eff[1])
            if sel is not None:
                state[sel] = hit[1]


def _append(
    app: Layout, state: dict[str, Any], coll: str, fields: tuple[tuple[str, CExpr], ...],
    hit: Hit | None, inp: str, position: str = "end",
) -> None:
    rec = dict(app.field_defaults.get(coll, {}))
    kinds = app.field_kinds.get(coll, {})
    hrec = hit_record(state, hit)
    for name, e in fields:
        v = eval_expr(app, state, e, hrec, inp)
        kind = kinds.get(name)
        v = coerce(kind, v) if kind is not None else (v if not isinstance(v, list) else len(v))
        if v is not _SKIP:
            rec[name] = v
    if position == "start":
        state[coll].insert(0, rec)
        for sel in app.selections_of.get(coll, ()):  # the selected record stays selected
            cur = state.get(sel)
            if isinstance(cur, int):
                state[sel] = cur + 1
    else:
        state[coll].append(rec)


def _remove(
    app: Layout, state: dict[str, Any], coll: str, target: str, hit: Hit | None
) -> None:
    if target == "item":
        idx = hit[1] if hit is not None and hit[0] == coll else None
    else:
        sel = app.selection_of.get(coll)
        idx = state.get(sel) if sel is not None else None
    recs = state[coll]
    if not isinstance(idx, int) or not 0 <= idx < len(recs):
        return
    del recs[idx]
    for sel in app.selections_of.get(coll, ()):
        cur = state.get(sel)
        if isinstance(cur, int):
            state[sel] = None if cur == idx else (cur - 1 if cur > idx else cur)


def _remove_where(app: Layout, state: dict[str, Any], coll: str, name: str, value: Any) -> None:
    """Remove every record whose field `name` holds `value`; a selection of a removed record
    becomes None, the others follow their records."""
    recs = state[coll]
    kind = app.field_kinds.get(coll, {}).get(name)
    want = coerce(kind, value) if kind is not None else value
    gone = [i for i, r in enumerate(recs) if r.get(name) == want]
    if not gone:
        return
    recs[:] = [r for r in recs if r.get(name) != want]
    for sel in app.selections_of.get(coll, ()):
        cur = state.get(sel)
        if isinstance(cur, int):
            state[sel] = None if cur in gone else cur - sum(i < cur for i in gone)


def _set_each(app: Layout, state: dict[str, Any], coll: str, name: str, value: Any) -> None:
    """Set field `name` to `value` on every record."""
    kind = app.field_kinds.get(coll, {}).get(name)
    v = coerce(kind, value) if kind is not None else value
    if v is _SKIP:
        return
    for r in state[coll]:
        r[name] = v
