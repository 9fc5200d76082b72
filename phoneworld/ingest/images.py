"""Screenshots (ingest pass): image sizes, and the device frame they imply.

PIL stays inside this module and only reads image headers, never pixels. Only regular files inside
the trace root are opened (a FIFO would block), and a header claiming more than `MAX_COORD` pixels
on a side (or a decompression bomb) is no screenshot.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, UnidentifiedImageError

from phoneworld import inputs
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device

IMAGE_SUFFIXES: tuple[str, ...] = (".png", ".jpg", ".jpeg", ".webp")


def image_size(path: Path, root: Path | None = None) -> tuple[int, int] | None:
    """(width, height) of an image file, or None when it is missing, unsafe or not an image."""
    if not inputs.is_regular(path, root):
        return None
    try:
        with Image.open(path) as image:
            width, height = image.size
    except (OSError, UnidentifiedImageError, Image.DecompressionBombError, ValueError):
        return None
    if not (0 < width <= inputs.MAX_COORD and 0 < height <= inputs.MAX_COORD):
        return None
    return int(width), int(height)


def sibling_image(xml: Path, root: Path | None = None) -> Path | None:
    """The screenshot saved beside a dump under the same stem (`3.xml` → `3.png`), if any."""
    for suffix in IMAGE_SUFFIXES:
        candidate = xml.with_suffix(suffix)
        if inputs.is_regular(candidate, root):
            return candidate
    return None


def device_frame(root: Bounds, image: tuple[int, int] | None) -> Device:
    """The device size: the root view's extent, made as tall as the screenshot shows.

    A dump's root is the app window, which often excludes the status or navigation bar, so it can
    be shorter than the screen; a screenshot shows the whole screen. The width comes from the
    view bounds (device pixels); the height is the image's, rescaled to that width.
    """
    width = max(root.x2, 1)
    height = max(root.y2, 1)
    if image is not None and image[0] > 0:
        height = max(height, round(image[1] * width / image[0]))
    return Device(width=width, height=height)
