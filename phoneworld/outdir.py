"""The output folder contract: phoneworld deletes or replaces only what it wrote.

Every command that writes a folder (`build`, `world build`, `report`, `demos`, `record`, `apk`,
`world apk`) goes through this module, and nothing else in phoneworld removes or replaces a folder.

- A folder phoneworld replaces as a whole (an app of `build`, a world of `world build`, a project
  of `world apk`) carries a manifest, `MARKER`, listing every file it wrote. It is replaced only
  when it is absent, empty, holds nothing its manifest does not list, or is a folder an earlier
  phoneworld version wrote (recognised by its layout); `force` takes any other folder over.
- A folder phoneworld writes into (`build --out`, `record --out`, `demos --traces`, `world apk
  --out`) carries a root marker of its kind. Such a folder must be absent, empty, marked with the
  same kind, laid out as an earlier version wrote it, or taken over with `force`.
- An output that is, contains or lies inside an input is refused, `force` or not: taking it over
  would destroy what the command reads.
- Paths are checked before any work: an output under a file, on /proc, /sys or /dev, or in a
  folder that cannot be written is refused at once, not after the build.
- Names from the input (app ids, task ids, world names) become path components only through
  `check_name`: the Android package grammar for apps, and never `.`, `..`, a separator, a NUL or
  more than `MAX_NAME` characters for anything.
- Replacement is atomic: the new folder is written to a temporary sibling and renamed into place;
  the old one is removed only after, and on any failure nothing new is left behind.

Every refusal is an `OutputError` (exit 2) carrying an `error[PW05x]` diagnostic that names the
folder and a hint; see `CODES`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from phoneworld.errors import OutputError
from phoneworld.ir.base import SourceRef
from phoneworld.ir.diagnostics import Diagnostic

MARKER = ".phoneworld-out.json"
FORMAT = 1
MAX_NAME = 128
PSEUDO_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))
SHM = Path("/dev/shm")  # a real (memory) filesystem under /dev
STEP_FILE = re.compile(r"\d+\.(xml|png)")
PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*")
TRACES_KIND = "traces"  # a trace folder `record`, `demos --traces` and `run --trace-out` write into
EPISODE_KIND = "episode"  # one trace episode folder they replace
FORCE_HINT = "pass --force to take it over (phoneworld may then delete what it holds)"

CODES = {
    "PW050": "the output path cannot be written (a file, under a file, a pseudo filesystem, "
             "or not writable)",
    "PW051": "the output is, contains or lies inside an input of the command",
    "PW052": "the output folder is not empty and was not written by phoneworld",
    "PW053": "a phoneworld output folder holds a file phoneworld did not write",
    "PW054": "a name from the input cannot become a file or folder name",
    "PW055": "two outputs of one run would go to the same folder",
}

# What earlier phoneworld versions (before the marker) wrote, to recognise their folders.
LEGACY_APP = frozenset({"app.json", "report.json", "report.html", "tasks.json", "task_specs",
                        "verifiers", "android", "compare.html"})
LEGACY_WORLD = frozenset({"world.yaml", "tasks.json", "task_specs", "verifiers", "apk"})
WORLD_HEADER = "# Built by `phoneworld world build"


def refuse(code: str, path: Path | str, message: str, hint: str) -> OutputError:
    d = Diagnostic(severity="error", code=code, message=message,
                   source=SourceRef(file=str(path)), hint=hint)
    return OutputError(f"nothing was written to {path}", [d])


# ----------------------------------------------------------------------------- names


def name_problem(name: str, package: bool = False) -> str | None:
    """Why `name` cannot be a path component (None when it can)."""
    if not name:
        return "it is empty"
    if "\x00" in name:
        return "it holds a NUL character"
    if name in (".", ".."):
        return f"{name!r} names a folder itself, not one inside it"
    if "/" in name or "\\" in name or os.sep in name:
        return "it holds a path separator"
    if len(name) > MAX_NAME:
        return f"it is {len(name)} characters long (at most {MAX_NAME})"
    if package and not PACKAGE.fullmatch(name):
        return ("it is not an Android package name (letters, digits and _ in dot-separated "
                "parts, each starting with a letter, e.g. com.example.notes)")
    if not package and (name.startswith(".") or any(ord(c) < 32 for c in name)):
        return "it starts with a dot or holds a control character"
    return None


def check_name(name: str, what: str, source: SourceRef, package: bool = False) -> Diagnostic | None:
    """A PW054 diagnostic naming `source` when `name` cannot become a path (None when it can)."""
    problem = name_problem(name, package)
    if problem is None:
        return None
    hint = ("set the app's package to its Android package name (e.g. com.example.notes)"
            if package else f"rename the {what} to letters, digits, '.', '_' and '-'")
    return Diagnostic(severity="error", code="PW054",
                      message=f"{what} {name[:80]!r} cannot be a folder name: {problem}",
                      source=source, hint=hint)


def require_names(diagnostics: list[Diagnostic], what: str) -> None:
    if diagnostics:
        raise OutputError(f"{len(diagnostics)} {what}(s) cannot become folder names; "
                          "nothing was written", diagnostics)


# ----------------------------------------------------------------------------- paths


def _within(a: Path, b: Path) -> bool:
    return a == b or b in a.parents


def check_path(out: Path, folder: bool = True) -> Path:
    """`out` (a folder, or a file with `folder=False`), absolute and resolved, or the refusal
    that says why it can never be written."""
    p = Path(os.path.abspath(out))
    try:
        p = p.resolve()
    except (OSError, RuntimeError) as exc:
        raise refuse("PW050", out, f"the path cannot be resolved ({exc})",
                     "pass a plain folder path") from exc
    for root in PSEUDO_ROOTS:
        if _within(p, root) and not _within(p, SHM):
            raise refuse("PW050", out, f"it lies on the {root} pseudo filesystem",
                         "pass a folder on a real disk, e.g. --out out/")
    probe = p if folder else p.parent
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        where = "it is a file" if probe == p else f"it lies under the file {probe}"
        raise refuse("PW050", out, f"{where}, not a folder" if folder else where,
                     "pass a path in an existing folder, or in one to create")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise refuse("PW050", out, f"{probe} cannot be written",
                     "pass a folder you can write to")
    return p


def check_inputs(out: Path, inputs: Iterable[Path], what: str = "output") -> None:
    """Refuse an output that is, contains or lies inside one of `inputs` (force or not)."""
    for given in inputs:
        i = Path(os.path.abspath(given)).resolve()
        if _within(out, i) or _within(i, out):
            rel = ("is" if out == i else "lies inside" if _within(out, i) else "contains")
            raise refuse("PW051", out, f"the {what} {rel} the input {given}",
                         "write the output somewhere else, e.g. --out out/ beside the input; "
                         "--force does not override this")


# ----------------------------------------------------------------------------- markers


def read_marker(folder: Path) -> dict[str, object] | None:
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == FORMAT else None


def _write_json(path: Path, data: dict[str, object]) -> None:
    with atomic_text(path) as f:  # several recorders may open one trace folder at once
        f.write(json.dumps(data, indent=1, sort_keys=True) + "\n")


def _files(folder: Path) -> Iterator[str]:
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, name), folder)
            if rel != MARKER:
                yield rel.replace(os.sep, "/")


def write_manifest(folder: Path, kind: str) -> None:
    """`folder/MARKER`: the kind and every file in `folder` (what phoneworld just wrote)."""
    _write_json(folder / MARKER, {"format": FORMAT, "kind": kind, "files": sorted(_files(folder))})


def add_to_manifest(folder: Path, *names: str) -> None:
    """Record files written into a manifested folder after it was published (an APK, a page)."""
    data = read_marker(folder)
    if data is None or not isinstance(data.get("files"), list):
        return
    files = sorted(set(data["files"]) | set(names))  # type: ignore[arg-type]
    _write_json(folder / MARKER, {**data, "files": files})


def _owned(folder: Path, kind: str,
           legacy: Callable[[Path], bool] | None) -> tuple[str, str, str] | None:
    """Why phoneworld may not replace or write into `folder`, as (code, message, hint); None
    when it may."""
    if not folder.exists():
        return None
    if not folder.is_dir() or folder.is_symlink():
        return "PW050", "it is not a folder", "pass a folder path"
    if not any(folder.iterdir()):
        return None
    data = read_marker(folder)
    if data is None:
        if legacy is not None and legacy(folder):
            return None
        return ("PW052", f"the folder is not empty and phoneworld did not write it (no {MARKER})",
                f"pass an empty or new folder, or {FORCE_HINT}")
    if data.get("kind") != kind:
        return ("PW052", f"it is a phoneworld {data.get('kind')} folder, not a {kind} folder",
                f"pass another folder, or {FORCE_HINT}")
    listed = data.get("files")
    if isinstance(listed, list):
        verdicts: dict[Path, bool] = {}
        for rel in sorted(set(_files(folder)) - set(listed)):
            sub, sub_kind = _marked_parent(folder, rel)
            if sub is not None and sub not in verdicts:
                verdicts[sub] = _owned(sub, sub_kind, None) is None
            if sub is None or not verdicts[sub]:
                return ("PW053", f"it holds {rel}, which phoneworld did not write (not in its "
                        "manifest)", f"move that file out of the folder, or {FORCE_HINT}")
    return None


def _marked_parent(folder: Path, rel: str) -> tuple[Path | None, str]:
    """The subfolder of `folder` holding `rel` that phoneworld marked when it wrote it later
    (e.g. a world's apk/, added by `world apk` after `world build`) and its kind, if any."""
    parts = rel.split("/")[:-1]
    for n in range(len(parts), 0, -1):
        sub = folder.joinpath(*parts[:n])
        data = read_marker(sub)
        if data is not None:
            return sub, str(data.get("kind"))
    return None, ""


def check_replaceable(folder: Path, kind: str, legacy: Callable[[Path], bool] | None,
                      force: bool) -> None:
    """Refuse to replace or write into `folder` unless phoneworld owns it (or `force`)."""
    if folder.exists() and not folder.is_dir():
        raise refuse("PW050", folder, "it is a file, not a folder", "pass a folder path")
    why = None if force else _owned(folder, kind, legacy)
    if why is not None:
        raise refuse(why[0], folder, why[1], why[2])


# ----------------------------------------------------------------------------- the two folder roles


@dataclass(frozen=True)
class Root:
    """A folder phoneworld writes into (several apps, traces, APKs), claimed before any work."""

    path: Path
    kind: str
    force: bool = False

    def open(self) -> Path:
        """Create the folder and its marker (called when the first thing is written into it)."""
        self.path.mkdir(parents=True, exist_ok=True)
        if read_marker(self.path) is None:
            _write_json(self.path / MARKER, {"format": FORMAT, "kind": self.kind})
        return self.path


def claim_root(out: Path, kind: str, inputs: Iterable[Path] = (), force: bool = False,
               legacy: Callable[[Path], bool] | None = None) -> Root:
    """Check `out` may be written into as a `kind` root; writes nothing (see `Root.open`)."""
    path = check_path(out)
    check_inputs(path, inputs)
    check_replaceable(path, kind, legacy, force)
    return Root(out, kind, force)  # as given: the paths printed stay as the user wrote them


def claim_folder(out: Path, kind: str, inputs: Iterable[Path] = (), force: bool = False,
                 legacy: Callable[[Path], bool] | None = None) -> Path:
    """Check `out` may be replaced as a whole by a `kind` folder; writes nothing."""
    path = check_path(out)
    check_inputs(path, inputs)
    check_replaceable(path, kind, legacy, force)
    return path


def replace_folder(final: Path, kind: str, write: Callable[[Path], None], force: bool = False,
                   legacy: Callable[[Path], bool] | None = None) -> Path:
    """Write a `kind` folder by `write(staging)` and put it at `final` atomically.

    `final` must be absent or replaceable (see `_owned`); the staging folder is a sibling, so the
    swap is renames on one filesystem, and it is removed whatever happens."""
    check_replaceable(final, kind, legacy, force)
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{final.name[:40]}.new.", dir=final.parent))
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(staging, 0o777 & ~umask)  # mkdtemp makes it private; an output is not
        write(staging)
        write_manifest(staging, kind)
        _swap(staging, final)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return final


def _swap(staging: Path, final: Path) -> None:
    if not final.exists():
        os.replace(staging, final)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{final.name[:40]}.old.", dir=final.parent))
    try:
        os.replace(final, old / "prev")
        try:
            os.replace(staging, final)
        except OSError:
            os.replace(old / "prev", final)  # put the earlier folder back as it was
            raise
    finally:
        shutil.rmtree(old)


# ----------------------------------------------------------------------------- single files


def claim_file(out: Path, inputs: Iterable[Path] = (), force: bool = False,
               signature: bytes | None = None, what: str = "file") -> Path:
    """Check the file `out` may be written: not a folder, not an input, and when it exists, one
    phoneworld wrote (its first 4 KiB hold `signature`) unless `force`."""
    path = check_path(out, folder=False)
    for given in inputs:
        i = Path(os.path.abspath(given)).resolve()
        if path == i or _within(i, path) or (i.is_dir() and _within(path, i)):
            rel = "is" if path == i else "lies inside" if _within(path, i) else "contains"
            raise refuse("PW051", out, f"the output {what} {rel} the input {given}",
                         "write it somewhere else; --force does not override this")
    if path.is_dir():
        raise refuse("PW050", out, "it is a folder, not a file", f"pass the {what}'s path")
    if path.exists() and not force:
        if not path.is_file():
            raise refuse("PW050", out, "it is not a regular file", f"pass the {what}'s path")
        if signature is not None and path.stat().st_size:
            with path.open("rb") as fh:
                head = fh.read(4096)
            if signature not in head:
                raise refuse("PW052", out, f"the file exists and is not a {what} phoneworld "
                             "wrote", f"pass another path, or {FORCE_HINT}")
    return path


@contextmanager
def atomic_text(path: Path) -> Iterator[TextIO]:
    """A text file that replaces `path` in one step when the block ends without error; a reader
    never sees half of it, and a failure leaves the earlier file as it was."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:40]}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            yield f
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


# ----------------------------------------------------------------------------- legacy layouts


def legacy_app(folder: Path) -> bool:
    """An app folder `phoneworld build` wrote before the marker."""
    if not folder.is_dir() or not (folder / "app.json").is_file():
        return False
    return all(p.name in LEGACY_APP or p.name.endswith("-debug.apk") for p in folder.iterdir())


def legacy_apps_root(folder: Path) -> bool:
    """A `build --out` folder an earlier version wrote: nothing but legacy app folders."""
    return all(legacy_app(p) for p in folder.iterdir())


def legacy_world(folder: Path) -> bool:
    try:
        with (folder / "world.yaml").open(encoding="utf-8") as fh:
            first = fh.readline()
    except (OSError, UnicodeDecodeError):
        return False
    return first.startswith(WORLD_HEADER) and all(
        p.name in LEGACY_WORLD or legacy_app(p) for p in folder.iterdir())


def legacy_episode(folder: Path) -> bool:
    """An episode folder of a native trace: episode.json with its screens and screenshots."""
    return (folder / "episode.json").is_file() and all(
        p.is_file() and (p.name == "episode.json" or STEP_FILE.fullmatch(p.name))
        for p in folder.iterdir())


def legacy_traces_root(folder: Path) -> bool:
    """A trace folder `record` or `demos --traces` wrote: <app>/<episode>/episode.json only."""
    return all(p.is_dir() and all(e.is_dir() and (e / "episode.json").is_file()
                                  for e in p.iterdir()) for p in folder.iterdir())
