"""World spec errors: file:line, a PW4xx code and a fix; the CLI exits 1 without a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from phoneworld.cli import app
from phoneworld.errors import InputError
from phoneworld.world.load import load_world


def _errors(path: Path) -> list[str]:
    with pytest.raises(InputError) as exc:
        load_world(path)
    return [d.render() for d in exc.value.diagnostics]


@pytest.mark.parametrize(("text", "line", "code", "needle"), [
    ("name: w\napps: [\n", 2, "PW401", "invalid YAML"),
    ("name: w\napps:\n  - dir: com.example.notes\n    colour: red\n", 4, "PW402", "unknown field"),
    ("name: w\napps:\n  - dir: com.example.notes\n    traces: x\n", 3, "PW402", "exactly one of"),
    ("name: w\napps:\n  - dir: nowhere\n", 3, "PW403", "build it with"),
    ("name: w\napps:\n  - traces: some/traces\n", 3, "PW403", "phoneworld world build"),
    ("name: w\napps:\n  - dir: com.example.notes\n  - dir: com.example.notes\n", 4, "PW405", "once"),
    ("name: w\napps:\n  - dir: com.example.notes\n    pick:\n      - {screen: s01_editor, "
     "widget: save_button, field: save_button}\n", 5, "PW404", "not an editable"),
    ("name: w\napps:\n  - dir: com.example.notes\n    share:\n      - {screen: s02_detal, "
     "widget: x}\n", 5, "PW404", "did you mean 's02_detail'"),
], ids=["yaml", "unknown-field", "dir-and-traces", "no-app", "unbuilt", "duplicate", "not-editable",
        "unknown-screen"])
def test_spec_errors_name_file_line_and_fix(mini_world: Path, text: str, line: int, code: str,
                                            needle: str) -> None:
    path = mini_world / f"bad_{code}_{line}.yaml"
    path.write_text(text, encoding="utf-8")
    errs = _errors(path)
    assert any(f"{path.as_posix()}:{line}: error[{code}]" in e and needle in e for e in errs), errs


def test_cli_reports_and_exits_1_without_traceback(mini_world: Path) -> None:
    bad = mini_world / "bad_cli.yaml"
    bad.write_text("name: w\napps:\n  - dir: nowhere\n", encoding="utf-8")
    r = CliRunner().invoke(app, ["world", "check", str(bad)])
    assert r.exit_code == 1
    assert "error[PW403]" in r.output and "Traceback" not in r.output


def test_cli_build_tasks_run(mini_world: Path, tmp_path: Path) -> None:
    out = tmp_path / "w"
    r = CliRunner().invoke(app, ["world", "build", str(mini_world / "world.yaml"), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "world.yaml").is_file() and (out / "tasks.json").is_file()
    assert (out / "com.example.notes" / "app.json").is_file()
    listed = CliRunner().invoke(app, ["world", "tasks", str(out)])
    first = listed.stdout.splitlines()[0].split()[0]
    ran = CliRunner().invoke(app, ["world", "run", str(out), "--task", first])
    assert ran.exit_code == 0 and "passed" in ran.output
