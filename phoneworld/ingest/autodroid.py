"""AutoDroid exploration graphs (ingest pass): `utg.yaml` → episodes of one synthesised app.

Each record is a screen (`State`, simplified HTML: see `autodroid_html.py`), the element acted on
(`Choice`), the text typed (`Input`, the string 'null' for none) and the hashes `state_str` (one
or a list) → `new_state_str`. Decisions, read from the real files:
- `Choice: -1` marks the final screen of an exploration (no action); it ends the episode.
- Choosing the synthetic "go back" element is a `back` action; any other element is a click at the
  centre of its synthesised row; with an `Input`, a click on the field then `type(text)`, the step
  between them showing the same screen with the field focused.
- Records chain into one episode when a record's new_state_str is (one of) the next record's
  state_str. In the real files the two hashes never match (they are computed differently), so
  when no record of a file links, the records are chained in file order, which is how the
  exploration ran (PW153, once per file). A record whose next screen is unknown ends the episode
  at its own screen and its action is dropped (PW154).
- The file has no package: the app id comes from `package.txt` beside utg.yaml, else from a
  `tasks.csv` (AutoDroid's app list: name, apk path) in the folder or above it, else
  `autodroid.<folder name>` (PW156 says which). Steps carry no package of their own, so an
  exploration that leaves the app (the launcher's does) cannot be split per app.
- Bounds are synthesised; PW152 says so once per file.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import yaml

from phoneworld import inputs
from phoneworld.ingest import codes
from phoneworld.ingest.autodroid_html import (
    DEVICE,
    MAX_ID_DIGITS,
    Element,
    layout,
    out_of_range_id,
    parse_state,
    synthesize,
)
from phoneworld.ingest.context import IngestContext
from phoneworld.ingest.draft import DraftEpisode, DraftStep, freeze
from phoneworld.ir.trace import Action, Back, Click, Episode, Observation, TypeText

UTG_FILE = "utg.yaml"
_APK = re.compile(r"apks/([A-Za-z][\w.]*?)_[^/]*\.apk", re.I)


@dataclass(frozen=True)
class Record:
    """One validated record and its line in utg.yaml."""

    line: int
    state: str
    choice: int
    text: str | None
    state_strs: tuple[str, ...]
    new_state_str: str | None


def read_autodroid(folder: Path, ctx: IngestContext) -> list[Episode]:
    """The episodes of one utg.yaml (usually one exploration)."""
    path = folder / UTG_FILE
    records = load_records(path, ctx)
    if not records:
        return []
    app = app_id(folder, ctx)
    ctx.report(codes.SYNTH_BOUNDS, f"{UTG_FILE} has no bounds; a {DEVICE.width}x{DEVICE.height} "
               "layout was synthesised with elements stacked in rows", ctx.src(path))
    linked = [_links(a, b) for a, b in pairwise(records)]
    if linked and not any(linked):
        ctx.report(codes.UNLINKED_HASHES, "no new_state_str equals a following state_str; "
                   "records were chained in file order", ctx.src(path))
        linked = [True] * len(linked)
    builder = _Builder(folder, ctx, app)
    for i, record in enumerate(records):
        builder.add(record, linked[i] if i < len(linked) else False)
    builder.close()
    return [freeze(draft, app) for draft in builder.drafts]


def _links(a: Record, b: Record) -> bool:
    return a.new_state_str is not None and a.new_state_str in b.state_strs


def load_records(path: Path, ctx: IngestContext) -> list[Record]:
    """The records of utg.yaml with their lines; bad ones are errors (PW150, PW151)."""
    source = ctx.src(path)
    text = ctx.read_text(path, source)
    if text is None:
        return []
    try:
        node, data = inputs.load_yaml(text, fast=True)
    except inputs.InputFileError as exc:
        ctx.report_input(exc, source, codes.BAD_YAML)
        return []
    raw = data.get("records") if isinstance(data, dict) else None
    if not isinstance(raw, list) or not raw:
        ctx.report(codes.BAD_YAML, "no non-empty `records` list", ctx.src(path))
        return []
    lines = _record_lines(node, len(raw))
    out = [_record(item, lines[i], path, ctx) for i, item in enumerate(raw)]
    return [r for r in out if r is not None] if all(out) else []


def _record_lines(node: Any, count: int) -> list[int]:
    """1-based line of each record, from the composed YAML node tree."""
    for key, value in getattr(node, "value", []):
        if getattr(key, "value", None) == "records" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return [1] * count


def _record(item: Any, line: int, path: Path, ctx: IngestContext) -> Record | None:
    source = ctx.src(path, line)
    if not isinstance(item, dict):
        ctx.report(codes.BAD_RECORD, "a record must be a mapping", source)
        return None
    state, choice, text = item.get("State"), item.get("Choice"), item.get("Input")
    if not isinstance(state, str) or isinstance(choice, bool) or not isinstance(choice, int):
        ctx.report(codes.BAD_RECORD, "a record needs a State string and an integer Choice "
                   f"(got State {type(state).__name__}, Choice {str(choice)[:40]!r})", source)
        return None
    long_id = out_of_range_id(state)
    if long_id is not None or not -1 <= choice < 10 ** MAX_ID_DIGITS:
        what = f"element id {long_id[:40]}" if long_id is not None else f"Choice {choice}"
        ctx.report(codes.OUT_OF_RANGE, f"{what} has more than {MAX_ID_DIGITS} digits", source)
        return None
    strs = item.get("state_str")
    new = item.get("new_state_str")
    if not all(isinstance(s, (str, int, float)) for s in (strs if isinstance(strs, list) else
                                                          [strs]) if s is not None) or \
            not (new is None or isinstance(new, (str, int, float))):
        ctx.report(codes.BAD_RECORD, "state_str and new_state_str are hashes (strings, or a "
                   "list of strings for state_str)", source)
        return None
    state_strs = tuple(str(s) for s in strs) if isinstance(strs, list) else \
        ((str(strs),) if strs is not None else ())
    typed = None if text is None or str(text) == "null" else str(text)
    return Record(line, state, choice, typed, state_strs, str(new) if new is not None else None)


class _Builder:
    """Turns records into drafts (see the module docstring for the rules)."""

    def __init__(self, folder: Path, ctx: IngestContext, app: str) -> None:
        self.ctx, self.app = ctx, app
        self.path = folder / UTG_FILE
        self.file = ctx.rel(self.path)
        self.base_id = ctx.episode_id(folder)
        self.drafts: list[DraftEpisode] = []
        self.current: DraftEpisode | None = None

    def add(self, record: Record, has_next: bool) -> None:
        elements = parse_state(record.state)
        if self.current is None:
            self.current = DraftEpisode(id=f"{self.base_id}#{len(self.drafts)}", device=DEVICE,
                                        file=self.file)
        step = len(self.current.steps)
        self.current.steps.append(DraftStep(self._observation(elements), None, self.file,
                                            record.line))
        if record.choice == -1:
            self.close()
            return
        source = self.ctx.src(self.path, record.line, self.current.id, step)
        target = next((e for e in elements if e.id == record.choice), None)
        if target is None:
            self.ctx.report(codes.BAD_CHOICE, f"Choice {record.choice} is not an element id of "
                            "this State; the episode ends here", source)
            self.close()
            return
        if not has_next:
            self.ctx.report(codes.NO_NEXT_STATE, f"the action on {_label(target)} leads to state "
                            f"{record.new_state_str}, which has no record; the episode ends at "
                            "this screen", source)
            self.close()
            return
        self._act(target, elements, record)

    def _act(self, target: Element, elements: list[Element], record: Record) -> None:
        assert self.current is not None
        last = self.current.steps[-1]
        if target.is_go_back:
            last.action = Back()
            return
        x, y = layout(elements)[target.id].center
        last.action = Click(x=x, y=y)
        if record.text is not None:
            focused = self._observation(elements, focus=target.id)
            action: Action = TypeText(text=record.text)
            self.current.steps.append(DraftStep(focused, action, self.file, record.line))

    def _observation(self, elements: list[Element], focus: int | None = None) -> Observation:
        return Observation(root=synthesize(elements, self.app, focus), package=self.app)

    def close(self) -> None:
        if self.current is not None:
            self.drafts.append(self.current)
        self.current = None


def _label(element: Element) -> str:
    return f"<{element.tag} id={element.id}> {(element.label or element.content_desc)[:40]!r}"


def app_id(folder: Path, ctx: IngestContext) -> str:
    """package.txt, else the tasks.csv entry named like the folder, else autodroid.<name>."""
    explicit = folder / "package.txt"
    if explicit.exists():
        package = (ctx.read_text(explicit, ctx.src(explicit)) or "").strip()
        if package:  # a folder name only once `outdir.check_name` accepts it
            return package
    for directory in (folder, *folder.parents):
        listed = _from_tasks_csv(directory / "tasks.csv", folder.name, ctx)
        if listed is not None:
            ctx.report(codes.APP_ID, f"app package {listed} taken from the entry "
                       f"{folder.name!r} of tasks.csv", ctx.src(directory / "tasks.csv"))
            return listed
        if directory == ctx.root:
            break
    slug = re.sub(r"[^a-z0-9]+", "_", folder.name.lower()).strip("_") or "app"
    if slug[0].isdigit():
        slug = f"app_{slug}"  # each part of a package name starts with a letter
    ctx.report(codes.APP_ID, f"no package for {folder.name!r}; using the app id autodroid.{slug}",
               ctx.src(folder / UTG_FILE))
    return f"autodroid.{slug}"


def _from_tasks_csv(path: Path, name: str, ctx: IngestContext) -> str | None:
    if not path.exists():
        return None
    text = ctx.read_text(path, ctx.src(path), encoding="utf-8-sig")
    try:
        rows = list(csv.reader(io.StringIO(text or "", newline="")))
    except csv.Error as exc:  # a NUL byte, a field over the csv module's size limit
        ctx.report(codes.UNREADABLE_FILE, f"tasks.csv does not parse: {exc}", ctx.src(path))
        return None
    for row in rows:
        if len(row) >= 2 and row[0].strip().lower() == name.lower():
            match = _APK.search(row[1])
            if match:
                return match.group(1)
    return None
