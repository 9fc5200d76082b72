"""`phoneworld world build SPEC --out DIR`: a self-contained world folder an RL run can carry.

    DIR/world.yaml            the spec, its apps pointing at the folders beside it
    DIR/<package>/            each app: app.json, report.json, its own tasks (task_specs/, ...)
    DIR/task_specs/<id>.yaml  the kept cross-app tasks, DIR/verifiers/<id>.py their verifiers
    DIR/tasks.json            every synthesized cross-app task with its verdict and oracle steps

Apps given as `traces:` are compiled here (single-app tasks included, no Android project); apps
given as `dir:` are copied (their app spec, report and tasks). The folder is written next to its
final place and renamed into it, so a failed build leaves no half-written world; which folder may
be replaced, and the manifest the world carries, is the contract of `phoneworld.outdir`. Two
entries that would be one app folder (the same `dir:` twice, or two builds of one package) are
refused (PW055) before anything is written.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from phoneworld import outdir
from phoneworld.emit import APP_KIND
from phoneworld.errors import InputError
from phoneworld.ir.base import SourceRef
from phoneworld.ir.diagnostics import Diagnostics
from phoneworld.tasks.load import line_of
from phoneworld.tasks.build import INDEX, SPECS_DIR, VERIFIERS_DIR, index_entry
from phoneworld.tasks.codegen import render_index, render_verifier
from phoneworld.tasks.dump import dump_task
from phoneworld.tasks.oracle import OracleConfig
from phoneworld.tasks.sanity import TaskCheck
from phoneworld.world.check import check_all
from phoneworld.world.device import World
from phoneworld.world.load import WORLD_FILE, load_world, parse_world, spec_file
from phoneworld.world.spec import WorldSpec
from phoneworld.world.schema import schema_of
from phoneworld.world.synth import handoff_tasks

log = logging.getLogger(__name__)
APP_FILES = ("app.json", "report.json", INDEX, SPECS_DIR, VERIFIERS_DIR)
WORLD_KIND = "world"  # the manifest kind of a world folder


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


def _parse(spec_path: Path) -> tuple[WorldSpec, dict[Any, int]]:
    diags = Diagnostics()
    spec, lines = parse_world(spec_path, diags)
    if spec is None or diags.has_errors:
        raise InputError(f"{spec_path}: the world spec has errors", diags.items)
    return spec, lines


def _inputs(spec_path: Path, spec: WorldSpec) -> list[Path]:
    """What `world build` reads: the spec and every app's traces or folder."""
    return [spec_path, *((spec_path.parent / (e.traces if e.traces is not None else e.dir))
                         for e in spec.apps)]  # type: ignore[operator]


def _stage_apps(spec_path: Path, spec: WorldSpec, lines: dict[Any, int],
                staging: Path) -> dict[str, Any]:
    """Build or copy every app into `staging`; the spec's data with `dir:` pointing at them."""
    from phoneworld.pipeline import BuildConfig, build
    from phoneworld.runtime.appdir import load_app

    data = spec.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    data["format"] = spec.format
    staged: dict[str, int] = {}  # package -> index of the entry that made it
    for i, e in enumerate(spec.apps):
        entry = data["apps"][i]
        entry.pop("traces", None)
        entry.pop("from", None)
        if e.traces is not None:
            traces = (spec_path.parent / e.traces).resolve()
            # force: `staging` is this build's own folder, which it is filling app by app
            result = build(BuildConfig(traces=traces, out=staging / f".app{i}", fmt=e.from_,
                                       html=False, android=False, force=True))
            if not result.apps or result.diagnostics.has_errors:
                raise InputError(f"{spec_path}: app {i}: building {traces} failed",
                                 result.diagnostics.items)
            pkg = result.apps[0].spec.package
            _check_unique(spec_path, lines, staged, pkg, i)
            (staging / f".app{i}" / pkg).rename(staging / pkg)
            shutil.rmtree(staging / f".app{i}")
        else:
            src = (spec_path.parent / e.dir).resolve()  # type: ignore[operator]
            pkg = load_app(src).package
            _check_unique(spec_path, lines, staged, pkg, i)
            for name in APP_FILES:
                if (src / name).is_dir():
                    shutil.copytree(src / name, staging / pkg / name)
                elif (src / name).is_file():
                    (staging / pkg).mkdir(parents=True, exist_ok=True)
                    shutil.copy2(src / name, staging / pkg / name)
            outdir.write_manifest(staging / pkg, APP_KIND)
        entry["dir"] = pkg
    return data


def _check_unique(spec_path: Path, lines: dict[Any, int], staged: dict[Any, int],
                  key: str | Path, i: int) -> None:
    """Refuse a package that is no folder name, or a second entry of an app already staged
    (`key`: the package, or the `dir:` folder, checked before anything is built)."""
    where = SourceRef(file=spec_path.as_posix(), line=line_of(lines, ("apps", i)))
    if isinstance(key, str):
        bad = outdir.check_name(key, "app id", where, package=True)
        outdir.require_names([bad] if bad else [], "app id")
    if key in staged:
        what = f"the folder {key}" if isinstance(key, Path) else f"the app {key}"
        raise outdir.refuse(
            "PW055", where.render(), f"apps {staged[key]} and {i} are both {what} (the same "
            "`dir:` twice, or traces of one package), which would be one folder of the world",
            "list every app once")
    staged[key] = i


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


def build_world(spec: Path, out: Path, oracle: OracleConfig | None = None,
                force: bool = False) -> WorldBuild:
    """Build the world of `spec` into `out`, replacing an earlier build (`phoneworld.outdir`)."""
    spec = spec_file(spec)
    parsed, lines = _parse(spec)
    seen: dict[Path, int] = {}
    for i, e in enumerate(parsed.apps):
        if e.dir is not None:  # before anything is built
            _check_unique(spec, lines, seen, (spec.parent / e.dir).resolve(), i)
    out = outdir.claim_folder(out, WORLD_KIND, _inputs(spec, parsed), force, outdir.legacy_world)
    built: dict[str, Any] = {}

    def write(staging: Path) -> None:
        data = _stage_apps(spec, parsed, lines, staging)
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
        (staging / WORLD_FILE).write_text(f"# Built by `phoneworld world build {spec.name}`.\n"
                                          + text, encoding="utf-8")
        world = World(load_world(staging))
        schema = schema_of(world)
        checks = check_all(world, schema, handoff_tasks(world, schema), oracle)
        for name, body in world_task_files(world, checks).items():
            (staging / name).parent.mkdir(parents=True, exist_ok=True)
            (staging / name).write_text(body, encoding="utf-8")
        built.update(world=world, checks=checks)

    outdir.replace_folder(out, WORLD_KIND, write, force, outdir.legacy_world)
    return WorldBuild(out, list(built["world"].sims), built["checks"])
