"""A fleet rollout over virtual devices in which one device is killed mid-run (shared by the fleet
test and the Ray test, which runs this file as a script inside a loopback-only network namespace:
`python fleet_scenario.py APP_DIR ENGINE` prints a JSON summary).

Four virtual devices of the app (through a private adb server) plus one simulator; after the third
finished episode device 0 vanishes; `replace` serves a fresh virtual device and connects it.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from pathlib import Path
from typing import Any

from phoneworld.devices.fleet import DeviceSlot, EpisodeResult, EpisodeSpec, Fleet
from phoneworld.devices.link import AdbServer
from phoneworld.devices.rollout import RandomPolicy, env_factory, sim_factory
from phoneworld.devices.virtual import DeviceServer, VirtualDevice
from phoneworld.runtime.appdir import load_app

EPISODES, STEPS, KILL_AFTER = 16, 6, 3


def make_policy(spec: EpisodeSpec) -> RandomPolicy:
    return RandomPolicy(spec.seed)


def scenario(app_dir: Path, adb: AdbServer, engine: str) -> dict[str, Any]:
    spec = load_app(app_dir)
    servers = [DeviceServer([VirtualDevice(spec) for _ in range(4)]).start()]
    lock = threading.Lock()

    def replace(slot: DeviceSlot) -> DeviceSlot:
        server = DeviceServer([VirtualDevice(spec)]).start()
        servers.append(server)
        adb.connect(server.serials[0])
        return DeviceSlot(server.serials[0], env_factory(server.serials[0], None, app_dir,
                                                         adb.port, max_steps=STEPS))

    try:
        first = servers[0]
        for s in first.serials:
            adb.connect(s)
        slots = [DeviceSlot(s, env_factory(s, None, app_dir, adb.port, max_steps=STEPS))
                 for s in first.serials]
        slots.append(DeviceSlot("sim-0", sim_factory(app_dir, None, STEPS)))
        finished: list[EpisodeResult] = []
        killed: list[int] = []

        def on_result(res: EpisodeResult) -> None:
            # device 0 vanishes once it has finished an episode and 3 are done (likely while it
            # is busy with its next one)
            with lock:
                finished.append(res)
                mine = any(r.device == first.serials[0] for r in finished)
                if not killed and len(finished) >= KILL_AFTER and (mine or len(finished) > 8):
                    killed.append(len(finished))
                    first.vanish(0)

        if engine == "ray":
            import tempfile

            from phoneworld.devices.fleet_ray import RayFleet

            fleet: Any = RayFleet(slots, replace, init_kwargs={
                "num_cpus": 2, "_temp_dir": tempfile.mkdtemp(prefix="pwray", dir="/tmp")})
        else:
            fleet = Fleet(slots, replace)
        specs = [EpisodeSpec(i, seed=i, max_steps=STEPS) for i in range(EPISODES)]
        results = fleet.run(specs, make_policy, on_result=on_result)
        if engine == "ray":
            fleet.shutdown()
        return {"finished_before_kill": killed[0] if killed else 0, "killed": first.serials[0],
                "replaced": fleet.replaced,
                "results": [{"index": r.index, "device": r.device, "attempts": r.attempts,
                             "error": r.error, "screens": [s["screen"] for s in r.steps]}
                            for r in results]}
    finally:
        for server in servers:
            for s in server.serials:
                adb.disconnect(s)
            server.stop()


def sim_screens(app_dir: Path, seed: int) -> list[str]:
    """The screens of the same episode on a simulator (what any device must reproduce)."""
    from phoneworld.devices.fleet import run_episode

    env = sim_factory(app_dir, None, STEPS)()
    res = run_episode(env, EpisodeSpec(seed, seed=seed, max_steps=STEPS), RandomPolicy(seed))
    return [s["screen"] for s in res.steps]


def main() -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    app_dir, engine = Path(sys.argv[1]), sys.argv[2]
    with AdbServer() as adb:
        print(json.dumps(scenario(app_dir, adb, engine)))


if __name__ == "__main__":
    main()
