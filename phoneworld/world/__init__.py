"""Cross-app worlds: several compiled apps on one simulated device, with a launcher, recents, a
clipboard, a share sheet, a shared files area and notifications, and tasks that span apps.

    spec.py     the world spec (YAML), load.py loading it (PW4xx diagnostics)
    system.py   the device's own screens; wiring.py which widgets use which service
    device.py   `World`, the runtime; env.py `world_env`, the Gymnasium env
"""

from phoneworld.world.device import World
from phoneworld.world.env import WorldBackend, world_env
from phoneworld.world.load import WorldDef, load_world

__all__ = ["World", "WorldBackend", "WorldDef", "load_world", "world_env"]
