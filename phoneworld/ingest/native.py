"""The native trace format `phoneworld-trace/1` (ingest pass): an episode folder → an `Episode`.

`episode.json` (DESIGN section 2) is validated with pydantic, and every pydantic error is turned
into a diagnostic with the file, the JSON line of the value and the field path (PW112), never
dumped as is. The format version is checked first (PW111), since a file of another version may
mean other things by the same fields. Each step's screen is parsed as uiautomator XML; its
screenshot must exist. An episode with any error is not returned (the caller raises InputError);
all of its problems are still reported.

A step whose screen belongs to another package than `app` is kept with a warning (PW117), except
for launcher screens and system overlays: episodes legitimately start on the home screen or show
a permission dialog, and warning about those would only be noise.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from phoneworld import inputs
from phoneworld.ingest import codes
from phoneworld.ingest.context import IngestContext, did_you_mean
from phoneworld.ingest.draft import DraftEpisode, DraftStep, freeze
from phoneworld.ingest.jsonpos import Path as JsonPath
from phoneworld.ingest.jsonpos import line_of, value_lines
from phoneworld.ingest.native_actions import ActionSite, convert_action
from phoneworld.ingest.split import is_launcher, is_system_overlay
from phoneworld.ingest.uixml import read_uixml
from phoneworld.ir.base import SourceRef
from phoneworld.ir.trace import TRACE_FORMAT, Action, Device, Episode, Observation

logger = logging.getLogger(__name__)

EPISODE_FILE = "episode.json"


class _Lenient(BaseModel):
    """Unknown fields are kept aside (and reported as warnings) instead of failing validation."""

    model_config = ConfigDict(extra="allow")


class RawDevice(_Lenient):
    width: int = Field(gt=0, le=inputs.MAX_COORD)
    height: int = Field(gt=0, le=inputs.MAX_COORD)
    density: int | None = Field(default=None, gt=0, le=100_000)
    sdk: int | None = Field(default=None, gt=0, le=10_000)


class RawStep(_Lenient):
    screen: str = Field(min_length=1)
    screenshot: str | None = None
    activity: str | None = None
    action: Any = None


class RawEpisode(_Lenient):
    format: str
    app: str = Field(min_length=1)  # a folder name only once `outdir.check_name` accepts it
    device: RawDevice
    instruction: str | None = None
    coords: Literal["pixels", "normalized"] = "pixels"
    steps: list[Any]


class _Doc:
    """One episode.json being read: its paths, line map and the context."""

    def __init__(self, folder: Path, ctx: IngestContext, lines: dict[JsonPath, int]) -> None:
        self.folder = folder
        self.path = folder / EPISODE_FILE
        self.ctx = ctx
        self.lines = lines
        self.episode = ctx.episode_id(folder)

    def at(self, path: JsonPath, step: int | None = None) -> SourceRef:
        return self.ctx.src(self.path, line_of(self.lines, path), self.episode, step)


def read_native(folder: Path, ctx: IngestContext) -> list[Episode]:
    """The episode of `folder/episode.json`, or [] when it has errors (all of them reported)."""
    path = folder / EPISODE_FILE
    data, lines = _load_json(path, ctx, ctx.episode_id(folder))
    if data is None:
        return []
    doc = _Doc(folder, ctx, lines)
    errors_before = ctx.diagnostics.counts()["error"]
    header = _header(data, doc)
    if header is None:
        return []
    device = Device(width=header.device.width, height=header.device.height,
                    density=header.device.density, sdk=header.device.sdk)
    draft = DraftEpisode(id=doc.episode, device=device, file=ctx.rel(path),
                         instruction=header.instruction)
    if not header.steps:
        ctx.report(codes.EMPTY_EPISODE, "\"steps\" is empty", doc.at(("steps",)))
    for index, raw in enumerate(header.steps):
        step = _step(raw, index, len(header.steps), header, device, doc)
        if step is not None:
            draft.steps.append(step)
    if ctx.diagnostics.counts()["error"] > errors_before:
        logger.debug("episode %s has errors; not returned", doc.episode)
        return []
    return [freeze(draft, header.app)]


def _load_json(path: Path, ctx: IngestContext, episode: str) -> tuple[Any, dict[JsonPath, int]]:
    source = ctx.src(path, episode=episode)
    text = ctx.read_text(path, source)
    if text is None:
        return None, {}
    ok, data = ctx.load_json(text, source, codes.BAD_JSON)
    return (data, value_lines(text)) if ok else (None, {})


def _header(data: Any, doc: _Doc) -> RawEpisode | None:
    if not isinstance(data, dict):
        doc.ctx.report(codes.SCHEMA, f"{EPISODE_FILE} must hold a JSON object, not "
                       f"{type(data).__name__}", doc.at(()))
        return None
    version = data.get("format")
    if version is not None and version != TRACE_FORMAT:
        doc.ctx.report(codes.BAD_VERSION, f"format {json.dumps(version)} is not supported",
                       doc.at(("format",)), hint=f'set "format": "{TRACE_FORMAT}", the only '
                       "version this phoneworld reads (convert newer traces with their tool)")
        return None
    try:
        header = RawEpisode.model_validate(data)
    except ValidationError as exc:
        _schema_errors(exc, (), doc)
        return None
    _extras(header, (), doc)
    _extras(header.device, ("device",), doc)
    return header


def _step(raw: Any, index: int, count: int, header: RawEpisode, device: Device,
          doc: _Doc) -> DraftStep | None:
    here: JsonPath = ("steps", index)
    try:
        step = RawStep.model_validate(raw)
    except ValidationError as exc:
        _schema_errors(exc, here, doc, step=index)
        return None
    _extras(step, here, doc, step=index)
    action = _action(step, raw, index, count, header, device, doc)
    screen_path = _referenced(step.screen, (*here, "screen"), codes.SCREEN_MISSING, index, doc)
    if step.screenshot is not None:
        _referenced(step.screenshot, (*here, "screenshot"), codes.SCREENSHOT_MISSING, index, doc)
    if screen_path is None:
        return None
    screen = read_uixml(screen_path, doc.ctx, doc.episode, index)
    if screen is None:
        return None
    package = screen.package or header.app
    if package != header.app and not is_launcher(package) and not is_system_overlay(package):
        doc.ctx.report(codes.OTHER_PACKAGE, f"the screen {step.screen} belongs to {package}, "
                       f"not {header.app}; kept", doc.at(here, index))
    observation = Observation(root=screen.root, package=package, activity=step.activity,
                              xml_file=step.screen, screenshot=step.screenshot,
                              rotation=screen.rotation)
    return DraftStep(observation=observation, action=action, file=doc.ctx.rel(doc.path),
                     line=line_of(doc.lines, here))


def _action(step: RawStep, raw: Any, index: int, count: int, header: RawEpisode,
            device: Device, doc: _Doc) -> Action | None:
    here: JsonPath = ("steps", index, "action")
    last = index == count - 1
    if last:
        if step.action is not None:
            doc.ctx.report(codes.LAST_ACTION_SET, f"the last step (steps[{index}]) has action "
                           f"{json.dumps(step.action)}", doc.at(here, index))
        return None
    if step.action is None:
        what = "null" if isinstance(raw, dict) and "action" in raw else "missing"
        doc.ctx.report(codes.ACTION_MISSING, f"steps[{index}].action is {what} but steps[{index}] "
                       f"is not the last step", doc.at(here, index))
        return None
    site = ActionSite(ctx=doc.ctx, source=doc.at(here, index), path=here, lines=doc.lines,
                      device=device, normalized=header.coords == "normalized")
    return convert_action(step.action, site)


def _referenced(rel: str, where: JsonPath, code: codes.Code, index: int,
                doc: _Doc) -> Path | None:
    """The file a step refers to, if it exists inside the trace root; reports `code` otherwise."""
    try:
        inputs.check_name(rel)
        target = (doc.folder / rel).resolve()
    except inputs.InputFileError as exc:
        doc.ctx.report_input(exc, doc.at(where, index), codes.UNREADABLE_FILE)
        return None
    except (OSError, RuntimeError) as exc:  # a symlink loop, a name the system refuses
        doc.ctx.report(codes.UNREADABLE_FILE, f'"{rel[:80]}" cannot be resolved: {exc}',
                       doc.at(where, index))
        return None
    inside = target.is_relative_to(doc.ctx.root.resolve())
    if inside and target.is_file():
        return target
    why = "points outside the trace folder" if not inside else "does not exist"
    doc.ctx.report(code, f'"{rel}" {why} (steps[{index}].{where[-1]})', doc.at(where, index))
    return None


def _schema_errors(exc: ValidationError, prefix: JsonPath, doc: _Doc,
                   step: int | None = None) -> None:
    for err in exc.errors():
        loc: JsonPath = (*prefix, *err["loc"])
        name = _render(loc)
        if err["type"] == "missing":
            message = f'"{loc[-1]}" is missing' + (f" in {_render(loc[:-1])}" if loc[:-1] else "")
        else:
            message = f"{name} = {json.dumps(err.get('input'), default=str)[:80]}: {err['msg']}"
        doc.ctx.report(codes.SCHEMA, message, doc.at(loc, step))


def _extras(model: BaseModel, prefix: JsonPath, doc: _Doc, step: int | None = None) -> None:
    known = tuple(type(model).model_fields)
    for key in sorted(model.model_extra or {}):
        doc.ctx.report(codes.UNKNOWN_FIELD, f"unknown field {_render((*prefix, key))}"
                       f"{did_you_mean(key, known)}; ignored", doc.at((*prefix, key), step))


def _render(path: JsonPath) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out or "the document"
