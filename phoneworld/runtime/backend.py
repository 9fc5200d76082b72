"""The backend protocol the env drives (DESIGN section 5), and `SimBackend` on the simulator.

A backend resets to a state snapshot, applies trace actions (device pixels), observes (XML, text
form, screen id, activity, optional screenshot) and reads the app state as JSON, with the current
screen under the reserved key `@screen`. Backends for the
APK over adb and for real apps implement the same protocol; `SimBackend` is their test double.

A backend whose state can be copied (the simulator, a world) also has `snapshot()`,
`restore(snap)` and `fork()` (a new backend on the same compiled app, in the same state): see
`Forkable`. A device's state cannot be copied, so `PhoneEnv.fork` refuses those backends.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from phoneworld.ir.app import AppSpec
from phoneworld.ir.trace import Device
from phoneworld.runtime.render import Element
from phoneworld.runtime.screenshot import render_frame, screenshot_size
from phoneworld.runtime.compiled import CompiledApp
from phoneworld.runtime.sim import SimSnapshot, Simulator, StepResult


class Obs:
    """One observation. `elements` are the text form's lines, so element ids map to points; a
    backend may pass them as a function, evaluated on first use."""

    __slots__ = ("xml", "text", "screen", "package", "activity", "screenshot", "_elements")

    def __init__(
        self, xml: str, text: str, screen: str, package: str, activity: str | None,
        elements: tuple[Element, ...] | Callable[[], tuple[Element, ...]],
        screenshot: np.ndarray | None = None,
    ) -> None:
        self.xml, self.text, self.screen = xml, text, screen
        self.package, self.activity, self.screenshot = package, activity, screenshot
        self._elements = elements

    @property
    def elements(self) -> tuple[Element, ...]:
        e = self._elements
        if callable(e):
            e = self._elements = e()
        return e


@runtime_checkable
class Backend(Protocol):
    """What PhoneEnv needs from a device, simulated or real."""

    device: Device
    package: str

    def reset(self, state: dict[str, Any] | None = None, seed: int | None = None) -> Obs:
        """Reset the app to `state` (None: its initial state) at its start screen."""
        ...

    def step(self, action: Any) -> StepResult:
        """Apply one `phoneworld.ir.trace` action in device pixels."""
        ...

    def observe(self, screenshot: bool = False) -> Obs:
        ...

    def read_state(self) -> dict[str, Any]:
        """The app state as JSON (a fresh copy), plus the reserved key `@screen`
        (`phoneworld.runtime.validate.SCREEN`): the id of the screen the app is on, what a
        rule's `screen:` clause reads. `reset` takes such a state back (it drops `@screen`)."""
        ...

    def close(self) -> None:
        ...


@runtime_checkable
class Forkable(Protocol):
    """A backend whose whole state is in this process (what `PhoneEnv.snapshot`/`fork` need)."""

    def snapshot(self) -> Any:
        """Everything needed to put the backend back where it is now (immutable)."""
        ...

    def restore(self, snap: Any) -> None:
        ...

    def fork(self) -> Backend:
        """An independent backend on the same compiled app, in this one's current state."""
        ...


class SimBackend:
    """The in-process simulator as a backend. Deterministic: `seed` changes nothing."""

    def __init__(self, spec: AppSpec | CompiledApp, screenshot_scale: float = 0.5) -> None:
        self.sim = Simulator(spec)
        self.device = self.sim.spec.device
        self.package = self.sim.spec.package
        self.screenshot_scale = screenshot_scale

    @property
    def screenshot_shape(self) -> tuple[int, int, int]:
        w, h = screenshot_size(self.device.width, self.device.height, self.screenshot_scale)
        return h, w, 3

    def reset(self, state: dict[str, Any] | None = None, seed: int | None = None) -> Obs:
        self.sim.reset(state)
        return self.observe()

    def step(self, action: Any) -> StepResult:
        return self.sim.step(action)

    def observe(self, screenshot: bool = False) -> Obs:
        f = self.sim.frame()
        shot = None
        if screenshot:
            shot = render_frame(f, self.device.width, self.device.height, self.screenshot_scale)
        return Obs(f.xml, f.text, f.screen, f.package, f.activity, lambda: f.elements, shot)

    def read_state(self) -> dict[str, Any]:
        return self.sim.read_state()

    def snapshot(self) -> SimSnapshot:
        return self.sim.snapshot()

    def restore(self, snap: SimSnapshot) -> None:
        self.sim.restore(snap)

    def fork(self) -> SimBackend:
        twin = SimBackend(self.sim.app, self.screenshot_scale)  # the compiled app, not the spec
        twin.restore(self.snapshot())
        return twin

    def close(self) -> None:
        pass
