"""One folder per defect under tests/fixtures/traces_with_errors: each yields its own error code.

Each folder is the valid notes episode of traces_ok with exactly one thing broken. The table says
which code it must produce, in which file, at which step (None: the defect is not in one step).
"""

from __future__ import annotations

import pytest

from .support import FIXTURES, run_ingest

DEFECTS = FIXTURES / "traces_with_errors"

# folder: (code, file the diagnostic names, step)
EXPECTED: dict[str, tuple[str, str, int | None]] = {
    "invalid_json": ("PW110", "episode.json", None),
    "wrong_format_version": ("PW111", "episode.json", None),
    "missing_device": ("PW112", "episode.json", None),
    "empty_episode": ("PW114", "episode.json", None),
    "malformed_xml": ("PW102", "0001.xml", 1),
    "no_hierarchy": ("PW103", "0003.xml", 3),
    "bad_bounds": ("PW104", "0002.xml", 2),
    "missing_screen": ("PW115", "episode.json", 2),
    "missing_screenshot": ("PW116", "episode.json", 1),
    "unknown_action_type": ("PW120", "episode.json", 0),
    "type_without_text": ("PW121", "episode.json", 1),
    "scroll_bad_direction": ("PW122", "episode.json", 2),
    "action_off_screen": ("PW123", "episode.json", 0),
    "normalized_out_of_range": ("PW124", "episode.json", 2),
    "last_step_has_action": ("PW125", "episode.json", 3),
    "null_action_mid_episode": ("PW126", "episode.json", 1),
}


@pytest.mark.parametrize("name", sorted(EXPECTED), ids=sorted(EXPECTED))
def test_defect_yields_its_code(name: str) -> None:
    code, file_name, step = EXPECTED[name]
    run = run_ingest(DEFECTS / name)
    errors = [d for d in run.diagnostics.items if d.severity == "error"]
    assert [d.code for d in errors] == [code], [d.render() for d in errors]
    found = errors[0]
    assert found.source.file == f"{name}/{file_name}"
    assert found.source.step == step
    assert found.source.episode == name
    assert found.source.line is not None
    assert found.hint
    assert run.traces.episodes == ()  # an episode with errors is not returned


def test_every_defect_folder_is_in_the_table() -> None:
    folders = sorted(p.name for p in DEFECTS.iterdir() if p.is_dir())
    assert folders == sorted(EXPECTED)
    assert len(folders) >= 12


def test_each_defect_has_a_distinct_code() -> None:
    codes = [code for code, _, _ in EXPECTED.values()]
    assert len(set(codes)) == len(codes)


def test_all_defects_at_once_report_every_problem() -> None:
    run = run_ingest(DEFECTS)
    assert sorted(run.codes("error")) == sorted(code for code, _, _ in EXPECTED.values())
    assert run.traces.episodes == ()


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("unknown_action_type", 'did you mean "click"'),
        ("wrong_format_version", "phoneworld-trace/1"),
        ("type_without_text", '"text"'),
        ("missing_device", '"device"'),
    ],
    ids=["did-you-mean", "supported-version", "missing-text", "missing-device"],
)
def test_messages_say_how_to_fix(name: str, words: str) -> None:
    found = run_ingest(DEFECTS / name).diagnostics.items[0]
    assert words in found.render()
