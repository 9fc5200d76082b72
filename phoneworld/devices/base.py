"""What the two adb backends share: a device link, the spec→device pixel frame, the observer with
its one-observation cache, sending an action, and the health check.

The cache matters for speed: `PhoneEnv` observes right after `reset` and after every `step`, and
`step` itself needs the screen before (to clear a field, to guard a tap) and after (to say whether
anything changed); each dump is taken once.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import adbutils
import numpy as np

from phoneworld.devices.inputs import Frame, command
from phoneworld.devices.link import DEFAULT_TIMEOUT, DeviceLink
from phoneworld.devices.observe import Capture, Observer
from phoneworld.errors import DeviceError
from phoneworld.ir.trace import Device
from phoneworld.runtime.backend import Obs
from phoneworld.runtime.screenshot import screenshot_size
from phoneworld.runtime.sim import StepResult

logger = logging.getLogger(__name__)


def device_size(link: DeviceLink) -> tuple[int, int]:
    """The screen size `wm size` reports (an override wins over the physical size)."""
    out = link.shell("wm size")
    for key in ("Override size:", "Physical size:"):
        for line in out.splitlines():
            if line.strip().startswith(key):
                w, _, h = line.split(":", 1)[1].strip().partition("x")
                return int(w), int(h)
    raise DeviceError("cannot read the screen size", link.serial, "wm size", out)


class AdbDeviceBase:
    """Link, frame, observer and cached observation of one device showing one package."""

    device: Device
    package: str

    def __init__(self, serial: str, package: str, frame_size: tuple[int, int] | None,
                 adb: adbutils.AdbClient | None, timeout: float = DEFAULT_TIMEOUT,
                 dump_retries: int = 3, retry_delay: float = 0.3, settle: float = 0.0,
                 wait_seconds: float = 1.0, screenshot_scale: float = 0.5) -> None:
        self.serial, self.package = serial, package
        self.link = DeviceLink(serial, adb, timeout)
        self.settle, self.wait_seconds = settle, wait_seconds
        self.screenshot_scale = screenshot_scale
        self.real_size = device_size(self.link)
        w, h = frame_size or self.real_size
        self.device = Device(width=w, height=h)
        sx, sy = self.real_size[0] / w, self.real_size[1] / h
        self.frame = Frame(*self.real_size, lambda x, y: (round(x * sx), round(y * sy)))
        self.observer = Observer(self.link, package, (sx, sy), dump_retries, retry_delay)
        self._obs: Obs | None = None

    def observe(self, screenshot: bool = False) -> Obs:
        obs = self._obs
        if obs is None:
            obs = self._obs = self._observe(self.observer.capture())
        if screenshot and obs.screenshot is None:
            w, h = screenshot_size(self.device.width, self.device.height, self.screenshot_scale)
            shot: np.ndarray = self.observer.screenshot(w, h)
            obs = self._obs = Obs(obs.xml, obs.text, obs.screen, obs.package, obs.activity,
                                  obs.elements, shot)
        return obs

    def _observe(self, cap: Capture) -> Obs:
        raise NotImplementedError

    def _send(self, action: Any, before: Obs, component: str | None) -> StepResult:
        """Perform `action` on the device, then observe; the step result compares the dumps."""
        line = command(action, self.frame, before.elements, self.package, component,
                       (self.device.width, self.device.height))
        if action.type == "wait":
            time.sleep(self.wait_seconds)
        if line is not None:
            out = self.link.shell(line)
            if out.strip():
                logger.debug("%s: %r said %r", self.serial, line, out[-200:])
        if self.settle:
            time.sleep(self.settle)
        self._obs = None
        after = self.observe()
        left = before.package == self.package and after.package != self.package
        return StepResult(after.xml != before.xml, None, left)

    def ping(self, timeout: float = 3.0) -> bool:
        """Health check: the device answers a trivial command in time."""
        return self.link.ping(timeout)

    def close(self) -> None:
        self._obs = None
