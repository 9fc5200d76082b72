"""The files of a built app folder the report reads and writes: `report.json`, `report.html`."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from phoneworld import outdir
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
    with outdir.atomic_text(path) as f:
        f.write(text)
