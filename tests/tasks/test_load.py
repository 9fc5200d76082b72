"""Bad task specs: one fixture per defect, each reported with its code, file and line."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from phoneworld.errors import InputError
from phoneworld.ir.app import AppSpec
from phoneworld.tasks.load import load_task_specs
from tests.tasks.conftest import BAD_SPECS, HAND_SPECS
from tests.test_cli import phoneworld

FIXTURES = sorted(BAD_SPECS.glob("*.yaml"))


def _expected(path: Path) -> tuple[str, int]:
    m = re.match(r"# expect: (PW\d+) (\d+)", path.read_text().splitlines()[0])
    assert m, f"{path.name} lacks its `# expect: CODE LINE` header"
    return m.group(1), int(m.group(2))


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_bad_spec_is_reported_with_code_file_and_line(notes: AppSpec, path: Path) -> None:
    code, line = _expected(path)
    with pytest.raises(InputError) as info:
        load_task_specs([path], notes)
    errors = [d for d in info.value.diagnostics if d.severity == "error"]
    assert [(d.code, d.source.file, d.source.line) for d in errors] == [(code, path.as_posix(), line)]
    assert errors[0].render().startswith(f"{path.as_posix()}:{line}: error[{code}]: ")


def test_the_defects_the_issue_names_each_have_a_fixture() -> None:
    codes = {_expected(p)[0] for p in FIXTURES}
    assert {"PW303", "PW304", "PW305", "PW306", "PW307"} <= codes


def test_every_problem_of_every_file_is_reported_at_once(notes: AppSpec) -> None:
    with pytest.raises(InputError) as info:
        load_task_specs([BAD_SPECS], notes)
    files = {d.source.file for d in info.value.diagnostics if d.severity == "error"}
    assert len(files) == len(FIXTURES)


def test_duplicate_ids_are_an_error(notes: AppSpec, tmp_path: Path) -> None:
    for name in ("a.yaml", "b.yaml"):
        shutil.copy(HAND_SPECS / "night_setup.yaml", tmp_path / name)
    with pytest.raises(InputError) as info:
        load_task_specs([tmp_path], notes)
    assert [d.code for d in info.value.diagnostics] == ["PW308"]


def test_cli_check_exits_1_with_file_and_line(example_dir: Path) -> None:
    bad = BAD_SPECS / "type_mismatch.yaml"
    proc = phoneworld("tasks", "check", str(example_dir), "--specs", str(bad), "--only-specs")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert re.search(r"type_mismatch\.yaml:9: error\[PW305\]", proc.stderr), proc.stderr


def test_a_parameter_without_from_names_the_sources(notes: AppSpec) -> None:
    """`params: {title: {type: text}}` says what is missing and lists what `from:` may be."""
    with pytest.raises(InputError) as info:
        load_task_specs([BAD_SPECS / "param_without_from.yaml"], notes)
    (message,) = [d.message for d in info.value.diagnostics if d.severity == "error"]
    assert "params.title" in message and "`from:`" in message
    assert "phrase, words, range, dates, choice, app_data" in message
    assert "unknown ''" not in message
