"""AutoDroid import: the State HTML, the synthesised layout, record chaining, real files."""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any

import pytest
import yaml

from phoneworld.ingest.autodroid_html import parse_state, synthesize

from .support import REAL, Run, run_ingest

STATE = ("<button id=0 text='More options'></button>\n <p id=1>Title<br>sub &amp; more</p>\n"
         " <checkbox id=2 checked=True>Vibrate</checkbox>\n <input id=3 >Label</input>\n"
         " <p id=4><unknown></p>\n <button id=5>go back</button>")


def test_parse_state() -> None:
    elements = parse_state(STATE)
    assert [(e.id, e.tag, e.label) for e in elements] == [
        (0, "button", ""), (1, "p", "Title\nsub & more"), (2, "checkbox", "Vibrate"),
        (3, "input", "Label"), (4, "p", "<unknown>"), (5, "button", "go back")]
    assert elements[0].content_desc == "More options"
    assert elements[2].attrs == {"checked": "True"}
    assert [e.is_go_back for e in elements] == [False] * 5 + [True]


def test_synthesised_tree() -> None:
    root = synthesize(parse_state(STATE), "com.x", focus=3)
    assert root.bounds.render() == "[0,0][1080,1920]"
    kids = root.children
    assert [k.cls for k in kids] == ["android.widget.ImageButton", "android.widget.TextView",
                                     "android.widget.CheckBox", "android.widget.EditText",
                                     "android.widget.TextView"]
    assert kids[2].checkable and kids[2].checked and kids[2].clickable
    assert kids[3].focused and not kids[0].focused
    assert kids[0].content_desc == "More options" and kids[3].text == "Label"
    assert [k.bounds.render() for k in kids[:2]] == ["[0,0][1080,160]", "[0,160][1080,320]"]
    assert all(k.package == "com.x" for k in root.walk())


def write_utg(folder: Path, records: list[dict[str, Any]],
              package: str | None = None) -> Path:
    folder.mkdir(parents=True)
    (folder / "utg.yaml").write_text(yaml.safe_dump({"records": records, "step_num": 1}))
    if package:
        (folder / "package.txt").write_text(package + "\n")
    return folder


def record(state: str, choice: int, text: str = "null", ss: str = "a",
           new: str = "b") -> dict[str, Any]:
    return {"State": state, "Choice": choice, "Input": text, "state_str": ss, "new_state_str": new}


FORM = "<input id=0 >Name</input>\n<button id=1>OK</button>\n<button id=2>go back</button>"


def test_input_back_and_final_record(tmp_path: Path) -> None:
    records = [record(FORM, 0, "Bob"), record(FORM, 2), record("<p id=0>Home</p>", -1)]
    run = run_ingest(write_utg(tmp_path / "My App", records, package="com.my.app"))
    (episode,) = run.traces.episodes
    assert (episode.id, episode.app) == ("My App#0", "com.my.app")
    actions = [s.action.model_dump() if s.action else None for s in episode.steps]
    assert actions == [{"type": "click", "x": 540, "y": 80}, {"type": "type", "text": "Bob"},
                       {"type": "back"}, None]
    assert episode.steps[1].observation.root.children[0].focused
    assert not episode.steps[0].observation.root.children[0].focused
    text = (tmp_path / "My App" / "utg.yaml").read_text().splitlines()
    starts = [i + 1 for i, line in enumerate(text) if line.startswith("- ")]
    assert [s.source.line for s in episode.steps] == [starts[0], *starts]
    assert collections.Counter(run.codes()) == {"PW152": 1, "PW153": 1}


def test_hash_links_split_episodes(tmp_path: Path) -> None:
    records = [record(FORM, 1, ss="s1", new="s2"), record(FORM, 1, ss="s2", new="s9"),
               record(FORM, 1, ss="s3", new="s4")]
    run = run_ingest(write_utg(tmp_path / "app", records))
    shapes = [(ep.id, len(ep.steps)) for ep in run.traces.episodes]
    assert shapes == [("app#0", 2), ("app#1", 1)]
    assert run.codes().count("PW154") == 2
    assert "PW153" not in run.codes()
    assert run.traces.episodes[0].app == "autodroid.app"


def test_bad_choice_ends_the_episode(tmp_path: Path) -> None:
    run = run_ingest(write_utg(tmp_path / "app", [record(FORM, 7), record(FORM, -1)]))
    assert [len(ep.steps) for ep in run.traces.episodes] == [1, 1]
    assert "PW155" in run.codes()


@pytest.mark.parametrize(
    ("text", "code"),
    [("records: [", "PW150"), ("records: []", "PW150"), ("{a: 1}", "PW150"),
     ("records:\n- {State: 3, Choice: 1, Input: 'null'}", "PW151"),
     ("records:\n- {State: '<p id=0>x</p>', Choice: one, Input: 'null'}", "PW151")],
    ids=["syntax", "empty", "no-records", "state-not-text", "choice-not-int"],
)
def test_bad_files_are_errors(tmp_path: Path, text: str, code: str) -> None:
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "utg.yaml").write_text(text)
    run = run_ingest(folder)
    assert run.codes("error") == [code]
    assert run.traces.episodes == ()


# ----------------------------------------------------------------------------- real data

def test_all_real_utgs_ingest_without_errors(autodroid: Run) -> None:
    files = sorted((REAL / "autodroid-utgs").glob("*/utg.yaml"))
    assert autodroid.codes("error") == []
    assert len(autodroid.traces.episodes) == len(files) == 9
    counts = collections.Counter(autodroid.codes())
    assert counts["PW152"] == len(files)  # one per file, not per node
    assert counts["PW153"] == len(files)
    apps = {ep.id.split("#")[0]: ep.app for ep in autodroid.traces.episodes}
    assert apps["clock"] == "com.simplemobiletools.clock"
    assert apps["SMS Messenger"] == "com.simplemobiletools.smsmessenger"
    assert apps["firefox"] == "autodroid.firefox"


def test_real_utg_facts(autodroid: Run) -> None:
    episodes = {ep.id: ep for ep in autodroid.traces.episodes}
    clock = episodes["clock#0"]
    assert len(clock.steps) == 34  # 34 records, the last with Choice -1
    assert clock.steps[2].action is not None and clock.steps[2].action.type == "back"
    sms = episodes["SMS Messenger#0"]
    assert len(sms.steps) == 82  # 81 records + the field focused before typing "12345"
    assert any(s.action and s.action.type == "type" and s.action.text == "12345"
               for s in sms.steps)
    (cut,) = autodroid.with_code("PW154")  # file manager's last record acts with no next screen
    assert cut.source.file == "autodroid-utgs/file manager/utg.yaml"
