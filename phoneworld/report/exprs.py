"""Text forms of the app spec's expressions, effects and guards, as the HTML report shows them.

The forms read like code (`{title_input}`, `notes[item].done = !done`) and are plain strings: the
templates escape them like every other trace-derived text.
"""

from __future__ import annotations

import json

from phoneworld.ir.app import (
    AddEffect,
    AppendEffect,
    Choose,
    Count,
    Effect,
    Expr,
    Guard,
    Input,
    ItemField,
    Lit,
    RecordRef,
    Ref,
    RemoveEffect,
    RemoveWhereEffect,
    Selected,
    SelectEffect,
    SetEachEffect,
    SetEffect,
    ToggleEffect,
    Transition,
    Var,
)

_OPS = {"nonempty": "nonempty({})", "empty": "empty({})", "true": "{}", "false": "not {}"}


def _fmt(inner: str, fmt: str) -> str:
    return inner if fmt == "{}" else json.dumps(fmt.replace("{}", inner), ensure_ascii=False)


def expr_text(e: Expr) -> str:
    """`"Save"` for a literal, `{name}` for a variable, and so on."""
    if isinstance(e, Lit):
        return json.dumps(e.value, ensure_ascii=False)
    if isinstance(e, Var):
        return _fmt(f"{{{e.name}}}", e.fmt)
    if isinstance(e, ItemField):
        return _fmt(f"{{item.{e.field}}}", e.fmt)
    if isinstance(e, Selected):
        return _fmt(f"{{{e.collection}[selected].{e.field}}}", e.fmt)
    if isinstance(e, Input):
        return "{input}"
    if isinstance(e, Count):
        return _fmt(f"{{len({e.collection})}}", e.fmt)
    if isinstance(e, Choose):
        return (f"{expr_text(e.cond)} ? {json.dumps(e.then, ensure_ascii=False)} : "
                f"{json.dumps(e.otherwise, ensure_ascii=False)}")
    raise TypeError(f"unknown expression {e!r}")


def ref_text(r: Ref) -> str:
    if isinstance(r, RecordRef):
        return f"{r.collection}[{r.target}].{r.field}"
    return r.name


def ref_var(r: Ref) -> str:
    """The state variable a reference writes."""
    return r.collection if isinstance(r, RecordRef) else r.name


def effect_text(e: Effect) -> str:
    if isinstance(e, SetEffect):
        return f"{ref_text(e.ref)} = {expr_text(e.value)}"
    if isinstance(e, AddEffect):
        sign = "+" if e.delta >= 0 else "-"
        return f"{ref_text(e.ref)} {sign}= {abs(e.delta)}"
    if isinstance(e, ToggleEffect):
        return f"toggle {ref_text(e.ref)}"
    if isinstance(e, AppendEffect):
        fields = ", ".join(f"{k}: {expr_text(v)}" for k, v in sorted(e.record.items()))
        verb = "prepend" if e.position == "start" else "append"
        return f"{verb} {e.collection} {{{fields}}}"
    if isinstance(e, RemoveEffect):
        return f"remove {e.collection}[{e.target}]"
    if isinstance(e, RemoveWhereEffect):
        return f"remove {e.collection} where {e.field} == {e.value!r}"
    if isinstance(e, SetEachEffect):
        return f"set {e.field} = {e.value!r} on every {e.collection}"
    if isinstance(e, SelectEffect):
        return f"select {e.collection}[item]"
    raise TypeError(f"unknown effect {e!r}")


def effect_vars(e: Effect, selections: dict[str, str]) -> tuple[str, ...]:
    """The state variables an effect writes (`selections`: collection -> its selection var)."""
    if isinstance(e, (SetEffect, AddEffect, ToggleEffect)):
        return (ref_var(e.ref),)
    if isinstance(e, SelectEffect):
        return (selections.get(e.collection, e.collection),)
    return (e.collection,)


def guard_text(g: Guard) -> str:
    if g.op == "all":
        return " and ".join(guard_text(t) for t in g.terms)
    left = expr_text(g.left) if g.left is not None else "?"
    if g.op in ("eq", "ne"):
        right = expr_text(g.right) if g.right is not None else "?"
        return f"{left} {'==' if g.op == 'eq' else '!='} {right}"
    return _OPS[g.op].format(left)


def expr_vars(e: Expr | None) -> set[str]:
    """The state variables an expression reads (a selected record's field reads its collection)."""
    if e is None:
        return set()
    if isinstance(e, Var):
        return {e.name}
    if isinstance(e, Selected):
        return {e.collection}
    if isinstance(e, Count):
        return {e.collection}
    if isinstance(e, Choose):
        return expr_vars(e.cond)
    return set()


def guard_vars(g: Guard) -> set[str]:
    out = expr_vars(g.left) | expr_vars(g.right)
    for t in g.terms:
        out |= guard_vars(t)
    return out


def action_text(t: Transition) -> str:
    """`click btn_save`, `back`."""
    return f"{t.action} {t.widget}" if t.widget else t.action
