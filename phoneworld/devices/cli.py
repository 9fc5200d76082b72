"""Command line of the devices package, mounted on `phoneworld` by `phoneworld.cli`:
`phoneworld device serve`, `phoneworld record`, `phoneworld fleet`.
"""

from __future__ import annotations

import json
import logging
import signal
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console

from phoneworld.errors import PhoneworldError, UsageError

logger = logging.getLogger(__name__)
err = Console(stderr=True)
device_app = typer.Typer(no_args_is_help=True, add_completion=False,
                         help="Virtual devices: compiled mock apps served over the adb protocol.")
ADB_PORT_HELP = "Port of the adb server (default: $ANDROID_ADB_SERVER_PORT or 5037)."


def _fail(exc: PhoneworldError) -> None:
    for d in exc.diagnostics:
        err.print(d.render(), style="red", markup=False, highlight=False)
    err.print(f"error: {exc}", style="red", markup=False, highlight=False)
    raise typer.Exit(exc.exit_code)


@device_app.command("serve")
def serve(
    app_dir: Path = typer.Argument(..., help="A built app folder (holding app.json)."),
    port: int = typer.Option(15555, help="Port of the first device; device i listens on PORT+i "
                             "(0: free ports)."),
    count: int = typer.Option(1, min=1, help="Number of devices."),
    host: str = typer.Option("127.0.0.1", help="Address to listen on."),
    size: Optional[str] = typer.Option(None, help="Screen size WxH (default: the app's); "
                                       "views and touches are scaled."),
    connect: bool = typer.Option(False, help="Also `adb connect` every device to the adb server "
                                 "of --adb-port (started if not running, as `adb devices` would); "
                                 "on exit they are disconnected, and a server started here is "
                                 "stopped when nothing else is attached to it."),
    adb_port: Optional[int] = typer.Option(None, help=ADB_PORT_HELP),
) -> None:
    """Serve APP_DIR as COUNT adb devices until interrupted; prints their serials."""
    from phoneworld.devices.link import AdbServer
    from phoneworld.devices.virtual import DeviceServer, VirtualDevice
    from phoneworld.runtime.appdir import load_app

    try:
        spec = load_app(app_dir)
        ports = [port + i if port else 0 for i in range(count)]
        dims = _size(size)
        server = DeviceServer([VirtualDevice(spec, size=dims) for _ in range(count)], host,
                              ports).start()
    except PhoneworldError as exc:
        _fail(exc)
        return
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        with ExitStack() as stack:
            if connect:  # the user's adb server, so `adb devices` lists them
                stack.enter_context(AdbServer.users(adb_port).connected(server.serials))
            for s in server.serials:
                typer.echo(s)
            err.print(f"serving {spec.package} on {len(server.serials)} device(s); Ctrl-C stops")
            while not stop.wait(1.0):
                pass
    except KeyboardInterrupt:
        pass
    except PhoneworldError as exc:
        _fail(exc)
    finally:
        server.stop()


def _size(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    w, _, h = text.lower().partition("x")
    if not (w.isdigit() and h.isdigit() and int(w) > 0 and int(h) > 0):
        raise UsageError(f"--size must look like 1080x1920, got {text!r}")
    return int(w), int(h)


def record(
    serial: str = typer.Option(..., "--serial", help="Device serial (adb devices)."),
    app: Optional[str] = typer.Option(None, "--app", help="Package of a real app (guarded)."),
    app_dir: Optional[Path] = typer.Option(None, "--app-dir", help="A built mock app: its APK "
                                           "(or a virtual device) with state access."),
    out: Path = typer.Option(Path("traces"), "--out", help="Trace folder to write to."),
    policy: str = typer.Option("stdin", help="random, or stdin (type JSON actions)."),
    episodes: int = typer.Option(1, min=1),
    steps: int = typer.Option(30, min=1, help="Step budget per episode."),
    seed: int = typer.Option(0, min=0),
    instruction: Optional[str] = typer.Option(None, help="Task text stored in the trace."),
    screenshots: bool = typer.Option(False, help="Record screenshots too."),
    adb_port: Optional[int] = typer.Option(None, help=ADB_PORT_HELP),
    force: bool = typer.Option(False, "--force", help="Record into an --out folder that is "
                               "neither empty nor a trace folder phoneworld wrote."),
) -> None:
    """Record episodes driven on a device as native traces (`phoneworld build` reads them)."""
    from phoneworld.devices.rollout import record_episodes

    try:
        paths = record_episodes(serial, app, app_dir, out, policy, episodes, steps, seed,
                                instruction, adb_port, screenshots, force)
    except PhoneworldError as exc:
        _fail(exc)
        return
    for p in paths:
        typer.echo(str(p))


def fleet(
    app_dir: Path = typer.Argument(..., help="A built app folder (holding app.json)."),
    sim: int = typer.Option(0, help="Number of in-process simulators."),
    serial: list[str] = typer.Option([], help="Device serial running the app (repeatable)."),
    episodes: int = typer.Option(8, min=1),
    steps: int = typer.Option(10, min=1, help="Step budget per episode."),
    seed: int = typer.Option(0, min=0),
    policy: str = typer.Option("random", help="random"),
    ray_address: Optional[str] = typer.Option(None, help="Run workers as Ray actors: a cluster "
                                              "address, 'auto', or 'local' (start one)."),
    record_dir: Optional[Path] = typer.Option(None, "--record", help="Save every rollout here."),
    adb_port: Optional[int] = typer.Option(None, help=ADB_PORT_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON line per episode."),
) -> None:
    """Run episodes of APP_DIR over a fleet of simulators and devices."""
    from phoneworld.devices.rollout import run_fleet

    try:
        results = run_fleet(app_dir, sim, serial, episodes, steps, seed, policy, ray_address,
                            record_dir, adb_port)
    except PhoneworldError as exc:
        _fail(exc)
        return
    for r in results:
        row: dict[str, Any] = {"episode": r.index, "device": r.device, "steps": len(r.steps) - 1,
                               "reward": r.reward, "attempts": r.attempts, "error": r.error}
        typer.echo(json.dumps(row) if as_json else
                   f"episode {r.index:>3} on {r.device:<20} {row['steps']:>3} steps"
                   f"{'  ' + r.error if r.error else ''}")
    failed = sum(1 for r in results if r.error)
    err.print(f"{len(results) - failed}/{len(results)} episodes finished", markup=False)
