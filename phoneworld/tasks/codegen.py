"""Verifier code generation (emit side of tasks): a task's rule -> a Python module from
`phoneworld/templates/verifiers/verifier.py.j2`.

One jinja2 `Environment` with `StrictUndefined`; the template only lays text out. Names, order
and clause labels are decided here. Every string that came from a spec or a trace (task text,
parameter names, collection and field names, literals) enters the code only through the `pystr`
and `pylit` filters, which write Python literals with `ascii()`: the result is a valid, pure-ASCII
string literal whatever the input, so a text like `"); import os` stays a string.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

import jinja2

from phoneworld import templates
from phoneworld.ir.app import AppSpec
from phoneworld.tasks import rules as r
from phoneworld.tasks.spec import TaskSpec
from phoneworld.tasks.verdict import Verdict

VerifyFn = Callable[[Any, Any, Any], Verdict]


def pystr(v: Any) -> str:
    """A Python string literal of `v`'s text (pure ASCII, always well-formed)."""
    return ascii(str(v))


def pylit(v: Any) -> str:
    """A Python literal of a scalar: bool, int or (escaped) str."""
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int):
        return str(int(v))
    if v is None:
        return "None"
    return pystr(v)


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=templates.loader("verifiers"), undefined=jinja2.StrictUndefined,
        autoescape=False, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
    )
    env.filters["pystr"] = pystr
    env.filters["pylit"] = pylit
    env.filters["pyobj"] = pyobj
    return env


# ----------------------------------------------------------------------------- rule -> nodes


def _value(v: Any) -> dict[str, Any]:
    if isinstance(v, r.ParamRef):
        return {"kind": "param", "name": v.param}
    if isinstance(v, r.VarValue):
        return {"kind": "var", "name": v.var}
    if isinstance(v, r.CountValue):
        return {"kind": "count", "collection": v.count.collection, "where": _where(v.count.where)}
    if isinstance(v, r.LookupValue):
        q = v.lookup
        return {"kind": "lookup", "collection": q.collection, "where": _where(q.where),
                "field": q.field}
    return {"kind": "lit", "value": v}


def _where(where: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for field in sorted(where):
        m = where[field]
        if isinstance(m, r.ContainsMatch):
            out.append({"field": field, "op": "contains", "value": _value(m.contains)})
        else:
            out.append({"field": field, "op": "eq", "value": _value(m)})
    return out


def value_text(v: Any) -> str:
    """A value as it reads in a clause label."""
    if isinstance(v, r.ParamRef):
        return "{" + v.param + "}"
    if isinstance(v, r.VarValue):
        return v.var
    if isinstance(v, r.CountValue):
        return f"count({v.count.collection}{where_text(v.count.where)})"
    if isinstance(v, r.LookupValue):
        q = v.lookup
        return f"{q.collection}{where_text(q.where)}.{q.field}"
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v) if isinstance(v, str) else str(v)


def where_text(where: dict[str, Any]) -> str:
    if not where:
        return ""
    parts = []
    for f in sorted(where):
        m = where[f]
        parts.append(f"{f} contains {value_text(m.contains)}" if isinstance(m, r.ContainsMatch)
                     else f"{f} == {value_text(m)}")
    return " where " + " and ".join(parts)


def _subject(body: r.Compare, app: AppSpec) -> tuple[dict[str, Any], str]:
    if body.answer:
        return {"kind": "answer"}, "the answer"
    if body.var is not None:
        return {"kind": "var", "name": body.var}, body.var
    assert body.selected is not None
    coll, field = body.selected.collection, body.selected.field
    sel = next((v.name for v in app.state if v.kind == "selection" and v.collection == coll), "")
    return ({"kind": "selected", "selection": sel, "collection": coll, "field": field},
            f"selected {coll}.{field}")


def clause_text(rule: r.RuleNode) -> str:
    """What one clause checks, in words a reader of a failed verdict understands."""
    if isinstance(rule, r.Exists):
        return f"exists {rule.exists.collection}{where_text(rule.exists.where)}"
    if isinstance(rule, r.CountRule):
        b = rule.count
        bounds = [f"{op} {value_text(v)}" for op, v in
                  (("==", b.equals), (">=", b.at_least), ("<=", b.at_most)) if v is not None]
        return f"count({b.collection}{where_text(b.where)}) {' and '.join(bounds)}"
    if isinstance(rule, (r.Equals, r.Contains)):
        body = rule.equals if isinstance(rule, r.Equals) else rule.contains
        who = ("answer" if body.answer else body.var if body.var is not None
               else f"selected {body.selected.collection}.{body.selected.field}"  # type: ignore[union-attr]
               )
        op = "==" if isinstance(rule, r.Equals) else "contains"
        return f"{who} {op} {value_text(body.value)}"
    if isinstance(rule, r.Not):
        return f"not ({clause_text(rule.not_)})"
    if isinstance(rule, r.OnScreen):
        return f"on screen {rule.screen!r}"
    if isinstance(rule, r.Unchanged):
        b = rule.unchanged
        but = " or ".join(where_text(w).removeprefix(" where ") for w in b.except_ if w)
        edit = f", edited in place in {', '.join(b.edit)}" if b.edit else ""
        return f"{b.collection} unchanged" + (f" but for records where {but}" if but else "") + edit
    kids = r.children(rule)
    return f"{'all' if isinstance(rule, r.AllOf) else 'any'} of {len(kids)} clauses"


def rule_nodes(rule: r.RuleNode, app: AppSpec, path: str = "rule") -> list[dict[str, Any]]:
    """The rule as template nodes, pre-order; node 0 is the root."""
    out: list[dict[str, Any]] = []

    def visit(node: r.RuleNode, where: str) -> str:
        fn = f"_clause_{len(out)}"
        item: dict[str, Any] = {"fn": fn, "op": node.OP, "label": f"{where}: {clause_text(node)}"}
        out.append(item)
        if isinstance(node, r.Exists):
            item.update(collection=node.exists.collection, where=_where(node.exists.where))
        elif isinstance(node, r.CountRule):
            b = node.count
            item.update(collection=b.collection, where=_where(b.where),
                        **{k: _value(v) if v is not None else None for k, v in
                           (("equals", b.equals), ("at_least", b.at_least), ("at_most", b.at_most))})
        elif isinstance(node, (r.Equals, r.Contains)):
            body = node.equals if isinstance(node, r.Equals) else node.contains
            subject, what = _subject(body, app)
            item.update(subject=subject, what=what, value=_value(body.value))
        elif isinstance(node, r.Not):
            item["kids"] = [visit(node.not_, f"{where}.not")]
        elif isinstance(node, r.OnScreen):
            item["screen"] = node.screen
        elif isinstance(node, r.Unchanged):
            item.update(collection=node.unchanged.collection,
                        excepts=[_where(w) for w in node.unchanged.except_],
                        edit=list(node.unchanged.edit))
        else:
            key = node.OP
            item["kids"] = [visit(k, f"{where}.{key}[{i}]") for i, k in enumerate(r.children(node))]
        return fn

    visit(rule, path)
    return out


# ----------------------------------------------------------------------------- rendering


def pyobj(v: Any) -> str:
    """A Python literal of JSON-like data (scalars, lists, string-keyed dicts), pure ASCII."""
    if isinstance(v, list | tuple):
        return "[" + ", ".join(pyobj(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{pystr(k)}: {pyobj(x)}" for k, x in v.items()) + "}"
    return pylit(v)


def _start_of(task: TaskSpec, app: Any) -> dict[str, Any]:
    """The task's start state in `app` (an app, or a world's schema: parameters not drawn)."""
    if isinstance(app, AppSpec):
        from phoneworld.tasks.params import task_state

        return task_state(task, app)
    from phoneworld.world.schema import task_state as world_state

    return world_state(task, app)


def render_verifier(task: TaskSpec, app: AppSpec, start: dict[str, Any] | None = None) -> str:
    """The source of `verifiers/<task.id>.py`. A rule with `unchanged` clauses compares with the
    task's start state (`start`, by default the app's initial state with the task's overrides),
    whose compared collections the module holds as `START`."""
    template = environment().get_template("verifier.py.j2")
    nodes = rule_nodes(task.rule, app)
    top = nodes[0]["kids"] if nodes[0]["op"] == "all_of" else [nodes[0]["fn"]]
    compared = sorted({n["collection"] for n in nodes if n["op"] == "unchanged"})
    if compared and start is None:
        start = _start_of(task, app)
    held = {c: (start or {}).get(c) or [] for c in compared}
    return template.render(task_id=task.id, app=task.app, instruction=task.instruction,
                           nodes=nodes, top=top, start=pyobj(held))


def render_index(app: str, task_ids: list[str]) -> str:
    """The source of `verifiers/__init__.py`."""
    return environment().get_template("__init__.py.j2").render(app=app, task_ids=task_ids)


@dataclass(frozen=True)
class Verifier:
    """A loaded verifier module: `verify(state, params, answer)`, `answers(state, params)` (the
    values an answer is compared with, which the oracle answers) and `clauses_held` (which
    top-level clauses hold, the oracle's guide)."""

    verify: VerifyFn
    answers: Callable[[Any, Any], list[Any]]
    clauses_held: Callable[[Any, Any, Any], tuple[bool, ...]]
    source: str
    # per `any_of`, the alternative that holds (which of the outcomes a rule allows a state takes)
    branches: Callable[[Any, Any, Any], tuple[str, ...]] = lambda state, params, answer: ()

    def __call__(self, state: Any, params: Any, answer: Any = None) -> Verdict:
        return self.verify(state, params, answer)


def load_verifier(source: str, name: str = "verifier") -> Verifier:
    """Load generated verifier source (our own template's output) in a fresh namespace."""
    namespace: dict[str, Any] = {"__name__": f"phoneworld_verifier_{name}"}
    exec(compile(source, f"<verifier {name}>", "exec"), namespace)  # noqa: S102 (generated code)
    return Verifier(namespace["verify"], namespace["answers"], namespace["clauses_held"], source,
                    *([namespace["branches"]] if "branches" in namespace else []))


def compile_verifier(task: TaskSpec, app: AppSpec, start: dict[str, Any] | None = None
                     ) -> Verifier:
    """Render and load a task's verifier: the exact code `phoneworld build` writes."""
    return load_verifier(render_verifier(task, app, start), task.id)
