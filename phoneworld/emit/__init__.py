"""The `emit` pass: app spec and report -> files in the app's output folder.

Output is deterministic (same input, byte-identical files: sorted keys, no timestamps, no absolute
paths) and atomic: an app's folder is written next to its final place and renamed into it, so a
failed build never leaves a half-written app behind. Which folders may be written or replaced, and
the manifest each app folder carries, is the output folder contract of `phoneworld.outdir`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from phoneworld import outdir
from phoneworld.ir.app import AppSpec
from phoneworld.ir.base import SourceRef
from phoneworld.ir.report import BuildReport

__all__ = ["emit", "dumps", "APP_KIND", "ROOT_KIND"]

APP_KIND = "app"  # the manifest kind of an app folder
ROOT_KIND = "apps"  # the marker kind of a `build --out` folder


def dumps(model: BaseModel | dict[str, Any]) -> str:
    """The canonical JSON text of a model: what `app.json` and `report.json` hold."""
    data = model.model_dump(mode="json", by_alias=True) if isinstance(model, BaseModel) else model
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def emit(spec: AppSpec, report: BuildReport, root: outdir.Root,
         pages: Mapping[str, str] | None = None) -> Path:
    """Write `root/<package>/app.json` and `report.json` (and `pages`: file name -> text, such as
    `report.html`), replacing an earlier build of the app (see `phoneworld.outdir`)."""
    d = outdir.check_name(spec.package, "app id", SourceRef(file="app.json"), package=True)
    outdir.require_names([d] if d else [], "app id")

    def write(staging: Path) -> None:
        (staging / "app.json").write_text(dumps(spec), encoding="utf-8")
        (staging / "report.json").write_text(dumps(report), encoding="utf-8")
        for name, text in sorted((pages or {}).items()):
            (staging / name).parent.mkdir(parents=True, exist_ok=True)  # e.g. verifiers/x.py
            (staging / name).write_text(text, encoding="utf-8")

    return outdir.replace_folder(root.open() / spec.package, APP_KIND, write, root.force,
                                 outdir.legacy_app)
