"""Which parts of the app state matter to a task: what its rule reads, closed under the app's data
flow. The oracle keys its search on that projection of the state, so toggling an unrelated
checkbox does not multiply the states it explores.

`relevant(app, rule)` = the variables the rule reads (the screen, which a `screen` clause reads,
is in every search key anyway), every collection (lists decide which
elements are on screen), every variable a guard reads, and, to a fixpoint, every variable read by
an effect that writes a relevant one. Two states that agree on these behave the same for the
task: the same transitions fire, relevant writes compute the same values, the same elements show.
"""

from __future__ import annotations

from typing import Any

from phoneworld.ir.app import AppSpec, Expr
from phoneworld.runtime.validate import SCREEN
from phoneworld.tasks import rules as r


def _selection(app: AppSpec, coll: str) -> list[str]:
    return [v.name for v in app.state if v.kind == "selection" and v.collection == coll]


def expr_reads(app: AppSpec, e: Expr | None) -> set[str]:
    if e is None:
        return set()
    if e.kind == "var":
        return {e.name}
    if e.kind == "count":
        return {e.collection}
    if e.kind == "selected":
        return {e.collection, *_selection(app, e.collection)}
    if e.kind == "choose":
        return expr_reads(app, e.cond)
    return set()


def guard_reads(app: AppSpec, g: Any) -> set[str]:
    if g is None:
        return set()
    out = expr_reads(app, g.left) | expr_reads(app, g.right)
    for term in g.terms:
        out |= guard_reads(app, term)
    return out


def _effect_io(app: AppSpec, eff: Any) -> tuple[set[str], set[str]]:
    """(names an effect writes, names it reads)."""
    k = eff.kind
    if k in ("set", "add", "toggle"):
        ref = eff.ref
        if ref.kind == "var":
            writes, reads = {ref.name}, set()
        else:
            writes = {ref.collection}
            reads = set(_selection(app, ref.collection)) if ref.target == "selected" else set()
        if k == "set":
            reads |= expr_reads(app, eff.value)
        return writes, reads
    if k == "append":
        reads = set().union(*(expr_reads(app, e) for e in eff.record.values()))
        return {eff.collection}, reads
    if k == "remove":
        sel = set(_selection(app, eff.collection)) if eff.target == "selected" else set()
        return {eff.collection, *_selection(app, eff.collection)}, sel
    if k == "remove_where":
        return {eff.collection, *_selection(app, eff.collection)}, {eff.collection}
    if k == "set_each":
        return {eff.collection}, set()
    return set(_selection(app, eff.collection)), set()


def effect_writes(app: AppSpec, eff: Any) -> set[str]:
    """The state variables (and collections) an effect writes."""
    return _effect_io(app, eff)[0]


def value_reads(app: AppSpec, v: Any) -> set[str]:
    out: set[str] = set()
    for x in r.nested_values(v):
        if isinstance(x, r.VarValue):
            out.add(x.var)
        elif isinstance(x, r.CountValue):
            out.add(x.count.collection)
        elif isinstance(x, r.LookupValue):
            out.add(x.lookup.collection)
    return out


def rule_reads(app: AppSpec, rule: r.RuleNode) -> set[str]:
    """The state variables a rule reads (and `@screen` for a `screen` clause)."""
    out: set[str] = set()
    for node in r.walk(rule):
        if isinstance(node, r.OnScreen):
            out.add(SCREEN)
        elif isinstance(node, r.Exists):
            out.add(node.exists.collection)
        elif isinstance(node, r.CountRule):
            out.add(node.count.collection)
        elif isinstance(node, r.Unchanged):
            out.add(node.unchanged.collection)
        elif isinstance(node, (r.Equals, r.Contains)):
            body = node.equals if isinstance(node, r.Equals) else node.contains
            if body.var is not None:
                out.add(body.var)
            if body.selected is not None:
                out |= {body.selected.collection, *_selection(app, body.selected.collection)}
        for v in r.rule_values(node):
            out |= value_reads(app, v)
    return out


def answer_reads(app: AppSpec, rule: r.RuleNode) -> set[str]:
    """The state variables the values compared with the answer read (what the agent must see)."""
    out: set[str] = set()
    for node in r.walk(rule):
        body = node.equals if isinstance(node, r.Equals) else (
            node.contains if isinstance(node, r.Contains) else None)
        if body is not None and body.answer:
            out |= value_reads(app, body.value)
    return out


def relevant(app: AppSpec, rule: r.RuleNode) -> tuple[str, ...]:
    """The state variables the oracle's search keys on (sorted)."""
    names = rule_reads(app, rule) | {v.name for v in app.state if v.kind == "collection"}
    for t in app.transitions:
        names |= guard_reads(app, t.guard)
    io = [_effect_io(app, e) for t in app.transitions for e in t.effects]
    changed = True
    while changed:
        changed = False
        for writes, reads in io:
            if writes & names and not reads <= names:
                names |= reads
                changed = True
    known = {v.name for v in app.state}
    return tuple(sorted(names & known))
