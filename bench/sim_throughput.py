"""Simulator throughput on one core (DESIGN section 7): steps/s with XML observations, with XML and
screenshots, reset time, memory per env, and the speed-up over an emulator's 1.5 s/step; then
batched envs: `VectorPhoneEnv` env steps/s at 1, 64 and 1,024 envs on one core (30-step episodes,
autoreset) against a loop over one `PhoneEnv`, and gymnasium's `AsyncVectorEnv` of two `PhoneEnv`s
(shared memory on, its default, and off) against `SyncVectorEnv`: these three run interleaved,
best of 3, on every core the process may use (AsyncVectorEnv's workers are processes); the rest of
the bench runs on the first one. The last row is gymnasium's own floor for that ratio: two envs
that only spend a PhoneEnv's step time and carry no data (`SpinEnv`).

    .venv/bin/python bench/sim_throughput.py [path/to/app.json | app_dir] [--steps N] [--seed S]

The figures of record are in bench/results/sim_throughput.txt.

Without an app path it builds a synthetic notes app (a 5-record list, an editor, ~30 widgets on the
list screen). Random valid actions: taps on text-form elements (mostly), random points, typing,
scrolls, back, and reopening the app when it was left.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import random
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from phoneworld.ir.app import (
    AppendEffect, AppSpec, Count, FieldSpec, Guard, ItemField, ListSpec, Lit, RecordRef,
    RemoveEffect, ScreenSpec, Selected, SelectEffect, SetEffect, StateVar, ToggleEffect,
    Transition, Var, VarRef, Widget,
)
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device
import gymnasium as gym

from phoneworld.runtime import PhoneEnv, Simulator, VectorPhoneEnv, load_app

EMULATOR_S_PER_STEP = 1.5
PKG = "com.bench.notes"
W, H = 1080, 2400
WORDS = ["milk", "call", "report", "gym", "x", "Meeting at 5", "ünïcødé", '"quoted" <b>']


def _w(wid: str, cls: str, b: tuple[int, int, int, int], **kw: Any) -> Widget:
    return Widget(wid=wid, cls=f"android.widget.{cls}", bounds=Bounds(x1=b[0], y1=b[1], x2=b[2], y2=b[3]),
                  resource_id=f"{PKG}:id/{wid}", **kw)


def _list_screen() -> ScreenSpec:
    item = _w("row", "LinearLayout", (0, 400, W, 640), clickable=True, long_clickable=True, children=(
        _w("row_title", "TextView", (40, 420, 760, 520), text=ItemField(field="title")),
        _w("row_date", "TextView", (40, 530, 760, 620), text=ItemField(field="date", fmt="Due {}")),
        _w("row_star", "ImageView", (780, 460, 880, 580), content_desc="Star"),
        _w("row_done", "CheckBox", (920, 460, 1040, 580), checkable=True, clickable=True,
           checked=ItemField(field="done")),
    ))
    kids = (
        _w("toolbar", "LinearLayout", (0, 0, W, 200), children=(
            _w("title", "TextView", (40, 40, 600, 160), text=Lit(value="My notes")),
            _w("search", "ImageButton", (700, 40, 820, 160), clickable=True, content_desc="Search"),
            _w("settings", "ImageButton", (840, 40, 960, 160), clickable=True, content_desc="Settings"),
            _w("more", "ImageButton", (960, 40, 1080, 160), clickable=True, content_desc="More"),
        )),
        _w("chips", "LinearLayout", (0, 200, W, 320), children=tuple(
            _w(f"chip_{n}", "Button", (40 + i * 340, 220, 340 + i * 340, 300), clickable=True,
               text=Lit(value=n.title())) for i, n in enumerate(("all", "open", "done"))
        )),
        _w("count", "TextView", (40, 320, W, 390), text=Count(collection="notes", fmt="{} notes")),
        _w("list", "ListView", (0, 400, W, 2200), scrollable=True,
           list=ListSpec(collection="notes", item=item, pitch=250, max_visible=5)),
        _w("fab", "ImageButton", (880, 2220, 1040, 2380), clickable=True, content_desc="New note"),
    )
    root = _w("root", "FrameLayout", (0, 0, W, H), children=kids)
    return ScreenSpec(id="s00_list", name="list", package=PKG, root=root)


def _editor_screen() -> ScreenSpec:
    kids = (
        _w("ed_title", "TextView", (40, 40, W, 160), text=Lit(value="Edit note")),
        _w("ed_input", "EditText", (40, 200, 1040, 330), editable=True, clickable=True,
           focusable=True, text=Var(name="draft")),
        _w("ed_body", "EditText", (40, 360, 1040, 900), editable=True, clickable=True,
           text=Var(name="body")),
        _w("ed_save", "Button", (40, 950, 520, 1070), clickable=True, text=Lit(value="Save")),
        _w("ed_cancel", "Button", (560, 950, 1040, 1070), clickable=True, text=Lit(value="Cancel")),
    )
    root = _w("root", "FrameLayout", (0, 0, W, H), children=kids)
    return ScreenSpec(id="s01_editor", name="editor", package=PKG, root=root)


def _detail_screen() -> ScreenSpec:
    kids = (
        _w("dt_title", "TextView", (40, 200, W, 330), text=Selected(collection="notes", field="title")),
        _w("dt_done", "CheckBox", (40, 360, W, 460), checkable=True, clickable=True,
           text=Lit(value="Done"), checked=Selected(collection="notes", field="done")),
        _w("dt_delete", "Button", (40, 500, 520, 620), clickable=True, text=Lit(value="Delete")),
    )
    root = _w("root", "FrameLayout", (0, 0, W, H), children=kids)
    return ScreenSpec(id="s02_detail", name="detail", package=PKG, root=root)


def synthetic_app() -> AppSpec:
    """A notes-like app: list (5 records, ~30 widgets), editor, detail."""
    notes = [{"title": f"Note {i}", "date": f"2024-05-0{i + 1}", "done": i % 2 == 0} for i in range(5)]
    t = [
        Transition(id="t_new", screen="s00_list", action="click", widget="fab",
                   effects=(SetEffect(ref=VarRef(name="draft"), value=Lit(value="")),),
                   target="s01_editor"),
        Transition(id="t_open", screen="s00_list", action="click", widget="row",
                   effects=(SelectEffect(collection="notes"),), target="s02_detail"),
        Transition(id="t_done", screen="s00_list", action="click", widget="row_done", nav="stay",
                   effects=(ToggleEffect(ref=RecordRef(collection="notes", target="item", field="done")),)),
        Transition(id="t_save", screen="s01_editor", action="click", widget="ed_save",
                   guard=Guard(op="nonempty", left=Var(name="draft")), nav="pop",
                   effects=(AppendEffect(collection="notes", record={"title": Var(name="draft")}),)),
        Transition(id="t_cancel", screen="s01_editor", action="click", widget="ed_cancel", nav="pop"),
        Transition(id="t_delete", screen="s02_detail", action="click", widget="dt_delete", nav="pop",
                   effects=(RemoveEffect(collection="notes", target="selected"),)),
    ]
    return AppSpec(
        package=PKG, label="Bench notes", device=Device(width=W, height=H), start_screen="s00_list",
        screens=(_list_screen(), _editor_screen(), _detail_screen()), transitions=tuple(t),
        state=(
            StateVar(name="notes", kind="collection", fields=(
                FieldSpec(name="title", kind="text"), FieldSpec(name="date", kind="text"),
                FieldSpec(name="done", kind="flag", default=False))),
            StateVar(name="selected", kind="selection", collection="notes"),
            StateVar(name="draft", kind="text"), StateVar(name="body", kind="text"),
        ),
        initial_state={"notes": notes, "selected": None, "draft": "", "body": ""},
    )


def random_action(rng: random.Random, env: PhoneEnv, obs: dict[str, Any]) -> str:
    """One random valid JSON action for the current observation."""
    return action_for(rng, env.spec_app.package, obs["screen"], len(env.elements))


def action_for(rng: random.Random, package: str, screen: str, n: int) -> str:
    """One random valid JSON action on `screen`, whose text form has `n` elements."""
    if screen == "@launcher":
        return json.dumps({"type": "open_app", "package": package})
    r = rng.random()
    if r < 0.70 and n:
        return json.dumps({"type": "click", "element": rng.randrange(n)})
    if r < 0.80:
        return json.dumps({"type": "click", "x": rng.randrange(1001), "y": rng.randrange(1001)})
    if r < 0.88:
        return json.dumps({"type": "type", "text": rng.choice(WORDS)})
    if r < 0.95:
        return json.dumps({"type": "scroll", "direction": rng.choice(["up", "down"])})
    return json.dumps({"type": "back"})


def run_env(spec: AppSpec, steps: int, screenshots: bool, seed: int, cold: bool = False) -> float:
    """Env steps per second (JSON action in, full observation and info out)."""
    env = PhoneEnv(spec, screenshots=screenshots, max_steps=10**9)
    rng = random.Random(seed)
    obs, _ = env.reset(seed=seed)
    actions = 0
    t0 = time.perf_counter()
    for _ in range(steps):
        if cold:
            env.backend.sim.app.clear_caches()  # type: ignore[attr-defined]
        obs, _, term, trunc, _ = env.step(random_action(rng, env, obs))
        actions += 1
        if term or trunc:
            obs, _ = env.reset()
    return actions / (time.perf_counter() - t0)


def run_typing(spec: AppSpec, steps: int) -> float | None:
    """Env steps per second when every step changes the state (unique text typed into a field)."""
    env = PhoneEnv(spec, max_steps=10**9)
    env.reset()
    sim = env.backend.sim  # type: ignore[attr-defined]
    screen = next((s.id for s in spec.screens
                   if any(n.editable for n in sim.app.screens[s.id].nodes.values())), None)
    if screen is None:
        return None
    sim.set_position(screen, None)
    env.step({"type": "wait"})
    t0 = time.perf_counter()
    for i in range(steps):
        env.step(f'{{"type": "type", "text": "note {i}"}}')
    return steps / (time.perf_counter() - t0)


def reset_us(spec: AppSpec, n: int = 20000) -> tuple[float, float]:
    env = PhoneEnv(spec)
    env.reset()
    t0 = time.perf_counter()
    for _ in range(n):
        env.reset()
    env_us = (time.perf_counter() - t0) / n * 1e6
    sim = Simulator(spec)
    t0 = time.perf_counter()
    for _ in range(n):
        sim.reset()
    return env_us, (time.perf_counter() - t0) / n * 1e6


def memory_per_env(spec: AppSpec, n: int = 1000) -> float:
    """Bytes allocated per reset env (tracemalloc), over `n` envs after the first."""
    PhoneEnv(spec).reset()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    envs = [PhoneEnv(spec) for _ in range(n)]
    for e in envs:
        e.reset()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    delta = sum(s.size_diff for s in after.compare_to(before, "filename"))
    return delta / n


EPISODE = 30  # steps per episode in the batched-env rows
REPEATS = 3  # the gymnasium vector rows: best of this many interleaved runs (the load varies)


def run_loop(spec: AppSpec, steps: int, seed: int) -> float:
    """The baseline of the batched rows: one `PhoneEnv`, 30-step episodes, reset at each end."""
    env = PhoneEnv(spec, max_steps=EPISODE)
    rng = random.Random(seed)
    obs, _ = env.reset(seed=seed)
    t0 = time.perf_counter()
    for _ in range(steps):
        obs, _, term, trunc, _ = env.step(random_action(rng, env, obs))
        if term or trunc:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - t0)


def run_vector(spec: AppSpec, n: int, steps: int, seed: int) -> tuple[float, float]:
    """`VectorPhoneEnv` of `n` envs: (env steps per second, seconds to build and reset it)."""
    t0 = time.perf_counter()
    vec = VectorPhoneEnv(spec, n, max_steps=EPISODE)
    obs, _ = vec.reset(seed=seed)
    build = time.perf_counter() - t0
    rng, pkg = random.Random(seed), spec.package
    rounds = max(3, steps // n)
    t0 = time.perf_counter()
    for _ in range(rounds):
        acts = [action_for(rng, pkg, obs["screen"][i], len(e.elements))
                for i, e in enumerate(vec.envs)]
        obs, *_ = vec.step(acts)
    rate = rounds * n / (time.perf_counter() - t0)
    vec.close()
    return rate, build


def run_gym_vector(spec: AppSpec, kind: str, steps: int, seed: int) -> float:
    """Env steps per second of gymnasium's `SyncVectorEnv` or `AsyncVectorEnv` (shared memory on
    or off) of two `PhoneEnv`s. Both envs take the same action each step: gymnasium batches the
    infos' state variable by variable and fails when one env's selection is a number and the
    other's is null (`VectorPhoneEnv` keeps states whole)."""
    fns = [functools.partial(PhoneEnv, spec, max_steps=EPISODE)] * 2
    if kind == "sync":
        vec: Any = gym.vector.SyncVectorEnv(fns)
    else:
        vec = gym.vector.AsyncVectorEnv(fns, shared_memory=kind == "async_shm")
    rng, pkg = random.Random(seed), spec.package
    obs, _ = vec.reset(seed=seed)
    rounds = max(50, steps // 2)
    t0 = time.perf_counter()
    for _ in range(rounds):
        a = action_for(rng, pkg, obs["screen"][0], obs["text"][0].count("\n") + 1)
        obs, *_ = vec.step([a, a])
    rate = 2 * rounds / (time.perf_counter() - t0)
    vec.close()
    return rate


class SpinEnv(gym.Env):  # type: ignore[type-arg]
    """gymnasium's own floor: an env that only spends `seconds` per step and carries no data (a
    Discrete observation, an empty info), so sync / async of two of them is what the process
    round trip alone costs at a PhoneEnv's step time."""

    observation_space = gym.spaces.Discrete(2)
    action_space = gym.spaces.Discrete(2)

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def reset(self, *, seed: int | None = None, options: Any = None) -> tuple[int, dict[str, Any]]:
        return 0, {}

    def step(self, action: Any) -> tuple[int, float, bool, bool, dict[str, Any]]:
        end = time.perf_counter() + self.seconds
        while time.perf_counter() < end:
            pass
        return 0, 0.0, False, False, {}


def spin_floor(seconds: float, steps: int) -> float:
    """Sync / async env steps/s of two `SpinEnv`s (best of REPEATS each)."""
    rates = {}
    for kind in ("sync", "async"):
        best = 0.0
        for _ in range(REPEATS):
            fns = [functools.partial(SpinEnv, seconds)] * 2
            vec: Any = (gym.vector.SyncVectorEnv(fns) if kind == "sync"
                        else gym.vector.AsyncVectorEnv(fns))
            vec.reset(seed=0)
            t0 = time.perf_counter()
            for _ in range(steps):
                vec.step([0, 0])
            best = max(best, 2 * steps / (time.perf_counter() - t0))
            vec.close()
        rates[kind] = best
    return rates["sync"] / rates["async"]


def batched_rows(spec: AppSpec, steps: int, seed: int,
                 all_cores: set[int]) -> list[tuple[str, str]]:
    loop = run_loop(spec, steps, seed)
    rows = [("env steps/s, one PhoneEnv in a loop (baseline)", f"{loop:,.0f}")]
    for n in (1, 64, 1024):
        rate, build = run_vector(spec, n, max(steps, 4 * n), seed)
        rows.append((f"env steps/s, VectorPhoneEnv, {n:,} envs (build + reset {build:.2f} s)",
                     f"{rate:,.0f} ({rate / loop:.2f}x the loop)"))
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, all_cores)  # the workers' processes may use every core
    best = dict.fromkeys(("sync", "async_shm", "async_pipe"), 0.0)
    for _ in range(REPEATS):  # interleaved, so a change in the machine's load hits all three
        for kind in best:
            best[kind] = max(best[kind], run_gym_vector(spec, kind, steps // 4, seed))
    sync, shm, pipe = best["sync"], best["async_shm"], best["async_pipe"]
    rows += [
        ("env steps/s, SyncVectorEnv, 2 PhoneEnvs", f"{sync:,.0f}"),
        ("env steps/s, AsyncVectorEnv, 2 PhoneEnvs, shared memory",
         f"{shm:,.0f} (sync / async = {sync / shm:.2f})"),
        ("env steps/s, AsyncVectorEnv, 2 PhoneEnvs, no shared memory",
         f"{pipe:,.0f} (sync / async = {sync / pipe:.2f})"),
        (f"sync / async of 2 envs doing nothing but {1e6 / loop:.0f} us a step (the floor)",
         f"{spin_floor(1 / loop, max(500, steps // 8)):.2f}"),
    ]
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("app", nargs="?", help="app.json or an app folder (default: synthetic)")
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    all_cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(all_cores)[0]})
    spec = load_app(args.app) if args.app else synthetic_app()
    widgets = len(Simulator(spec).frame().nodes)
    xml = run_env(spec, args.steps, False, args.seed)
    cold = run_env(spec, args.steps // 4, False, args.seed, cold=True)
    typing = run_typing(spec, args.steps // 4)
    shots = run_env(spec, max(200, args.steps // 10), True, args.seed)
    env_reset, sim_reset = reset_us(spec)
    mem = memory_per_env(spec)
    rows = [
        ("app", f"{spec.package} ({widgets} views on the start screen)"),
        ("steps/s, XML + text obs", f"{xml:,.0f}"),
        ("steps/s, XML + text, render caches off", f"{cold:,.0f}"),
        ("steps/s, XML + text, new state every step (typing)",
         "n/a (no editable field)" if typing is None else f"{typing:,.0f}"),
        ("steps/s, XML + screenshot (scale 0.5)", f"{shots:,.0f}"),
        ("env reset (us)", f"{env_reset:,.1f}"),
        ("simulator reset (us)", f"{sim_reset:,.1f}"),
        ("memory per env (KiB, tracemalloc, 1,000 envs)", f"{mem / 1024:,.1f}"),
        ("speed-up vs emulator at 1.5 s/step (XML)", f"{xml * EMULATOR_S_PER_STEP:,.0f}x"),
        ("speed-up vs emulator (XML + screenshot)", f"{shots * EMULATOR_S_PER_STEP:,.0f}x"),
    ]
    batched = batched_rows(spec, args.steps, args.seed, all_cores)
    width = max(len(k) for k, _ in rows + batched)
    print(f"phoneworld simulator benchmark, one core, {args.steps} random actions")
    for k, v in rows:
        print(f"  {k:<{width}}  {v}")
    print(f"batched envs ({EPISODE}-step episodes, autoreset; gymnasium vector envs best of "
          f"{REPEATS}, AsyncVectorEnv on {len(all_cores) or '?'} cores)")
    for k, v in batched:
        print(f"  {k:<{width}}  {v}")


if __name__ == "__main__":
    main()
