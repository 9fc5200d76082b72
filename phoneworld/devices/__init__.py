"""Devices: the adb backend for emulators and phones, real apps behind a guard, mock apps served
as adb devices, fleets of envs, and rollouts recorded as traces (DESIGN section 5).

Public API (loaded lazily, so `import phoneworld.devices` pulls in neither adbutils nor Ray):
- backends: `AdbBackend` (a compiled app's APK over adb), `RealAppBackend` + `Guard` (real apps),
  `real_app_spec`;
- virtual devices: `VirtualDevice`, `DeviceServer`, `Faults`;
- the adb boundary: `DeviceLink`, `AdbServer`;
- fleets: `Fleet`, `RayFleet`, `DeviceSlot`, `EpisodeSpec`, `EpisodeResult`;
- recording: `RecordingBackend`, `TraceWriter`.
Errors are in `phoneworld.errors` (`DeviceError` and its subclasses, `ActionBlocked`).

Layout: `protocol` (the commands both sides speak), `wire` (adb messages), `virtual/` (the device
side), `link` (adbutils, timeouts, error wrapping), `observe`/`inputs`/`screens` (dumps to
observations, actions to commands, dumps to screen ids), `base`/`adb_backend`/`real_backend`/
`guard`, `fleet`/`fleet_ray`, `record`, `rollout`/`cli` (the commands).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from phoneworld.devices.adb_backend import AdbBackend
    from phoneworld.devices.fleet import DeviceSlot, EpisodeResult, EpisodeSpec, Fleet
    from phoneworld.devices.fleet_ray import RayFleet
    from phoneworld.devices.guard import Guard
    from phoneworld.devices.link import AdbServer, DeviceLink
    from phoneworld.devices.real_backend import RealAppBackend, real_app_spec
    from phoneworld.devices.record import RecordingBackend, TraceWriter
    from phoneworld.devices.virtual import DeviceServer, Faults, VirtualDevice

_EXPORTS = {
    "AdbBackend": "adb_backend", "RealAppBackend": "real_backend",
    "real_app_spec": "real_backend", "Guard": "guard", "VirtualDevice": "virtual",
    "DeviceServer": "virtual", "Faults": "virtual", "DeviceLink": "link", "AdbServer": "link",
    "Fleet": "fleet", "DeviceSlot": "fleet", "EpisodeSpec": "fleet", "EpisodeResult": "fleet",
    "RayFleet": "fleet_ray", "RecordingBackend": "record", "TraceWriter": "record",
}
__all__ = [
    "AdbBackend", "AdbServer", "DeviceLink", "DeviceServer", "DeviceSlot", "EpisodeResult",
    "EpisodeSpec", "Faults", "Fleet", "Guard", "RayFleet", "RealAppBackend", "RecordingBackend",
    "TraceWriter", "VirtualDevice", "real_app_spec",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
