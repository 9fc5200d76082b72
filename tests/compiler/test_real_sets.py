"""The real trace sets in ../shared/data/real build, and Habitica's fidelity meets its bar."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from phoneworld.pipeline import BuildConfig, build
from tests.conftest import real_set


@pytest.fixture(scope="module")
def habitica(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("habitica")
    result = build(BuildConfig(traces=real_set("habitica-droidbot"), out=out, heldout=0.2))
    apps = {a.spec.package: a for a in result.apps}
    built = apps["com.habitrpg.android.habitica"]
    assert built.path is not None
    return json.loads((built.path / "report.json").read_text())


def test_habitica_training_fidelity(habitica: dict) -> None:
    train = habitica["fidelity"]["train"]
    assert train["changing_steps"] > 50
    assert train["transition_match_changing"] >= 0.95
    # a mock that knew the true next screen and replayed its last recorded content scores ~0.64
    assert train["change_f1"] >= 0.65


def test_habitica_heldout_is_reported(habitica: dict) -> None:
    held = habitica["fidelity"]["heldout"]
    assert held is not None and held["steps"] > 100
    assert 0.0 <= held["transition_match"] <= 1.0


@pytest.mark.parametrize("name", ["autodroid-utgs", "llamatouch"], ids=["autodroid", "llamatouch"])
def test_real_set_builds(name: str, tmp_path: Path) -> None:
    result = build(BuildConfig(traces=real_set(name), out=tmp_path))
    assert result.apps
    for a in result.apps:
        assert a.path is not None and (a.path / "app.json").exists()
        assert a.report.fidelity.train is not None


DROIDBOT_MORE = ["album-sample", "blobit", "langpuzzle", "paypenny", "testdroid"]


@pytest.mark.parametrize("name", DROIDBOT_MORE)
def test_unseen_real_app_builds_with_heldout(name: str, tmp_path: Path) -> None:
    """Real apps the compiler was not grown on build whole, held-out replay included: no app
    fails, the main app is named by its own package and replays most of its training steps."""
    result = build(BuildConfig(traces=real_set(f"droidbot-more/{name}"), out=tmp_path,
                               heldout=0.2))
    assert not result.failed, result.failed
    main = max(result.apps, key=lambda a: a.report.steps)
    assert "launcher" not in main.spec.package
    fid = main.report.fidelity
    assert fid.train is not None and fid.heldout is not None
    assert (fid.train.transition_match_changing or 0) >= 0.6
    assert fid.heldout_coverage is not None and fid.heldout_covered is not None
