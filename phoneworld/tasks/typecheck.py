"""Checking a task spec against the app it runs in: names, types, parameters, satisfiability.

`check_task(task, app)` returns every problem as a diagnostic pointing at the line of the value:
an app that is not this one (PW303), unknown variables, collections, fields, screens and parameter
sources with "did you mean" (PW304), values of the wrong kind (PW305), parameters the instruction or rule
uses but never declares (PW306), a rule that can never hold in this app (PW307, see
`phoneworld.tasks.unsat`), an initial state that does not fit the schema (PW309), and, as a
warning, parameters the instruction never shows (PW310).
"""

from __future__ import annotations

import difflib
from typing import Any

from phoneworld.errors import EnvError
from phoneworld.ir.app import AppSpec, StateVar
from phoneworld.ir.diagnostics import Diagnostic
from phoneworld.tasks import codes
from phoneworld.tasks import rules as r
from phoneworld.tasks import spec as s
from phoneworld.tasks.load import LoadedTask, YamlPath

NUMERIC = ("number", "selection")


def _near(word: str, known: list[str]) -> str:
    near = difflib.get_close_matches(word, known, n=1)
    return f"; did you mean {near[0]!r}?" if near else ""


class TaskChecker:
    """Checks one task spec against an app's state schema, collecting diagnostics in `out`.
    `phoneworld.world.check` subclasses it for world tasks (namespaced names and sources)."""

    def __init__(self, task: LoadedTask, app: AppSpec) -> None:
        self.task, self.spec, self.app = task, task.spec, app
        self.vars: dict[str, StateVar] = {v.name: v for v in app.state}
        self.out: list[Diagnostic] = []

    def err(self, code: str, msg: str, path: YamlPath, hint: str | None = None) -> None:
        self.out.append(Diagnostic(severity="error", code=code, message=msg,
                                   source=self.task.at(path), hint=hint))

    # -------------------------------------------------------------- names and kinds

    def collection(self, name: str, path: YamlPath) -> StateVar | None:
        v = self.vars.get(name)
        if v is None or v.kind != "collection":
            known = [n for n, x in self.vars.items() if x.kind == "collection"]
            what = "is not a collection" if v is not None else "is no state variable"
            self.err(codes.UNKNOWN_NAME, f"{name!r} {what} of app {self.app.package}"
                     f"{_near(name, known)}", path, f"collections: {', '.join(known) or 'none'}")
            return None
        return v

    def field_kind(self, coll: StateVar, field: str, path: YamlPath) -> str | None:
        kinds = {f.name: f.kind for f in coll.fields}
        if field not in kinds:
            self.err(codes.UNKNOWN_NAME, f"collection {coll.name!r} has no field {field!r}"
                     f"{_near(field, list(kinds))}", path,
                     f"its fields: {', '.join(kinds) or 'none'}")
            return None
        return kinds[field]

    def scalar_var(self, name: str, path: YamlPath) -> str | None:
        v = self.vars.get(name)
        if v is None:
            self.err(codes.UNKNOWN_NAME, f"{name!r} is no state variable of app "
                     f"{self.app.package}{_near(name, list(self.vars))}", path)
            return None
        if v.kind == "collection":
            self.err(codes.TYPE_MISMATCH, f"{name!r} is a collection; compare its records with "
                     "`exists` or `count`", path)
            return None
        return v.kind

    def value_kind(self, v: Any, path: YamlPath) -> str | None:
        """The kind of a value (text, number, flag, date), checking the names inside it."""
        if isinstance(v, bool):
            return "flag"
        if isinstance(v, int):
            return "number"
        if isinstance(v, str):
            return "text"
        if isinstance(v, r.ParamRef):
            p = self.spec.params.get(v.param)
            if p is None:
                self.err(codes.UNKNOWN_PARAM, f"the rule uses parameter {v.param!r}, which is not "
                         f"declared{_near(v.param, list(self.spec.params))}", (*path, "param"),
                         "declare it under `params:`")
                return None
            return p.type
        if isinstance(v, r.VarValue):
            return self.scalar_var(v.var, (*path, "var"))
        if isinstance(v, r.CountValue):
            self.query(v.count.collection, v.count.where, (*path, "count"))
            return "number"
        if isinstance(v, r.LookupValue):
            q = v.lookup
            coll = self.query(q.collection, q.where, (*path, "lookup"))
            return self.field_kind(coll, q.field, (*path, "lookup", "field")) if coll else None
        return None

    def expect(self, target: str, v: Any, path: YamlPath, what: str) -> None:
        """Report a value whose kind cannot equal a `target`-kind value."""
        got = self.value_kind(v, path)
        if got is None:
            return
        ok = {"text": ("text", "number", "date"), "date": ("text", "date"),
              "number": ("number",), "selection": ("number",), "flag": ("flag",)}
        digits = isinstance(v, str) and v.strip().lstrip("-").isdigit()
        if target == "number" and got == "text" and digits:
            return
        if got not in ok.get(target, (got,)):
            self.err(codes.TYPE_MISMATCH, f"{what} is a {target} but the value {_show(v)} is a "
                     f"{got}", path, _kind_hint(target))

    def query(self, coll_name: str, where: dict[str, Any], path: YamlPath) -> StateVar | None:
        coll = self.collection(coll_name, (*path, "collection"))
        if coll is None:
            return None
        for field, m in where.items():
            fpath = (*path, "where", field)
            kind = self.field_kind(coll, field, fpath)
            if kind is None:
                continue
            if isinstance(m, r.ContainsMatch):
                if kind != "text":
                    self.err(codes.TYPE_MISMATCH, f"`contains` needs a text field; {field!r} is a "
                             f"{kind}", fpath)
                self.value_kind(m.contains, (*fpath, "contains"))
            else:
                self.expect(kind, m, fpath, f"field {coll.name}.{field}")
        return coll

    def screen_ids(self) -> list[str]:
        """The screens a `screen` clause may name (a world's checker names them its way)."""
        return [sc.id for sc in self.app.screens]

    SCREENS = "the ids of app.json's `screens`"

    def screen(self, sid: str, path: YamlPath) -> None:
        known = self.screen_ids()
        if sid not in known:
            same = [k for k in known if k.rpartition(":")[2] == sid]  # a world's, unprefixed
            near = f"; did you mean {same[0]!r}?" if same else _near(sid, known)
            self.err(codes.UNKNOWN_NAME, f"app {self.app.package} has no screen {sid!r}{near}",
                     path, f"screens: {', '.join(known) or 'none'} ({self.SCREENS})")

    # -------------------------------------------------------------- rules

    def rule(self, node: r.RuleNode, path: YamlPath) -> None:
        here = (*path, node.OP)
        if isinstance(node, r.Exists):
            self.query(node.exists.collection, node.exists.where, here)
        elif isinstance(node, r.CountRule):
            b = node.count
            self.query(b.collection, b.where, here)
            for key in ("equals", "at_least", "at_most"):
                v = getattr(b, key)
                if v is not None:
                    self.expect("number", v, (*here, key), f"count {key}")
        elif isinstance(node, (r.Equals, r.Contains)):
            self.compare(node, here)
        elif isinstance(node, r.Not):
            self.rule(node.not_, here)
        elif isinstance(node, r.OnScreen):
            self.screen(node.screen, here)
        elif isinstance(node, r.Unchanged):
            body = node.unchanged
            for i, where in enumerate(body.except_):
                self.query(body.collection, where, (*here, "except", i))
            if not body.except_ or body.edit:
                coll = self.collection(body.collection, (*here, "collection"))
                for i, f in enumerate(body.edit if coll is not None else ()):
                    self.field_kind(coll, f, (*here, "edit", i))  # type: ignore[arg-type]
        else:
            for i, kid in enumerate(r.children(node)):
                self.rule(kid, (*here, i))

    def compare(self, node: r.Equals | r.Contains, path: YamlPath) -> None:
        body = node.equals if isinstance(node, r.Equals) else node.contains
        target: str | None
        if body.answer:
            target = None
            self.value_kind(body.value, (*path, "value"))
        elif body.var is not None:
            target = self.scalar_var(body.var, (*path, "var"))
        else:
            assert body.selected is not None
            target = self.selected(body.selected, (*path, "selected"))
        if target is None:
            return
        if isinstance(node, r.Contains):
            if target not in ("text", "date"):
                self.err(codes.TYPE_MISMATCH, f"`contains` needs a text; the subject is a "
                         f"{target}", path, "use `equals` for numbers and flags")
            self.value_kind(body.value, (*path, "value"))
        else:
            self.expect(target, body.value, (*path, "value"), "the subject")

    def selected(self, ref: r.SelectedRef, path: YamlPath) -> str | None:
        coll = self.collection(ref.collection, (*path, "collection"))
        if coll is None:
            return None
        if not any(v.kind == "selection" and v.collection == coll.name for v in self.app.state):
            self.err(codes.UNKNOWN_NAME, f"collection {coll.name!r} has no selection (no screen "
                     "shows one of its records)", (*path, "collection"))
            return None
        return self.field_kind(coll, ref.field, (*path, "field"))

    # -------------------------------------------------------------- the rest of the spec

    def header(self) -> None:
        if self.spec.app != self.app.package:
            self.err(codes.UNKNOWN_APP, f"unknown app {self.spec.app!r}: these specs are checked "
                     f"against {self.app.package!r}", ("app",),
                     "put specs under task_specs/<app>/ and check them with that app's folder")
        declared = list(self.spec.params)
        for name in self.spec.placeholders():
            if name not in self.spec.params:
                self.err(codes.UNKNOWN_PARAM, f"the instruction uses {{{name}}}, which is not a "
                         f"declared parameter{_near(name, declared)}", ("instruction",),
                         "declare it under `params:` (or write the text without braces)")
        shown = set(self.spec.placeholders())
        for name in declared:
            if name not in shown:
                self.out.append(Diagnostic(
                    severity="warning", code=codes.UNUSED_PARAM, source=self.task.at(("params", name)),
                    message=f"parameter {name!r} never appears in the instruction"))

    def params(self) -> None:
        for name, p in self.spec.params.items():
            path: YamlPath = ("params", name)
            for other in p.distinct_from:
                if other not in self.spec.params:
                    self.err(codes.UNKNOWN_PARAM, f"distinct_from names {other!r}, which is not a "
                             "declared parameter", (*path, "distinct_from"))
            if isinstance(p, s.AppDataGen):
                self.source(p, path)
            elif isinstance(p, s.ChoiceGen):
                for c in p.choices:
                    self.expect(p.type, c, (*path, "choices"), f"parameter {name!r}")
            elif isinstance(p, s.RangeGen) and p.type != "number":
                self.err(codes.TYPE_MISMATCH, f"parameter {name!r}: `from: range` draws numbers, "
                         f"not {p.type}", (*path, "type"))
            elif isinstance(p, (s.PhraseGen, s.WordsGen, s.DateGen)) and p.type not in ("text", "date"):
                self.err(codes.TYPE_MISMATCH, f"parameter {name!r}: `from: {p.from_}` draws text, "
                         f"not {p.type}", (*path, "type"))

    def source(self, p: s.AppDataGen, path: YamlPath) -> None:
        coll_name, _, field = p.source.partition(".")
        kind: str | None
        if field:
            coll = self.collection(coll_name, (*path, "source"))
            kind = self.field_kind(coll, field, (*path, "source")) if coll else None
        else:
            kind = self.scalar_var(coll_name, (*path, "source"))
        if kind is not None and kind != p.type and not (kind == "text" and p.type == "date"):
            self.err(codes.TYPE_MISMATCH, f"parameter source {p.source!r} holds {kind} values but "
                     f"the parameter is declared {p.type}", (*path, "type"))

    def initial_state(self) -> None:
        from phoneworld.tasks.params import task_state

        for key in self.spec.initial_state:
            if key not in self.vars:
                self.err(codes.UNKNOWN_NAME, f"initial_state sets {key!r}, which is no state "
                         f"variable of {self.app.package}{_near(key, list(self.vars))}",
                         ("initial_state", key))
        try:
            task_state(self.spec, self.app)
        except EnvError as exc:
            self.err(codes.BAD_STATE, f"the initial state does not fit the app: {exc}",
                     ("initial_state",))


def _show(v: Any) -> str:
    if isinstance(v, r.ParamRef):
        return "{" + v.param + "}"
    return repr(v)


def _kind_hint(kind: str) -> str:
    return {"flag": "write true or false", "number": "write an integer",
            "selection": "write a record index"}.get(kind, "write a text")


def check_task(task: LoadedTask, app: AppSpec) -> list[Diagnostic]:
    """Every problem of one loaded task spec for `app` (empty when it is sound)."""
    from phoneworld.tasks.unsat import never_holds

    c = TaskChecker(task, app)
    c.header()
    c.params()
    c.initial_state()
    c.rule(task.spec.rule, ("rule",))
    if not any(d.severity == "error" for d in c.out):
        why = never_holds(task.spec, app)
        if why is not None:
            c.err(codes.NEVER_HOLDS, f"the rule can never hold: {why}", ("rule",),
                  "check the values against the app's state (app.json) and the initial state")
    return c.out
