"""Same input, byte-identical output; the app spec round-trips through JSON."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phoneworld.emit import dumps
from phoneworld.ir.app import AppSpec
from phoneworld.pipeline import BuildConfig, build
from tests.conftest import EXAMPLE

EPISODES = sorted(p.parent.name for p in EXAMPLE.rglob("episode.json"))


def _copy_subset(names: list[str], dest: Path) -> Path:
    root = dest / "traces" / "com.example.notes"
    for name in names:
        src = EXAMPLE / "com.example.notes" / name
        (root / name).mkdir(parents=True)
        for f in src.iterdir():
            (root / name / f.name).write_bytes(f.read_bytes())
    return dest / "traces"


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(EPISODES), min_size=1, max_size=5, unique=True))
def test_building_twice_gives_identical_bytes(tmp_path_factory, names: list[str]) -> None:
    work = tmp_path_factory.mktemp("det")
    traces = _copy_subset(sorted(names), work)
    a = build(BuildConfig(traces=traces, out=work / "a")).apps[0].path
    b = build(BuildConfig(traces=traces, out=work / "b")).apps[0].path
    assert a is not None and b is not None
    for name in ("app.json", "report.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_app_spec_round_trips(example_dir: Path) -> None:
    text = (example_dir / "app.json").read_text()
    spec = AppSpec.model_validate_json(text)
    assert dumps(spec) == text


def test_no_absolute_paths_in_output(example_dir: Path) -> None:
    for name in ("app.json", "report.json"):
        text = (example_dir / name).read_text()
        assert str(EXAMPLE.parent.parent) not in text
