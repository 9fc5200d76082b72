"""The backend protocol the env drives (DESIGN section 5), and `SimBackend` on the simulator.

A backend resets to a state snapshot, applies trace actions (device pixels), observes (XML, text
form, screen id, activity, optional screenshot) and reads the app state as JSON. Backends for the
APK over adb and for real apps implement the same protocol; `SimBackend` is their test double.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from phoneworld.ir.app import AppSpec
from phoneworld.ir.trace import Device
from phoneworld.runtime.render import Element
from phoneworld.runtime.screenshot import render_frame, screenshot_size
from phoneworld.runtime.sim import Simulator, StepResult


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
        """The app state as JSON (a fresh copy)."""
        ...

    def close(self) -> None:
        ...


class SimBackend:
    """The in-process simulator as a backend. Deterministic: `seed` changes nothing."""

    def __init__(self, spec: AppSpec, screenshot_scale: float = 0.5) -> None:
        self.sim = Simulator(spec)
        self.device = spec.device
        self.package = spec.package
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
        return self.sim.state

    def close(self) -> None:
        pass
