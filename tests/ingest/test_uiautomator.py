"""Plain uiautomator dumps: one single-step episode per file."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from .support import run_ingest, simple_screen


def test_each_dump_is_a_one_step_episode(tmp_path: Path) -> None:
    folder = tmp_path / "dumps"
    folder.mkdir()
    (folder / "home.xml").write_text(simple_screen("com.x"))
    (folder / "list.xml").write_text(simple_screen("com.x").replace("1920", "1800"))
    Image.new("RGB", (540, 960)).save(folder / "list.png")
    (folder / "layout.xml").write_text("<LinearLayout/>")
    run = run_ingest(folder)
    episodes = {ep.id: ep for ep in run.traces.episodes}
    assert sorted(episodes) == ["home.xml", "list.xml"]
    assert all(len(ep.steps) == 1 and ep.steps[0].action is None for ep in episodes.values())
    listed = episodes["list.xml"]
    assert (listed.device.width, listed.device.height) == (1080, 1920)  # as tall as the image
    assert listed.steps[0].observation.screenshot == "list.png"
    assert episodes["home.xml"].steps[0].observation.screenshot is None
    assert run.codes() == ["PW109"]
