"""Reading untrusted input files, bounded: the one place every reader (traces, specs) opens a file.

Traces and specs come from users and recorders, so a reader must never block, blow up or crash on
them. `read_bytes`/`read_text` read only regular files (a FIFO would block forever, a device never
end), only inside the input root when one is given (a symlink may not lead out of it, whatever the
file type), only up to a size bound, with names checked first (no NUL, none over-long) and UTF-8
decoding errors named. `load_json` rejects NaN and Infinity, numbers that overflow or have more
digits than any real value, and nesting past `MAX_DEPTH`. `load_yaml` is the safe loader with the
same depth bound, no recursive aliases and alias expansion bounded by `ALIAS_BUDGET` nodes (a
"billion laughs" is refused before anything walks it).

Every problem is raised as `InputFileError` with a `kind`, the line where there is one, and a
hint; each caller turns it into a diagnostic of its own code range (ingest PW17x, tasks PW301,
worlds PW401). This module is a leaf: it imports nothing from phoneworld.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any, Literal

import yaml

Kind = Literal["file", "depth", "number", "syntax"]

MAX_FILE_BYTES = 256 * 1024 * 1024
MAX_NAME_BYTES = 255  # one path component, as on Linux file systems
MAX_PATH_BYTES = 4096
MAX_DEPTH = 100  # nesting of JSON and YAML documents; real traces and specs nest under 20
MAX_INT_DIGITS = 18  # no coordinate, size, id or timestamp of a trace has more
ALIAS_BUDGET = 10_000  # nodes that YAML aliases may add to a document, in all
MAX_COORD = 1_000_000  # |coordinate| in device pixels: a 100x larger screen than any phone


class InputFileError(Exception):
    """A file that cannot be read safely, or a document beyond a bound."""

    def __init__(self, kind: Kind, message: str, line: int | None = None,
                 hint: str | None = None) -> None:
        super().__init__(message)
        self.kind, self.message, self.line, self.hint = kind, message, line, hint


# ----------------------------------------------------------------------------- files
def check_name(name: str) -> None:
    """Refuse a file reference that no file system can hold (NUL, over-long names)."""
    if "\x00" in name:
        raise InputFileError("file", f"the file name {name[:60]!r} contains a NUL character",
                             hint="file names cannot contain NUL; fix the reference")
    raw = name.encode("utf-8", "surrogatepass")
    if len(raw) > MAX_PATH_BYTES or any(len(p) > MAX_NAME_BYTES for p in raw.split(b"/")):
        raise InputFileError("file", f"the file name {name[:60]!r}... is too long "
                             f"({len(raw)} bytes)", hint=f"a file name has at most "
                             f"{MAX_NAME_BYTES} bytes and a path {MAX_PATH_BYTES}; fix the "
                             "reference")


def resolve_inside(path: Path, root: Path | None) -> Path:
    """`path` with its symlinks resolved; it must exist and, with a `root`, lie inside it."""
    check_name(str(path))
    try:
        real = path.resolve(strict=True)
    except RuntimeError:  # Python 3.11 reports a symlink loop this way
        raise _loop(path) from None
    except FileNotFoundError:
        raise InputFileError("file", f"{path.name} does not exist",
                             hint="fix the path, or add the file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _loop(path) from None
        raise InputFileError("file", f"cannot read {path.name}: {exc.strerror}") from None
    if root is not None and not real.is_relative_to(root.resolve()):
        raise InputFileError("file", f"{path.name} is a symlink that leads outside the input "
                             "folder", hint="copy the file into the input folder instead of "
                             "linking to it")
    return real


def _loop(path: Path) -> InputFileError:
    return InputFileError("file", f"{path.name} is a symlink loop",
                          hint="remove the link, or point it at a real file")


def read_head(path: Path, size: int) -> bytes:
    """The first `size` bytes of a regular file; b"" for anything else (it is only a sniff)."""
    try:
        return read_bytes(path, None, size, head=True)
    except InputFileError:
        return b""


def read_bytes(path: Path, root: Path | None = None, limit: int = MAX_FILE_BYTES,
               head: bool = False) -> bytes:
    """The bytes of a regular file (inside `root` when given), at most `limit` of them (with
    `head`, the first `limit` bytes of a longer file)."""
    real = resolve_inside(path, root)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags)
    except OSError as exc:
        raise InputFileError("file", f"cannot read {path.name}: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputFileError("file", f"{path.name} is not a regular file ({_kind(info)})",
                                 hint="phoneworld reads only regular files; replace it by one")
        if info.st_size > limit and not head:
            raise InputFileError("file", f"{path.name} has {info.st_size} bytes, more than the "
                                 f"{limit} phoneworld reads", hint="split or shrink the file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit if head else limit + 1)
    except OSError as exc:
        raise InputFileError("file", f"cannot read {path.name}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise InputFileError("file", f"{path.name} is larger than the {limit} bytes phoneworld "
                             "reads", hint="split or shrink the file")
    return data


def _kind(info: os.stat_result) -> str:
    mode = info.st_mode
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a plain file"


def decode(data: bytes, name: str, encoding: str = "utf-8") -> str:
    """UTF-8 text of `data`; an error names the file, the byte and its line."""
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputFileError("file", f"{name} is not UTF-8 text (byte 0x{data[exc.start]:02x} "
                             f"at offset {exc.start})", line,
                             "save the file as UTF-8 (e.g. `iconv -t UTF-8`)") from None


def read_text(path: Path, root: Path | None = None, limit: int = MAX_FILE_BYTES,
              encoding: str = "utf-8") -> str:
    """The UTF-8 text of a regular file (see `read_bytes`)."""
    return decode(read_bytes(path, root, limit), path.name, encoding)


def is_regular(path: Path, root: Path | None = None) -> bool:
    """Whether `path` is a regular file (inside `root`), without opening it."""
    try:
        real = resolve_inside(path, root)
        return stat.S_ISREG(real.stat().st_mode)
    except (InputFileError, OSError):
        return False


# ----------------------------------------------------------------------------- JSON
def _line_of(text: str, token: str) -> int | None:
    at = text.find(token)
    return text.count("\n", 0, at) + 1 if at >= 0 else None


class _Number(ValueError):
    def __init__(self, token: str, why: str) -> None:
        super().__init__(why)
        self.token, self.why = token, why


def _constant(token: str) -> Any:
    raise _Number(token, f"{token} is not a number JSON allows")


def _float(token: str) -> float:
    value = float(token)
    if value in (float("inf"), float("-inf")):
        raise _Number(token, f"{token[:40]} overflows a float")
    return value


def _int(token: str) -> int:
    if len(token.lstrip("-")) > MAX_INT_DIGITS:
        raise _Number(token, f"an integer of {len(token.lstrip('-'))} digits")
    return int(token)


def load_json(text: str) -> Any:
    """The JSON document of `text`, with finite numbers of bounded size and bounded nesting."""
    try:
        data = json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except json.JSONDecodeError as exc:
        raise InputFileError("syntax", f"invalid JSON: {exc.msg} (column {exc.colno})",
                             exc.lineno) from None
    except _Number as exc:
        raise InputFileError("number", f"{exc.why}", _line_of(text, exc.token),
                             "numbers must be finite, with at most "
                             f"{MAX_INT_DIGITS} digits") from None
    except RecursionError:
        raise _deep("JSON") from None
    if _depth(data) > MAX_DEPTH:
        raise _deep("JSON")
    return data


def _deep(what: str, line: int | None = None) -> InputFileError:
    return InputFileError("depth", f"the {what} document is nested more than {MAX_DEPTH} levels "
                          "deep", line, f"phoneworld reads documents nested up to {MAX_DEPTH} "
                          "levels; real ones nest far less, so the file is damaged or generated")


def _depth(data: Any) -> int:
    deepest, stack = 0, [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                return depth
            values = item.values() if isinstance(item, dict) else item
            stack.extend((v, depth + 1) for v in values)
    return deepest


# ----------------------------------------------------------------------------- YAML
def load_yaml(text: str, fast: bool = False) -> tuple[yaml.Node | None, Any]:
    """The node tree (for line numbers) and the data of one YAML document, bounded.

    `fast` uses libyaml where installed (its messages differ slightly from the pure loader's)."""
    cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader) if fast else yaml.SafeLoader
    loader = None
    try:
        loader = cls(text)  # the reader refuses control characters here already
        node = loader.get_single_node()
        if node is None:
            return None, None
        check_nodes(node)
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise _yaml_syntax(exc, text) from None
    except yaml.YAMLError as exc:  # reader errors: control characters, bad encodings
        position = getattr(exc, "position", None)
        line = text.count("\n", 0, position) + 1 if isinstance(position, int) else None
        raise InputFileError("syntax", f"invalid YAML: {exc}", line) from None
    except RecursionError:
        raise _deep("YAML") from None
    except (ValueError, OverflowError) as exc:  # int of 5,000 digits, a date like 2024-02-30
        raise InputFileError("number", f"a value YAML cannot read: {exc}", None,
                             "write dates as YYYY-MM-DD that exist and numbers of at most "
                             f"{MAX_INT_DIGITS} digits") from None
    finally:
        if loader is not None:
            loader.dispose()
    bad = _bad_number(data)
    if bad is not None:
        raise InputFileError("number", f"{bad} is not a number phoneworld accepts", None,
                             f"numbers must be finite, with at most {MAX_INT_DIGITS} digits")
    return node, data


def _bad_number(data: Any) -> str | None:
    """The first NaN, infinity or over-long integer of constructed data (shared parts once)."""
    seen: set[int] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, float) and (item != item or item in (float("inf"), float("-inf"))):
            return repr(item)
        if isinstance(item, int) and abs(item) >= 10 ** MAX_INT_DIGITS:
            return f"an integer of {len(str(abs(item)))} digits"
        if isinstance(item, (dict, list)) and id(item) not in seen:
            seen.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)
            if isinstance(item, dict):
                stack.extend(item.keys())
    return None


def _yaml_syntax(exc: yaml.MarkedYAMLError, text: str) -> InputFileError:
    last = max(1, len(text.splitlines()))
    line = min(exc.problem_mark.line + 1, last) if exc.problem_mark is not None else None
    where = ""
    if exc.context and exc.context_mark is not None:
        where = f" ({exc.context} on line {exc.context_mark.line + 1})"
    return InputFileError("syntax", f"invalid YAML: {exc.problem}{where}", line)


def check_nodes(root: yaml.Node) -> None:
    """Refuse a node graph that is recursive, too deep, or whose aliases expand too far.

    Aliases make the node tree a graph: a walk over the data visits a shared node once per alias.
    Sizes (expanded node counts) and depths are computed once per node, without recursion."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    unique = 0
    open_: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        kids = _children(node)
        if done:
            open_.discard(key)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            if depth[key] > MAX_DEPTH:
                raise _deep("YAML", node.start_mark.line + 1)
            continue
        if key in size:
            continue
        if key in open_:
            raise InputFileError("syntax", "a YAML alias refers to a node that contains it",
                                 node.start_mark.line + 1, "YAML specs and traces cannot be "
                                 "recursive; replace the alias by the values it stands for")
        if len(open_) > MAX_DEPTH:
            raise _deep("YAML", node.start_mark.line + 1)
        unique += 1
        open_.add(key)
        stack.append((node, True))
        stack.extend((k, False) for k in kids if id(k) not in size)
    if size[id(root)] > unique + ALIAS_BUDGET:
        raise InputFileError("syntax", f"YAML aliases expand the document to {size[id(root)]} "
                             f"nodes, from {unique}", None, f"aliases may add at most "
                             f"{ALIAS_BUDGET} nodes (this refuses \"billion laughs\" documents); "
                             "write the values out instead")


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []
