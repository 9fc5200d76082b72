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
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from phoneworld import outdir
from phoneworld.android.world_context import WorldWiring, from_app_wiring
from phoneworld.world.device import World
from phoneworld.world.load import load_world, spec_file

APK_DIR = "apk"
INDEX = "apks.json"
ROOT_KIND = "world-apk"  # the marker kind of the APK folder (`phoneworld.outdir`)
PROJECT_KIND = "android-project"  # the manifest kind of an app's project folder in it


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


def write_world_projects(world: World, out: Path | outdir.Root) -> dict[str, Path]:
    """`out/<package>/android/` for every app (replacing an earlier one); package -> app folder."""
    from phoneworld.android.project import ANDROID_DIR, write_project

    if not isinstance(out, outdir.Root):
        out = outdir.claim_root(out, ROOT_KIND, legacy=_legacy_root)

    dirs: dict[str, Path] = {}
    for pkg, wiring in world_wirings(world).items():
        spec = world.sims[pkg].spec

        def write(staging: Path, spec: Any = spec, wiring: WorldWiring = wiring) -> None:
            write_project(spec, staging / ANDROID_DIR, wiring)

        dirs[pkg] = outdir.replace_folder(out.open() / pkg, PROJECT_KIND, write, out.force,
                                          _legacy_project)
    return dirs


def _legacy_project(folder: Path) -> bool:
    return [p.name for p in folder.iterdir()] == ["android"]


def _legacy_root(folder: Path) -> bool:
    return all(p.name == INDEX or p.name.endswith("-debug.apk") or
               (p.is_dir() and _legacy_project(p)) for p in folder.iterdir())


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
                     progress: Any = None, force: bool = False) -> WorldApks:
    """Build every app's APK of the world at `path` into `out` (see the module docstring)."""
    from phoneworld.android.apk import build_apk

    world = World(load_world(path))
    spec = spec_file(Path(path))
    inputs = [spec, *(a.dir for a in world.defn.apps)]
    root = outdir.claim_root(out or spec.parent / APK_DIR, ROOT_KIND, inputs, force, _legacy_root)
    check_toolchain()
    out = root.path.resolve()
    result = WorldApks(out, receivers=world.receivers)
    for pkg, app_dir in write_world_projects(world, root).items():
        if progress is not None:
            progress(pkg)
        apk = out / f"{pkg}-debug.apk"
        with tempfile.TemporaryDirectory(prefix=".apk-", dir=out) as tmp:
            r = build_apk(app_dir, Path(tmp) / apk.name, route=route)
            os.replace(r.path, apk)
        outdir.write_manifest(app_dir, PROJECT_KIND)  # a build route may add files to the project
        result.apks[pkg], result.seconds[pkg] = apk, r.seconds
    index = {"world": world.defn.spec.name, "apps": [
        {"package": p, "label": world.labels[p], "apk": result.apks[p].name,
         "receiver": p in world.receivers} for p in world.sims]}
    with outdir.atomic_text(out / INDEX) as f:
        f.write(json.dumps(index, indent=1, sort_keys=True) + "\n")
    return result
