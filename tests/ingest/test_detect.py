"""Walking the root: format detection, nesting, precedence, and the run-level diagnostics."""

from __future__ import annotations

from pathlib import Path

import pytest

from phoneworld.errors import UsageError
from phoneworld.ingest import ingest
from phoneworld.ingest.detect import find_sources

from .support import FIXTURES, run_ingest, simple_screen


def make(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_detects_each_format_at_any_depth(tmp_path: Path) -> None:
    make(tmp_path, {
        "a/b/native/episode.json": "{}",
        "c/auto/utg.yaml": "records: []",
        "c/bot/states/x.json": "{}", "c/bot/events/y.json": "{}",
        "c/kea/all_states/x.json": "{}", "c/kea/events/y.json": "{}",
        "llama/t1/eventStructs.txt": "", "llama/t1/0.xml": simple_screen(),
        "dumps/one.xml": simple_screen(), "dumps/deeper/two.xml": simple_screen(),
        "noise/pom.xml": "<project/>", ".hidden/episode.json": "{}",
    })
    found = [(p.relative_to(tmp_path).as_posix(), f) for p, f, _ in find_sources(tmp_path)]
    assert found == [("a/b/native", "native"), ("c/auto", "autodroid"), ("c/bot", "droidbot"),
                     ("c/kea", "droidbot"), ("dumps", "uiautomator"), ("dumps/deeper", "uiautomator"),
                     ("llama/t1", "llamatouch")]


def test_episode_folders_are_not_descended(tmp_path: Path) -> None:
    make(tmp_path, {"ep/episode.json": "{}", "ep/inner/episode.json": "{}"})
    assert [p.name for p, _, _ in find_sources(tmp_path)] == ["ep"]


def test_ambiguous_folder_warns_and_uses_precedence(tmp_path: Path) -> None:
    make(tmp_path, {"x/episode.json": "{}", "x/utg.yaml": ""})
    ((_, fmt, others),) = find_sources(tmp_path)
    assert (fmt, others) == ("native", ["autodroid"])
    assert "PW108" in run_ingest(tmp_path).codes()


def test_forced_format_reads_only_that_format(tmp_path: Path) -> None:
    make(tmp_path, {"dumps/a.xml": "<not-a-dump/>", "ep/episode.json": "{}"})
    assert [f for _, f, _ in find_sources(tmp_path, "uiautomator")] == ["uiautomator"]


def test_missing_root(tmp_path: Path) -> None:
    run = run_ingest(tmp_path / "nope")
    assert run.codes() == ["PW100"] and run.traces.episodes == ()
    assert run.diagnostics.items[0].source.file == "nope"


def test_root_without_traces(tmp_path: Path) -> None:
    make(tmp_path, {"readme.txt": "hi"})
    assert run_ingest(tmp_path).codes() == ["PW101"]


def test_unknown_format_argument_says_did_you_mean() -> None:
    with pytest.raises(UsageError, match='did you mean "droidbot"'):
        ingest(FIXTURES / "traces_ok", fmt="droidbto")


def test_episodes_are_in_canonical_order(tmp_path: Path) -> None:
    make(tmp_path, {"z/a.xml": simple_screen("com.a"), "a/b.xml": simple_screen("com.b"),
                    "a/a.xml": simple_screen("com.b")})
    episodes = run_ingest(tmp_path).traces.episodes
    assert [(e.app, e.id) for e in episodes] == [("com.a", "z/a.xml"), ("com.b", "a/a.xml"),
                                                 ("com.b", "a/b.xml")]


def test_half_a_droidbot_output_is_named_not_skipped(tmp_path: Path) -> None:
    """A DroidBot output copied without its events/ (or states/), or only its utg.js, matches no
    format: the build says so for each such folder and what it lacks, beside the traces it does
    read, instead of leaving it out unseen."""
    make(tmp_path, {
        "shots/states/state_1.json": "{}", "shots/utg.js": "var utg = {}",
        "log/events/event_1.json": "{}", "graph/utg.js": "var utg = {}",
        "kea/all_states/state_1.json": "{}",
        "whole/states/state_1.json": "{}", "whole/events/event_1.json": "{}",
        "dumps/one.xml": simple_screen(),
    })
    run = run_ingest(tmp_path)
    half = sorted(d.message for d in run.diagnostics.items if d.code == "PW129")
    assert half == ["the folder has DroidBot's all_states/ but no events/; it was not read",
                    "the folder has DroidBot's events/ but no states/; it was not read",
                    "the folder has DroidBot's states/ but no events/; it was not read",
                    "the folder has DroidBot's utg.js but no states/ and events/; it was not read"]
    assert sorted(d.source.file.rsplit("/", 1)[-1] for d in run.diagnostics.items
                  if d.code == "PW129") == ["graph", "kea", "log", "shots"]
    make(tmp_path / "only", {"run/states/state_1.json": "{}"})
    assert run_ingest(tmp_path / "only").codes() == ["PW129", "PW101"]
