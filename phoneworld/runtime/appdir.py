"""Loading a compiled app for the runtime: `<app_dir>/app.json` (or the app.json path itself)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from phoneworld.errors import AppSpecError
from phoneworld.ir.app import APP_FORMAT, AppSpec
from phoneworld.runtime.compiled import compile_app

APP_FILE = "app.json"


def _app_file(path: Path) -> Path:
    if path.is_dir():
        path = path / APP_FILE
    if not path.is_file():
        raise AppSpecError(
            f"{path}: no app spec here; compile one with `phoneworld build <traces>` "
            f"(it writes <out>/<package>/{APP_FILE})"
        )
    return path


def load_app(path: str | Path) -> AppSpec:
    """Read and check an app spec; every problem is an `AppSpecError` that says how to fix it."""
    file = _app_file(Path(path))
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise AppSpecError(f"{file}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise AppSpecError(f"{file}: cannot read: {exc}") from exc
    if not isinstance(raw, dict):
        raise AppSpecError(f"{file}: an app spec is a JSON object, got {type(raw).__name__}")
    fmt = raw.get("format")
    if fmt != APP_FORMAT:
        raise AppSpecError(
            f"{file}: format {fmt!r} is not supported; this phoneworld reads {APP_FORMAT!r} "
            "(rebuild the app with this version: `phoneworld build`)"
        )
    try:
        spec = AppSpec.model_validate(raw)
    except ValidationError as exc:
        lines = [
            f"  {'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:20]
        ]
        raise AppSpecError(f"{file}: not a valid app spec ({exc.error_count()} problems):\n"
                           + "\n".join(lines)) from exc
    compile_app(spec)  # checks references now, so a broken spec fails at load, not mid-episode
    return spec
