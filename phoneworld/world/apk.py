"""The world's apps as APKs: each app's Kotlin project with its world wiring, built offline.

`phoneworld world apk WORLD [--out DIR]` (WORLD: a built world folder or a world spec whose apps
are `dir:` entries) writes, per app, `DIR/<package>/android/` (the Kotlin project with
`core/Wiring.kt`, the share / paste / attach / notification shell and, in receivers, the
ACTION_SEND text/plain intent filter) and `DIR/<package>-debug.apk`, then `DIR/apks.json`: the
world's name and, per app, its APK, label and whether it receives shares (what the device side,
`phoneworld.devices.world_backend`, installs and reads). Default DIR: `<world folder>/apk`.

Every tool is checked before anything is built: a missing one is a `ToolchainError` (exit 3)
naming it and the `apt-get` line that installs it (the same table as `phoneworld doctor`).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from phoneworld.android.world_context import WorldWiring, from_app_wiring
from phoneworld.world.device import World
from phoneworld.world.load import load_world, spec_file

APK_DIR = "apk"
INDEX = "apks.json"


@dataclass
class WorldApks:
    out: Path
    apks: dict[str, Path] = field(default_factory=dict)  # package -> APK
    seconds: dict[str, float] = field(default_factory=dict)
    receivers: tuple[str, ...] = ()


def world_wirings(world: World) -> dict[str, WorldWiring]:
    """Each app's wiring in the world, as the Android templates take it."""
    apps = tuple((p, world.labels[p]) for p in world.sims)
    return {p: from_app_wiring(world.defn.spec.name, w, apps) for p, w in world.wiring.items()}


def write_world_projects(world: World, out: Path) -> dict[str, Path]:
    """`out/<package>/android/` for every app (replacing an earlier one); package -> app folder."""
    from phoneworld.android.project import ANDROID_DIR, write_project

    dirs: dict[str, Path] = {}
    for pkg, wiring in world_wirings(world).items():
        app_dir = out / pkg
        proj = app_dir / ANDROID_DIR
        if proj.exists():
            shutil.rmtree(proj)
        write_project(world.sims[pkg].spec, proj, wiring)
        dirs[pkg] = app_dir
    return dirs


def check_toolchain() -> dict[str, Path]:
    """Every tool the offline route needs, or a `ToolchainError` that says how to get them."""
    from phoneworld.android.commands import REQUIRED
    from phoneworld.android.toolchain import require
    from phoneworld.errors import ToolchainError

    try:
        return require(*REQUIRED)
    except ToolchainError as exc:
        raise ToolchainError(f"cannot build the world's APKs: {exc} (see `phoneworld doctor`; "
                             "`make deps` installs every Debian package the route needs)") from exc


def build_world_apks(path: str | Path, out: Path | None = None, route: str = "offline",
                     progress: Any = None) -> WorldApks:
    """Build every app's APK of the world at `path` into `out` (see the module docstring)."""
    from phoneworld.android.apk import build_apk

    world = World(load_world(path))
    check_toolchain()
    out = (out or spec_file(Path(path)).parent / APK_DIR).resolve()
    out.mkdir(parents=True, exist_ok=True)
    result = WorldApks(out, receivers=world.receivers)
    for pkg, app_dir in write_world_projects(world, out).items():
        if progress is not None:
            progress(pkg)
        apk = out / f"{pkg}-debug.apk"
        with tempfile.TemporaryDirectory(prefix=".apk-", dir=out) as tmp:
            r = build_apk(app_dir, Path(tmp) / apk.name, route=route)
            os.replace(r.path, apk)
        result.apks[pkg], result.seconds[pkg] = apk, r.seconds
    index = {"world": world.defn.spec.name, "apps": [
        {"package": p, "label": world.labels[p], "apk": result.apks[p].name,
         "receiver": p in world.receivers} for p in world.sims]}
    tmp_index = out / f".{INDEX}.tmp"
    tmp_index.write_text(json.dumps(index, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp_index, out / INDEX)
    return result
