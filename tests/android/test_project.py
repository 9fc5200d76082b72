"""The emitted Kotlin project: deterministic, readable, pure core, within JVM limits."""

from __future__ import annotations

import re
from pathlib import Path

from phoneworld.android.layout import CHILDREN_PER_FUNCTION
from phoneworld.android.project import render_project, template_names

CORE = re.compile(r"app/src/main/java/.+/core/")


def test_rendering_twice_gives_identical_files(android_apps) -> None:  # type: ignore[no-untyped-def]
    for app in android_apps.values():
        assert render_project(app.spec) == render_project(app.spec)


def test_the_build_wrote_the_project(android_apps) -> None:  # type: ignore[no-untyped-def]
    for app in android_apps.values():
        files = render_project(app.spec)
        for rel, text in files.items():
            assert (app.project / rel).read_text(encoding="utf-8") == text, rel


def test_tree_mirrors_the_templates(android_apps) -> None:  # type: ignore[no-untyped-def]
    from phoneworld.android.world_context import WorldWiring

    files = render_project(android_apps["example"].spec)
    # the world-only templates (core/Wiring.kt, ...) render only for an app in a world
    in_world = render_project(android_apps["example"].spec, WorldWiring(name="w"))
    assert set(files) < set(in_world)
    for name in template_names():
        target = name[:-3].replace("PACKAGE", "com/example/notes")
        if "SCREEN" in target:
            assert any(f.startswith(target.rsplit("/", 1)[0]) for f in files)
        else:
            assert target in in_world, target
    screens = [f for f in files if "/core/screens/" in f]
    assert sorted(Path(f).name for f in screens) == [
        "DetailScreen.kt", "EditorScreen.kt", "LauncherScreen.kt", "MainScreen.kt",
        "SettingsScreen.kt"]


def test_core_has_no_android_imports(android_apps) -> None:  # type: ignore[no-untyped-def]
    for app in android_apps.values():
        for rel, text in render_project(app.spec).items():
            if CORE.search(rel):
                assert "import android" not in text, rel


def test_code_is_named_after_screens_widgets_and_state(android_apps) -> None:  # type: ignore[no-untyped-def]
    files = render_project(android_apps["example"].spec)
    editor = files["app/src/main/java/com/example/notes/core/screens/EditorScreen.kt"]
    assert "object EditorScreen : Screen(" in editor
    assert "object EditorClickSaveButton : Transition(" in editor
    assert "private fun toolbar(): Widget" in editor
    assert "c.state.titleInput" in editor
    state = files["app/src/main/java/com/example/notes/core/AppState.kt"]
    assert "data class NoteListItemsRecord(" in state and "var noteTitle: String" in state
    assert "var noteListItemsSelected: Long?" in state


def test_large_screens_are_split_into_small_functions(android_apps) -> None:  # type: ignore[no-untyped-def]
    """Habitica's screens have ~160 widgets: no function builds more than a bounded number."""
    for rel, text in render_project(android_apps["habitica"].spec).items():
        if "/core/screens/" not in rel:
            continue
        for body in re.split(r"\n    private fun |\n    override fun ", text)[1:]:
            assert body.count("Widget(") <= CHILDREN_PER_FUNCTION + 1, rel


def test_manifest_and_resources(android_apps) -> None:  # type: ignore[no-untyped-def]
    files = render_project(android_apps["example"].spec)
    manifest = files["app/src/main/AndroidManifest.xml"]
    assert 'package="com.example.notes"' in manifest
    assert "com.example.notes.phoneworld.RESET" in manifest
    assert "android.intent.category.LAUNCHER" in manifest
    ids = files["app/src/main/res/values/ids.xml"]
    assert '<item type="id" name="save_button" />' in ids
    assert "android" not in re.findall(r'name="([^"]+)"', ids)


def test_building_twice_gives_identical_kotlin(tmp_path: Path) -> None:
    from phoneworld.pipeline import BuildConfig, build
    from tests.conftest import EXAMPLE

    trees = []
    for name in ("a", "b"):
        path = build(BuildConfig(traces=EXAMPLE, out=tmp_path / name, tasks=False,
                                 html=False)).apps[0].path
        assert path is not None
        trees.append({p.relative_to(path).as_posix(): p.read_bytes()
                      for p in sorted((path / "android").rglob("*")) if p.is_file()})
    assert trees[0] == trees[1] and len(trees[0]) > 20
    assert not any(str(tmp_path) in text.decode("utf-8") for text in trees[0].values())


def _taller_status_bar(w):  # type: ignore[no-untyped-def]
    if w.resource_id == "android:id/statusBarBackground":
        return w.model_copy(update={"bounds": w.bounds.model_copy(update={"y2": w.bounds.y2 + 1})})
    return w.model_copy(update={"children": type(w.children)(_taller_status_bar(c)
                                                             for c in w.children)})


def test_window_decor_is_written_once_per_variant(example_build) -> None:  # type: ignore[no-untyped-def]
    """The frame, system bar backgrounds and content view around every recorded screen live in
    `Decor`, once; a screen whose decor differs gets its own variant."""
    spec = example_build.apps[0].spec
    files = render_project(spec)
    decor = files["app/src/main/java/com/example/notes/core/Decor.kt"]
    assert decor.count("\n    fun window") == 1
    assert 'resourceId = "android:id/content"' in decor and "children = body" in decor
    for rel, text in files.items():
        if "/core/screens/" in rel:
            assert ("Decor.window(" in text) == (not rel.endswith("LauncherScreen.kt")), rel
            assert "statusBarBackground" not in text, rel
    first = spec.screens[0]
    changed = spec.model_copy(update={"screens": [
        first.model_copy(update={"root": _taller_status_bar(first.root)}), *spec.screens[1:]]})
    files = render_project(changed)
    decor = files["app/src/main/java/com/example/notes/core/Decor.kt"]
    assert decor.count("\n    fun window") == 2
    uses = {rel: re.findall(r"Decor\.(window\d*)\(", text) for rel, text in files.items()
            if "/core/screens/" in rel and not rel.endswith("LauncherScreen.kt")}
    assert sorted(set(sum(uses.values(), []))) == ["window", "window2"]
