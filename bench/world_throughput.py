"""World simulator throughput vs one app's, on the same random-action workload (issue 8).

    .venv/bin/python bench/world_throughput.py [WORLD] [--steps N] [--seed S]

WORLD is a world spec or a built world folder (default: the two bundled example apps, built into a
temporary folder). Both runs go through `PhoneEnv` (the world through `WorldBackend`) and read the
XML and the text form after every step, as an agent does: random taps on the current screen's
elements (mostly) or points, long presses, typing, back and home; the single app is the world's
apps each alone on the same action mix (`home` leaves an app to its own launcher, which a tap
reopens). A world's screens are its apps' screens, so the fair single-app figure is the mean time
per step over its apps (harmonic mean of their steps/s); the first app alone is printed too.
Prints steps/s and the world's cost ratio (target: within 2x of a single app).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from phoneworld.runtime.env import PhoneEnv  # noqa: E402
from phoneworld.world.env import world_env  # noqa: E402
from phoneworld.world.load import load_world  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
WORDS = ["milk", "Call Alice", "Hello there"]


def _action(rng: random.Random, env: PhoneEnv) -> dict[str, Any]:
    r = rng.random()
    els = env.elements
    if r < 0.55 and els:
        return {"type": "click", "element": rng.randrange(len(els))}
    if r < 0.65 and els:
        return {"type": "long_press", "element": rng.randrange(len(els))}
    if r < 0.75:
        return {"type": "click", "x": rng.randrange(1000), "y": rng.randrange(1000)}
    if r < 0.85:
        return {"type": "type", "text": rng.choice(WORDS)}
    if r < 0.95:
        return {"type": "back"}
    return {"type": "home"}


def run(env: PhoneEnv, steps: int, seed: int) -> float:
    rng = random.Random(seed)
    env.reset(seed=seed)
    done, chars = 0, 0
    t0 = time.perf_counter()
    while done < steps:
        obs, _, term, trunc, _ = env.step(json.dumps(_action(rng, env)))
        chars += len(obs["xml"]) + len(obs["text"])
        done += 1
        if term or trunc:
            env.reset(seed=seed)
    return done / (time.perf_counter() - t0)


def example_world() -> Path:
    from phoneworld.pipeline import BuildConfig, build

    out = Path(tempfile.mkdtemp(prefix="pw_world_bench_"))
    for traces in ("traces", "traces_messages"):
        build(BuildConfig(traces=REPO / "examples" / traces, out=out, html=False, android=False,
                          tasks=False))
    (out / "world.yaml").write_text("name: bench\napps:\n  - dir: com.example.notes\n"
                                    "  - dir: com.example.messages\n", encoding="utf-8")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("world", nargs="?", type=Path)
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    defn = load_world(args.world or example_world())
    singles = {}
    for a in defn.apps:
        env = PhoneEnv(a.spec, max_steps=30)
        run(env, 500, args.seed)  # warm the frame caches
        singles[a.spec.package] = run(env, args.steps, args.seed)
    world = world_env(defn, max_steps=30)
    run(world, 500, args.seed)
    w = run(world, args.steps, args.seed)
    mean = len(singles) / sum(1 / v for v in singles.values())
    first = defn.apps[0].spec.package
    print(f"apps in the world: {len(defn.apps)}")
    for pkg, v in singles.items():
        print(f"  single app {pkg}: {v:,.0f} steps/s")
    print(f"single app, mean over the world's apps: {mean:,.0f} steps/s")
    print(f"world: {w:,.0f} steps/s")
    print(f"world cost ratio (mean single / world): {mean / w:.2f}x (target: <= 2x); "
          f"vs {first} alone: {singles[first] / w:.2f}x")


if __name__ == "__main__":
    main()
