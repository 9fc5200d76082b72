"""`phoneworld world apk WORLD [--out DIR]`: every app's APK of a world (`phoneworld.world.apk`).

Mounted on the `world` command group by `phoneworld.cli`. A missing tool exits with 3 and names
the Debian packages to install; a bad world spec exits with 1 (`file:line: error[PW4xx]`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from phoneworld.errors import PhoneworldError
from phoneworld.tasks.cli import fail

err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)


def apk(world: Path = typer.Argument(..., help="A built world folder, or a world spec whose "
                                     "apps are built (`dir:`)."),
        out: Optional[Path] = typer.Option(None, "--out", help="Where the projects and APKs go "
                                           "(default: <world folder>/apk)."),
        route: str = typer.Option("offline", help="offline, gradle or auto (see `phoneworld "
                                  "apk`)."),
        force: bool = typer.Option(False, "--force", help="Take over an --out folder phoneworld "
                                   "did not write.")) -> None:
    """Build every app's signed debug APK with its world wiring (clipboard, share, files,
    notifications), and DIR/apks.json."""
    from phoneworld.world.apk import build_world_apks

    try:
        r = build_world_apks(world, out, route, progress=lambda p: err.print(f"apk {p}",
                                                                            markup=False),
                             force=force)
    except PhoneworldError as exc:
        fail(exc)
    for pkg, path in r.apks.items():
        recv = " (receives shares)" if pkg in r.receivers else ""
        err.print(f"{path.name}: {path.stat().st_size / 1024:.0f} KiB in {r.seconds[pkg]:.1f}s"
                  f"{recv}", markup=False, highlight=False)
        typer.echo(str(path))


def mount(world_app: typer.Typer) -> None:
    world_app.command("apk")(apk)
