"""The CI world: the example notes app and the example messages app, both built from traces in
the repo, on one device (no real data needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import build_mini_world

@pytest.fixture(scope="session")
def mini_world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the two built apps and `world.yaml` naming them."""
    return build_mini_world(tmp_path_factory.mktemp("mini_world"))


@pytest.fixture()
def world(mini_world: Path):  # type: ignore[no-untyped-def]
    from phoneworld.world.device import World
    from phoneworld.world.load import load_world

    return World(load_world(mini_world))


@pytest.fixture(scope="session")
def mini_world_dir(mini_world: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The CI world built by `phoneworld world build` (apps, cross-app tasks, verifiers)."""
    from phoneworld.world.build import build_world

    return build_world(mini_world / "world.yaml", tmp_path_factory.mktemp("built") / "mini").path
