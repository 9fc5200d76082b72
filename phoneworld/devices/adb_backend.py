"""`AdbBackend`: a compiled app's APK on an emulator, a phone or a virtual device, over adb
(DESIGN section 5, backend `adb`).

- install: `apk=` is pushed and `pm install`ed; without it the app must already be there.
- reset: `am force-stop`, the debug broadcast with the state (the spec's initial state when None),
  which must answer RESULT_OK, then `am start -W -S` of the launch activity (the generated APK's
  `.MainActivity` unless given).
- observe: `uiautomator dump` (+ `screencap -p` when asked) → the simulator's observation forms;
  the screen id is what the app says (`files/screen.json`) when that agrees with the dump, else
  `ScreenMatcher`'s; the activity reported is the recorded one of that screen, as the simulator's.
- act: `phoneworld.devices.inputs`; coordinates are in the app spec's pixels and are mapped to the
  device's real size (`wm size`).
- read_state: `run-as <pkg> cat files/state.json`, plus `@screen`: the observed screen id.

Failure modes: every adb call has a timeout (`DeviceTimeoutError`); a vanished device is
`DeviceLostError`; a failing dump is retried, then `DumpError`; an error dialog in front, or the
app's process gone when nothing asked it to stop, is `AppCrashedError`. None of them hangs.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import adbutils

from phoneworld.devices.base import AdbDeviceBase
from phoneworld.devices.link import DEFAULT_TIMEOUT
from phoneworld.devices.observe import Capture, focused_activity, to_obs
from phoneworld.devices.protocol import (
    RESET_OK,
    app_component,
    crash_window,
    reset_command,
    start_command,
    state_command,
)
from phoneworld.devices.screens import ScreenMatcher
from phoneworld.errors import AppCrashedError, DeviceError, InstallError
from phoneworld.ir.app import AppSpec
from phoneworld.runtime.appdir import load_app
from phoneworld.runtime.backend import Obs
from phoneworld.runtime.compiled import LAUNCHER
from phoneworld.runtime.sim import StepResult
from phoneworld.runtime.validate import SCREEN

logger = logging.getLogger(__name__)
REMOTE_APK = "/data/local/tmp/phoneworld-app.apk"


class AdbBackend(AdbDeviceBase):
    """A compiled app on a device over adb (see the module docstring)."""

    def __init__(
        self, serial: str, app: AppSpec | str | Path, *, apk: str | Path | None = None,
        adb: adbutils.AdbClient | None = None, timeout: float = DEFAULT_TIMEOUT,
        dump_retries: int = 3, retry_delay: float = 0.3, settle: float = 0.0,
        wait_seconds: float = 1.0, launch_activity: str | None = None,
        screenshot_scale: float = 0.5,
    ) -> None:
        self.spec = app if isinstance(app, AppSpec) else load_app(app)
        dev = self.spec.device
        super().__init__(serial, self.spec.package, (dev.width, dev.height), adb, timeout,
                         dump_retries, retry_delay, settle, wait_seconds, screenshot_scale)
        self.device = dev
        self.component = launch_activity or app_component(self.package)
        self.matcher = ScreenMatcher(self.spec)
        self.screens = {sc.id: sc for sc in self.spec.screens}
        self.observer.app_screen = True
        self._stopped = False  # the app was stopped on purpose (close_app): no crash
        if apk is not None:
            self.install(Path(apk))
        elif not self.installed():
            raise InstallError(f"{self.package} is not installed; pass apk=", serial)

    # ------------------------------------------------------------------ install

    def installed(self) -> bool:
        return self.link.shell(f"pm path {self.package}").startswith("package:")

    def install(self, apk: Path) -> None:
        try:
            data = apk.read_bytes()
        except OSError as exc:
            raise InstallError(f"cannot read {apk}: {exc.strerror}", self.serial) from exc
        slow = max(120.0, self.link.timeout)
        self.link.push(data, REMOTE_APK, timeout=slow)
        out = self.link.shell(f"pm install -r -t {REMOTE_APK}", timeout=slow)
        self.link.shell(f"rm -f {REMOTE_APK}")
        if "Success" not in out:
            raise InstallError("pm install failed", self.serial, "pm install", out)
        logger.info("installed %s on %s", apk, self.serial)

    # ------------------------------------------------------------------ Backend protocol

    def reset(self, state: dict[str, Any] | None = None, seed: int | None = None) -> Obs:
        self._obs = None
        self._stopped = True
        self.link.shell(f"am force-stop {self.package}")
        payload = self.spec.initial_state if state is None else {
            k: v for k, v in state.items() if k != SCREEN}  # read, never written
        out = self.link.shell(reset_command(self.package, payload))
        if RESET_OK not in out:
            raise DeviceError("the app did not take the reset broadcast", self.serial,
                              "am broadcast", out)
        out = self.link.shell(start_command(self.component, self.package, restart=True))
        if "Error" in out:
            raise DeviceError("the app did not start", self.serial, "am start", out)
        self._stopped = False
        return self.observe()

    def step(self, action: Any) -> StepResult:
        before = self.observe()
        if action.type == "close_app":
            self._stopped = True
        elif action.type == "open_app" and action.package == self.package:
            self._stopped = False
        return self._send(action, before, self.component)

    def read_state(self) -> dict[str, Any]:
        cmd = state_command(self.package)
        out = self.link.shell(cmd)
        try:
            state = json.loads(out)
        except ValueError as exc:
            raise DeviceError("cannot read the app state", self.serial, cmd, out) from exc
        if not isinstance(state, dict):
            raise DeviceError("the app state is not a JSON object", self.serial, cmd, out)
        return {**state, SCREEN: self.observe().screen}

    # ------------------------------------------------------------------ observation

    def _observe(self, cap: Capture) -> Obs:
        dialog = crash_window(cap.focus, self.package)
        if dialog is not None:
            raise AppCrashedError(f"{self.package} crashed ({dialog})", self.serial)
        if not cap.app_alive and not self._stopped:
            raise AppCrashedError(f"the process of {self.package} is gone", self.serial,
                                  "pidof " + self.package)
        screen = self._screen(cap)
        spec_screen = self.screens.get(screen)
        return to_obs(cap, screen, spec_screen.activity if spec_screen is not None else None)

    def _screen(self, cap: Capture) -> str:
        said = (cap.app_screen or {}).get("screen")
        in_app = cap.package == self.package
        if isinstance(said, str) and (said in self.screens if in_app else said == LAUNCHER):
            return said
        return self.matcher.match(cap.root, focused_activity(cap))
