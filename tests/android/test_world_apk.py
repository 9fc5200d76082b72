"""A world's apps as APKs (`phoneworld world apk`): the two bundled example apps (notes, messages)
with a hand-wired Share widget, built offline once. Every APK verifies (apksigner, zipalign), the
receivers' manifests hold the ACTION_SEND text/plain filter, and each app's world core agrees with
the world simulator on the JVM, step by step, on random copy / paste / share / attach / receive /
notification sequences."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.android.conftest import BUILD_TOOLS, JVM_TOOLS, need
from tests.conftest import build_mini_world

WORLD_YAML = """\
format: phoneworld-world/1
name: mini
apps:
  - dir: com.example.notes
    share: [{screen: s02_detail, widget: detail_status}]   # a Share widget, wired by hand
  - dir: com.example.messages                              # its Attach button is wired by itself
clipboard: "Stale text"
"""
PACKAGES = ("com.example.notes", "com.example.messages")
SEQUENCES, STEPS = 150, 25


@pytest.fixture(scope="session")
def world_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_mini_world(tmp_path_factory.mktemp("world_apk"), WORLD_YAML)


@pytest.fixture(scope="session")
def world_apks(world_dir: Path):  # type: ignore[no-untyped-def]
    need(*BUILD_TOOLS)
    from phoneworld.world.apk import build_world_apks

    return build_world_apks(world_dir, world_dir / "apk")


def _tool(name: str, *args: object) -> str:
    path = need(name)[name]
    done = subprocess.run([str(path), *map(str, args)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_every_apk_verifies_and_is_aligned(world_apks) -> None:  # type: ignore[no-untyped-def]
    assert sorted(world_apks.apks) == sorted(PACKAGES)
    for apk in world_apks.apks.values():
        _tool("apksigner", "verify", apk)
        _tool("zipalign", "-c", "4", apk)
        badging = _tool("aapt", "dump", "badging", apk)
        assert "launchable-activity: name=" in badging


def test_receivers_hold_the_send_filter(world_apks) -> None:  # type: ignore[no-untyped-def]
    assert set(world_apks.receivers) == set(PACKAGES)  # both have an auto-wired "new item" screen
    for pkg, apk in world_apks.apks.items():
        tree = _tool("aapt", "dump", "xmltree", apk, "AndroidManifest.xml")
        assert '"android.intent.action.SEND"' in tree, pkg
        assert 'android:mimeType(0x01010026)="text/plain"' in tree, pkg
        assert '".SaveFileActivity"' in tree, pkg
    index = json.loads((world_apks.out / "apks.json").read_text())
    assert index["world"] == "mini"
    assert [a["package"] for a in index["apps"]] == list(PACKAGES)
    assert all(a["receiver"] for a in index["apps"])


def test_apps_outside_a_world_have_no_world_parts(world_dir: Path) -> None:
    from phoneworld.android.project import render_project
    from phoneworld.ir.app import AppSpec

    spec = AppSpec.model_validate_json((world_dir / PACKAGES[0] / "app.json").read_text())
    files = render_project(spec)
    assert not any(f.endswith(("Wiring.kt", "WorldShell.kt", "SaveFileActivity.kt",
                               "WorldReplay.kt")) for f in files)
    assert "ACTION_SEND" not in "".join(files.values())
    assert "android.intent.action.SEND" not in files["app/src/main/AndroidManifest.xml"]


def test_world_core_has_no_android_imports(world_apks) -> None:  # type: ignore[no-untyped-def]
    for pkg in PACKAGES:
        core = world_apks.out / pkg / "android" / "app" / "src" / "main" / "java"
        for path in core.rglob("core/*.kt"):
            assert "import android" not in path.read_text(), path


@pytest.fixture(scope="session")
def world_core(world_dir: Path, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    need(*JVM_TOOLS)
    from phoneworld.android.jvm import compile_cores
    from phoneworld.world.apk import write_world_projects
    from phoneworld.world.device import World
    from phoneworld.world.load import load_world

    out = tmp_path_factory.mktemp("world_jvm")
    dirs = write_world_projects(World(load_world(world_dir)), out / "projects")
    return dirs, compile_cores([d / "android" for d in dirs.values()], out / "classes")


@pytest.mark.parametrize("package", PACKAGES)
def test_world_core_agrees_with_the_world_simulator(world_dir: Path, world_core,  # type: ignore[no-untyped-def]
                                                    package: str) -> None:
    from phoneworld.android.world_conformance import WorldWalk, agree_world
    from phoneworld.world.device import World
    from phoneworld.world.load import load_world

    dirs, core = world_core
    seqs = WorldWalk(World(load_world(world_dir)), package, seed=7).sequences(SEQUENCES, STEPS)
    result = agree_world(core, dirs[package] / "android", package, seqs)
    assert result.steps == SEQUENCES * STEPS
    assert result.ok, "\n".join(str(m) for m in result.mismatches[:5])
    # the walk exercises every world service the app is wired for
    want = {"menu", "notify"} | ({"share"} if package == PACKAGES[0] else {"pick"})
    assert want <= set(result.outputs), result.outputs


def test_a_world_divergence_is_reported(world_dir: Path, world_core) -> None:  # type: ignore[no-untyped-def]
    """Not vacuous: a record the simulator did not make shows as a named mismatch."""
    from phoneworld.android.world_conformance import WorldWalk, agree_world
    from phoneworld.world.device import World
    from phoneworld.world.load import load_world

    dirs, core = world_core
    pkg = PACKAGES[1]
    seq = WorldWalk(World(load_world(world_dir)), pkg, seed=3).sequences(1, 1)[0]
    seq.actions, seq.records = [["w_receive", "Hi"]], seq.records[:1]
    seq.records.append(seq.records[0])  # as if the share had done nothing
    result = agree_world(core, dirs[pkg] / "android", pkg, [seq])
    assert not result.ok and result.mismatches[0].step == 1


def test_world_apk_without_toolchain_exits_3(world_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    from phoneworld.android import toolchain
    from phoneworld.cli import app

    real = toolchain.tools

    def fake():  # type: ignore[no-untyped-def]
        found = real()
        found["kotlinc"] = toolchain.Tool("kotlinc", None, "kotlin", "compiles the app")
        return found

    monkeypatch.setattr(toolchain, "tools", fake)
    res = CliRunner().invoke(app, ["world", "apk", str(world_dir), "--out", str(tmp_path / "o")])
    assert res.exit_code == 3, res.output
    assert "kotlinc" in res.output and "apt-get install kotlin" in res.output
    assert "phoneworld doctor" in res.output
    assert not (tmp_path / "o").exists()


def test_world_apk_bad_spec_exits_1(tmp_path: Path) -> None:
    from phoneworld.cli import app

    (tmp_path / "world.yaml").write_text("format: phoneworld-world/1\nname: x\napps:\n"
                                         "  - dir: nowhere\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["world", "apk", str(tmp_path)])
    assert res.exit_code == 1, res.output
    assert "world.yaml:4: error[PW403]" in res.output
