"""The `phoneworld` command line: parse, call one function, render.

Exit codes: 0 ok, 1 bad input, 2 usage (an output the folder contract of `phoneworld.outdir`
refuses included), 3 missing toolchain. Diagnostics and progress go to stderr; stdout carries only
what the user asked for.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from phoneworld.errors import PhoneworldError
from phoneworld.ir.diagnostics import Diagnostic

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="Compile recorded Android GUI traces into runnable mock apps.")
err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)

FORCE_HELP = ("Take over an output folder phoneworld did not write (it may delete what the "
              "folder holds); an output overlapping an input is refused even so.")
FROM_HELP = "Trace format: native, droidbot, autodroid, llamatouch, uiautomator (default: detect)."


def _print_version(value: bool) -> None:
    if value:
        import phoneworld

        typer.echo(f"phoneworld {phoneworld.__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                       help="Print the version and exit.")) -> None:
    """Compile recorded Android GUI traces into runnable mock apps."""


def _print_diagnostics(diagnostics: list[Diagnostic], show_warnings: bool = True) -> None:
    for d in diagnostics:
        if d.severity == "error" or show_warnings:
            style = {"error": "red", "warning": "yellow", "note": "cyan"}[d.severity]
            err.print(d.render(), style=style, markup=False, highlight=False)
    counts = {"error": 0, "warning": 0, "note": 0}
    for d in diagnostics:
        counts[d.severity] += 1
    err.print(f"{counts['error']} error(s), {counts['warning']} warning(s), "
              f"{counts['note']} note(s)", markup=False)


def _fail(exc: PhoneworldError) -> None:
    if exc.diagnostics:
        _print_diagnostics(exc.diagnostics)
    err.print(f"error: {exc}", style="red", markup=False, highlight=False)
    raise typer.Exit(exc.exit_code)


@app.command()
def build(
    traces: Path = typer.Argument(..., help="Folder of recorded traces (any depth)."),
    out_dir: Path = typer.Option(Path("generated_apps"), "--out", help="Output folder: new, "
                                 "empty, or one phoneworld wrote (see --force)."),
    fmt: Optional[str] = typer.Option(None, "--from", help=FROM_HELP),
    force: bool = typer.Option(False, "--force", help=FORCE_HELP),
    heldout: float = typer.Option(0.0, help="Fraction of each app's last steps kept out of the "
                                  "build and used to measure generalisation."),
    seed: int = typer.Option(0, help="Seed recorded in the report (the build is deterministic)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Do not list warnings."),
    apk: bool = typer.Option(False, "--apk", help="Also build each app's signed debug APK "
                             "(OUT/<app>/<package>-debug.apk; see `phoneworld doctor`)."),
    verbose: bool = typer.Option(False, "--verbose", "-v",
                                 help="Show the traceback of a pass that failed on an app."),
) -> None:
    """Compile traces into OUT/<app>/app.json and report.json.

    Each app is written as soon as it is built; an app whose passes fail is reported (PW900) and
    not written, the others still are, and the exit status is then 1."""
    from phoneworld.pipeline import BuildConfig, build as run_build

    try:
        config = BuildConfig(traces=traces, out=out_dir, fmt=fmt, heldout=heldout, seed=seed,
                             force=force)
        with err.status("building") as status:
            result = run_build(config, progress=lambda msg: status.update(msg))
    except PhoneworldError as exc:
        _fail(exc)
        return
    _print_diagnostics(result.diagnostics.items, show_warnings=not quiet)
    table = Table(title="phoneworld build")
    table.add_column("app", no_wrap=True)
    for col in ("steps", "screens", "transitions", "state vars", "match (changing)",
                "change F1", "held-out match (changing)", "seconds"):
        table.add_column(col, justify="right")
    for a in result.apps:
        r, f, h = a.report, a.report.fidelity.train, a.report.fidelity.heldout
        table.add_row(r.app, str(r.steps), str(r.screens), str(r.transitions),
                      str(len(r.state_vars)), _num(f and f.transition_match_changing),
                      _num(f and f.change_f1), _num(h and h.transition_match_changing),
                      f"{a.seconds:.1f}")
    err.print(table)
    for failure in result.failed:
        if verbose and failure.traceback:
            err.print(failure.traceback, markup=False, highlight=False)
    for a in result.apps:
        typer.echo(str(a.path))
    if result.failed:
        names = ", ".join(f"{f.app} ({f.stage})" for f in result.failed)
        err.print(f"error: {len(result.failed)} app(s) not built: {names}; "
                  f"{len(result.apps)} built", style="red", markup=False, highlight=False)
    if apk:
        from phoneworld.android.commands import build_apks

        try:
            for line in build_apks([a.path for a in result.apps if a.path is not None], err):
                typer.echo(line)
        except PhoneworldError as exc:
            _fail(exc)
    if result.failed:
        raise typer.Exit(1)


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}"


@app.command()
def check(
    traces: Path = typer.Argument(..., help="Folder of recorded traces."),
    fmt: Optional[str] = typer.Option(None, "--from", help=FROM_HELP),
) -> None:
    """Validate traces only; exit 1 when they have errors (as `build` would), and when no app
    has a recorded action (nothing to build)."""
    from phoneworld.pipeline import check as run_check

    try:
        trace_set, diagnostics = run_check(traces, fmt)
    except PhoneworldError as exc:
        _fail(exc)
        return
    _print_diagnostics(diagnostics.items)
    for name in trace_set.apps():
        eps = trace_set.for_app(name).episodes
        actions = sum(len(e.steps) - 1 for e in eps)
        typer.echo(f"{name}: {len(eps)} episode(s), {sum(len(e.steps) for e in eps)} step(s), "
                   f"{actions} action(s){'' if actions else ' (not built: PW190)'}")


@app.command()
def replay(
    traces: Path = typer.Argument(..., help="Folder of recorded traces."),
    fmt: Optional[str] = typer.Option(None, "--from", help=FROM_HELP),
) -> None:
    """Build in memory, then replay every episode free-running and compare screen sequences
    and each step's screen content (the recording's first episode from the reset app)."""
    from phoneworld.pipeline import replay_episodes

    try:
        runs = replay_episodes(traces, fmt)
    except PhoneworldError as exc:
        _fail(exc)
        return
    ok = 0
    for app_name, run in runs:
        ok += run.screens_match
        mark = "match" if run.screens_match else "DIFFERS"
        typer.echo(f"{app_name} {run.episode}: {mark}, screen content {run.content_match:.3f} "
                   f"a step, {run.final_content_match:.3f} at the end")
        if not run.screens_match:
            typer.echo(f"  recorded {run.recorded_screens}\n  mock     {run.mock_screens}")
    err.print(f"{ok}/{len(runs)} episodes reproduced", markup=False)


@app.command()
def run(
    app_dir: Path = typer.Argument(..., help="A built app folder (holding app.json)."),
    policy: str = typer.Option("random", help="Policy: random, or oracle (with --task)."),
    steps: Optional[int] = typer.Option(None, help="Number of steps (default 10, or the "
                                        "task's budget)."),
    seed: int = typer.Option(0, min=0, help="Random seed (with --task: the parameter draw)."),
    screenshots: bool = typer.Option(False, help="Render screenshots too."),
    as_json: bool = typer.Option(False, "--json", help="Print the episode as JSON lines."),
    task: Optional[str] = typer.Option(None, help="Run this task (see `phoneworld tasks list`)."),
    specs: list[Path] = typer.Option([], "--specs", help="Hand-written task specs (files or "
                                     "folders) besides APP_DIR/task_specs; repeatable."),
    trace_out: Optional[Path] = typer.Option(None, help="With --task: save the rollout as a "
                                             "native trace under this folder."),
) -> None:
    """Run one episode of APP_DIR in the simulator and print it."""
    from phoneworld.runtime.episode import run_episode

    try:
        for record in run_episode(app_dir, policy=policy, steps=steps, seed=seed,
                                  screenshots=screenshots, task=task, specs=tuple(specs),
                                  trace_out=trace_out):
            if as_json:
                typer.echo(json.dumps(record, ensure_ascii=False))
            elif "instruction" in record:
                typer.echo(f"task {record['task']}: {record['instruction']}")
            elif "success" in record:
                typer.echo(f"success: {record['success']} ({record['reason']})")
            else:
                typer.echo(f"step {record['step']:>3}  {record['screen']:<24} "
                           f"{json.dumps(record['action'], ensure_ascii=False)}  "
                           f"{record.get('target', '')}".rstrip())
    except PhoneworldError as exc:
        _fail(exc)


@app.command()
def report(
    app_dir: Optional[Path] = typer.Argument(None, help="A built app folder (holding app.json)."),
    traces: Optional[Path] = typer.Option(None, help="The traces APP_DIR was built from: "
                                          "regenerates its report.html (recorded screenshots, "
                                          "every replayed step)."),
    fmt: Optional[str] = typer.Option(None, "--from", help=FROM_HELP),
    compare_dirs: Optional[tuple[Path, Path]] = typer.Option(
        None, "--compare", help="Two builds A B of the same traces: write a page of what "
        "changed (screens added, merged or split, transitions, fidelity) and print a summary."),
    out: Optional[Path] = typer.Option(None, "--out", help="Where --compare writes its page "
                                       "(default: B/compare.html)."),
    open_it: bool = typer.Option(False, "--open", help="Open the page in a browser."),
    force: bool = typer.Option(False, "--force", help="Replace an --out file that is not a "
                               "page phoneworld wrote."),
) -> None:
    """Regenerate (or find) APP_DIR/report.html, or compare two builds with --compare A B."""
    from phoneworld.report.command import open_page, run_report

    try:
        result = run_report(app_dir, traces, fmt, compare_dirs, out, force)
    except PhoneworldError as exc:
        _fail(exc)
        return
    if result.note:
        err.print(result.note, markup=False, highlight=False)
    for line in result.lines:
        typer.echo(line)
    typer.echo(str(result.page))
    if open_it:
        open_page(result.page)


def _mount_devices() -> None:
    """`phoneworld device serve`, `phoneworld record`, `phoneworld fleet` (phoneworld.devices)."""
    from phoneworld.devices import cli as devices_cli

    app.add_typer(devices_cli.device_app, name="device")
    app.command("record")(devices_cli.record)
    app.command("fleet")(devices_cli.fleet)


_mount_devices()


def _mount_android() -> None:
    """`phoneworld apk` and `phoneworld doctor` (phoneworld.android)."""
    from phoneworld.android import commands as android_commands

    android_commands.mount(app, _fail)


_mount_android()


def _mount_tasks() -> None:
    """`phoneworld tasks list|show|check|eval`, `phoneworld demos` (phoneworld.tasks)."""
    from phoneworld.tasks import cli as tasks_cli

    app.add_typer(tasks_cli.tasks_app, name="tasks")
    app.command("demos")(tasks_cli.demos)


_mount_tasks()


def _mount_world() -> None:
    """`phoneworld world build|check|tasks|run|apk` (phoneworld.world)."""
    from phoneworld.world import apk_cli, cli as world_cli

    apk_cli.mount(world_cli.world_app)
    app.add_typer(world_cli.world_app, name="world")


_mount_world()


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
             add_help_option=False)
def rl(ctx: typer.Context) -> None:
    """Train and evaluate agents: `phoneworld rl sft|train|eval|calibrate --config FILE.yaml`
    (the `rl` package; needs the `rl` extra, imported only here)."""
    try:
        from phoneworld.rl.cli import app as rl_app
    except ImportError as exc:
        err.print("error: phoneworld rl needs the rl extra (pip install 'phoneworld[rl]', or "
                  f"pip install -e '.[rl]' in a clone): {exc}",
                  style="red", markup=False)
        raise typer.Exit(3) from exc
    logging.getLogger().setLevel(logging.INFO)
    rl_app(args=list(ctx.args), prog_name="phoneworld rl")


def main() -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    app()


if __name__ == "__main__":
    main()
