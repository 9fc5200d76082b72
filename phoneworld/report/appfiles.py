"""The files of a built app folder the report reads and writes: `report.json`, `report.html`."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from pydantic import ValidationError

from phoneworld.errors import AppSpecError
from phoneworld.ir.report import BuildReport

REPORT_PAGE = "report.html"


def load_report(app_dir: Path) -> BuildReport:
    path = app_dir / "report.json"
    try:
        return BuildReport.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AppSpecError(f"{path}: cannot read the build report ({exc}); rebuild the app with "
                           "`phoneworld build`") from exc
    except ValidationError as exc:
        raise AppSpecError(f"{path}: not a build report of this phoneworld version "
                           f"({exc.error_count()} problems); rebuild the app") from exc


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step: a reader never sees half a page."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
