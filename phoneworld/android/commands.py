"""`phoneworld apk` and `phoneworld doctor`: thin commands over `apk`, `platform` and `toolchain`.

Mounted on the main typer app by `phoneworld.cli`; a missing tool exits with code 3 and says how to
install it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from phoneworld.errors import PhoneworldError, ToolchainError

APK_SIGNATURE = b"PK\x03\x04"  # an APK is a zip archive
REQUIRED = ("java", "javac", "keytool", "jimage", "kotlinc", "kotlin-stdlib", "aapt2", "zipalign",
            "apksigner", "framework-res", "guava")


def build_apks(app_dirs: list[Path], err: Console, route: str = "auto") -> Iterator[str]:
    """Build each app's APK; yields the APK paths (raises the first failure)."""
    from phoneworld.android.apk import build_apk

    from phoneworld import outdir

    for app_dir in app_dirs:
        with err.status(f"apk {app_dir.name}"):
            r = build_apk(app_dir, route=route)
        outdir.add_to_manifest(app_dir, r.path.name)
        err.print(f"{r.path.name}: {r.size / 1024:.0f} KiB in {r.seconds:.1f}s ({r.route} route"
                  f"{', app dex cached' if r.dex_cached else ''})", markup=False, highlight=False)
        yield str(r.path)


def doctor_rows() -> list[tuple[str, str, str, str]]:
    """(tool, status, path or install hint, purpose) for every tool, then the cached inputs."""
    from phoneworld.android.toolchain import cache_dir, tools

    rows = []
    found = tools()
    fetchable = found["apt-get"].found and found["dpkg-deb"].found
    for t in found.values():
        needed = t.name in REQUIRED or (t.name == "dx" and not fetchable)
        status = "ok" if t.found else ("MISSING" if needed else (
            "not yet (fetched on first build)" if t.name == "dx" else "missing (optional)"))
        rows.append((t.name, status, str(t.path) if t.found else t.hint(), t.purpose))
    jar = cache_dir() / "platform" / "android-29" / "android.jar"
    rows.append(("android.jar", "cached" if jar.exists() else "not yet",
                 str(jar), "API-29 stubs + framework-res, generated on first build"))
    return rows


def mount(app: typer.Typer, fail: Callable[[PhoneworldError], None]) -> None:
    err = Console(stderr=True)

    @app.command()
    def apk(
        app_dir: Path = typer.Argument(..., help="A built app folder (holding app.json)."),
        out: Optional[Path] = typer.Option(None, "--out", help="Where to write the APK "
                                           "(default: APP_DIR/<package>-debug.apk)."),
        route: str = typer.Option("auto", help="auto (Gradle when the project has gradlew and "
                                  "ANDROID_HOME is set, else offline), offline or gradle."),
        force: bool = typer.Option(False, "--force", help="Replace an --out file that is not an "
                                   "APK."),
    ) -> None:
        """Build APP_DIR's signed debug APK from its Kotlin project (android/)."""
        from phoneworld import outdir
        from phoneworld.android.apk import build_apk

        try:
            if out is not None:
                inputs = [app_dir / "app.json", app_dir / "report.json", app_dir / "android"]
                out = outdir.claim_file(out, inputs, force, APK_SIGNATURE, "APK")
            with err.status(f"apk {app_dir.name}"):
                r = build_apk(app_dir, out, route)
            outdir.add_to_manifest(r.path.parent, r.path.name)
        except PhoneworldError as exc:
            fail(exc)
            return
        steps = ", ".join(f"{k} {v:.1f}s" for k, v in r.steps.items())
        err.print(f"{r.size / 1024:.0f} KiB in {r.seconds:.1f}s ({r.route} route) {steps}",
                  markup=False, highlight=False)
        typer.echo(str(r.path))

    @app.command()
    def doctor(
        fetch: bool = typer.Option(False, "--fetch", help="Also fetch and generate what is cached "
                                   "(android.jar, dx, the dexed Kotlin runtime, the debug key)."),
    ) -> None:
        """List the Android tools found or missing, and how to install them (exit 3 if missing)."""
        try:
            run_doctor(err, fetch)
        except PhoneworldError as exc:
            fail(exc)


def run_doctor(err: Console, fetch: bool) -> None:
    """Print the tool table; raise ToolchainError naming what is missing; optionally fill the cache."""
    table = Table(title="phoneworld doctor (Android output)")
    for col in ("tool", "status", "path / how to install", "used for"):
        table.add_column(col)
    rows = doctor_rows()
    for row in rows:
        table.add_row(*row, style="red" if row[1] == "MISSING" else None)
    err.print(table)
    missing = [r for r in rows if r[1] == "MISSING"]
    if missing:
        raise ToolchainError("missing Android build tools:\n" + "\n".join(
            f"  {name}: {hint}" for name, _, hint, _ in missing))
    if fetch:
        from phoneworld.android import platform

        for name, fn in (("android.jar", platform.android_jar), ("dx", platform.fetch_dx),
                         ("kotlin-stdlib dex", platform.stdlib_dex),
                         ("debug keystore", platform.debug_keystore)):
            with err.status(f"preparing {name}"):
                typer.echo(f"{name}: {fn()}")
