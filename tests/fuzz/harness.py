"""Running one fuzz case through the real CLI, in process, and checking the contract on it.

The contract (README, "Exit codes"): every command ends with exit 0, 1 (bad input) or 2 (usage),
never a traceback nor a pass failure (PW900), every diagnostic with a hint; a command touches nothing outside its `--out` (the case's input files and a
sentinel file beside them are hashed before and after); each case ends within `SECONDS` and
raises the process's peak memory by less than `MEGABYTES`. A blocked read (a FIFO) is cut by
SIGALRM, so a hang is a failed case rather than a hung test run.

`Case` is a folder of files (bytes, or a special entry: a FIFO, a symlink) plus the command's
arguments, in which `{dir}` stands for the case's folder. Both the pytest suite (tests/fuzz) and
`bench/fuzz.py` run cases through `run_case`.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import resource
import signal
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

import typer
import typer.main
import typer.testing
from typer.testing import CliRunner, Result

SECONDS = 20.0
MEGABYTES = 1024
EXIT_CODES = (0, 1, 2)
DIAGNOSTIC = re.compile(r": (?:error|warning|note)\[PW\d+\]: ")
SENTINEL = "precious.txt"  # beside the case's input: must survive every command


@dataclass(frozen=True)
class Fifo:
    """A named pipe at this path (reading it would block forever)."""


@dataclass(frozen=True)
class Link:
    """A symlink to `target` (relative to the link's folder, or absolute)."""

    target: str


Entry = bytes | Fifo | Link


@dataclass
class Case:
    """Files under the case folder and the CLI arguments (with `{dir}` for that folder)."""

    name: str
    files: dict[str, Entry]
    args: list[str]
    exits: tuple[int, ...] = EXIT_CODES
    code: str | None = None  # a diagnostic code the output must contain
    extra: dict[str, str] = field(default_factory=dict)


@dataclass
class Outcome:
    """What one case did, and each broken promise (empty when it kept the contract)."""

    case: Case
    exit_code: int | None
    output: str
    seconds: float
    megabytes: float
    broken: list[str]


class _Timeout(Exception):
    pass


@contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    def alarm(signum: int, frame: object) -> None:
        raise _Timeout(f"took more than {seconds:.0f} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def write_case(case: Case, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder.parent / SENTINEL).write_text("the user's own file\n", encoding="utf-8")
    for rel, entry in case.files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(entry, Fifo):
            os.mkfifo(path)
        elif isinstance(entry, Link):
            os.symlink(entry.target, path)
        else:
            path.write_bytes(entry)


def _snapshot(folder: Path) -> dict[str, str]:
    """Hash of every entry under the case's parent folder except `out/` (lstat only for specials)."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        base = Path(dirpath)
        dirnames[:] = [d for d in dirnames if base / d != folder / "out"]
        for name in [*filenames, *dirnames]:
            path = base / name
            info = path.lstat()
            if path.is_symlink():
                out[str(path)] = "link:" + os.readlink(path)
            elif path.is_file() and not path.is_symlink() and _regular(info.st_mode):
                out[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
            else:
                out[str(path)] = f"mode:{info.st_mode:o}"
    return out


def _regular(mode: int) -> bool:
    import stat

    return stat.S_ISREG(mode)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@functools.cache
def _command() -> object:
    """The click command of the CLI, built once (typer rebuilds it per invoke: 25 ms a case)."""
    from phoneworld.cli import app

    return typer.main.get_command(app)


def _invoke(args: list[str]) -> Result:
    from phoneworld.cli import app

    command = _command()
    with mock.patch.object(typer.testing, "_get_command", lambda _: command):
        return CliRunner().invoke(app, args, catch_exceptions=True)


def run_case(case: Case, base: Path, seconds: float = SECONDS) -> Outcome:
    """Write `case` under `base/<name>/in`, run it, and check the contract."""
    folder = base / case.name / "in"
    write_case(case, folder)
    args = [a.replace("{dir}", str(folder)).replace("{out}", str(base / case.name / "out"))
            for a in case.args]
    before = _snapshot(base / case.name)
    peak, started = _peak_mb(), time.perf_counter()
    broken: list[str] = []
    code: int | None = None
    output = ""
    try:
        with _deadline(seconds):
            result = _invoke(args)
        code, output = result.exit_code, result.output
        exc = result.exception
        if exc is not None and not isinstance(exc, SystemExit):
            if isinstance(exc, _Timeout):
                broken.append(f"hang: {exc}")
            else:
                lines = "".join(traceback.format_exception(exc)).splitlines()
                broken.append("traceback:\n" + "\n".join(line[:160] for line in lines[-14:]))
    except _Timeout as exc:
        broken.append(f"hang: {exc}")
    seconds_taken = time.perf_counter() - started
    grown = _peak_mb() - peak
    if code is not None and code not in case.exits and not broken:
        broken.append(f"exit {code}, expected one of {case.exits}")
    if "Traceback (most recent call last)" in output:
        broken.append("a traceback in the output")
    if "error[PW900]" in output:  # a pass crashed: caught per app, but a bug all the same
        broken.append("a pass failed (PW900): " + output[output.index("error[PW900]"):][:400])
    if case.code is not None and case.code not in output and not broken:
        broken.append(f"no {case.code} in the output")
    shown = len(DIAGNOSTIC.findall(output))
    if shown > output.count("  hint: "):
        broken.append(f"{shown - output.count('  hint: ')} diagnostic(s) without a hint")
    if seconds_taken > seconds:
        broken.append(f"took {seconds_taken:.1f} s")
    if grown > MEGABYTES:
        broken.append(f"peak memory grew by {grown:.0f} MiB")
    after = _snapshot(base / case.name)
    touched = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    if touched:
        broken.append(f"touched outside --out: {touched[:5]}")
    return Outcome(case, code, output, seconds_taken, grown, broken)
