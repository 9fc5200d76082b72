"""LlamaTouch import: event lines, the click frame, and the real trace_7 facts."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from phoneworld.ingest.llamatouch import RawAction, parse_line, read_activity, to_action
from phoneworld.ir.trace import Device, ViewNode

from .support import Run, real_folder, run_ingest, simple_screen


@pytest.mark.parametrize(
    ("line", "kind", "frame", "points", "text"),
    [
        ("[Click] Screen Resolution (400, 720), Click Position (53, 261)", "click", (400, 720),
         ((53, 261),), ""),
        ("[Swipe] Screen Resolution (400, 720), Start Position (10, 600), End Position (10, 100)",
         "drag", (400, 720), ((10, 600), (10, 100)), ""),
        ("[Type] hello world", "type", None, (), "hello world"),
        ("[Back]", "back", None, (), ""),
        ("[Home]", "home", None, (), ""),
        ("[Enter]", "enter", None, (), ""),
        ("【点击事件】屏幕大小：（w400，h720），触摸位置：（x53，y261）",  # noqa: RUF001
         "click", (400, 720), ((53, 261),), ""),
        ("【Home键】", "home", None, (), ""),
        ("【键盘输入】你好", "type", None, (), "你好"),
    ],
    ids=["click", "swipe", "type", "back", "home", "enter", "zh-click", "zh-home", "zh-type"],
)
def test_parse_line(line: str, kind: str, frame: tuple[int, int] | None,
                    points: tuple[tuple[int, int], ...], text: str) -> None:
    parsed = parse_line(line, 1)
    assert parsed == RawAction(kind, 1, frame, points, text)


@pytest.mark.parametrize(
    ("line", "words"),
    [("Click at 3, 4", "[Tag]"), ("[Clck] Screen Resolution (1, 1), Click Position (0, 0)",
                                   'did you mean "click"'),
     ("[Click] Screen Resolution (400, 720)", "needs 1 position"),
     ("[Click] Screen Resolution (0, 720), Click Position (1, 1)", "empty screen resolution")],
    ids=["no-tag", "typo", "no-position", "empty-frame"],
)
def test_bad_lines(line: str, words: str) -> None:
    message = parse_line(line, 1)
    assert isinstance(message, str) and words in message


def test_rescaling_to_the_device_frame() -> None:
    raw = RawAction("click", 1, (400, 720), ((400, 720),))
    assert to_action(raw, Device(width=1080, height=1918)).model_dump() == {
        "type": "click", "x": 1079, "y": 1917}
    mid = RawAction("drag", 1, (400, 720), ((200, 360), (0, 0)))
    assert to_action(mid, Device(width=1080, height=1918)).model_dump() == {
        "type": "drag", "x1": 540, "y1": 959, "x2": 0, "y2": 0}


def png(path: Path, width: int, height: int) -> None:
    """A valid, empty PNG of that size (the header is all that is read)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + data))
        return struct.pack(">I", len(data)) + kind + data + crc
    raw = zlib.compress(b"".join(b"\x00" + b"\x00" * width for _ in range(height)))
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height,
                     8, 0, 0, 0, 0)) + chunk(b"IDAT", raw) + chunk(b"IEND", b""))


def write_trace(folder: Path, screens: int, lines: list[str]) -> Path:
    folder.mkdir(parents=True)
    for i in range(screens):
        (folder / f"{i}.xml").write_text(simple_screen())
        (folder / f"{i}.activity").write_text("null")
    png(folder / "0.png", 108, 200)
    (folder / "eventStructs.txt").write_text("\n".join(lines))
    (folder / "instruction.txt").write_text("123\nsay ok\n")
    return folder


def test_small_trace(tmp_path: Path) -> None:
    click = "[Click] Screen Resolution (400, 720), Click Position (200, 186)"
    run = run_ingest(write_trace(tmp_path / "t", 3, [click, "[Back]"]))
    (episode,) = run.traces.episodes
    assert (episode.device.width, episode.device.height) == (1080, 2000)
    assert episode.instruction == "say ok"
    first = episode.steps[0].action
    assert first is not None and first.model_dump() == {"type": "click", "x": 540, "y": 517}
    assert episode.steps[0].observation.activity is None
    assert episode.steps[0].source.line == 1
    assert run.codes() == ["PW161"]


@pytest.mark.parametrize(("screens", "actions"), [(3, 3), (4, 1)], ids=["extra-action",
                                                                         "extra-screens"])
def test_count_mismatch_is_trimmed(tmp_path: Path, screens: int, actions: int) -> None:
    run = run_ingest(write_trace(tmp_path / "t", screens, ["[Back]"] * actions))
    (episode,) = run.traces.episodes
    assert len(episode.steps) == min(screens, actions + 1)
    assert episode.steps[-1].action is None
    assert run.codes() == ["PW162"]


def test_gap_in_screens_is_an_error(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", 3, ["[Back]", "[Back]"])
    (folder / "1.xml").unlink()
    run = run_ingest(folder)
    assert run.codes("error") == ["PW163"] and run.traces.episodes == ()


def test_bad_line_is_an_error_with_its_line(tmp_path: Path) -> None:
    run = run_ingest(write_trace(tmp_path / "t", 3, ["[Back]", "[Jump]"]))
    (error,) = run.with_code("PW160")
    assert (error.source.line, error.source.step) == (2, 1)
    assert run.traces.episodes == ()


# ----------------------------------------------------------------------------- real data

def hit(root: ViewNode, x: int, y: int) -> list[ViewNode]:
    return [n for n in root.walk() if n.bounds.contains(x, y)]


def test_trace_7_is_split_per_app(llamatouch: Run) -> None:
    assert llamatouch.codes("error") == []
    shapes = [(ep.id, ep.app, len(ep.steps)) for ep in llamatouch.traces.episodes]
    assert shapes == [("trace_7.p2", "com.google.android.apps.maps", 10),
                      ("trace_7.p0", "com.google.android.apps.photos", 1)]
    assert all(ep.instruction == "delete location history" for ep in llamatouch.traces.episodes)
    assert all((ep.device.width, ep.device.height) == (1080, 1918)
               for ep in llamatouch.traces.episodes)
    assert len(llamatouch.with_code("PW161")) == 1
    assert len(llamatouch.with_code("PW141")) == 1  # the one-screen launcher part


def test_trace_7_clicks_hit_clickable_nodes(llamatouch: Run) -> None:
    maps = llamatouch.traces.episodes[0]
    clicks = 0
    for step in maps.steps:
        action = step.action
        if action is None or action.type != "click":
            continue
        clicks += 1
        root = step.observation.root
        assert root.bounds.contains(action.x, action.y)
        assert any(n.clickable for n in hit(root, action.x, action.y)), (step.index, action)
    assert clicks == 9


def test_trace_7_done_is_the_last_click() -> None:
    run = run_ingest(real_folder("llamatouch") / "trace_7")
    maps = next(ep for ep in run.traces.episodes if ep.app == "com.google.android.apps.maps")
    last = maps.steps[-2]
    assert last.action is not None and last.action.type == "click"
    texts = [n.text for n in hit(last.observation.root, last.action.x, last.action.y)]
    assert "Done" in texts


@pytest.mark.parametrize(
    ("text", "activity"),
    [("com.app/com.app.HomeActivity\n", "com.app/com.app.HomeActivity"),
     ("com.android.systemui.ImageWallpaper", "com.android.systemui.ImageWallpaper"),
     ("null", None), ("", None), ("mObscuringWindow=null\n", None),
     ("mObscuringWindow=Window{33ca9c8 u0 com.app/com.app.HomeActivity}",
      "com.app/com.app.HomeActivity"),
     ("  mCurrentFocus=Window{5fc0ca7 u0 com.android.systemui.ImageWallpaper}\n",
      "com.android.systemui.ImageWallpaper")],
    ids=["component", "window", "null", "empty", "null-line", "window-line", "focus-line"],
)
def test_activity_file_forms(text: str, activity: str | None) -> None:
    assert read_activity(text) == activity


def test_window_ids_do_not_split_an_activity(tmp_path: Path) -> None:
    """The raw `dumpsys window` line names one activity with a new window id each time it is
    read: the steps carry the activity alone, so they are one screen's."""
    folder = write_trace(tmp_path / "t", 3, ["[Back]", "[Back]"])
    for i, window in enumerate(("33ca9c8", "4f2fc72", "mObscuringWindow=null")):
        line = window if "=" in window else \
            f"mObscuringWindow=Window{{{window} u0 com.app/com.app.HomeActivity}}"
        (folder / f"{i}.activity").write_text(line + "\n")
    (episode,) = run_ingest(folder).traces.episodes
    assert [s.observation.activity for s in episode.steps] == [
        "com.app/com.app.HomeActivity", "com.app/com.app.HomeActivity", None]
