"""The ingest pass: recorded trace files → a `TraceSet` plus diagnostics.

Public API::

    ingest(root: Path, fmt: str | None = None, diagnostics: Diagnostics | None = None) -> TraceSet
    without_actions(traces: TraceSet, root: Path, diagnostics: Diagnostics) -> list[str]

`root` is a folder tree; episodes may be nested at any depth. The format of each folder is detected
(`detect.py`) unless `fmt` forces one of `FORMATS`: "native" (episode.json, `native.py`),
"droidbot" (`droidbot.py`), "autodroid" (`autodroid.py`), "llamatouch" (`llamatouch.py`),
"uiautomator" (plain dumps, `uiautomator.py`). One module per format, one entry function each.

Every problem goes to `diagnostics` with a stable code (table in `codes.py`), the file relative to
the root's parent, the line where known, the episode and step, and a fix hint. All problems of a
run are collected; on errors ingest still returns what it could parse and the caller decides (it
raises `InputError`). Only a wrong `fmt` argument raises (`UsageError`), since it is not input data.

The returned episodes are in canonical order (by app, then id, numbers in ids compared as numbers:
recording order); ids derive from relative paths, so
they are stable across machines; coordinates are device pixels.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from pathlib import Path

from phoneworld.errors import UsageError
from phoneworld.ingest import codes
from phoneworld.ingest.autodroid import read_autodroid
from phoneworld.ingest.context import IngestContext, did_you_mean
from phoneworld.ingest.detect import FORMATS, find_sources, incomplete
from phoneworld.ingest.droidbot import read_droidbot
from phoneworld.ingest.llamatouch import read_llamatouch
from phoneworld.ingest.native import read_native
from phoneworld.ingest.uiautomator import read_uiautomator
from phoneworld.ir.base import SourceRef
from phoneworld.ir.diagnostics import Diagnostics
from phoneworld.ir.trace import Episode, TraceSet

__all__ = ["FORMATS", "ingest", "natural_key", "without_actions"]

logger = logging.getLogger(__name__)

Importer = Callable[[Path, IngestContext], list[Episode]]
IMPORTERS: dict[str, Importer] = {
    "native": read_native,
    "droidbot": read_droidbot,
    "autodroid": read_autodroid,
    "llamatouch": read_llamatouch,
    "uiautomator": read_uiautomator,
}


def ingest(root: Path, fmt: str | None = None, diagnostics: Diagnostics | None = None) -> TraceSet:
    """Read every episode under `root` (see the module docstring); problems go to `diagnostics`."""
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown trace format {fmt!r}{did_you_mean(fmt, FORMATS)}; "
                         f"use one of {', '.join(FORMATS)} or leave it out to detect it")
    diagnostics = diagnostics if diagnostics is not None else Diagnostics()
    started = time.perf_counter()
    given = Path(root)
    if not given.is_dir():
        codes.report(diagnostics, codes.ROOT_MISSING, f"{given} is not a folder",
                     SourceRef(file=given.name or str(given)))
        return TraceSet(episodes=())
    ctx = IngestContext(root=given.resolve(), diagnostics=diagnostics)
    episodes: list[Episode] = []
    sources = find_sources(ctx.root, fmt)
    for folder, found, others in sources:
        if others:
            ctx.report(codes.AMBIGUOUS_FORMAT, f"the folder also looks like {', '.join(others)}; "
                       f"read as {found}", ctx.src(folder))
        episodes.extend(IMPORTERS[found](folder, ctx))
    if fmt in (None, "droidbot"):
        for folder, has, lacking in incomplete(ctx.root, sources):
            ctx.report(codes.HALF_DROIDBOT, f"the folder has DroidBot's {has} but no {lacking}; "
                       "it was not read", ctx.src(folder))
    if not sources:
        what = f"no {fmt} trace" if fmt else "no trace of a known format"
        ctx.report(codes.NO_EPISODES, f"{what} under {ctx.rel(ctx.root)}", ctx.src(ctx.root))
    episodes.sort(key=lambda ep: (ep.app, natural_key(ep.id)))
    _check_unique(episodes)
    logger.info("ingested %d episodes (%d steps) from %d trace folders in %.2fs; %s",
                len(episodes), sum(len(ep.steps) for ep in episodes), len(sources),
                time.perf_counter() - started, diagnostics.counts())
    return TraceSet(episodes=tuple(episodes))


def without_actions(traces: TraceSet, root: Path, diagnostics: Diagnostics) -> list[str]:
    """The apps of `traces` with no recorded action (plain dumps are screens only), which nothing
    can be compiled from: a warning for each (PW190) while another app has actions, else one
    error (PW191) naming the root, both with the hint to the recorder and `episode.json`."""
    apps = traces.apps()
    bare = [a for a in apps if sum(len(ep.steps) - 1 for ep in traces.for_app(a).episodes) < 1]
    if bare and len(bare) == len(apps):
        n = len(traces.episodes)
        codes.report(diagnostics, codes.NO_ACTIONS,
                     f"{n} episode(s) of {len(apps)} app(s) ({', '.join(apps[:3])}"
                     f"{', ...' if len(apps) > 3 else ''}) hold screens but no recorded action: "
                     "nothing to build", SourceRef(file=Path(root).name or str(root)))
    else:
        for app in bare:
            codes.report(diagnostics, codes.APP_WITHOUT_ACTIONS,
                         f"app {app} has no recorded action; not built",
                         traces.for_app(app).episodes[0].source)
    return bare


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """`text` ordered with its numbers as numbers ("run#2" before "run#10"): importers number the
    episodes of one recording in time order, so this keeps an app's episodes in recording order,
    which `--heldout` relies on ("the last fraction of the steps")."""
    return tuple((0, int(part)) if part.isdigit() else (1, part)
                 for part in re.split(r"(\d+)", text) if part)


def _check_unique(episodes: list[Episode]) -> None:
    seen: set[str] = set()
    for ep in episodes:
        if ep.id in seen:  # ids come from distinct paths, so this is a bug in an importer
            raise AssertionError(f"duplicate episode id {ep.id!r}")
        seen.add(ep.id)
