"""The tasks step of `phoneworld build`: synthesize, sanity-check, and lay out the files.

`build_tasks(spec)` returns the `tasks` figures of report.json and the files the app folder gains:
`task_specs/<id>.yaml` and `verifiers/<id>.py` for every kept task, `verifiers/__init__.py`, and
`tasks.json`, the index of every checked task (kept or not, with the reason and the oracle's
step count), which `phoneworld tasks list` reads. Hand-written specs given as `extra` are checked
and emitted the same way, but only synthesized tasks count in the figures.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

from phoneworld.ir.app import AppSpec
from phoneworld.ir.report import TasksSummary
from phoneworld.tasks.codegen import render_index, render_verifier
from phoneworld.tasks.dump import dump_task
from phoneworld.tasks.oracle import OracleConfig
from phoneworld.tasks.recorded import Goal
from phoneworld.tasks.sanity import TaskCheck, check_tasks, summarize
from phoneworld.tasks.spec import TaskSpec
from phoneworld.tasks.synthesis import SynthConfig, synthesize

log = logging.getLogger(__name__)
INDEX = "tasks.json"
SPECS_DIR = "task_specs"
VERIFIERS_DIR = "verifiers"


@dataclass
class TaskBuild:
    summary: TasksSummary
    checks: list[TaskCheck]
    files: dict[str, str] = field(default_factory=dict)  # path in the app folder -> text

    @property
    def kept(self) -> list[TaskSpec]:
        return [c.task for c in self.checks if c.kept]


def index_entry(c: TaskCheck) -> dict[str, Any]:
    return {
        "id": c.task.id, "kind": c.task.kind(), "category": c.task.category,
        "instruction": c.instance.instruction if c.instance else c.task.instruction,
        "kept": c.kept, "reason": c.reason, "detail": c.detail if not c.kept else "",
        "oracle_steps": len(c.oracle.moves) if c.oracle and c.oracle.solved else None,
        "shortest": c.shortest if c.oracle and c.oracle.solved else None,
        "near_misses": ({"tried": c.attack.tried, "rejected": c.attack.rejected}
                        if c.attack is not None else None),
        "cheaper": ({"states": c.cheaper.tried, "complete": c.cheaper.complete,
                     "found": c.cheaper.found} if c.cheaper is not None else None),
        "synthesized": "synthesized" in c.task.tags,
    }


def task_files(app: AppSpec, checks: list[TaskCheck]) -> dict[str, str]:
    """The files of the kept tasks and the index of all checked ones."""
    files: dict[str, str] = {}
    kept = [c.task for c in checks if c.kept]
    for t in kept:
        files[f"{SPECS_DIR}/{t.id}.yaml"] = dump_task(t)
        files[f"{VERIFIERS_DIR}/{t.id}.py"] = render_verifier(t, app)
    files[f"{VERIFIERS_DIR}/__init__.py"] = render_index(app.package, [t.id for t in kept])
    index = {"app": app.package, "tasks": [index_entry(c) for c in checks]}
    files[INDEX] = json.dumps(index, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    return files


def build_tasks(app: AppSpec, extra: list[TaskSpec] | None = None,
                synth: SynthConfig | None = None, oracle: OracleConfig | None = None,
                goals: tuple[Goal, ...] = ()) -> TaskBuild:
    """Synthesize and check the tasks of `app` (plus `extra` hand-written ones; `goals`: what
    recorded sessions with an instruction achieved, `recorded.recorded_goals`)."""
    syn = synthesize(app, synth, goals=goals)
    checks = check_tasks(app, [t for t in syn.tasks if t.kind() != "pair"], oracle)
    kept = {c.task.id for c in checks if c.kept}
    paired = synthesize(app, synth, pair_from=kept, goals=goals).tasks
    checks += check_tasks(app, [t for t in paired if t.kind() == "pair"], oracle)
    summary = summarize(checks, syn.dropped)
    if extra:
        checks += check_tasks(app, list(extra), oracle)
    log.info("%s: %d task(s) synthesized, %d kept", app.package, summary.synthesized, summary.kept)
    return TaskBuild(summary, checks, task_files(app, checks))
