"""`phoneworld doctor` and missing tools: exit code 3 with how to install them."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from phoneworld.android import toolchain
from phoneworld.android.toolchain import Tool
from phoneworld.cli import app as cli
from phoneworld.errors import ToolchainError


def _without(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    real = toolchain.tools

    def fake() -> dict[str, Tool]:
        out = real()
        for n in names:
            t = out[n]
            out[n] = Tool(t.name, None, t.package, t.purpose)
        return out

    monkeypatch.setattr(toolchain, "tools", fake)


def test_doctor_lists_every_tool() -> None:
    result = CliRunner().invoke(cli, ["doctor"])
    for name in ("kotlinc", "aapt2", "zipalign", "apksigner", "dx", "android.jar"):
        assert name in result.output
    assert result.exit_code in (0, 3)


def test_doctor_exits_3_when_a_tool_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    _without(monkeypatch, "kotlinc")
    result = CliRunner().invoke(cli, ["doctor"])
    assert result.exit_code == 3
    assert "apt-get install kotlin" in result.output


def test_apk_exits_3_with_install_hint(monkeypatch: pytest.MonkeyPatch, example_dir: Path) -> None:
    _without(monkeypatch, "aapt2", "zipalign")
    result = CliRunner().invoke(cli, ["apk", str(example_dir), "--route", "offline"])
    assert result.exit_code == 3, result.output
    assert "aapt2" in result.output and "sudo apt-get install aapt zipalign" in result.output


def test_failing_tool_is_reported_with_command_and_log_tail(tmp_path: Path) -> None:
    script = tmp_path / "broken-tool"
    script.write_text("#!/bin/sh\necho 'line one'\necho 'the real problem' >&2\nexit 7\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(ToolchainError) as info:
        toolchain.run([script, "--flag"], "broken tool", java=False)
    msg = str(info.value)
    assert "exited with code 7" in msg and "--flag" in msg and "the real problem" in msg


def test_gradle_route_runs_the_wrapper(tmp_path: Path, example_dir: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """With gradlew and ANDROID_HOME, `apk` runs `./gradlew assembleDebug` (a fake wrapper here:
    no Android SDK can be had offline)."""
    import shutil

    from phoneworld.android.apk import build_apk

    app = tmp_path / "app"
    shutil.copytree(example_dir, app)
    gradlew = app / "android" / "gradlew"
    gradlew.write_text(
        "#!/bin/sh\nmkdir -p app/build/outputs/apk/debug\n"
        "echo \"$@\" > app/build/outputs/apk/debug/app-debug.apk\n")
    gradlew.chmod(gradlew.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("ANDROID_HOME", str(tmp_path / "sdk"))
    result = build_apk(app)
    assert result.route == "gradle"
    assert result.path.read_text().strip() == "--no-daemon assembleDebug"
    assert os.path.basename(result.path) == "com.example.notes-debug.apk"
