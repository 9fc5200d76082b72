"""Screenshots rendered from the layout: a readable approximation of the screen, not pixel-exact.

Buttons are filled rounded boxes, editable fields have an underline (accented when focused),
checkboxes a box with a tick, switches a track and a thumb, images a crossed placeholder,
clickable rows a separator; texts are drawn in a default sans font scaled with the screen.
Images of a frame are cached (a small LRU per process) because they cost milliseconds.

Any bounds draw without raising, since real traces hold every kind: a view with no area (zero
size, or inverted as uiautomator writes off-screen views) or wholly off the canvas is not drawn,
like on the device, where nothing can touch it either; the rest is clipped near the canvas
before PIL sees it (huge coordinates overflow its C ints), the corner radius is fitted to the box,
and a text is left out where the box has no room for it.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image, ImageDraw, ImageFont

if TYPE_CHECKING:
    from phoneworld.runtime.frame import Frame, RNode

BG = (250, 250, 250)
INK = (33, 33, 33)
MUTED = (117, 117, 117)
ACCENT = (25, 118, 210)
BUTTON = (224, 224, 224)
LINE = (200, 200, 200)
_CACHE: OrderedDict[tuple[Frame, float], np.ndarray] = OrderedDict()  # frames hash by identity
_CACHE_SIZE = 16
_LIMIT = 1 << 40  # device pixels: far beyond any screen, well inside a float's exact range


@lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(6, size))


def screenshot_size(width: int, height: int, scale: float) -> tuple[int, int]:
    """(width, height) in pixels of a screenshot of a `width` x `height` device at `scale`."""
    return max(1, round(width * scale)), max(1, round(height * scale))


def render_frame(frame: Frame, width: int, height: int, scale: float = 0.5) -> np.ndarray:
    """The frame as an H x W x 3 uint8 array (a fresh copy the caller may modify)."""
    key = (frame, scale)
    hit = _CACHE.get(key)
    if hit is None:
        hit = np.asarray(render_image(frame, width, height, scale), dtype=np.uint8)
        _CACHE[key] = hit
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return hit.copy()


def render_image(frame: Frame, width: int, height: int, scale: float = 0.5) -> Image.Image:
    """Draw the frame's views in document order onto a fresh PIL image."""
    img = Image.new("RGB", screenshot_size(width, height, scale), BG)
    draw = ImageDraw.Draw(img)
    for n in frame.nodes:
        box = _box(n, scale, img.size)
        if box is not None:
            _draw_node(draw, n, box, scale)
    return img


def _box(n: RNode, s: float, size: tuple[int, int]) -> tuple[float, float, float, float] | None:
    """The view's pixel box (PIL boxes include x2, y2), or None when nothing of it shows: no area,
    or wholly off the canvas. Clipped one canvas beyond each edge, so that a view running off the
    screen keeps its look (its own edge stays off the canvas) while no coordinate PIL sees is
    huge."""
    w, h = size
    # Ints first: a coordinate beyond a float's range cannot even be scaled.
    x1, y1, x2, y2 = (min(max(v, -_LIMIT), _LIMIT) * s for v in (n.x1, n.y1, n.x2, n.y2))
    if not (x2 > x1 and y2 > y1) or x2 <= 0 or y2 <= 0 or x1 >= w or y1 >= h:
        return None
    cx1, cy1 = max(x1, -w), max(y1, -h)
    # A view narrower than a pixel at this scale stays a one-pixel line.
    return cx1, cy1, min(max(cx1, x2 - 1), 2 * w), min(max(cy1, y2 - 1), 2 * h)


def _rounded(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], r: float,
             **style: Any) -> None:
    """A rounded rectangle on whole pixels, its radius a whole number at most half of each side:
    the shape must not depend on how a Pillow version treats a radius too large for its box, and
    Pillow 13 refuses some boxes a few pixels wide at fractional corners (a 4.8 x 3.6 icon at a
    report card's scale)."""
    x1, y1 = round(box[0]), round(box[1])
    x2, y2 = max(x1, round(box[2])), max(y1, round(box[3]))
    radius = max(0, int(min(r, (x2 - x1) / 2, (y2 - y1) / 2)))
    draw.rounded_rectangle((x1, y1, x2, y2), radius=radius, **style)


def _draw_node(draw: ImageDraw.ImageDraw, n: RNode, box: tuple[float, float, float, float],
               s: float) -> None:
    c = n.c
    x1, y1, x2, y2 = box
    cls = c.cls.rsplit(".", 1)[-1]
    label = n.text or (c.content_desc if cls.endswith(("ImageButton", "ImageView")) else "")
    if c.editable:
        color = ACCENT if n.focused else MUTED
        draw.line((x1, y2 - 2, x2, y2 - 2), fill=color, width=max(1, round(4 * s)))
        _text(draw, n.text, x1 + 8 * s, y1, x2, y2, s, INK)
    elif cls in ("Switch", "SwitchCompat", "ToggleButton") or cls.endswith("Switch"):
        _switch(draw, n, x1, y1, x2, y2, s)
    elif c.checkable:
        _checkbox(draw, n, x1, y1, x2, y2, s)
    elif cls.endswith(("ImageView", "ImageButton")):
        _rounded(draw, box, 8 * s, fill=BUTTON, outline=LINE)
        draw.line((x1, y1, x2, y2), fill=LINE)
        draw.line((x1, y2, x2, y1), fill=LINE)
        _text(draw, label, x1 + 4 * s, y1, x2, y2, s, INK, center=True)
    elif cls.endswith("Button"):
        fill = BUTTON if c.enabled else BG
        _rounded(draw, box, 12 * s, fill=fill, outline=LINE)
        _text(draw, n.text, x1, y1, x2, y2, s, INK if c.enabled else MUTED, center=True)
    else:
        if c.clickable and not n.text and not n.children:
            draw.rectangle((x1, y1, x2, y2), outline=LINE)
        elif c.clickable and n.children:
            draw.line((x1, y2, x2, y2), fill=LINE)
        if n.text:
            _text(draw, n.text, x1 + 8 * s, y1, x2, y2, s, INK)


def _checkbox(draw: ImageDraw.ImageDraw, n: RNode, x1: float, y1: float, x2: float, y2: float,
              s: float) -> None:
    side = min(y2 - y1, 56 * s)
    bx, by = x1 + 8 * s, (y1 + y2 - side) / 2
    box = (bx, by, bx + side, by + side)
    draw.rectangle(box, outline=ACCENT if n.checked else MUTED, width=max(1, round(4 * s)),
                   fill=ACCENT if n.checked else None)
    if n.checked:
        draw.line((bx + side * 0.2, by + side * 0.5, bx + side * 0.42, by + side * 0.75,
                   bx + side * 0.8, by + side * 0.25), fill=BG, width=max(1, round(5 * s)))
    _text(draw, n.text, bx + side + 16 * s, y1, x2, y2, s, INK)


def _switch(draw: ImageDraw.ImageDraw, n: RNode, x1: float, y1: float, x2: float, y2: float,
            s: float) -> None:
    th = min(y2 - y1, 48 * s)
    tw = th * 2
    tx, ty = x2 - tw - 8 * s, (y1 + y2 - th) / 2
    _rounded(draw, (tx, ty, tx + tw, ty + th), th / 2, fill=ACCENT if n.checked else LINE)
    knob = tx + tw - th if n.checked else tx
    draw.ellipse((knob, ty, knob + th, ty + th), fill=BG, outline=MUTED)
    _text(draw, n.text, x1 + 8 * s, y1, tx - 8 * s, y2, s, INK)


def _text(draw: ImageDraw.ImageDraw, text: str, x1: float, y1: float, x2: float, y2: float,
          s: float, fill: tuple[int, int, int], center: bool = False) -> None:
    avail = x2 - x1 - 8 * s
    if not text or avail <= 0:  # also a box the padding leaves no room in
        return
    line = text.replace("\n", " ")
    size = round(min(max((y2 - y1) * 0.45, 24 * s), 44 * s))
    font = _font(size)
    line = line[: int(avail / max(1.0, size * 0.25)) + 1]  # bound the fitting loop below
    if draw.textlength(line, font=font) > avail:
        while line and draw.textlength(line + "…", font=font) > avail:
            line = line[:-1]
        line += "…"
    w = draw.textlength(line, font=font)
    x = x1 + (x2 - x1 - w) / 2 if center else x1
    draw.text((x, (y1 + y2) / 2), line, fill=fill, font=font, anchor="lm")
