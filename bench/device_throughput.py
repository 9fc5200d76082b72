"""Steps per second side by side: the in-process simulator, one virtual device driven over adb
(Debian's adb server, `AdbBackend`, the real adb protocol on loopback), and a fleet of 4 virtual
devices (one worker thread each). Same app, same random policy, same episodes.

    .venv/bin/python bench/device_throughput.py [app_dir] [--episodes N] [--steps N] [--json]
        [--before REV [--rounds N]]

The device's shell is mksh in a sandbox (`virtual.sandbox`), with the fast path of
`virtual.shell` for the lines the adb backend sends at every step; `adb_1_real_shell` is the same
device with the fast path off (every line through mksh, every Android command through its script
and the device's socket). `--before REV` also runs this script as it was at git revision REV
(`git archive`: e.g. ae6f977, the hand-written shell) on the same app, in `--rounds` rounds
alternating with this tree's adb figures, each in a fresh process, and prints the median
after/before ratio (alternating, so that load from elsewhere on the machine hits both alike).

Without an app folder it builds the example app from examples/traces. Needs `adb` on PATH. The
virtual devices run in this process (an asyncio thread), so the adb figures include the device's
side too, on the same cores; an emulator needs 1.5 s or more per step (research/anchors.md).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from phoneworld.devices.fleet import DeviceSlot, EpisodeSpec, Fleet, run_episode
from phoneworld.devices.link import AdbServer
from phoneworld.devices.rollout import RandomPolicy, env_factory, sim_factory
from phoneworld.devices.virtual import DeviceServer, VirtualDevice
from phoneworld.runtime.appdir import load_app

REPO = Path(__file__).resolve().parents[1]
EMULATOR_S_PER_STEP = 1.5


def _example_app() -> Path:
    from phoneworld.pipeline import BuildConfig, build

    out = Path(tempfile.mkdtemp(prefix="pw-bench-"))
    path = build(BuildConfig(traces=REPO / "examples" / "traces", out=out)).apps[0].path
    assert path is not None
    return path


def _specs(episodes: int, steps: int) -> list[EpisodeSpec]:
    return [EpisodeSpec(i, seed=i, max_steps=steps) for i in range(episodes)]


def _one(make_env: Any, episodes: int, steps: int) -> dict[str, float]:
    env = make_env()
    env.reset()
    t0, n = time.perf_counter(), 0
    for spec in _specs(episodes, steps):
        n += len(run_episode(env, spec, RandomPolicy(spec.seed)).steps) - 1
    dt = time.perf_counter() - t0
    env.close()
    return {"steps": n, "seconds": round(dt, 3), "steps_per_s": round(n / dt, 1)}


def _fleet(slots: list[DeviceSlot], episodes: int, steps: int) -> dict[str, float]:
    t0 = time.perf_counter()
    results = Fleet(slots).run(_specs(episodes, steps), lambda s: RandomPolicy(s.seed))
    dt = time.perf_counter() - t0
    n = sum(len(r.steps) - 1 for r in results)
    return {"steps": n, "seconds": round(dt, 3), "steps_per_s": round(n / dt, 1)}


def _adb(spec: Any, app_dir: Path, episodes: int, steps: int) -> dict[str, Any]:
    """adb_1 and adb_fleet_4 of this tree."""
    out: dict[str, Any] = {}
    with AdbServer() as adb, DeviceServer([VirtualDevice(spec) for _ in range(4)]) as server:
        for s in server.serials:
            adb.connect(s)
        slots = [DeviceSlot(s, env_factory(s, None, app_dir, adb.port, max_steps=steps))
                 for s in server.serials]
        out["adb_1"] = _one(slots[0].make_env, episodes, steps)
        out["adb_fleet_4"] = _fleet(slots, episodes, steps)
        for s in server.serials:
            adb.disconnect(s)
    for dev in server.devices:
        dev.close()
    return out


def _real_shell(spec: Any, app_dir: Path, episodes: int, steps: int) -> dict[str, float]:
    """One device with the fast path off: every line through the sandboxed mksh."""
    real = VirtualDevice(spec)
    real.fast = False
    with AdbServer() as adb, DeviceServer([real]) as one:
        adb.connect(one.serials[0])
        out = _one(env_factory(one.serials[0], None, app_dir, adb.port, max_steps=steps),
                   episodes, steps)
        adb.disconnect(one.serials[0])
    real.close()
    return out


def _run_tree(tree: Path, app_dir: Path, episodes: int, steps: int,
              *extra: str) -> dict[str, Any]:
    """This script's --json figures as it is in `tree`, in a fresh process."""
    p = subprocess.run([sys.executable, str(tree / "bench" / "device_throughput.py"), str(app_dir),
                        "--episodes", str(episodes), "--steps", str(steps), "--json", *extra],
                       cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)}, check=True,
                       capture_output=True, text=True)
    return json.loads(p.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("app", nargs="?", type=Path)
    ap.add_argument("--episodes", type=int, default=40)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--before", help="a git revision to compare with (its own bench, alternated)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--adb-only", action="store_true", help="only the adb figures (for --before)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    app_dir = args.app or _example_app()
    spec = load_app(app_dir)
    out: dict[str, Any] = {"app": spec.package, "cpus": os.cpu_count(),
                           "episodes": args.episodes, "steps_per_episode": args.steps}
    out["sim"] = _one(sim_factory(app_dir, None, args.steps), args.episodes, args.steps)
    out.update(_adb(spec, app_dir, args.episodes, args.steps))
    if args.adb_only:
        print(json.dumps(out))
        return
    out["adb_1_real_shell"] = _real_shell(spec, app_dir, max(1, args.episodes // 4), args.steps)
    sim = out["sim"]["steps_per_s"]
    out["sim_over_adb_1"] = round(sim / out["adb_1"]["steps_per_s"], 1)
    out["sim_over_adb_fleet_4"] = round(sim / out["adb_fleet_4"]["steps_per_s"], 1)
    out["adb_1_over_emulator"] = round(out["adb_1"]["steps_per_s"] * EMULATOR_S_PER_STEP, 1)
    out["real_shell_over_fast_path"] = round(
        out["adb_1_real_shell"]["steps_per_s"] / out["adb_1"]["steps_per_s"], 3)
    if args.before:
        out["before"] = _compare(args.before, spec, app_dir, args.episodes, args.steps,
                                 args.rounds)
    if args.json:
        print(json.dumps(out))
        return
    _print(out, spec.package, args)


def _compare(rev: str, spec: Any, app_dir: Path, episodes: int, steps: int,
             rounds: int) -> dict[str, Any]:
    tree = Path(tempfile.mkdtemp(prefix="pw-bench-before-"))
    try:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        pairs = []
        for _ in range(rounds):  # both in fresh processes, alternating
            old = _run_tree(tree, app_dir, episodes, steps)
            new = _run_tree(REPO, app_dir, episodes, steps, "--adb-only")
            pairs.append({k: (old[k]["steps_per_s"], new[k]["steps_per_s"])
                          for k in ("adb_1", "adb_fleet_4")})
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    res: dict[str, Any] = {"rev": rev, "rounds": pairs}
    for k in ("adb_1", "adb_fleet_4"):
        res[f"after_over_before_{k}"] = round(statistics.median(n / o for o, n in
                                                                (p[k] for p in pairs)), 3)
    return res


def _print(out: dict[str, Any], package: str, args: Any) -> None:
    print(f"{package}: {args.episodes} episodes x {args.steps} steps, random policy, "
          f"{out['cpus']} CPUs")
    for key, name in (("sim", "simulator (in process)"), ("adb_1", "1 virtual device over adb"),
                      ("adb_fleet_4", "fleet of 4 virtual devices"),
                      ("adb_1_real_shell", "1 device, no fast path")):
        r = out[key]
        print(f"  {name:<28} {r['steps_per_s']:>8.1f} steps/s  ({r['steps']} steps in "
              f"{r['seconds']:.2f} s)")
    print(f"  simulator / adb: {out['sim_over_adb_1']}x (1 device), "
          f"{out['sim_over_adb_fleet_4']}x (fleet of 4); one virtual device over adb is "
          f"{out['adb_1_over_emulator']}x an emulator's 1.5 s/step")
    print(f"  every line through the sandboxed mksh: {out['real_shell_over_fast_path']}x the "
          "steps/s of the fast path")
    b = out.get("before")
    if b:
        for i, p in enumerate(b["rounds"], 1):
            print(f"  round {i}: before {b['rev']} / after, steps/s: 1 device "
                  f"{p['adb_1'][0]} / {p['adb_1'][1]}, fleet of 4 {p['adb_fleet_4'][0]} / "
                  f"{p['adb_fleet_4'][1]}")
        print(f"  after / before (median of {len(b['rounds'])} alternating rounds): "
              f"{b['after_over_before_adb_1']}x (1 device), "
              f"{b['after_over_before_adb_fleet_4']}x (fleet of 4)")


if __name__ == "__main__":
    main()
