"""`build --apk` output for the example and Habitica: signed, aligned, launchable, with the core and
shell classes in its dex; warm rebuilds reuse the app's dex; the CLI reports a missing toolchain."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from phoneworld.android.apk import manifest_package
from phoneworld.cli import app as cli
from tests.android.conftest import CHECK_TOOLS, need

APPS = ["example", "habitica"]


def _run(*cmd: str | Path) -> str:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    assert proc.returncode == 0, f"{cmd} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("name", APPS)
def test_apk_is_signed_and_aligned(apks, name: str) -> None:  # type: ignore[no-untyped-def]
    tools = need("apksigner", "zipalign")
    apk = apks[name].path
    out = _run(tools["apksigner"], "verify", "--verbose", apk)
    assert "Verified using v2 scheme (APK Signature Scheme v2): true" in out
    _run(tools["zipalign"], "-c", "4", apk)


@pytest.mark.parametrize("name", APPS)
def test_badging_shows_package_and_launchable_activity(apks, android_apps, name: str) -> None:  # type: ignore[no-untyped-def]
    tools = need(*CHECK_TOOLS)
    pkg = manifest_package(android_apps[name].project)
    out = _run(tools["aapt"], "dump", "badging", apks[name].path)
    assert f"package: name='{pkg}'" in out
    assert f"launchable-activity: name='{pkg}.MainActivity'" in out
    assert "application-debuggable" in out  # run-as needs it to read files/state.json


@pytest.mark.parametrize("name", APPS)
def test_dex_holds_core_and_shell_classes(apks, android_apps, name: str) -> None:  # type: ignore[no-untyped-def]
    tools = need(*CHECK_TOOLS)
    pkg = manifest_package(android_apps[name].project).replace(".", "/")
    _run(tools["dexdump"], "-c", apks[name].path)  # checksums verify
    out = _run(tools["dexdump"], apks[name].path)
    classes = {line.split("'")[1] for line in out.splitlines() if "Class descriptor" in line}
    for cls in ("MainActivity", "ResetReceiver", "ScreenRenderer", "MockText", "core/Machine",
                "core/AppState", "core/App", "core/Values", "R$id"):
        assert f"L{pkg}/{cls};" in classes, cls
    spec = android_apps[name].spec
    screen_objects = [c for c in classes if c.startswith(f"L{pkg}/core/screens/") and
                      c.endswith("Screen;")]
    assert len(screen_objects) == len(spec.screens) + 1  # and the launcher
    assert "Lkotlin/collections/CollectionsKt;" in classes  # the Kotlin runtime is packed


def test_warm_rebuild_reuses_the_app_dex(apks, android_apps, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from phoneworld.android.apk import build_apk

    again = build_apk(android_apps["example"].app_dir, tmp_path / "again.apk", route="offline")
    assert again.dex_cached
    assert "kotlinc" not in again.steps
    assert again.size == pytest.approx(apks["example"].size, rel=0.01)


def test_apk_command_builds(android_apps, apks, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "cli.apk"
    result = CliRunner().invoke(cli, ["apk", str(android_apps["example"].app_dir), "--out",
                                      str(out), "--route", "offline"])
    assert result.exit_code == 0, result.output
    assert out.exists() and str(out) in result.stdout


def test_build_apk_flag(tmp_path: Path) -> None:
    from tests.android.conftest import BUILD_TOOLS

    need(*BUILD_TOOLS)
    from tests.conftest import EXAMPLE

    result = CliRunner().invoke(cli, ["build", str(EXAMPLE), "--out", str(tmp_path), "--apk", "-q"])
    assert result.exit_code == 0, result.output
    apk = tmp_path / "com.example.notes" / "com.example.notes-debug.apk"
    assert apk.exists() and str(apk) in result.stdout
