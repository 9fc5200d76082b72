"""`phoneworld world build SPEC --out DIR`: a self-contained world folder an RL run can carry.

    DIR/world.yaml            the spec, its apps pointing at the folders beside it
    DIR/<package>/            each app: app.json, report.json, its own tasks (task_specs/, ...)
    DIR/task_specs/<id>.yaml  the kept cross-app tasks, DIR/verifiers/<id>.py their verifiers
    DIR/tasks.json            every synthesized cross-app task with its verdict and oracle steps

Apps given as `traces:` are compiled here (single-app tasks included, no Android project); apps
given as `dir:` are copied (their app spec, report and tasks). The folder is written next to its
final place and renamed into it, so a failed build leaves no half-written world.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from phoneworld.emit import publish
from phoneworld.errors import InputError
from phoneworld.ir.diagnostics import Diagnostics
from phoneworld.tasks.build import INDEX, SPECS_DIR, VERIFIERS_DIR, index_entry
from phoneworld.tasks.codegen import render_index, render_verifier
from phoneworld.tasks.dump import dump_task
from phoneworld.tasks.oracle import OracleConfig
from phoneworld.tasks.sanity import TaskCheck
from phoneworld.world.check import check_all
from phoneworld.world.device import World
from phoneworld.world.load import WORLD_FILE, load_world, parse_world, spec_file
from phoneworld.world.schema import schema_of
from phoneworld.world.synth import handoff_tasks

log = logging.getLogger(__name__)
APP_FILES = ("app.json", "report.json", INDEX, SPECS_DIR, VERIFIERS_DIR)


@dataclass
class WorldBuild:
    path: Path
    packages: list[str]
    checks: list[TaskCheck]

    @property
    def kept(self) -> list[TaskCheck]:
        return [c for c in self.checks if c.kept]

    def rejected(self) -> Counter[str]:
        return Counter(c.reason for c in self.checks if not c.kept)


def _stage_apps(spec_path: Path, staging: Path) -> dict[str, Any]:
    """Build or copy every app into `staging`; the spec's data with `dir:` pointing at them."""
    from phoneworld.pipeline import BuildConfig, build
    from phoneworld.runtime.appdir import load_app

    diags = Diagnostics()
    spec, _ = parse_world(spec_path, diags)
    if spec is None or diags.has_errors:
        raise InputError(f"the world spec {spec_path} has errors", diags.items)
    data = spec.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    data["format"] = spec.format
    for i, e in enumerate(spec.apps):
        entry = data["apps"][i]
        entry.pop("traces", None)
        entry.pop("from", None)
        if e.traces is not None:
            traces = (spec_path.parent / e.traces).resolve()
            result = build(BuildConfig(traces=traces, out=staging, fmt=e.from_, html=False,
                                       android=False))
            if not result.apps or result.diagnostics.has_errors:
                raise InputError(f"{spec_path}: app {i}: building {traces} failed",
                                 result.diagnostics.items)
            pkg = result.apps[0].spec.package
        else:
            src = (spec_path.parent / e.dir).resolve()  # type: ignore[operator]
            pkg = load_app(src).package
            for name in APP_FILES:
                if (src / name).is_dir():
                    shutil.copytree(src / name, staging / pkg / name)
                elif (src / name).is_file():
                    (staging / pkg).mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src / name, staging / pkg / name)
        entry["dir"] = pkg
    return data


def world_task_files(world: World, checks: list[TaskCheck]) -> dict[str, str]:
    schema = schema_of(world)
    files: dict[str, str] = {}
    kept = [c.task for c in checks if c.kept]
    for t in kept:
        files[f"{SPECS_DIR}/{t.id}.yaml"] = dump_task(t)
        files[f"{VERIFIERS_DIR}/{t.id}.py"] = render_verifier(t, schema)  # type: ignore[arg-type]
    files[f"{VERIFIERS_DIR}/__init__.py"] = render_index(schema.package, [t.id for t in kept])
    entries = []
    for c in checks:
        e = index_entry(c)
        if c.kept and c.oracle is not None:
            w, h = world.device.width, world.device.height
            e["oracle"] = [m.json_action(w, h) for m in c.oracle.moves]
        entries.append(e)
    index = {"app": schema.package, "tasks": entries}
    files[INDEX] = json.dumps(index, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    return files


def build_world(spec: Path, out: Path, oracle: OracleConfig | None = None) -> WorldBuild:
    """Build the world of `spec` into `out` (replacing an earlier build)."""
    spec = spec_file(spec)
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        data = _stage_apps(spec, staging)
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
        (staging / WORLD_FILE).write_text(f"# Built by `phoneworld world build {spec.name}`.\n"
                                          + text, encoding="utf-8")
        world = World(load_world(staging))
        schema = schema_of(world)
        checks = check_all(world, schema, handoff_tasks(world, schema), oracle)
        for name, body in world_task_files(world, checks).items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_text(body, encoding="utf-8")
        os.chmod(staging, 0o755)
        publish(staging, out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return WorldBuild(out, list(world.sims), checks)
