"""`RealAppBackend`: an app we did not build, on a phone or emulator (DESIGN section 5, backend
`real`).

No state access (`read_state` is `{}`), so reset is `am force-stop`, `pm clear` (the app's data
wiped), a launch, and optional setup steps (shell lines or trace actions, trusted: not guarded).
Every agent action goes through a `Guard` first; an action it refuses raises `ActionBlocked` before
anything reaches the device, which `PhoneEnv` turns into the end of the episode
(`info["blocked"]`), and the reason is logged. Reward comes from a rubric judge (the RL side): the
backend keeps the episode's trajectory and `judge_episode(instruction)` hands it to `judge`.
The screen id of an observation is the activity in front (`@launcher` outside the app).

`real_app_spec(backend)` is a placeholder app spec (one empty screen, no state) so that a real app
can run in `PhoneEnv`, whose action parsing needs the screen size.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

import adbutils

from phoneworld.devices.base import AdbDeviceBase
from phoneworld.devices.guard import Guard
from phoneworld.devices.link import DEFAULT_TIMEOUT
from phoneworld.devices.observe import Capture, focused_activity, to_obs
from phoneworld.devices.protocol import crash_window, start_command
from phoneworld.errors import ActionBlocked, AppCrashedError, DeviceError, EnvError
from phoneworld.ir.app import AppSpec, ScreenSpec, Widget
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import ViewNode
from phoneworld.runtime.backend import Obs
from phoneworld.runtime.compiled import LAUNCHER
from phoneworld.runtime.sim import StepResult

logger = logging.getLogger(__name__)

Judge = Callable[[str, list[dict[str, Any]]], "float | None"]


class RealAppBackend(AdbDeviceBase):
    """A real app behind a guard (see the module docstring)."""

    def __init__(
        self, serial: str, package: str, *, guard: Guard | None = None,
        setup: Sequence[str | Any] = (), judge: Judge | None = None,
        adb: adbutils.AdbClient | None = None, timeout: float = DEFAULT_TIMEOUT,
        dump_retries: int = 3, retry_delay: float = 0.5, settle: float = 0.5,
        wait_seconds: float = 1.0, launch_activity: str | None = None,
        screenshot_scale: float = 0.5,
    ) -> None:
        super().__init__(serial, package, None, adb, timeout, dump_retries, retry_delay, settle,
                         wait_seconds, screenshot_scale)
        self.guard = guard or Guard(allow_apps=frozenset({package}))
        if package not in self.guard.allow_apps:
            raise EnvError(f"{package} must be on the guard's allow-list to be explored")
        self.setup, self.judge, self.component = list(setup), judge, launch_activity
        self.trajectory: list[dict[str, Any]] = []
        self.blocked: str | None = None
        self._root: ViewNode | None = None

    def reset(self, state: dict[str, Any] | None = None, seed: int | None = None) -> Obs:
        if state:
            raise EnvError("a real app has no state access: reset(state=...) is not supported")
        self._obs, self.trajectory, self.blocked = None, [], None
        self.link.shell(f"am force-stop {self.package}")
        out = self.link.shell(f"pm clear {self.package}")
        if "Success" not in out:
            raise DeviceError("pm clear failed", self.serial, f"pm clear {self.package}", out)
        out = self.link.shell(start_command(self.component, self.package))
        if "Error" in out or "aborted" in out:
            raise DeviceError("the app did not start", self.serial, "launch", out)
        for s in self.setup:
            if isinstance(s, str):
                self.link.shell(s)
            else:
                self._send(s, self.observe(), self.component)
        self._obs = None
        return self.observe()

    def step(self, action: Any) -> StepResult:
        before = self.observe()
        reason = self.guard.check(action, self._root, before.package)
        record = {"screen": before.screen, "text": before.text, "action": action.model_dump()}
        if reason is not None:
            self.blocked = reason
            self.trajectory.append({**record, "blocked": reason})
            logger.warning("guard stopped %s on %s: %s", action.type, self.serial, reason)
            raise ActionBlocked(reason)
        self.trajectory.append(record)
        return self._send(action, before, self.component)

    def read_state(self) -> dict[str, Any]:
        return {}

    def judge_episode(self, instruction: str) -> float | None:
        """The rubric judge's reward for this episode (None without a judge or when unscorable)."""
        return None if self.judge is None else self.judge(instruction, list(self.trajectory))

    def _observe(self, cap: Capture) -> Obs:
        dialog = crash_window(cap.focus, self.package)
        if dialog is not None:
            raise AppCrashedError(f"{self.package} crashed ({dialog})", self.serial)
        self._root = cap.root
        focus = focused_activity(cap)
        return to_obs(cap, LAUNCHER if cap.package != self.package else (focus or self.package))


def real_app_spec(backend: AdbDeviceBase, label: str | None = None) -> AppSpec:
    """A placeholder spec (screen size, package) for running a real app in `PhoneEnv`."""
    w, h = backend.device.width, backend.device.height
    root = Widget(wid="root", cls="android.widget.FrameLayout",
                  bounds=Bounds(x1=0, y1=0, x2=w, y2=h))
    screen = ScreenSpec(id="s00_real", name="real", package=backend.package, root=root)
    return AppSpec(package=backend.package, label=label or backend.package,
                   device=backend.device, start_screen=screen.id, screens=(screen,),
                   transitions=(), state=(), initial_state={})
