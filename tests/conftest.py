"""Shared fixtures: where the example and the real trace sets are, the example's build, and the
CI world (the two bundled apps on one device)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "traces"
REAL = REPO.parent / "shared" / "data" / "real"
MESSAGES = REPO / "examples" / "traces_messages"
MINI_WORLD_YAML = """\
format: phoneworld-world/1
name: mini
apps:
  - dir: com.example.notes
  - dir: com.example.messages
clipboard: "Stale text"
notifications:
  - {app: com.example.messages, text: "Bob: Pick up the parcel"}
"""


def build_mini_world(out: Path, world_yaml: str = MINI_WORLD_YAML) -> Path:
    """`out` holding the two bundled apps (notes, messages), built, and `world.yaml` naming them."""
    from phoneworld.pipeline import BuildConfig, build

    for traces in (EXAMPLE, MESSAGES):
        build(BuildConfig(traces=traces, out=out, html=False, android=False, tasks=False))
    (out / "world.yaml").write_text(world_yaml, encoding="utf-8")
    return out


def real_set(name: str) -> Path:
    path = REAL / name
    if not path.exists():
        pytest.skip(f"real trace set {path} is absent (it lives outside the repo in ../shared)")
    return path


@pytest.fixture(scope="session")
def example_build(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from phoneworld.pipeline import BuildConfig, build

    out = tmp_path_factory.mktemp("example_build")
    return build(BuildConfig(traces=EXAMPLE, out=out))


@pytest.fixture(scope="session")
def example_dir(example_build) -> Path:  # type: ignore[no-untyped-def]
    path = example_build.apps[0].path
    assert path is not None
    return path
