"""Screenshots of views with degenerate bounds: inverted, zero-size, off-screen, huge, tiny.

Real DroidBot traces hold negative-width bounds, and nothing a trace holds may crash a build, so
the renderer draws any bounds without raising; views with no area or off the canvas are not drawn,
and a normal view next to them still is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from phoneworld.ir.app import AppSpec, Lit, Widget
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device
from phoneworld.report.images import MAX_ASPECT, ImageStore
from phoneworld.runtime import Simulator
from phoneworld.runtime.frame import Frame
from phoneworld.runtime.screenshot import BG, BUTTON, _rounded, render_frame, render_image

from .notes_app import H, W, B, mini_app

# One widget of every kind the renderer draws differently.
KINDS: dict[str, dict[str, Any]] = {
    "edit": {"cls": "android.widget.EditText", "editable": True, "text": Lit(value="hello")},
    "switch": {"cls": "android.widget.Switch", "checkable": True, "checked": Lit(value=True),
               "text": Lit(value="Dark mode")},
    "checkbox": {"cls": "android.widget.CheckBox", "checkable": True, "checked": Lit(value=True),
                 "text": Lit(value="Done")},
    "image": {"cls": "android.widget.ImageButton", "content_desc": "Add note"},
    "button": {"cls": "android.widget.Button", "text": Lit(value="Save"), "clickable": True},
    "row": {"cls": "android.widget.LinearLayout", "clickable": True},
    "text": {"cls": "android.widget.TextView", "text": Lit(value="Some text")},
}
DEGENERATE: dict[str, Bounds] = {
    "inverted": B(700, 1500, 300, 1100),           # x2 < x1 and y2 < y1, as DroidBot writes them
    "inverted-x": B(700, 1100, 300, 1500),
    "zero": B(500, 1200, 500, 1200),
    "zero-width": B(500, 1100, 500, 1500),
    "negative": B(-400, -300, -10, -20),           # wholly above and left of the screen
    "straddling": B(-60, -60, 90, 90),             # partly on the screen
    "far": B(10**6, 10**6, 10**6 + 80, 10**6 + 80),
    "huge": B(-10**12, -10**12, 10**12, 10**12),
    "beyond-float": B(-10**400, 5, 10**400, 10**400),
    "smaller-than-radius": B(300, 1200, 304, 1203),
    "one-pixel": B(300, 1300, 301, 1301),
}
NORMAL = B(40, 200, 520, 320)  # the button that must still be drawn


def frame_of(widgets: list[Widget]) -> Frame:
    return Simulator(mini_app({"s00": widgets}, [])).frame()


def degenerate_widgets(bounds: Bounds) -> list[Widget]:
    return [Widget(wid=f"w_{kind}", bounds=bounds, **kw) for kind, kw in KINDS.items()]


@pytest.mark.parametrize("scale", [1.0, 0.5, 0.05], ids=["full", "half", "tiny"])
@pytest.mark.parametrize("name", sorted(DEGENERATE), ids=sorted(DEGENERATE))
def test_degenerate_bounds_render(name: str, scale: float) -> None:
    normal = Widget(wid="btn_ok", cls="android.widget.Button", text=Lit(value="OK"),
                    clickable=True, bounds=NORMAL)
    frame = frame_of([*degenerate_widgets(DEGENERATE[name]), normal])
    img = render_image(frame, W, H, scale)
    assert img.size == (max(1, round(W * scale)), max(1, round(H * scale)))
    shot = render_frame(frame, W, H, scale)
    assert shot.shape == (img.height, img.width, 3)
    if scale >= 0.5:  # inside the button, left of its centred text: the button's fill
        x, y = round((NORMAL.x1 + 30) * scale), round((NORMAL.y1 + NORMAL.y2) / 2 * scale)
        assert img.getpixel((x, y)) == BUTTON


@pytest.mark.parametrize("name", ["inverted", "inverted-x", "zero", "zero-width"],
                         ids=["inverted", "inverted-x", "zero", "zero-width"])
def test_views_without_area_leave_the_screen_blank(name: str) -> None:
    img = render_image(frame_of(degenerate_widgets(DEGENERATE[name])), W, H, 0.5)
    # Only the screen's root is drawn, and it is a plain layout: every pixel is background.
    assert img.getcolors() == [(img.width * img.height, BG)]


def test_a_view_straddling_the_edge_is_drawn_where_it_shows() -> None:
    button = Widget(wid="btn", cls="android.widget.Button", text=Lit(value=""), clickable=True,
                    bounds=B(-200, -200, 100, 100))
    img = render_image(frame_of([button]), W, H, 1.0)
    assert img.getpixel((50, 50)) == BUTTON
    assert img.getpixel((150, 150)) == BG


@pytest.mark.parametrize("scale", [0.2, 0.15, 0.3, 0.37])
def test_a_few_pixels_at_a_fractional_scale_render(scale: float) -> None:
    """QQ Music's 29 x 23 icon at a report card's scale 0.2 is a 4.8 x 3.6 box at fractional
    corners, which Pillow 13's rounded rectangle refused ("x1 must be greater than or equal to
    x0"): the app was not built."""
    img = render_image(frame_of(degenerate_widgets(B(695, 342, 724, 365))), W, H, scale)
    assert img.size == (max(1, round(W * scale)), max(1, round(H * scale)))


@settings(max_examples=200, deadline=None)
@given(x=st.floats(0, 1000), y=st.floats(0, 1000), w=st.floats(0, 12), h=st.floats(0, 12),
       r=st.floats(0, 20))
def test_any_rounded_box_draws(x: float, y: float, w: float, h: float, r: float) -> None:
    draw = ImageDraw.Draw(Image.new("RGB", (1100, 1100)))
    _rounded(draw, (x, y, x + w, y + h), r, fill=BUTTON, outline=BG)


def _bounds() -> st.SearchStrategy[Bounds]:
    coord = st.one_of(st.integers(-3000, 3000), st.integers())
    return st.builds(Bounds, x1=coord, y1=coord, x2=coord, y2=coord)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bounds=st.lists(_bounds(), min_size=1, max_size=3),
       scale=st.sampled_from([1.0, 0.5, 0.2, 0.01]))
def test_any_bounds_render_without_raising(bounds: list[Bounds], scale: float) -> None:
    widgets = [w for b in bounds for w in degenerate_widgets(b)]
    widgets = [w.model_copy(update={"wid": f"{w.wid}_{i}"}) for i, w in enumerate(widgets)]
    img = render_image(frame_of(widgets), W, H, scale)
    assert img.size == (max(1, round(W * scale)), max(1, round(H * scale)))


# ---------------------------------------------------------------------------- the report's pictures


def test_report_mock_of_an_absurd_device_frame_fits_the_tallest_picture() -> None:
    app = mini_app({"s00": degenerate_widgets(DEGENERATE["far"])}, [])
    tall = Device(width=W, height=10**7)  # a root view's bounds make the device size
    tall_app = AppSpec.model_validate({**app.model_dump(), "device": tall.model_dump()})
    picture = ImageStore().mock(Simulator(tall_app).frame(), tall, 216)
    assert picture.height <= MAX_ASPECT * 216 and picture.width >= 1


def test_report_leaves_out_a_recorded_image_of_no_screen_shape(tmp_path: Path) -> None:
    path = tmp_path / "screen_x.png"
    Image.new("RGB", (2, 2 * MAX_ASPECT + 2), BG).save(path)
    assert ImageStore().recorded(path, 216) is None
    Image.new("RGB", (540, 960), BG).save(path)
    picture = ImageStore().recorded(path, 216)
    assert picture is not None and (picture.width, picture.height) == (216, 384)
