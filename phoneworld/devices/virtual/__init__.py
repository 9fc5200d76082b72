"""Virtual devices: compiled mock apps served as Android devices over the adb protocol.

`VirtualDevice` (the simulated phone), `DeviceServer` (its adb transport over TCP), `serve_app`
(N devices of one app on consecutive ports).
"""

from __future__ import annotations

from phoneworld.devices.virtual.device import Faults, VirtualDevice
from phoneworld.devices.virtual.server import DeviceServer

__all__ = ["DeviceServer", "Faults", "VirtualDevice"]
