"""The report's pictures: mock screens rendered by the runtime, recorded screenshots scaled down.

Every distinct picture is embedded once, as a base64 JPEG inside an SVG `<symbol>`; the page draws
it wherever it is needed (screen card, graph node, mismatch row) with `<use>`, at any size. PIL
stays inside this module.
"""

from __future__ import annotations

import base64
import hashlib
import io
import logging
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from phoneworld.inputs import is_regular
from phoneworld.ir.trace import Device
from phoneworld.runtime.frame import Frame
from phoneworld.runtime.screenshot import render_image

log = logging.getLogger(__name__)

CARD_WIDTH = 216  # pixels of a screen card's pictures (and the graph's thumbnails, drawn smaller)
THUMB_WIDTH = 90  # pixels of a mismatch row's or a task strip's pictures
JPEG_QUALITY = 70
MAX_PIXELS = 50_000_000  # a 4K phone screen has 8.3 million; more is a bomb, not a screenshot
MAX_ASPECT = 8  # tallest picture, in widths: phones are about 2:1; more is not a screen's shape


@dataclass(frozen=True)
class Picture:
    id: str  # the symbol id: "p3"
    uri: str  # data:image/jpeg;base64,...
    width: int
    height: int


class ImageStore:
    """The pictures of one page, deduplicated by content, in first-use order (deterministic)."""

    def __init__(self) -> None:
        self._by_digest: dict[str, Picture] = {}
        self.pictures: list[Picture] = []
        self._recorded: dict[tuple[Path, int], Picture | None] = {}
        self._mocks: dict[tuple[int, int], tuple[Frame, Picture]] = {}

    def add(self, image: Image.Image) -> Picture:
        buf = io.BytesIO()
        image.convert("RGB").save(buf, format="JPEG", quality=JPEG_QUALITY)
        data = buf.getvalue()
        digest = hashlib.sha256(data).hexdigest()
        hit = self._by_digest.get(digest)
        if hit is None:
            uri = "data:image/jpeg;base64," + base64.b64encode(data).decode("ascii")
            hit = Picture(f"p{len(self.pictures)}", uri, image.width, image.height)
            self._by_digest[digest] = hit
            self.pictures.append(hit)
        return hit

    def mock(self, frame: Frame, device: Device, width: int) -> Picture:
        """A rendered mock screen, `width` pixels wide."""
        # Frames are shared by content (the simulator caches them), so equal screens of many
        # steps are drawn once; the frame is kept in the key so its identity cannot be reused.
        key = (id(frame), width)
        hit = self._mocks.get(key)
        if hit is None:
            # A device frame of absurd shape (a root view's bounds are real input) would make a
            # picture too large to allocate or to store as a JPEG: fit it into the tallest one.
            scale = min(width / max(1, device.width), MAX_ASPECT * width / max(1, device.height))
            hit = (frame, self.add(render_image(frame, device.width, device.height, scale)))
            self._mocks[key] = hit
        return hit[1]

    def recorded(self, path: Path | None, width: int) -> Picture | None:
        """A recorded screenshot scaled to `width` pixels, or None when it cannot be read."""
        if path is None:
            return None
        key = (path, width)
        if key not in self._recorded:
            self._recorded[key] = self._load(path, width)
        return self._recorded[key]

    def _load(self, path: Path, width: int) -> Picture | None:
        if not is_regular(path):  # a FIFO would block the report forever
            log.warning("screenshot %s is not a regular file; left out", path.name)
            return None
        try:
            with Image.open(path) as image:
                if image.width * image.height > MAX_PIXELS:  # checked before any decoding
                    log.warning("screenshot %s claims %dx%d pixels, more than any screen; left "
                                "out", path.name, image.width, image.height)
                    return None
                if image.height > MAX_ASPECT * image.width:
                    # Scaled to `width`, it would need gigabytes; it is no screen anyway.
                    log.warning("screenshot %s is %dx%d, not a screen's shape; left out",
                                path.name, image.width, image.height)
                    return None
                height = max(1, round(image.height * width / max(1, image.width)))
                image.draft("RGB", (width, height))  # JPEG: decode at a reduced scale, fast
                small = image.convert("RGB").resize((width, height), Image.Resampling.BILINEAR)
        except (OSError, UnidentifiedImageError, Image.DecompressionBombError, ValueError) as exc:
            log.warning("screenshot %s could not be read: %s", path.name, exc)
            return None
        return self.add(small)

    @property
    def total_bytes(self) -> int:
        return sum(len(p.uri) for p in self.pictures)
