"""The tasks of a built app: the synthesized specs in `<app>/task_specs/` plus hand-written ones
(`--specs` files or folders, such as `task_specs/<app>/`), loaded and checked against the app."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from phoneworld.errors import UsageError
from phoneworld.ir.app import AppSpec
from phoneworld.runtime.appdir import load_app
from phoneworld.tasks.build import INDEX, SPECS_DIR
from phoneworld.tasks.load import LoadedTask, load_task_specs


@dataclass
class Catalog:
    app: AppSpec
    app_dir: Path
    tasks: list[LoadedTask]

    def find(self, task_id: str) -> LoadedTask:
        for t in self.tasks:
            if t.spec.id == task_id:
                return t
        ids = [t.spec.id for t in self.tasks]
        near = difflib.get_close_matches(task_id, ids, n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise UsageError(f"no task {task_id!r} in {self.app.package}{hint} "
                         f"({len(ids)} tasks; list them with `phoneworld tasks list`)")

    def select(self, ids: Iterable[str] | None) -> list[LoadedTask]:
        wanted = list(ids or [])
        return [self.find(i) for i in wanted] if wanted else list(self.tasks)

    def index(self) -> dict[str, dict[str, Any]]:
        """The build's `tasks.json` entries by id ({} when the app has none)."""
        path = self.app_dir / INDEX
        if not path.is_file():
            return {}
        return {e["id"]: e for e in json.loads(path.read_text(encoding="utf-8"))["tasks"]}


def load_catalog(app_dir: Path, specs: Iterable[Path] = (), synthesized: bool = True) -> Catalog:
    """The app of `app_dir` and its tasks; raises InputError listing every bad spec."""
    app = load_app(app_dir)
    folder = app_dir if app_dir.is_dir() else app_dir.parent
    paths = [folder / SPECS_DIR] if synthesized and (folder / SPECS_DIR).is_dir() else []
    for p in specs:
        if not p.exists():
            raise UsageError(f"{p}: no such task spec file or folder")
        paths.append(p)
    return Catalog(app, folder, load_task_specs(paths, app))
