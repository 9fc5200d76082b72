"""The `emit` pass: app spec and report -> files in the app's output folder.

Output is deterministic (same input, byte-identical files: sorted keys, no timestamps, no absolute
paths) and atomic: an app's folder is written next to its final place and renamed into it, so a
failed build never leaves a half-written app behind.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from phoneworld.ir.app import AppSpec
from phoneworld.ir.report import BuildReport

__all__ = ["emit", "dumps", "publish"]


def dumps(model: BaseModel | dict[str, Any]) -> str:
    """The canonical JSON text of a model: what `app.json` and `report.json` hold."""
    data = model.model_dump(mode="json", by_alias=True) if isinstance(model, BaseModel) else model
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def app_dir_name(package: str) -> str:
    return package.replace("/", "_").replace(" ", "_")


def publish(staging: Path, final: Path) -> None:
    """Put the finished folder `staging` at `final` by renames on one filesystem: an earlier
    `final` is moved aside first and removed only after the new one is in place."""
    if final.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{final.name}.old.", dir=final.parent))
        os.replace(final, old / "prev")
        os.replace(staging, final)
        shutil.rmtree(old)
    else:
        os.replace(staging, final)


def emit(spec: AppSpec, report: BuildReport, out: Path,
         pages: Mapping[str, str] | None = None) -> Path:
    """Write `out/<app>/app.json` and `report.json` (and `pages`: file name -> text, such as
    `report.html`), replacing an earlier build of the app."""
    out.mkdir(parents=True, exist_ok=True)
    final = out / app_dir_name(spec.package)
    staging = Path(tempfile.mkdtemp(prefix=f".{final.name}.", dir=out))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(staging, 0o777 & ~umask)  # mkdtemp makes it private; a build output is not
    try:
        (staging / "app.json").write_text(dumps(spec), encoding="utf-8")
        (staging / "report.json").write_text(dumps(report), encoding="utf-8")
        for name, text in sorted((pages or {}).items()):
            (staging / name).parent.mkdir(parents=True, exist_ok=True)  # e.g. verifiers/x.py
            (staging / name).write_text(text, encoding="utf-8")
        publish(staging, final)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return final
