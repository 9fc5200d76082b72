"""`bench/crud_apps.py`: the CRUD test apps are written deterministically, and every app's
recording passes `phoneworld check` (the real ingest path). No fidelity figures are asserted."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from phoneworld.pipeline import check
from tests.bench_support import load_bench


@pytest.fixture(scope="module")
def bench() -> Any:
    return load_bench("crud_apps")


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_runs_write_byte_identical_traces(bench: Any, tmp_path: Path) -> None:
    for run in ("a", "b"):
        for app in bench.APPS:
            bench.write_app(app, tmp_path / run / app.name)
    first, second = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert first == second
    assert len({name.split("/")[0] for name in first}) == len(bench.APPS) >= 4


def test_every_app_passes_check_and_holds_out_its_new_values(bench: Any, tmp_path: Path) -> None:
    for app in bench.APPS:
        folder = bench.write_app(app, tmp_path / app.name)
        traces, diagnostics = check(folder)
        assert not diagnostics.has_errors, (app.name, diagnostics.items)
        assert traces.apps() == [folder.name]
        episodes = len(app.episodes) + len(app.new)
        assert len(traces.episodes) == episodes
        # the new-values episodes are the last HELDOUT of the recorded actions
        actions = sum(len(ep.steps) - 1 for ep in traces.episodes)
        held = sum(len(ep.steps) - 1 for ep in traces.episodes[len(app.episodes):])
        assert held == int(actions * bench.HELDOUT)


def test_a_bad_option_is_a_usage_error_not_a_traceback(bench: Any, capsys: Any) -> None:
    with pytest.raises(SystemExit) as exc:
        bench.main(["--only", "contact"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "did you mean 'contacts'?" in err and "Traceback" not in err


def test_one_app_builds_and_lists_its_misses(bench: Any, tmp_path: Path, capsys: Any) -> None:
    assert bench.main(["--only", "tally", "--out", str(tmp_path), "--misses"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:3] == ["app", "exit", "chg"]
    assert re.search(r"^tally +0 ", out, re.M) and re.search(r"^mean ", out, re.M)
    assert "tally: " in out and "steps the mock got wrong" in out
    assert (tmp_path / "tally" / "com.example.tally" / "ep_0001" / "episode.json").is_file()


def test_as_a_droidbot_run_every_app_is_one_chained_episode_of_the_same_actions(
        bench: Any, tmp_path: Path) -> None:
    for app in bench.APPS:
        folder = bench.write_app(app, tmp_path / app.name, "droidbot")
        assert {p.name for p in folder.iterdir()} == {"states", "events"}
        traces, diagnostics = check(folder)
        assert not diagnostics.has_errors, (app.name, diagnostics.items)
        # the launcher screen before the intent is dropped; the episodes chain into one run
        assert traces.apps() == [folder.name]
        assert len(traces.episodes) == 1
        actions = sum(len(script) for _, script in [*app.episodes, *app.new])
        assert len(traces.episodes[0].steps) - 1 == actions


def test_a_droidbot_recorded_todo_app_gets_create_and_delete_tasks(
        bench: Any, tmp_path: Path) -> None:
    out = tmp_path / "todo.json"
    assert bench.main(["--only", "todo", "--format", "droidbot", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["rows"]
    assert row["exit"] == 0 and row["train_match"] >= 0.95
    assert row["kinds"].get("create", 0) >= 1 and row["kinds"].get("delete", 0) >= 1


def test_a_random_exploration_is_one_droidbot_run_that_builds(bench: Any, tmp_path: Path) -> None:
    app = next(a for a in bench.APPS if a.name == "tally")
    folder = bench.write_app(app, tmp_path / "a", "droidbot", explore=120)
    again = bench.write_app(app, tmp_path / "b", "droidbot", explore=120)
    assert _files(folder) == _files(again)  # seeded: the same run every time
    traces, diagnostics = check(folder)
    assert not diagnostics.has_errors
    assert [len(ep.steps) - 1 for ep in traces.episodes] == [120]
    out = tmp_path / "tally.json"
    assert bench.main(["--only", "tally", "--explore", "120", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["rows"]
    assert row["exit"] == 0 and row["train_match"] >= 0.95 and row["tasks"] >= 5


def test_a_lagged_exploration_breaks_the_chain_where_droidbot_read_too_early(
        bench: Any, tmp_path: Path) -> None:
    app = next(a for a in bench.APPS if a.name == "tally")
    folder = bench.write_app(app, tmp_path / "a", "droidbot", explore=120, lag=0.2)
    events = [json.loads(p.read_text()) for p in sorted((folder / "events").glob("*.json"))]
    late = [a for a, b in zip(events, events[1:])
            if a["start_state"] == a["stop_state"] and b["start_state"] != a["stop_state"]]
    assert late  # some events stop where they started and the next starts elsewhere
    traces, diagnostics = check(folder)
    assert not diagnostics.has_errors and len(traces.episodes) > 1
    assert sum(len(ep.steps) - 1 for ep in traces.episodes) == 120


def test_lag_goes_with_explore(bench: Any, capsys: Any) -> None:
    with pytest.raises(SystemExit) as exc:
        bench.main(["--lag", "0.1"])
    assert exc.value.code == 2 and "--explore" in capsys.readouterr().err


def _nodes(xml: str) -> list[dict[str, str]]:
    return [dict(re.findall(r'([\w-]+)="([^"]*)"', m)) for m in re.findall(r"<node ([^>]*?)/?>", xml)]


@pytest.mark.parametrize("ui", ["react-native", "flutter", "compose"])
def test_other_toolkits_dump_the_same_app_their_way(bench: Any, tmp_path: Path, ui: str) -> None:
    """`--ui`: the same recording as React Native, Flutter or Compose dump it: no resource ids;
    Flutter's texts are content-descs, a tappable node holding the texts inside it; Compose's
    buttons Buttons around their label, its layouts Views, one activity; every tap lands on the
    same place, and the recording passes `phoneworld check`."""
    app = next(a for a in bench.APPS if a.name == "contacts")
    views = bench.write_app(app, tmp_path / "views")
    other = bench.write_app(app, tmp_path / ui, ui=ui)
    traces, diagnostics = check(other)
    assert not diagnostics.has_errors, diagnostics.items
    first = json.loads((views / "ep_0001" / "episode.json").read_text())
    again = json.loads((other / "ep_0001" / "episode.json").read_text())
    assert [s["action"] for s in first["steps"]] == [s["action"] for s in again["steps"]]
    nodes = _nodes((other / "ep_0001" / "0000.xml").read_text())
    assert all(n["resource-id"] == "" for n in nodes)
    if ui == "flutter":
        assert all(n["text"] == "" for n in nodes if n["class"] != bench.EDIT)
        rows = [n for n in nodes if n["clickable"] == "true" and "&#10;" in n["content-desc"]]
        assert rows  # a contact's row reads its name and number as one label
    elif ui == "compose":
        assert {s["activity"] for s in again["steps"]} == {"com.example.contacts/.MainActivity"}
        assert not {n["class"] for n in nodes} & {bench.FRAME, bench.LINEAR, bench.RECYCLER}
        add = next(n for n in nodes if n["content-desc"] == "Add contact")
        assert add["class"] == bench.IMAGE and add["clickable"] == "false"  # in its Button
        assert any(n["class"] == bench.TEXT and n["text"] == "Ana Souza" for n in nodes)
    else:
        assert any(n["class"] == bench.SCROLL for n in nodes)
