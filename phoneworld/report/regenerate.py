"""`phoneworld report APP_DIR --traces TRACES`: write an app folder's `report.html` again.

The page needs what only the build has (the recorded observations, their screenshots, every
replayed step), so the app is compiled again in memory from its traces with the settings its
`report.json` recorded, and the result must be the folder's `app.json`: a page about another app
than the one in the folder would mislead.
"""

from __future__ import annotations

import logging
from pathlib import Path

from phoneworld import outdir
from phoneworld.emit import dumps
from phoneworld.errors import UsageError
from phoneworld.pipeline import BuildConfig, build
from phoneworld.report.appfiles import REPORT_PAGE, load_report, write_atomic
from phoneworld.report.page import render_report
from phoneworld.runtime.appdir import load_app

log = logging.getLogger(__name__)


def regenerate(app_dir: Path, traces: Path, fmt: str | None = None) -> Path:
    """Compile `traces` again, check the result is `app_dir`'s app, write `app_dir/report.html`."""
    spec = load_app(app_dir)
    report = load_report(app_dir)
    config = BuildConfig(traces=traces, out=app_dir.parent, fmt=fmt,
                         heldout=report.heldout_fraction, seed=report.seed, write=False)
    result = build(config)
    built = next((a for a in result.apps if a.spec.package == spec.package), None)
    if built is None or built.inputs is None:
        raise UsageError(f"{traces}: these traces hold no app {spec.package}; pass the traces "
                         f"{app_dir} was built from")
    if dumps(built.spec) != dumps(spec):
        raise UsageError(f"{app_dir / 'app.json'} is not what {traces} compiles to now (other "
                         "traces, or another compiler version); rebuild it with "
                         f"`phoneworld build {traces}`, which writes the report too")
    page = app_dir / REPORT_PAGE
    write_atomic(page, render_report(built.inputs))
    outdir.add_to_manifest(app_dir, REPORT_PAGE)
    log.info("wrote %s", page)
    return page
