"""A world with an app compiled from a real trace set (skips when ../shared/data/real is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import real_set


@pytest.fixture(scope="module")
def sms_world(mini_world: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from phoneworld.pipeline import BuildConfig, build

    traces = real_set("autodroid-utgs") / "SMS Messenger"
    out = tmp_path_factory.mktemp("sms_world")
    build(BuildConfig(traces=traces, out=out, fmt="autodroid", html=False, android=False,
                      tasks=False))
    notes = (mini_world / "com.example.notes").resolve()
    (out / "world.yaml").write_text(
        f"name: sms\napps:\n  - dir: {notes}\n  - dir: autodroid.sms_messenger\n"
        "    receive: {path: [button], field: edit_text}\n", encoding="utf-8")
    return out


def test_handoffs_into_and_out_of_a_real_app(sms_world: Path) -> None:
    from phoneworld.world.check import check_all
    from phoneworld.world.device import World
    from phoneworld.world.load import load_world
    from phoneworld.world.schema import schema_of
    from phoneworld.world.synth import handoff_tasks

    world = World(load_world(sms_world))
    assert world.wiring["autodroid.sms_messenger"].receive is not None
    schema = schema_of(world)
    tasks = handoff_tasks(world, schema)
    into = [t for t in tasks if t.id.endswith("sms_messenger") and t.tags[0] in ("share", "stale_clipboard")][:3]
    out_of = [t for t in tasks if t.id.endswith("com_example_notes")][:3]
    assert into and out_of
    checks = check_all(world, schema, into + out_of)
    assert all(c.kept for c in checks), [(c.task.id, c.detail) for c in checks if not c.kept]
