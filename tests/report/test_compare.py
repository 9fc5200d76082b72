"""`phoneworld report --compare A B`: screens matched through the observations they merge."""

from __future__ import annotations

from pathlib import Path

from phoneworld.pipeline import BuildConfig, build
from phoneworld.report.compare import compare, match_screens
from tests.conftest import EXAMPLE
from tests.test_cli import phoneworld


def _kinds(changes) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:  # type: ignore[no-untyped-def]
    return {f"{c.kind}:{','.join(c.a)}>{','.join(c.b)}": (c.a, c.b) for c in changes}


def test_match_screens_tells_merges_splits_renames() -> None:
    a = {"s0": {"e:0", "e:1"}, "s1": {"e:2"}, "s2": {"e:3"}, "s3": {"e:9"}, "s4": {"f:0", "f:1"}}
    b = {"t0": {"e:0", "e:1", "e:2"}, "t1": {"e:3"}, "t2": {"e:5"}, "t3": {"f:0"}, "t4": {"f:1"}}
    kinds = _kinds(match_screens(a, b))
    assert set(kinds) == {"merged:s0,s1>t0", "renamed:s2>t1", "removed:s3>", "added:>t2",
                          "split:s4>t3,t4"}


def test_same_build_compares_equal(example_dir: Path) -> None:
    c = compare(example_dir, example_dir)
    assert c.matched_by == "observations"
    assert {s.kind for s in c.screens} == {"same"}
    assert c.transitions == () and not c.fixed and not c.broken


def test_compare_command_writes_a_page(example_dir: Path, tmp_path: Path) -> None:
    other = build(BuildConfig(traces=EXAMPLE, out=tmp_path / "b", heldout=0.4)).apps[0].path
    assert other is not None
    out = tmp_path / "cmp.html"
    proc = phoneworld("report", "--compare", str(example_dir), str(other), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "screens matched by observations" in proc.stdout
    assert "transition changes: " in proc.stdout and "removed" in proc.stdout
    html = out.read_text()
    assert 'id="transitions"' in html and "held-out" in html


def test_compare_without_page_data_matches_by_id(example_dir: Path, tmp_path: Path) -> None:
    import shutil

    bare = tmp_path / "bare"
    shutil.copytree(example_dir, bare)
    (bare / "report.html").unlink()
    c = compare(bare, example_dir)
    assert c.matched_by == "screen id" and {s.kind for s in c.screens} == {"same"}
