"""Screenshots (ingest pass): image sizes, and the device frame they imply.

PIL stays inside this module and only reads image headers, never pixels.
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, UnidentifiedImageError

from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device

IMAGE_SUFFIXES: tuple[str, ...] = (".png", ".jpg", ".jpeg", ".webp")


def image_size(path: Path) -> tuple[int, int] | None:
    """(width, height) of an image file, or None when it is missing or not an image."""
    try:
        with Image.open(path) as image:
            width, height = image.size
            return int(width), int(height)
    except (OSError, UnidentifiedImageError):
        return None


def sibling_image(xml: Path) -> Path | None:
    """The screenshot saved beside a dump under the same stem (`3.xml` → `3.png`), if any."""
    for suffix in IMAGE_SUFFIXES:
        candidate = xml.with_suffix(suffix)
        if candidate.is_file():
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
