"""Format detection (ingest pass): which folders under the root hold episodes, in which format.

A folder's markers decide its format, checked in this order (the first match wins, PW108 warns
when several match): native `episode.json`; AutoDroid `utg.yaml`; DroidBot `states/` + `events/`
(or Kea's `all_states/` + `events/`);
LlamaTouch `eventStructs.txt`; plain uiautomator dumps (`*.xml` files whose root is
<hierarchy>). A folder recognised as an episode is not descended into, except a folder of plain
dumps, whose subfolders may hold more traces. Hidden folders are skipped; the walk is sorted, so
the result does not depend on the file system's order.

A folder that is half a DroidBot output (`states/` without `events/`, or the other way round, or
only DroidBot's `utg.js`) matches no format; `incomplete` names such folders, so the build says
what to copy rather than skipping them unseen (utg.js keeps only the edges that changed the
screen, not the order of the events, so it is no trace by itself).
"""

from __future__ import annotations

import os
from pathlib import Path

from phoneworld.ingest.droidbot_views import STATE_FOLDERS
from phoneworld.inputs import read_head

FORMATS: tuple[str, ...] = ("native", "autodroid", "droidbot", "llamatouch", "uiautomator")

_SNIFF_BYTES = 2048


def matches(folder: Path, files: set[str], dirs: set[str], fmt: str, sniff: bool = True) -> bool:
    """Whether `folder` (with these file and folder names) holds a trace of format `fmt`."""
    if fmt == "native":
        return "episode.json" in files
    if fmt == "autodroid":
        return "utg.yaml" in files
    if fmt == "droidbot":
        return "events" in dirs and not dirs.isdisjoint(STATE_FOLDERS)
    if fmt == "llamatouch":
        return "eventStructs.txt" in files
    if fmt == "uiautomator":
        xmls = [name for name in files if name.lower().endswith(".xml")]
        return bool(xmls) and (not sniff or any(is_dump(folder / name) for name in xmls))
    raise ValueError(f"unknown format {fmt!r}")


def is_dump(path: Path) -> bool:
    """A cheap look at the start of a file: does it look like a `uiautomator dump`?"""
    return b"<hierarchy" in read_head(path, _SNIFF_BYTES)  # never blocks on a FIFO


def find_sources(root: Path, fmt: str | None = None) -> list[tuple[Path, str, list[str]]]:
    """(folder, format, other formats that also matched) for every trace folder under `root`."""
    found: list[tuple[Path, str, list[str]]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        folder = Path(dirpath)
        files, dirs = set(filenames), set(dirnames)
        if fmt is None:
            # plain dumps are the fallback: episode folders of other formats hold dumps too
            hits = [f for f in FORMATS[:-1] if matches(folder, files, dirs, f)]
            if not hits and matches(folder, files, dirs, "uiautomator"):
                hits = ["uiautomator"]
        else:
            hits = [fmt] if matches(folder, files, dirs, fmt, sniff=False) else []
        if not hits:
            continue
        found.append((folder, hits[0], hits[1:]))
        if hits[0] != "uiautomator":
            dirnames[:] = []
    return found


def incomplete(root: Path, sources: list[tuple[Path, str, list[str]]]
               ) -> list[tuple[Path, str, str]]:
    """(folder, what it has, what it lacks) for each folder under `root`, outside the `sources`,
    that holds part of a DroidBot output (module docstring)."""
    read = {folder for folder, _, _ in sources}
    out: list[tuple[Path, str, str]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        folder = Path(dirpath)
        if folder in read:
            dirnames[:] = []
            continue
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        dirs = set(dirnames)
        has = [name for name in (*STATE_FOLDERS, "events") if name in dirs]
        if len(has) == 1:
            out.append((folder, f"{has[0]}/", "states/" if has == ["events"] else "events/"))
        elif not has and "utg.js" in filenames:
            out.append((folder, "utg.js", "states/ and events/"))
    return out
