"""The Kotlin core on the JVM: compile several apps' cores in one kotlinc run, replay sequences.

Each app's core lives in its own package (`<package>.core`), so the cores of many apps and their
`Replay.kt` drivers compile together; kotlinc's start-up (seconds) is paid once. `agree` runs every
sequence of an app in one JVM, compares the MD5 of each step's record with the simulator's, and
replays the sequences that differ verbosely to name the first differing field.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from phoneworld.android.apk import manifest_package
from phoneworld.android.conformance import (
    Agreement, Recorder, Sequence, expected_records, first_difference, md5,
)
from phoneworld.android.toolchain import require, run
from phoneworld.errors import ToolchainError
from phoneworld.ir.app import AppSpec
from phoneworld.runtime.sim import Simulator

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JvmCore:
    """Compiled cores: the class folder and each project's Kotlin package."""

    classes: Path
    packages: dict[Path, str]  # android project dir -> Kotlin package


def core_sources(project: Path, package: str) -> list[Path]:
    pkg = package.replace(".", "/")
    main = project / "app" / "src" / "main" / "java" / pkg / "core"
    test = project / "app" / "src" / "test" / "java" / pkg / "core"
    return sorted(main.rglob("*.kt")) + sorted(test.rglob("*.kt"))


def compile_cores(projects: Iterable[Path], out: Path) -> JvmCore:
    """kotlinc the pure-Kotlin core and replay driver of every project into `out`."""
    tools = require("kotlinc", "java")
    packages = {p: manifest_package(p) for p in projects}
    if len(set(packages.values())) != len(packages):
        raise ToolchainError("two projects share a Kotlin package; compile them separately")
    sources = [s for p, pkg in packages.items() for s in core_sources(p, pkg)]
    out.mkdir(parents=True, exist_ok=True)
    argfile = out.parent / f"{out.name}.kotlinc-args"
    argfile.write_text("\n".join(str(s) for s in sources))
    run([tools["kotlinc"], "-nowarn", "-d", out, f"@{argfile}"], "kotlinc (JVM core)")
    return JvmCore(out, packages)


def replay(core: JvmCore, project: Path, job: dict[str, object], main: str = "ReplayKt"
           ) -> list[str]:
    """Run `Replay.kt` of `project` (or another driver, `main`) on `job`; the output lines."""
    tools = require("java", "kotlin-stdlib")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8") as f:
        json.dump(job, f, ensure_ascii=True)
        path = Path(f.name)
    try:
        out = run([tools["java"], "-Xss16m", "-XX:+UseSerialGC", "-cp",
                   f"{core.classes}{os.pathsep}{tools['kotlin-stdlib']}",
                   f"{core.packages[project]}.core.{main}", path], "JVM replay")
    finally:
        path.unlink(missing_ok=True)
    return out.splitlines()


def _split(lines: list[str]) -> list[list[str]]:
    """Replay output -> per sequence, its step lines."""
    groups: list[list[str]] = []
    for line in lines:
        if line.startswith("# "):
            groups.append([])
        elif groups:
            groups[-1].append(line)
    return groups


def agree(spec: AppSpec, core: JvmCore, project: Path, sequences: list[Sequence]) -> Agreement:
    """Replay `sequences` on the simulator and the JVM core; every step must agree."""
    sim, rec = Simulator(spec), Recorder()
    result = Agreement(spec.package, len(sequences), sum(len(s.actions) for s in sequences))
    expected = [expected_records(sim, s, rec, result.fired) for s in sequences]
    got = _split(replay(core, project, {"sequences": [s.job() for s in sequences]}))
    bad = [i for i, (want, have) in enumerate(zip(expected, got, strict=False))
           if [md5(r) for r in want] != have]
    bad += list(range(len(got), len(sequences)))
    if not bad:
        return result
    verbose = _split(replay(core, project, {"sequences": [sequences[i].job() for i in bad[:20]],
                                            "verbose": list(range(min(20, len(bad))))}))
    for n, i in enumerate(bad[:20]):
        have = verbose[n] if n < len(verbose) else []
        for step, want in enumerate(expected[i]):
            k = have[step] if step < len(have) else "<no record>"
            if k != want:
                result.mismatches.append(first_difference(i, sequences[i], step, want, k))
                break
    log.warning("%s: %d of %d sequences differ", spec.package, len(bad), len(sequences))
    return result
