"""Session fixtures of the Android tests: the toolchain, the example and Habitica built once, their
Kotlin cores compiled for the JVM in one kotlinc run, and their APKs.

The Debian packages come from `make deps`; the tests skip (with the missing tools named) only when
a tool is not installed. The generated android.jar is cached in `~/.cache/phoneworld` (or
`$PHONEWORLD_CACHE`) across sessions.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from phoneworld.errors import ToolchainError
from tests.conftest import real_set

log = logging.getLogger(__name__)

HABITICA = "com.habitrpg.android.habitica"
BUILD_TOOLS = ("java", "javac", "keytool", "jimage", "kotlinc", "kotlin-stdlib", "aapt2",
               "zipalign", "apksigner", "framework-res", "guava")
CHECK_TOOLS = ("aapt", "dexdump")
JVM_TOOLS = ("java", "kotlinc", "kotlin-stdlib")


def need(*names: str) -> dict[str, Path]:
    """The tools' paths, or skip naming what is missing and how to install it."""
    from phoneworld.android.toolchain import require

    try:
        return require(*names)
    except ToolchainError as exc:
        pytest.skip(f"Android toolchain not installed (run `make deps`): {exc}")


@dataclass
class AndroidApp:
    name: str
    spec: object  # AppSpec
    app_dir: Path

    @property
    def project(self) -> Path:
        return self.app_dir / "android"


@pytest.fixture(scope="session")
def habitica_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from phoneworld.pipeline import BuildConfig, build

    out = tmp_path_factory.mktemp("habitica_android")
    result = build(BuildConfig(traces=real_set("habitica-droidbot"), out=out, tasks=False,
                               html=False))
    path = {a.spec.package: a.path for a in result.apps}[HABITICA]
    assert path is not None
    return path


class Apps(dict):  # type: ignore[type-arg]
    """Apps by name; a test that asks for an absent one (Habitica without its real traces) skips,
    so the example's checks run wherever the repo does."""

    def __missing__(self, name: str) -> object:
        pytest.skip(f"{name}: its real trace set is absent (it lives outside the repo in ../shared)")


@pytest.fixture(scope="session")
def android_apps(example_build, request: pytest.FixtureRequest) -> Apps:  # type: ignore[no-untyped-def]
    """The example, and Habitica where its real traces are present."""
    from phoneworld.ir.app import AppSpec

    ex = example_build.apps[0]
    apps = Apps(example=AndroidApp("example", ex.spec, ex.path))
    try:
        habitica_dir = request.getfixturevalue("habitica_dir")
    except pytest.skip.Exception:
        return apps
    habitica = AppSpec.model_validate_json((habitica_dir / "app.json").read_text())
    apps["habitica"] = AndroidApp("habitica", habitica, habitica_dir)
    return apps


@pytest.fixture(scope="session")
def stress_app(tmp_path_factory: pytest.TempPathFactory) -> AndroidApp:
    """The synthetic app of `stress` with its Kotlin project."""
    from phoneworld.android.project import write_project
    from tests.android.stress import stress_spec

    spec = stress_spec()
    app_dir = tmp_path_factory.mktemp("stress")
    write_project(spec, app_dir / "android")
    return AndroidApp("stress", spec, app_dir)


@pytest.fixture(scope="session")
def jvm_core(android_apps: dict[str, AndroidApp], stress_app: AndroidApp,
             tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """The cores and replay drivers of the example, Habitica and the stress app, compiled in
    one kotlinc run."""
    need(*JVM_TOOLS)
    from phoneworld.android.jvm import compile_cores

    start = time.perf_counter()
    projects = [a.project for a in android_apps.values()] + [stress_app.project]
    core = compile_cores(projects, tmp_path_factory.mktemp("jvm") / "classes")
    log.warning("kotlinc (JVM cores of %d apps): %.1fs", len(projects),
                time.perf_counter() - start)
    return core


@pytest.fixture(scope="session")
def apks(android_apps: dict[str, AndroidApp],
         tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """Each app's signed debug APK (the ApkResult), built by the offline route."""
    need(*BUILD_TOOLS)
    from phoneworld.android.apk import build_apk

    out = tmp_path_factory.mktemp("apks")
    return Apps({name: build_apk(a.app_dir, out / f"{name}.apk", route="offline")
                 for name, a in android_apps.items()})
