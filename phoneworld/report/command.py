"""What `phoneworld report` does, apart from parsing and printing (kept out of the thin CLI)."""

from __future__ import annotations

import logging
import webbrowser
from dataclasses import dataclass, field
from pathlib import Path

from phoneworld import outdir
from phoneworld.errors import UsageError
from phoneworld.report.appfiles import REPORT_PAGE, write_atomic

log = logging.getLogger(__name__)

COMPARE_PAGE = "compare.html"
PAGE_SIGNATURE = b'<meta name="generator" content="phoneworld'  # in every page phoneworld writes


@dataclass
class ReportResult:
    page: Path
    lines: list[str] = field(default_factory=list)  # the comparison's summary, for stdout
    note: str = ""  # for stderr


def claim_page(page: Path, inputs: list[Path], force: bool = False) -> None:
    """The page may be written: not an input, and a page phoneworld wrote if it exists."""
    outdir.claim_file(page, inputs, force, PAGE_SIGNATURE, "page")


def run_report(app_dir: Path | None, traces: Path | None, fmt: str | None,
               compare_dirs: tuple[Path, Path] | None, out: Path | None,
               force: bool = False) -> ReportResult:
    """Regenerate (with `traces`) or find an app's page, or write the page comparing two builds."""
    if compare_dirs is not None:
        from phoneworld.report.compare import compare, render_compare, summary_lines

        a, b = compare_dirs
        page = out or b / COMPARE_PAGE
        claim_page(page, [d / n for d in (a, b) for n in ("app.json", "report.json")], force)
        comparison = compare(a, b)
        write_atomic(page, render_compare(comparison))
        outdir.add_to_manifest(page.parent, page.name)
        return ReportResult(page, summary_lines(comparison))
    if app_dir is None:
        raise UsageError("pass a built app folder (phoneworld report APP_DIR --traces TRACES) "
                         "or two to compare (phoneworld report --compare A B)")
    if traces is not None:
        from phoneworld.report.regenerate import regenerate

        claim_page(app_dir / REPORT_PAGE, [traces], force)
        return ReportResult(regenerate(app_dir, traces, fmt))
    page = app_dir / REPORT_PAGE
    if not page.is_file():
        raise UsageError(f"{page}: no report here; regenerate it from the traces the app was "
                         f"built from: phoneworld report {app_dir} --traces TRACES")
    return ReportResult(page, note="showing the page the build wrote; pass --traces TRACES to "
                        "regenerate it")


def open_page(page: Path) -> None:
    if not webbrowser.open(page.resolve().as_uri()):
        log.warning("no browser could be started; open %s yourself", page)
