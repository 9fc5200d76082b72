"""World tasks: loading their specs (YAML, checked against the world's schema, PW3xx diagnostics
with file and line) and the sanity check every kept task passes (doing nothing fails, an
immediate `done` fails, the world oracle solves it and its solution replays).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from phoneworld.errors import EnvError
from phoneworld.ir.diagnostics import Diagnostic
from phoneworld.tasks import codes
from phoneworld.tasks import spec as s
from phoneworld.tasks.codegen import compile_verifier
from phoneworld.tasks.load import LoadedTask, YamlPath, load_checked
from phoneworld.tasks.oracle import OracleConfig
from phoneworld.tasks.adversary import Writable
from phoneworld.tasks.relevance import rule_reads
from phoneworld.tasks.sanity import TaskCheck, check_each, check_instance
from phoneworld.tasks.typecheck import TaskChecker
from phoneworld.world.device import World
from phoneworld.world.oracle import search_cheaper, solve
from phoneworld.world.schema import WorldSchema, instantiate, split_source, task_state

class _WorldChecker(TaskChecker):
    """The task checker of one app, reading a world's schema: namespaced names, world sources."""

    def source(self, p: s.AppDataGen, path: YamlPath) -> None:
        var, field = split_source(p.source)
        if field:
            coll = self.collection(var, (*path, "source"))
            if coll is not None:
                self.field_kind(coll, field, (*path, "source"))
        else:
            self.scalar_var(var, (*path, "source"))

    SCREENS = "<package>:<screen id>, or a system screen"

    def screen_ids(self) -> list[str]:
        return list(self.app.screens)  # type: ignore[arg-type]  # a WorldSchema's, namespaced

    def initial_state(self) -> None:
        try:
            task_state(self.spec, self.app)  # type: ignore[arg-type]
        except EnvError as exc:
            self.err(codes.UNKNOWN_NAME, str(exc), ("initial_state",),
                     "keys are '<package>:<variable>', @clipboard, @files or @notifications")


def check_spec(task: LoadedTask, schema: WorldSchema) -> list[Diagnostic]:
    c = _WorldChecker(task, schema)  # type: ignore[arg-type]
    c.header()
    c.params()
    c.initial_state()
    c.rule(task.spec.rule, ("rule",))
    return c.out


def load_world_tasks(paths: Iterable[Path], schema: WorldSchema) -> list[LoadedTask]:
    """Every world task spec under `paths`, checked; raise InputError with all problems."""
    return load_checked(paths, lambda task: check_spec(task, schema), "the world task specs")


def check_one(world: World, schema: WorldSchema, task: s.TaskSpec,
              config: OracleConfig | None = None) -> TaskCheck:
    verifier = compile_verifier(task, schema)  # type: ignore[arg-type]
    return check_instance(world, task, verifier,
                          lambda: instantiate(task, schema, verify=verifier),
                          lambda inst: solve(world, schema, inst, verifier, config),
                          writable(world),
                          frozenset(rule_reads(schema, task.rule)),  # type: ignore[arg-type]
                          lambda inst, res, n: search_cheaper(world, schema, inst, verifier, res,
                                                              n, config))


def writable(world: World) -> Writable:
    """What a user can change in the world: each app's writable state, under its package."""
    out = Writable()
    for pkg, sim in world.sims.items():
        out = out | Writable.of(sim.spec).prefixed(f"{pkg}:")
    return out


def check_all(world: World, schema: WorldSchema, tasks: list[s.TaskSpec],
              config: OracleConfig | None = None) -> list[TaskCheck]:
    """The sanity check of every world task, in order."""
    return check_each(tasks, lambda t: check_one(world, schema, t, config), logging.INFO)


def moves_text(c: TaskCheck) -> list[dict[str, Any]]:
    """The oracle's solution in the paper's action format (normalized coordinates)."""
    if c.oracle is None:
        return []
    return [m.json_action(1080, 1920) for m in c.oracle.moves]
