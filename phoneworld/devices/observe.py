"""Observing a device: one `uiautomator dump` (plus the focused window and the app's pid, in the
same shell call), pulled over sync, parsed with the ingest pass's parser, turned into the same
observation the simulator backend gives (XML, text form, elements; `phoneworld.runtime.render`).

Dumps fail on real phones (mid-animation: "could not get idle state"; a half-written file): a
failed or unparsable dump is retried `retries` times with a short pause, then `DumpError`. Views
are mapped from the device's pixels into the app spec's frame when the sizes differ.
"""

from __future__ import annotations

import io
import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from phoneworld.devices.link import DeviceLink
from phoneworld.devices.protocol import DUMP_PATH, parse_focus, screen_command, short_component
from phoneworld.devices.screens import scale_view
from phoneworld.errors import DeviceError, DumpError
from phoneworld.ingest.context import IngestContext
from phoneworld.ingest.uixml import parse_uixml
from phoneworld.ir.base import SourceRef
from phoneworld.ir.diagnostics import Diagnostics
from phoneworld.ir.trace import ViewNode
from phoneworld.runtime.backend import Obs
from phoneworld.runtime.render import elements_from_view, text_form, view_xml

logger = logging.getLogger(__name__)
_MARK = "__phoneworld_app_screen__"


@dataclass(frozen=True)
class Capture:
    """One look at the device: the view tree (spec frame), its package, the focused window,
    whether the app's process is alive, and what the app says of its screen (generated APKs:
    `files/screen.json`; None when not asked or not readable)."""

    root: ViewNode
    package: str
    rotation: int
    focus: str | None
    app_alive: bool
    app_screen: dict[str, Any] | None = None


def parse_dump(data: bytes, serial: str) -> tuple[ViewNode, int, str] | str:
    """(root, rotation, package) of a dump, or the reason it is not one."""
    diagnostics = Diagnostics()
    ctx = IngestContext(Path("device"), diagnostics)
    screen = parse_uixml(data, ctx, SourceRef(file=f"{serial}:{DUMP_PATH}"))
    if screen is None:
        errors = [d.message for d in diagnostics.items if d.severity == "error"]
        return "; ".join(errors) or "not a view hierarchy"
    return screen.root, screen.rotation, screen.package


class Observer:
    """Captures the screen of one device for one app package."""

    def __init__(self, link: DeviceLink, package: str, scale: tuple[float, float] = (1.0, 1.0),
                 retries: int = 3, retry_delay: float = 0.3, app_screen: bool = False) -> None:
        self.link, self.package, self.scale = link, package, scale
        self.retries, self.retry_delay = retries, retry_delay
        self.app_screen = app_screen

    def capture(self) -> Capture:
        cmd = (f"uiautomator dump {DUMP_PATH}; dumpsys window | grep -E "
               f"'mCurrentFocus|mFocusedApp'; pidof {self.package}")
        if self.app_screen:
            cmd += f"; echo {_MARK}; {screen_command(self.package)}"
        why = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.retry_delay * attempt)
            out, _, tail = self.link.shell(cmd).partition(_MARK)
            lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
            alive = bool(lines) and lines[-1].split()[0].isdigit()
            focus = parse_focus(out)
            if "dumped to" not in out or "ERROR" in out:
                why = lines[0] if lines else "no output"
                logger.info("dump failed on %s (attempt %d): %s", self.link.serial, attempt + 1, why)
                continue
            parsed = parse_dump(self.link.pull(DUMP_PATH), self.link.serial)
            if isinstance(parsed, str):
                why = parsed
                logger.info("dump of %s is not usable (attempt %d): %s", self.link.serial,
                            attempt + 1, why)
                continue
            root, rotation, package = parsed
            return Capture(self._to_spec(root), package, rotation, focus, alive,
                           _json_object(tail))
        raise DumpError(f"uiautomator dump failed {self.retries + 1} times", self.link.serial,
                        "uiautomator dump", why)

    def _to_spec(self, root: ViewNode) -> ViewNode:
        sx, sy = self.scale
        if sx == 1.0 and sy == 1.0:
            return root
        return scale_view(root, 1 / sx, 1 / sy)

    def screenshot(self, width: int, height: int) -> np.ndarray:
        """`screencap -p`, resized to width x height (RGB uint8)."""
        from PIL import Image, UnidentifiedImageError

        data = self.link.shell_bytes("screencap -p")
        try:
            img = Image.open(io.BytesIO(data)).convert("RGB")
        except (UnidentifiedImageError, OSError) as exc:
            raise DeviceError("screencap returned no PNG", self.link.serial, "screencap -p",
                              data[:80].decode(errors="replace")) from exc
        if img.size != (width, height):
            img = img.resize((width, height), Image.Resampling.BILINEAR)
        return np.asarray(img, dtype=np.uint8)


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        doc = json.loads(text)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) else None


def focused_activity(cap: Capture) -> str | None:
    """The activity in front (`pkg/.Act`), None when a dialog or nothing is."""
    f = cap.focus
    return short_component(f) if f and "/" in f and " " not in f else None


def to_obs(cap: Capture, screen: str, activity: str | None = None) -> Obs:
    """The observation of a capture, in the simulator's exact forms (`activity`: what to report
    instead of the focused activity)."""
    elements = elements_from_view(cap.root)
    return Obs(view_xml(cap.root, cap.rotation), text_form(elements), screen, cap.package,
               activity or focused_activity(cap), elements)
