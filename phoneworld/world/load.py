"""Loading a world spec: YAML with the line of every value, validated, its apps loaded and its
hand wiring checked against them. Every problem is a `file:line: error[PW4xx]` diagnostic; all of
them are raised at once as one `InputError`.

`load_world(path)` takes the spec file or a built world folder (holding `world.yaml`). Apps given
as `traces:` must be built first (`phoneworld world build`, which calls `build_entries`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from phoneworld import inputs
from phoneworld.errors import AppSpecError, InputError
from phoneworld.ir.app import AppSpec, ScreenSpec, Widget
from phoneworld.ir.base import SourceRef
from phoneworld.ir.diagnostics import Diagnostics
from phoneworld.tasks import codes as task_codes
from phoneworld.tasks.load import YamlPath, error_message, error_path, line_of, read_yaml
from phoneworld.world import codes
from phoneworld.world.spec import AppEntry, WorldSpec

WORLD_FILE = "world.yaml"


@dataclass(frozen=True)
class WorldApp:
    """One app of a loaded world: its spec, its folder and its entry in the world spec."""

    spec: AppSpec
    dir: Path
    entry: AppEntry


@dataclass(frozen=True)
class WorldDef:
    """A loaded, checked world spec."""

    spec: WorldSpec
    file: Path
    apps: tuple[WorldApp, ...]

    @property
    def packages(self) -> tuple[str, ...]:
        return tuple(a.spec.package for a in self.apps)

    def app(self, package: str) -> WorldApp:
        for a in self.apps:
            if a.spec.package == package:
                return a
        raise KeyError(package)


def spec_file(path: Path) -> Path:
    return path / WORLD_FILE if path.is_dir() else path


def parse_world(path: Path, diags: Diagnostics) -> tuple[WorldSpec | None, dict[YamlPath, int]]:
    """The validated spec of `path` and its line map (None after reporting every problem)."""
    name = path.as_posix()
    inner = Diagnostics()
    data, lines = read_yaml(path, name, inner)
    for d in inner.items:  # the tasks loader's YAML codes, renumbered into this range
        generic = d.hint in (task_codes.YAML.hint, task_codes.SCHEMA.hint)  # about task specs
        diags.add(d.severity, codes.YAML if d.code.endswith("01") else codes.SCHEMA, d.message,
                  d.source, None if generic else d.hint)
    if data is None and not lines:
        return None, {}
    if not isinstance(data, dict):
        diags.error(codes.SCHEMA, "a world spec holds one mapping (name, apps, ...), got "
                    f"{type(data).__name__}", SourceRef(file=name, line=1),
                    "see examples/world.yaml")
        return None, lines
    try:
        spec = WorldSpec.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            p = error_path(data, tuple(err["loc"]))
            diags.error(codes.SCHEMA, error_message(err, p),
                        SourceRef(file=name, line=line_of(lines, p)),
                        "see the fields in phoneworld/world/spec.py or examples/world.yaml")
        return None, lines
    _trace_sources(spec, path, lines, diags)
    return spec, lines


def _trace_sources(spec: WorldSpec, path: Path, lines: dict[YamlPath, int],
                   diags: Diagnostics) -> bool:
    """Whether every `traces:` folder exists and every `from:` names a format (else the build
    would stop with a usage error that does not name this file); reports each one that does not.
    """
    from phoneworld.ingest import FORMATS
    from phoneworld.ingest.context import did_you_mean

    ok = True
    for i, e in enumerate(spec.apps):
        key = "dir" if e.dir is not None else "traces"
        try:
            inputs.check_name(str(e.dir if e.dir is not None else e.traces))
        except inputs.InputFileError as exc:
            diags.error(codes.SCHEMA, f"apps[{i}].{key}: {exc.message}", SourceRef(
                file=path.as_posix(), line=line_of(lines, ("apps", i, key))), exc.hint)
            ok = False
            continue
        where = SourceRef(file=path.as_posix(), line=line_of(lines, ("apps", i, "from")))
        if e.from_ is not None and e.from_ not in FORMATS:
            diags.error(codes.SCHEMA, f"apps[{i}].from: unknown trace format {e.from_!r}"
                        f"{did_you_mean(e.from_, FORMATS)}", where,
                        f"use one of {', '.join(FORMATS)}, or leave `from` out to detect it")
            ok = False
        if e.traces is not None and not (path.parent / e.traces).is_dir():
            diags.error(codes.APP_MISSING, f"apps[{i}].traces: {e.traces} is not a folder",
                        SourceRef(file=path.as_posix(), line=line_of(lines, ("apps", i, "traces"))),
                        "give the folder of the app's traces, relative to the world spec")
            ok = False
    return ok


def _widgets(w: Widget) -> list[Widget]:
    out = [w]
    for c in w.children:
        out += _widgets(c)
    if w.list is not None:
        out += _widgets(w.list.item)
    return out


class _Checker:
    def __init__(self, file: str, lines: dict[YamlPath, int], diags: Diagnostics) -> None:
        self.file, self.lines, self.diags = file, lines, diags

    def err(self, code: str, msg: str, path: YamlPath, hint: str | None = None) -> None:
        self.diags.error(code, msg, SourceRef(file=self.file, line=line_of(self.lines, path)), hint)

    def screen(self, app: AppSpec, sid: str, path: YamlPath) -> ScreenSpec | None:
        try:
            return app.screen(sid)
        except KeyError:
            import difflib

            near = difflib.get_close_matches(sid, [s.id for s in app.screens], n=1)
            self.err(codes.UNKNOWN_NAME, f"app {app.package} has no screen {sid!r}"
                     + (f"; did you mean {near[0]!r}?" if near else ""), path,
                     "screen ids are in the app's app.json (`screens[].id`)")
            return None

    def widget(self, app: AppSpec, screen: ScreenSpec, wid: str, path: YamlPath,
               editable: bool = False) -> None:
        import difflib

        found = [w for w in _widgets(screen.root) if w.wid == wid]
        if not found:
            near = difflib.get_close_matches(wid, [w.wid for w in _widgets(screen.root)], n=1)
            self.err(codes.UNKNOWN_NAME, f"screen {screen.id} of {app.package} has no widget "
                     f"{wid!r}" + (f"; did you mean {near[0]!r}?" if near else ""), path)
        elif editable and not (found[0].editable or found[0].cls.endswith("EditText")):
            self.err(codes.UNKNOWN_NAME, f"widget {wid!r} on {screen.id} is not an editable "
                     "field", path, "name an EditText (or an editable widget)")

    def receive(self, app: AppSpec, e: AppEntry, base: YamlPath) -> None:
        """`receive:` names widgets on screens reached by taps, so each must be on some screen."""
        if e.receive is None:
            return
        import difflib

        known = {w.wid: w for sc in app.screens for w in _widgets(sc.root)}
        names = [(wid, (*base, "receive", "path", j)) for j, wid in enumerate(e.receive.path)]
        for wid, path in [*names, (e.receive.field, (*base, "receive", "field"))]:
            if wid not in known:
                near = difflib.get_close_matches(wid, list(known), n=1)
                self.err(codes.UNKNOWN_NAME, f"no screen of {app.package} has a widget {wid!r}"
                         + (f"; did you mean {near[0]!r}?" if near else ""), path)
        field = known.get(e.receive.field)
        if field is not None and not (field.editable or field.cls.endswith("EditText")):
            self.err(codes.UNKNOWN_NAME, f"widget {e.receive.field!r} is not an editable field",
                     (*base, "receive", "field"), "name an EditText (or an editable widget)")

    def entry(self, app: AppSpec, e: AppEntry, i: int) -> None:
        base: YamlPath = ("apps", i)
        self.receive(app, e, base)
        for j, s in enumerate(e.share):
            sc = self.screen(app, s.screen, (*base, "share", j, "screen"))
            if sc is not None:
                self.widget(app, sc, s.widget, (*base, "share", j, "widget"))
                if s.text_from:
                    self.widget(app, sc, s.text_from, (*base, "share", j, "text_from"))
        for j, p in enumerate(e.pick):
            sc = self.screen(app, p.screen, (*base, "pick", j, "screen"))
            if sc is not None:
                self.widget(app, sc, p.widget, (*base, "pick", j, "widget"))
                self.widget(app, sc, p.field, (*base, "pick", j, "field"), editable=True)


def load_world(path: str | Path, diags: Diagnostics | None = None) -> WorldDef:
    """Read, validate and resolve a world spec (or a built world folder); raise `InputError`
    with every problem."""
    from phoneworld.runtime.appdir import load_app

    diags = diags if diags is not None else Diagnostics()
    file = spec_file(Path(path))
    if not file.exists() and not file.is_symlink():  # a FIFO or a loop is read, and reported
        raise InputError(f"{file}: no world spec here", [diags_missing(file)])
    spec, lines = parse_world(file, diags)
    apps: list[WorldApp] = []
    if spec is not None:
        check = _Checker(file.as_posix(), lines, diags)
        seen: dict[str, int] = {}
        for i, e in enumerate(spec.apps):
            if e.dir is None:
                check.err(codes.APP_MISSING, f"app {i} is given as traces ({e.traces}); build "
                          "the world first", ("apps", i, "traces"),
                          f"run `phoneworld world build {file} --out DIR` and use DIR")
                continue
            try:
                inputs.check_name(e.dir)
            except inputs.InputFileError:
                continue  # reported by parse_world
            folder = (file.parent / e.dir).resolve()
            try:
                app = load_app(folder)
            except AppSpecError as exc:
                check.err(codes.APP_MISSING, str(exc), ("apps", i, "dir"),
                          "build it with `phoneworld build TRACES --out DIR`, or give `traces:`")
                continue
            if app.package in seen:
                check.err(codes.DUPLICATE, f"app {app.package} is already app {seen[app.package]}",
                          ("apps", i, "dir"), "list each app once")
                continue
            seen[app.package] = i
            check.entry(app, e, i)
            apps.append(WorldApp(app, folder, e))
    if diags.has_errors or spec is None:
        n = sum(d.severity == "error" for d in diags.items)
        raise InputError(f"the world spec {file} has {n} error(s)", diags.items)
    return WorldDef(spec, file, tuple(apps))


def diags_missing(file: Path) -> Any:
    from phoneworld.ir.diagnostics import Diagnostic

    return Diagnostic(severity="error", code=codes.APP_MISSING, message="no such file",
                      source=SourceRef(file=file.as_posix()),
                      hint="pass a world spec (YAML) or a folder built by `phoneworld world build`")
