"""Emit of the Android project: `phoneworld/templates/kotlin/` rendered for one app, file by file.

The template tree mirrors the generated one (`generated_apps/<app>/android/`): `PACKAGE` in a path
stands for the app's package folders and `SCREEN` for one file per screen. One jinja2 environment
with `StrictUndefined`; every string from a trace reaches a file through an `escape` filter. The
output is deterministic: same spec, same bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

from phoneworld import templates
from phoneworld.android.context import project_context
from phoneworld.android.world_context import WorldWiring
from phoneworld.android.escape import FILTERS
from phoneworld.ir.app import AppSpec

ANDROID_DIR = "android"

_ENV: jinja2.Environment | None = None


def environment() -> jinja2.Environment:
    global _ENV
    if _ENV is None:
        env = jinja2.Environment(
            loader=templates.loader("kotlin"), undefined=jinja2.StrictUndefined,
            autoescape=False, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
        )
        env.filters.update(FILTERS)
        _ENV = env
    return _ENV


def template_names() -> list[str]:
    return sorted(environment().list_templates(extensions=["j2"]))


def render_project(spec: AppSpec, world: WorldWiring | None = None) -> dict[str, str]:
    """The app's Kotlin project: path (relative to `android/`) -> file text. With `world`, the
    app's part in a cross-app world too; a template that renders to nothing (the world-only ones,
    outside a world) writes no file."""
    ctx = project_context(spec, world)
    env = environment()
    pkg_path = ctx["kpkg"].replace(".", "/")
    out: dict[str, str] = {}
    for name in template_names():
        target = name[: -len(".j2")].replace("PACKAGE", pkg_path)
        template = env.get_template(name)
        if "SCREEN" in Path(name).name:
            for screen in ctx["screens"]:
                path = target.replace("SCREEN.kt", screen["file"])
                out[path] = template.render(ctx, screen=screen)
        else:
            text = template.render(ctx)
            if text.strip():
                out[target] = text
    return dict(sorted(out.items()))


def write_project(spec: AppSpec, dest: Path, world: WorldWiring | None = None) -> list[Path]:
    """Write the project under `dest` (an app's `android/` folder); returns the files written."""
    written = []
    for rel, text in render_project(spec, world).items():
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def project_files(spec: AppSpec) -> dict[str, str]:
    """The project as `emit` pages: path relative to the app folder -> text."""
    return {f"{ANDROID_DIR}/{rel}": text for rel, text in render_project(spec).items()}


def context_summary(spec: AppSpec) -> dict[str, Any]:
    """Counts for logs and the bench: screens, widgets, transitions of the generated project."""
    ctx = project_context(spec)
    return {
        "screens": len(ctx["screens"]),
        "widgets": sum(s["widget_count"] for s in ctx["screens"]),
        "transitions": ctx["transition_count"],
        "kotlin_package": ctx["kpkg"],
    }
