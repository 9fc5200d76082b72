"""One app whose passes fail costs that app only: a PW900 diagnostic naming the app and the pass,
nothing of it written, the other apps built and published, exit status 1."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from phoneworld import pipeline
from phoneworld.cli import app as cli
from tests.conftest import EXAMPLE, MESSAGES

BROKEN = "com.example.messages"


@pytest.fixture()
def two_apps(tmp_path: Path) -> Path:
    """The two bundled apps' traces in one folder."""
    traces = tmp_path / "traces"
    shutil.copytree(EXAMPLE, traces / "notes")
    shutil.copytree(MESSAGES, traces / "messages")
    return traces


@pytest.fixture()
def lower_fails_on_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the lower pass that only the messages app's input triggers."""
    real = pipeline.lower

    def lower(traces: Any, *args: Any) -> Any:
        if traces.apps() == [BROKEN]:
            raise ZeroDivisionError("a bug that only this app's traces reach")
        return real(traces, *args)

    monkeypatch.setattr(pipeline, "lower", lower)


def test_one_failing_app_does_not_stop_the_others(two_apps: Path, tmp_path: Path,
                                                  lower_fails_on_messages: None) -> None:
    out = tmp_path / "out"
    result = pipeline.build(pipeline.BuildConfig(traces=two_apps, out=out, html=False,
                                                 android=False, tasks=False))
    assert [a.spec.package for a in result.apps] == ["com.example.notes"]
    assert [(f.app, f.stage) for f in result.failed] == [(BROKEN, "lower")]
    assert "ZeroDivisionError" in result.failed[0].traceback
    [diag] = [d for d in result.diagnostics.items if d.code == "PW900"]
    assert diag.severity == "error" and BROKEN in diag.message and "lower" in diag.message
    # no staging left; the folder's marker and the app built (phoneworld.outdir)
    assert sorted(p.name for p in out.iterdir()) == [".phoneworld-out.json", "com.example.notes"]
    assert (out / "com.example.notes" / "app.json").is_file()


def test_cli_exits_1_lists_what_was_built_and_why_not(two_apps: Path, tmp_path: Path,
                                                      lower_fails_on_messages: None) -> None:
    out = tmp_path / "out"
    proc = CliRunner().invoke(cli, ["build", str(two_apps), "--out", str(out), "-q"])
    assert proc.exit_code == 1, proc.output
    assert "Traceback" not in proc.output
    assert "error[PW900]" in proc.output and f"{BROKEN} (lower)" in proc.output
    assert str(out / "com.example.notes") in proc.output
    verbose = CliRunner().invoke(cli, ["build", str(two_apps), "--out", str(out), "-q", "-v"])
    assert verbose.exit_code == 1 and "ZeroDivisionError" in verbose.output
