"""What every importer of the ingest pass shares: the root, path naming, and diagnostics reporting.

Paths inside models and diagnostics are relative to the *parent* of the root, so they name the root
folder too (`traces/com.example/ep_1/0003.xml`), and never absolute. Episode ids are the episode
folder's path relative to the root (or the root's name when the root is itself the episode).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from phoneworld import inputs
from phoneworld.ingest import codes
from phoneworld.ingest.codes import Code, report
from phoneworld.ir.base import SourceRef
from phoneworld.ir.diagnostics import Diagnostics


@dataclass
class IngestContext:
    """The root being ingested and the diagnostics collector of the run."""

    root: Path
    diagnostics: Diagnostics

    @property
    def base(self) -> Path:
        return self.root.parent

    def rel(self, path: Path) -> str:
        """`path` relative to the root's parent, POSIX style."""
        try:
            return path.relative_to(self.base).as_posix()
        except ValueError:  # outside the tree: keep only the name, never an absolute path
            return path.name

    def episode_id(self, folder: Path) -> str:
        rel = folder.relative_to(self.root).as_posix()
        return self.root.name if rel == "." else rel

    def src(
        self, path: Path, line: int | None = None, episode: str | None = None,
        step: int | None = None,
    ) -> SourceRef:
        return SourceRef(file=self.rel(path), line=line, episode=episode, step=step)

    def report(self, code: Code, message: str, source: SourceRef, hint: str | None = None) -> None:
        report(self.diagnostics, code, message, source, hint)

    def report_input(self, exc: inputs.InputFileError, source: SourceRef, syntax: Code) -> None:
        """A reader's problem as a diagnostic: its kind picks the code (`syntax` for a parse
        error of the format), its line, when it has one, goes into `source`."""
        code = {"file": codes.UNREADABLE_FILE, "depth": codes.TOO_DEEP,
                "number": codes.OUT_OF_RANGE}.get(exc.kind, syntax)
        where = source.model_copy(update={"line": exc.line}) if exc.line else source
        self.report(code, exc.message, where, exc.hint)

    def read_bytes(self, path: Path, source: SourceRef) -> bytes | None:
        """A regular file inside the root (see `phoneworld.inputs`), or None after PW170."""
        try:
            return inputs.read_bytes(path, self.root)
        except inputs.InputFileError as exc:
            self.report_input(exc, source, codes.UNREADABLE_FILE)
            return None

    def read_text(self, path: Path, source: SourceRef, encoding: str = "utf-8") -> str | None:
        """The UTF-8 text of a regular file inside the root, or None after PW170."""
        data = self.read_bytes(path, source)
        if data is None:
            return None
        try:
            return inputs.decode(data, path.name, encoding)
        except inputs.InputFileError as exc:
            self.report_input(exc, source, codes.UNREADABLE_FILE)
            return None

    def load_json(self, text: str, source: SourceRef, syntax: Code) -> tuple[bool, Any]:
        """(ok, data) of bounded JSON text; `syntax` is the format's parse-error code."""
        try:
            return True, inputs.load_json(text)
        except inputs.InputFileError as exc:
            self.report_input(exc, source, syntax)
            return False, None

    def is_file(self, path: Path) -> bool:
        """A regular file inside the root (what `read_*` would read)."""
        return inputs.is_regular(path, self.root)


@dataclass
class Tally:
    """Collapses a warning that repeats many times in one source into one diagnostic.

    The first occurrence keeps its exact source (file, episode, step); the message says how many
    more there were, so a 1,000-event DroidBot run does not print 800 identical warnings.
    """

    code: Code
    scope: str
    count: int = 0
    first: tuple[str, SourceRef] | None = None
    files: set[str] = field(default_factory=set)

    def add(self, message: str, source: SourceRef) -> None:
        self.count += 1
        self.files.add(source.file)
        if self.first is None:
            self.first = (message, source)

    def flush(self, ctx: IngestContext, what_was_done: str) -> None:
        if self.first is None:
            return
        message, source = self.first
        if self.count > 1:
            message += (f" ({self.count - 1} more like this in {len(self.files)} file(s) of "
                        f"{self.scope})")
        ctx.report(self.code, f"{message}; {what_was_done}", source)


def did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """A ` (did you mean "x"?)` suffix, or "" when nothing is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f' (did you mean "{close[0]}"?)' if close else ""
