"""The report page without a browser: written by every build, byte-stable, escaped, regenerated
from the traces by `phoneworld report`, and holding every section the issue lists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from phoneworld.errors import UsageError
from phoneworld.pipeline import BuildConfig, BuildResult, build
from phoneworld.report.data import read_page_data
from phoneworld.report.layout import EdgeSpec, dot_source, layout
from phoneworld.report.regenerate import regenerate
from tests.conftest import EXAMPLE
from tests.report.support import hostile_traces
from tests.test_cli import phoneworld


def test_build_writes_the_page(example_dir: Path) -> None:
    html = (example_dir / "report.html").read_text()
    for section in ("summary", "screens", "graph", "state", "fidelity", "tasks"):
        assert f'id="{section}"' in html
    spec = json.loads((example_dir / "app.json").read_text())
    assert html.count('class="screen-card"') == len(spec["screens"])
    assert "http://" not in html and "https://" not in html  # nothing to fetch


def test_two_builds_give_identical_pages(example_build: BuildResult, tmp_path: Path) -> None:
    again = build(BuildConfig(traces=EXAMPLE, out=tmp_path)).apps[0].path
    first = example_build.apps[0].path
    assert again is not None and first is not None
    assert (again / "report.html").read_bytes() == (first / "report.html").read_bytes()


def test_page_names_no_absolute_path(example_dir: Path) -> None:
    html = (example_dir / "report.html").read_text()
    assert str(EXAMPLE.parent) not in html and str(example_dir) not in html


def test_trace_text_is_escaped(tmp_path: Path) -> None:
    path = build(BuildConfig(traces=hostile_traces(tmp_path), out=tmp_path / "out")).apps[0].path
    assert path is not None
    html = (path / "report.html").read_text()
    assert "Runtime.exec" in html  # the text is shown...
    assert "<img" not in html and "</script><img" not in html  # ...never as markup
    assert len(re.findall(r"<script", html)) == 1  # only the JSON data block
    data = read_page_data(path / "report.html")
    assert data is not None and data["app"] == "com.example.notes"


def test_regenerate_gives_the_build_page(tmp_path: Path) -> None:
    path = build(BuildConfig(traces=EXAMPLE, out=tmp_path, heldout=0.25)).apps[0].path
    assert path is not None
    written = (path / "report.html").read_bytes()
    (path / "report.html").unlink()
    assert regenerate(path, EXAMPLE) == path / "report.html"
    assert (path / "report.html").read_bytes() == written


def test_regenerate_refuses_other_traces(tmp_path: Path) -> None:
    path = build(BuildConfig(traces=EXAMPLE, out=tmp_path)).apps[0].path
    assert path is not None
    with pytest.raises(UsageError, match="is not what"):
        regenerate(path, hostile_traces(tmp_path / "other"))


def test_report_command(example_dir: Path, tmp_path: Path) -> None:
    proc = phoneworld("report", str(example_dir), "--traces", str(EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(example_dir / "report.html")
    proc = phoneworld("report", str(tmp_path))
    assert proc.returncode == 2 and "--traces" in proc.stderr


def test_fidelity_section_gives_the_free_running_figures(example_dir: Path) -> None:
    html = (example_dir / "report.html").read_text()
    free = json.loads((example_dir / "report.json").read_text())["fidelity"]["free_running"]
    assert (f"{free['reproduced']} of {free['episodes']} episodes go through the recorded "
            f"screens; screen content (Jaccard) {free['content_match']:.3f} a step over "
            f"{free['steps']} steps") in html


def test_tasks_section_is_present(example_dir: Path) -> None:
    html = (example_dir / "report.html").read_text()
    assert 'id="tasks"' in html


def test_dot_source_escapes_names() -> None:
    edge = EdgeSpec("e0", 'a"b', "c\\d", ('click "x"', "end\\"))
    text = dot_source(['a"b', "c\\d"], [edge], 96, 150)
    assert 'a"b' not in text and "n0 -> n1" in text  # screen ids never enter DOT syntax
    assert 'label="click \\"x\\"\\nend\\\\"' in text
    placed = layout(['a"b', "c\\d"], [edge], 96, 150)
    assert set(placed.nodes) == {'a"b', "c\\d"} and set(placed.edges) == {"e0"}


def test_networkx_layout_without_dot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("phoneworld.report.layout.shutil.which", lambda name: None)
    edges = [EdgeSpec("e0", "a", "b", ("click x",)), EdgeSpec("e1", "b", "b", ("scroll",))]
    placed = layout(["a", "b", "c"], edges, 96, 150, start="a")
    assert placed.engine == "networkx"
    assert placed.nodes["b"].y > placed.nodes["a"].y  # b is one layer below the start
