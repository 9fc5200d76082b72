"""Loading task specs from YAML, with the line of every value, so each problem names file and line.

`load_task_specs(paths, app)` reads every `*.yaml` file (or folder of them), validates each with
pydantic, checks it against the app (`phoneworld.tasks.typecheck`) and returns the tasks, or raises
`InputError` carrying every diagnostic of every file at once.
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from phoneworld import inputs
from phoneworld.errors import InputError
from phoneworld.ir.app import AppSpec
from phoneworld.ir.base import SourceRef
from phoneworld.ir.diagnostics import Diagnostic, Diagnostics
from phoneworld.tasks import codes
from phoneworld.tasks.rules import BAD_TAG, RULE_OPS
from phoneworld.tasks.spec import PARAM_SOURCES, TaskSpec

log = logging.getLogger(__name__)

YamlPath = tuple[Any, ...]
TASK_FIELDS = tuple(f.alias or n for n, f in TaskSpec.model_fields.items())


@dataclass(frozen=True)
class LoadedTask:
    """A validated task spec and where it came from (file, and the line of every value)."""

    spec: TaskSpec
    file: str
    lines: dict[YamlPath, int]

    def at(self, path: YamlPath = ()) -> SourceRef:
        return SourceRef(file=self.file, line=line_of(self.lines, path))


def line_of(lines: dict[YamlPath, int], path: YamlPath) -> int | None:
    """The line of `path`, or of its nearest ancestor that has one."""
    for n in range(len(path), -1, -1):
        if path[:n] in lines:
            return lines[path[:n]]
    return None


def _node_lines(node: yaml.Node, path: YamlPath, out: dict[YamlPath, int],
                dupes: list[tuple[YamlPath, int]]) -> None:
    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for k, v in node.value:
            key = k.value if isinstance(k, yaml.ScalarNode) else str(k.start_mark)
            if key in seen:
                dupes.append(((*path, key), k.start_mark.line + 1))
            seen.add(key)
            out[(*path, key)] = k.start_mark.line + 1
            _node_lines(v, (*path, key), out, dupes)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _node_lines(item, (*path, i), out, dupes)


def read_yaml(file: Path, name: str, diags: Diagnostics) -> tuple[Any, dict[YamlPath, int]]:
    """The YAML document of `file` and its line map, or (None, {}) after reporting the problem
    (an unreadable file, invalid or unbounded YAML, or a file with no document at all)."""
    try:
        text = inputs.read_text(file)
        node, data = inputs.load_yaml(text)
    except inputs.InputFileError as exc:
        what = "cannot read the file" if exc.kind == "file" and not exc.message.startswith(
            "invalid") else ""
        message = f"{what}: {exc.message}" if what else exc.message
        diags.error(codes.YAML, message, SourceRef(file=name, line=exc.line),
                    exc.hint)
        return None, {}
    if node is None:
        diags.error(codes.YAML, "the file holds no YAML document (it is empty or only comments)",
                    SourceRef(file=name), "write the spec's fields into it, or delete the file")
        return None, {}
    lines: dict[YamlPath, int] = {}
    dupes: list[tuple[YamlPath, int]] = []
    if node is not None:
        _node_lines(node, (), lines, dupes)
    for path, line in dupes:
        diags.error(codes.SCHEMA, f"key {_render(path)} appears twice", SourceRef(file=name, line=line))
    return data, lines


def error_path(data: Any, loc: tuple[Any, ...]) -> YamlPath:
    """A pydantic error location as a path into the YAML data: tagged-union tags (which pydantic
    puts into the location) are dropped, since they are not keys of the document."""
    out: list[Any] = []
    cur = data
    for part in loc:
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
            out.append(part)
        elif isinstance(cur, list) and isinstance(part, int) and 0 <= part < len(cur):
            cur = cur[part]
            out.append(part)
        elif isinstance(cur, (dict, list)):
            continue  # a union tag, or a missing key (reported at its parent)
        else:
            break
    if loc and isinstance(loc[-1], str) and loc[-1] not in out and isinstance(cur, dict):
        out.append(loc[-1])  # a missing or unknown key: point at the mapping that lacks it
    return tuple(out)


def _render(path: YamlPath) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the document"


def _near(word: str, known: Iterable[str]) -> str:
    near = difflib.get_close_matches(word, list(known), n=1)
    return f" (did you mean {near[0]!r}?)" if near else ""


def error_message(err: Any, path: YamlPath) -> str:
    """One pydantic error of a YAML document (`err`, at `path` from `error_path`) as a message
    that names the field and, for a misspelt key or tag, the nearest known one."""
    t, where = err["type"], _render(path)
    inp = err.get("input")
    if t == "union_tag_not_found" and "'from'" in err.get("ctx", {}).get("discriminator", ""):
        return (f"{where}: a parameter needs `from:`, how its value is drawn: one of "
                f"{', '.join(PARAM_SOURCES)} (e.g. {{type: text, from: phrase}})")
    if t in ("union_tag_invalid", "union_tag_not_found"):
        ctx = err.get("ctx", {})
        tag = ctx.get("tag", "")
        expected = ctx.get("expected_tags", "")
        if "not one key" in tag or tag == BAD_TAG:
            keys = ", ".join(repr(k) for k in inp) if isinstance(inp, dict) else repr(inp)
            return (f"{where}: expected a mapping with exactly one key (one of {expected}), "
                    f"got {keys}")
        known = re.findall(r"'([^']+)'", expected) or list(RULE_OPS)
        return (f"{where}: unknown {tag!r}{_near(tag, known)}; expected one of "
                f"{expected or ', '.join(known)}")
    if t == "extra_forbidden":
        known = TASK_FIELDS if len(path) == 1 else ()
        return f"unknown field {where}{_near(str(path[-1]), known)}"
    if t == "missing":
        return f"{where}: required field is missing"
    return f"{where}: {err['msg']} (got {inp!r:.60})"


def parse_task(data: Any, lines: dict[YamlPath, int], name: str,
               diags: Diagnostics) -> TaskSpec | None:
    """Validate one YAML document as a task spec; report every schema problem with its line."""
    if not isinstance(data, dict):
        diags.error(codes.SCHEMA, "a task spec file holds one mapping (id, app, instruction, "
                    f"rule, ...), got {type(data).__name__}", SourceRef(file=name, line=1))
        return None
    try:
        return TaskSpec.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            path = error_path(data, tuple(err["loc"]))
            inp = err.get("input")
            if err["type"] == "union_tag_invalid" and isinstance(inp, dict) and len(inp) == 1:
                path = (*path, next(iter(inp)))  # point at the unknown key itself
            diags.error(codes.SCHEMA, error_message(err, path),
                        SourceRef(file=name, line=line_of(lines, path)))
        return None


def spec_files(paths: Iterable[Path]) -> list[Path]:
    """The YAML files named, and those inside the folders named, in a stable order."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out += sorted(q for q in p.rglob("*") if q.suffix in (".yaml", ".yml") and q.is_file())
        else:
            out.append(p)
    return out


def load_task_specs(paths: Iterable[Path], app: AppSpec,
                    diags: Diagnostics | None = None) -> list[LoadedTask]:
    """Load, validate and check every task spec under `paths` for `app`; raise InputError with
    all problems when any has an error."""
    from phoneworld.tasks.typecheck import check_task

    loaded = load_checked(paths, lambda task: check_task(task, app), "the task specs", diags)
    log.info("loaded %d task spec(s) for %s", len(loaded), app.package)
    return loaded


def load_checked(paths: Iterable[Path], check: Callable[[LoadedTask], list[Diagnostic]],
                 what: str, diags: Diagnostics | None = None) -> list[LoadedTask]:
    """Every spec under `paths`, parsed, with unique ids and checked by `check` (an app's or a
    world's checker); raise InputError naming `what` with all problems when any has an error."""
    diags = diags if diags is not None else Diagnostics()
    loaded: list[LoadedTask] = []
    ids: dict[str, str] = {}
    for file in spec_files(paths):
        name = file.as_posix()
        data, lines = read_yaml(file, name, diags)
        if data is None and not lines:
            continue
        spec = parse_task(data, lines, name, diags)
        if spec is None:
            continue
        task = LoadedTask(spec, name, lines)
        if spec.id in ids:
            diags.error(codes.DUPLICATE, f"task id {spec.id!r} is also used by {ids[spec.id]}",
                        task.at(("id",)))
            continue
        ids[spec.id] = name
        problems = check(task)
        diags.extend(problems)
        if not any(d.severity == "error" for d in problems):
            loaded.append(task)
    if diags.has_errors:
        n = sum(d.severity == "error" for d in diags.items)
        raise InputError(f"{what} have {n} error(s)", diags.items)
    return loaded
