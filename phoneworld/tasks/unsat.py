"""Static satisfiability of a task's rule in an app: does the rule hold in *no* reachable state?

The rule is put in disjunctive normal form (a bounded number of conjunctions of possibly negated
leaves); it can never hold when every conjunction is contradictory. A conjunction is
contradictory when it holds a leaf and its negation, two different literal values for one
variable, count bounds with an empty range (with `exists` read as count >= 1 and `not exists`
as count <= 0), two different screens to end on, a screen no transition leads to from the start
(guards ignored), or a leaf over state the app can never change (no effect writes it, no field or
checkbox is bound to it) that is false in the task's initial state. This is sound, not complete:
the oracle's sanity check catches the rest.
"""

from __future__ import annotations

from typing import Any

from phoneworld.ir.app import AppSpec, Widget
from phoneworld.runtime.validate import SCREEN, written_vars
from phoneworld.tasks import rules as r
from phoneworld.tasks.spec import TaskSpec
from phoneworld.tasks.verdict import norm

MAX_CONJUNCTIONS = 256
Literal_ = tuple[Any, bool]  # (leaf rule, positive)


def writable(app: AppSpec) -> set[str]:
    """The state variables (collections by name) that some input can change."""
    selections: dict[str, list[str]] = {}
    for v in app.state:
        if v.kind == "selection" and v.collection:
            selections.setdefault(v.collection, []).append(v.name)
    out: set[str] = set()
    for t in app.transitions:
        out |= written_vars(t, selections)

    def visit(w: Widget, coll: str | None) -> None:
        for e, bound in ((w.text, w.editable or w.cls.endswith("EditText")),
                         (w.checked, w.checkable)):
            if not bound:
                continue
            if e.kind == "var":
                out.add(e.name)
            elif e.kind == "item" and coll is not None:
                out.add(coll)
            elif e.kind == "selected":
                out.add(e.collection)
        for c in w.children:
            visit(c, coll)
        if w.list is not None:
            visit(w.list.item, w.list.collection)

    for s in app.screens:
        visit(s.root, None)
    return out


def dnf(rule: r.RuleNode, positive: bool = True) -> list[list[Literal_]] | None:
    """The rule as a list of conjunctions of (leaf, positive); None when it grows too large."""
    if isinstance(rule, r.Not):
        return dnf(rule.not_, not positive)
    if isinstance(rule, (r.AllOf, r.AnyOf)):
        conj = isinstance(rule, r.AllOf) == positive  # De Morgan under negation
        parts = [dnf(k, positive) for k in r.children(rule)]
        if any(p is None for p in parts):
            return None
        if not conj:
            out = [c for p in parts for c in p]  # type: ignore[union-attr]
            return out if len(out) <= MAX_CONJUNCTIONS else None
        acc: list[list[Literal_]] = [[]]
        for p in parts:
            acc = [a + b for a in acc for b in p]  # type: ignore[union-attr]
            if len(acc) > MAX_CONJUNCTIONS:
                return None
        return acc
    return [[(rule, positive)]]


def _has_params(leaf: Any) -> bool:
    return bool(r.params_used(leaf))


def _reads(leaf: Any) -> set[str]:
    names: set[str] = set()
    if isinstance(leaf, r.OnScreen):
        names.add(SCREEN)  # where the agent goes: never a fixed read
    elif isinstance(leaf, r.Exists):
        names.add(leaf.exists.collection)
    elif isinstance(leaf, r.CountRule):
        names.add(leaf.count.collection)
    elif isinstance(leaf, r.Unchanged):
        names.add(leaf.unchanged.collection)
    elif isinstance(leaf, (r.Equals, r.Contains)):
        body = leaf.equals if isinstance(leaf, r.Equals) else leaf.contains
        if body.var is not None:
            names.add(body.var)
        if body.selected is not None:  # a selection moves with taps: never a fixed read
            names.update((body.selected.collection, "@selection"))
    for v in r.rule_values(leaf):
        for x in r.nested_values(v):
            if isinstance(x, r.VarValue):
                names.add(x.var)
            elif isinstance(x, r.CountValue):
                names.add(x.count.collection)
            elif isinstance(x, r.LookupValue):
                names.add(x.lookup.collection)
    return names


def _answers(leaf: Any) -> bool:
    body = leaf.equals if isinstance(leaf, r.Equals) else getattr(leaf, "contains", None)
    return isinstance(body, r.Compare) and body.answer


class _Context:
    def __init__(self, spec: TaskSpec, app: AppSpec) -> None:
        from phoneworld.tasks.params import task_state

        self.spec, self.app = spec, app
        self.fixed = {v.name for v in app.state} - writable(app)
        self.state = task_state(spec, app)
        self.cache: dict[str, bool] = {}
        self.reachable: set[str] | None = None

    def unreachable(self, screen: str) -> bool:
        """Whether no path of transitions leads from the start screen to `screen`."""
        if self.reachable is None:
            from phoneworld.tasks.drafts import reachable_screens

            self.reachable = reachable_screens(self.app)
        return screen not in self.reachable

    def constant(self, leaf: Any) -> bool | None:
        """The leaf's truth when no input can change it, else None."""
        if _has_params(leaf) or _answers(leaf) or not _reads(leaf) <= self.fixed:
            return None
        key = leaf.model_dump_json(by_alias=True)
        if key not in self.cache:
            from phoneworld.tasks.codegen import compile_verifier

            verify = compile_verifier(self.spec.model_copy(update={"rule": leaf}), self.app)
            self.cache[key] = verify(self.state, {}, None).passed
        return self.cache[key]


def _count_range(lits: list[Literal_]) -> str | None:
    ranges: dict[str, list[float]] = {}
    for leaf, pos in lits:
        if not pos and not isinstance(leaf, r.Exists):
            continue
        if isinstance(leaf, r.Exists):
            key = r.CountBody(collection=leaf.exists.collection, where=leaf.exists.where,
                              at_least=0).model_dump_json(include={"collection", "where"})
            lo, hi = (1.0, float("inf")) if pos else (0.0, 0.0)
        elif isinstance(leaf, r.CountRule):
            b = leaf.count
            key = b.model_dump_json(include={"collection", "where"})
            lo, hi = 0.0, float("inf")
            for op, v in (("eq", b.equals), ("ge", b.at_least), ("le", b.at_most)):
                if isinstance(v, int) and not isinstance(v, bool):
                    lo = max(lo, v) if op in ("eq", "ge") else lo
                    hi = min(hi, v) if op in ("eq", "le") else hi
        else:
            continue
        cur = ranges.setdefault(key, [0.0, float("inf")])
        cur[0], cur[1] = max(cur[0], lo), min(cur[1], hi)
        if cur[0] > cur[1]:
            return "its count bounds (with exists / not exists) leave no possible number of records"
    return None


def _conflict(lits: list[Literal_], ctx: _Context) -> str | None:
    """Why one conjunction can never hold, or None."""
    seen: dict[str, bool] = {}
    values: dict[str, str] = {}
    ends = sorted({leaf.screen for leaf, pos in lits if pos and isinstance(leaf, r.OnScreen)})
    if len(ends) > 1:
        return f"the app cannot end on two screens ({', '.join(ends)})"
    if ends and ctx.unreachable(ends[0]):
        return f"no transition leads from the start screen to screen {ends[0]!r}"
    for leaf, pos in lits:
        key = leaf.model_dump_json(by_alias=True)
        if seen.get(key, pos) != pos:
            return f"it requires a clause and its negation ({key})"
        seen[key] = pos
        const = ctx.constant(leaf)
        if const is not None and const != pos:
            names = ", ".join(sorted(_reads(leaf)))
            return (f"{names} never changes in this app (no input writes it) and the clause is "
                    f"{'false' if pos else 'true'} in the task's initial state")
        if pos and isinstance(leaf, r.Equals) and not leaf.equals.answer:
            v = leaf.equals.value
            if isinstance(v, (str, int, bool)):
                subj = leaf.equals.var or leaf.equals.selected.model_dump_json()  # type: ignore[union-attr]
                if subj in values and values[subj] != norm(v):
                    return f"{subj} cannot equal both {values[subj]!r} and {norm(v)!r}"
                values[subj] = norm(v)
    return _count_range(lits)


def never_holds(spec: TaskSpec, app: AppSpec) -> str | None:
    """Why `spec`'s rule holds in no state of `app`, or None when it may hold."""
    conjunctions = dnf(spec.rule)
    if conjunctions is None:
        return None
    if not conjunctions:
        return "an `any_of` has no alternatives"
    ctx = _Context(spec, app)
    reasons = []
    for conj in conjunctions:
        why = _conflict(conj, ctx)
        if why is None:
            return None
        reasons.append(why)
    return reasons[0] if len(set(reasons)) == 1 else "every alternative is contradictory: " + \
        "; ".join(dict.fromkeys(reasons))
