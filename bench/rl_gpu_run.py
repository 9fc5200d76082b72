"""The rl backend's GPU run: SFT then step-wise GRPO on the example app and the real-data apps,
held-out tasks and held-out apps evaluated after each, plus rollout and update speed.

Phases (one device call each, see `bench/rl_gpu_run.sh`):
- `speed`: SmolLM2-135M's architecture with random weights (as in the anchor probes): rollout
  agent steps/s at 256 and 1024 lock-step episodes and seconds per update at 64 episodes x 10
  steps. Needs no weights; saved to `.rlgpu/a/speed.json` for the next phase.
- `full`: the SmolLM2-135M-Instruct GGUF (its two carried halves joined), SFT on oracle
  demonstrations of the training tasks, evaluation, GRPO within the time left, evaluation, and
  the trained policy's rollout speed; writes `rl_h200.json`.
- `smoke`: both, on the CPU with the tiny model and tiny budgets (the end-to-end check).

Every phase is budgeted against a deadline so the call ends inside the device's 10 minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import platform
import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "bench")]
log = logging.getLogger("rl_gpu_run")
CARRY = REPO / ".rlgpu"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
# held-out apps: none of them is in the carried world (its SMS Messenger and Contacts are trained on)
HELDOUT_APPS = ("com.simplemobiletools.gallery.pro", "com.simplemobiletools.dialer",
                "autodroid.firefox")
CROSS_APP_RATIO = 0.5  # the mixed RL variant's share of cross-app groups
ANCHOR = {"rollout_steps_per_s_256": 199.0, "update_s_64x10": 10.65,
          "source": "research/rl-h200-anchor.md (HF generate, random-init SmolLM2-135M)"}


@dataclass
class Plan:
    """Sizes and budgets of one run."""

    model: str = "gguf"  # gguf | tiny
    budget_s: float = 560.0
    sft_s: float = 120.0
    rl_max_s: float = 240.0
    demos_per_task: int = 6
    sft_epochs: float = 2.0
    sft_batch: int = 64
    group_size: int = 8
    groups_per_update: int = 16
    groups_per_batch: int = 48
    train_steps: int = 30
    eval_steps: int = 50
    eval_episodes: int = 4
    speed_episodes: tuple[int, ...] = (256, 1024)
    speed_steps: int = 10
    update_groups: int = 8
    max_new_tokens: int = 48
    speed_new_tokens: int = 32
    batch_bucket: int = 64


SMOKE = Plan(model="tiny", budget_s=900, sft_s=60, rl_max_s=60, demos_per_task=1, sft_epochs=1,
             sft_batch=4, group_size=2, groups_per_update=2, groups_per_batch=2, train_steps=2,
             eval_steps=2, eval_episodes=1, speed_episodes=(8,), speed_steps=2, update_groups=2,
             max_new_tokens=8, speed_new_tokens=8, batch_bucket=8)


class Clock:
    def __init__(self, budget: float) -> None:
        self.t0, self.budget = time.monotonic(), budget
        self.phases: dict[str, float] = {}

    def left(self) -> float:
        return self.budget - (time.monotonic() - self.t0)

    def mark(self, name: str, since: float) -> None:
        self.phases[name] = round(time.monotonic() - since, 2)


# ---------------------------------------------------------------------- inputs


def apps(work: Path, smoke: bool) -> tuple[list[str], list[str]]:
    """(training apps, held-out apps): the example built here plus carried real-data apps."""
    out = work / "apps"
    if not (out / "com.example.notes" / "app.json").is_file():
        subprocess.run([sys.executable, "-m", "phoneworld.cli", "build", str(REPO / "examples" /
                        "traces"), "--out", str(out), "-q"], check=True, capture_output=True)
    train = [str(out / "com.example.notes")]
    held: list[str] = []
    carried = sorted((CARRY / "b" / "apps").glob("*/app.json")) if not smoke else []
    for app_json in carried:
        (held if app_json.parent.name in HELDOUT_APPS else train).append(str(app_json.parent))
    return train, held


MINI_WORLD = """format: phoneworld-world/1
name: mini
apps:
  - dir: com.example.notes
  - dir: com.example.messages
clipboard: "Stale text"
"""


def world(work: Path, smoke: bool) -> str | None:
    """The world whose cross-app tasks join SFT, RL (mixed variant) and evaluation: the carried
    one (`examples/world.yaml`, built by rl_gpu_prep.sh), or the two bundled apps for smoke."""
    carried = CARRY / "b" / "world"
    if not smoke and (carried / "world.yaml").is_file():
        return str(carried)
    if not smoke:
        return None
    built = work / "mini_world"
    if not (built / "world.yaml").is_file():
        src = work / "mini_src"
        for traces in ("traces", "traces_messages"):
            subprocess.run([sys.executable, "-m", "phoneworld.cli", "build",
                            str(REPO / "examples" / traces), "--out", str(src), "-q"],
                           check=True, capture_output=True)
        (src / "world.yaml").write_text(MINI_WORLD)
        subprocess.run([sys.executable, "-m", "phoneworld.cli", "world", "build",
                        str(src / "world.yaml"), "--out", str(built)], check=True,
                       capture_output=True)
    return str(built)


def join_gguf(work: Path) -> Path:
    """The GGUF file from its carried halves (checked against the carried sha256)."""
    parts = sorted([*CARRY.glob("a/*.gguf.part*"), *CARRY.glob("b/*.gguf.part*")])
    if len(parts) < 2:
        raise SystemExit(f"the GGUF halves are missing ({[p.name for p in parts]}): run the "
                         "`speed` call (carrying .rlgpu/a) and then, while the machine is warm, "
                         "the `full` call (carrying .rlgpu/b)")
    target = work / "model" / GGUF_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with target.open("wb") as f:
        for p in parts:
            data = p.read_bytes()
            digest.update(data)
            f.write(data)
    want = (CARRY / "b" / "gguf.sha256").read_text().split()[0]
    if digest.hexdigest() != want:
        raise SystemExit(f"joined GGUF sha256 {digest.hexdigest()} != carried {want}")
    return target


def model_cfg(plan: Plan, work: Path, random_weights: bool) -> Any:
    from phoneworld.rl.config import ModelConfig

    if plan.model == "tiny":
        return ModelConfig(name_or_path="tiny")
    if random_weights:
        return ModelConfig(name_or_path=str(CARRY / "a" / "tokenizer"), random_init=True)
    gguf = join_gguf(work)
    return ModelConfig(name_or_path=str(gguf.parent), gguf_file=gguf.name)


def common(plan: Plan, train: list[str], held: list[str], new_tokens: int,
           worlds: list[str] | None = None) -> dict[str, Any]:
    prompt = {"history": 4, "max_screen_tokens": 384, "max_new_tokens": new_tokens}
    if plan.model == "tiny":
        prompt.update(system="Act.", max_screen_tokens=128)
    return {"prompt": prompt, "tasks": {"apps": train, "heldout_apps": held,
                                        "worlds": worlds or [], "heldout_fraction": 0.2,
                                        "train_max_steps": plan.train_steps,
                                        "eval_max_steps": plan.eval_steps},
            "sampling": {"batch_bucket": plan.batch_bucket,
                         "length_bucket": 64 if plan.batch_bucket >= 64 else 16,
                         "max_batch": 1024}}


# ---------------------------------------------------------------------- phases


def speed_phase(plan: Plan, work: Path, train: list[str], held: list[str]) -> dict[str, Any]:
    """Rollout and update speed with random weights (the anchor's conditions)."""
    from rl_speed import anchor_trainer, decode_check, rollout_speed, update_speed

    from phoneworld.rl.assembly import load_policy, splits
    from phoneworld.rl.config import PromptConfig, SamplingConfig, from_dict
    from phoneworld.rl.grpo_config import GRPOConfig
    from phoneworld.rl.tasks import TaskSource

    base = common(plan, train, held, plan.speed_new_tokens)
    base["sampling"]["compile_layers"] = False  # the eager baseline; compiled runs follow
    prompt = from_dict(PromptConfig, base["prompt"])
    policy = load_policy(model_cfg(plan, work, True), prompt, from_dict(SamplingConfig,
                                                                        base["sampling"]))
    tasks: list[tuple[TaskSource, list[str]]] = [
        (s.source, s.ids) for s in splits(from_dict(GRPOConfig, {"tasks": base["tasks"],
                                                                 "real_ratio": 0}).tasks)
        if s.name == "train" and s.ids]
    out: dict[str, Any] = {"rollout": {}}
    out["decode_check"] = decode_check(policy, tasks)
    log.info("static decoder vs plain loop: %s", out["decode_check"])
    for n in plan.speed_episodes:
        out["rollout"][str(n)] = rollout_speed(policy, tasks, n, plan.speed_steps)
        log.info("rollout %d episodes: %.0f agent steps/s", n,
                 out["rollout"][str(n)]["steps_per_s"])
    if policy.gen.static is not None:  # the same with the layer pieces compiled
        from phoneworld.rl.decode import StaticDecoder

        rows = policy.gen.cfg.prefill_rows
        policy.gen.static = StaticDecoder(policy.rollout_model, prefill_rows=rows,
                                          compile_layers=True)
        out["decode_check_compiled"] = decode_check(policy, tasks)
        out["rollout_compiled"] = {}
        for n in plan.speed_episodes:
            out["rollout_compiled"][str(n)] = rollout_speed(policy, tasks, n, plan.speed_steps)
            log.info("rollout %d episodes, compiled: %.0f agent steps/s", n,
                     out["rollout_compiled"][str(n)]["steps_per_s"])
        n = str(max(plan.speed_episodes))
        out["compile_layers"] = bool(
            out["rollout_compiled"][n]["steps_per_s"] > out["rollout"][n]["steps_per_s"]
            and out["decode_check_compiled"]["mean_agreeing_prefix"]
            >= out["decode_check"]["mean_agreeing_prefix"] - 0.1)
        if not out["compile_layers"]:
            policy.gen.static = StaticDecoder(policy.rollout_model, prefill_rows=rows)
    trainer = anchor_trainer(base, policy, work / "speed_run", plan.group_size,
                             plan.update_groups, plan.speed_steps)
    out["update_64x10"] = update_speed(trainer)
    log.info("update at %d episodes x %d steps: %.2f s", plan.update_groups * plan.group_size,
             plan.speed_steps, out["update_64x10"]["update_s"])
    return out


def profile_phase(plan: Plan, work: Path, train: list[str], held: list[str],
                  out_dir: Path) -> dict[str, Any]:
    """Where rollout time goes, with the layer pieces compiled (random weights): prefill alone
    against transformers' own forward over the same tokens, torch.profiler tables of one
    1024-row prefill and of one whole env step, and a prefill chunk-size sweep. Writes
    profile.txt next to the JSON."""
    import statistics

    import torch
    from rl_speed import decode_check, first_suffixes, rollout_speed

    from phoneworld.rl.assembly import load_policy, splits
    from phoneworld.rl.config import PromptConfig, SamplingConfig, from_dict
    from phoneworld.rl.decode import StaticDecoder
    from phoneworld.rl.grpo_config import GRPOConfig

    base = common(plan, train, held, plan.speed_new_tokens)
    policy = load_policy(model_cfg(plan, work, True), from_dict(PromptConfig, base["prompt"]),
                         from_dict(SamplingConfig, base["sampling"]))
    gen = policy.gen
    gen.static = StaticDecoder(policy.rollout_model, prefill_rows=gen.cfg.prefill_rows,
                               compile_layers=True)
    tasks = [(s.source, s.ids) for s in splits(from_dict(GRPOConfig, {
        "tasks": base["tasks"], "real_ratio": 0}).tasks) if s.name == "train" and s.ids]
    n = max(plan.speed_episodes)
    suffixes = first_suffixes(policy, tasks, n, 3)
    prefix = policy.prefix_ids
    for _ in range(2):
        gen.generate(prefix, suffixes)
    torch.cuda.synchronize()

    def prefill() -> None:
        gen.static.start(prefix, gen._prefix_cache(prefix), gen._weights, suffixes, gen.pad,
                         gen.cfg.length_bucket, gen.max_new)
        torch.cuda.synchronize()

    def timed(fn: Any, k: int = 3) -> float:
        out = []
        for _ in range(k):
            t0 = time.perf_counter()
            fn()
            out.append(time.perf_counter() - t0)
        return statistics.median(out)

    width = max(len(s) for s in suffixes)
    ids = torch.randint(0, 1000, (128, width), device="cuda")
    body = policy.rollout_model.model

    def hf_forward() -> None:
        with torch.no_grad():
            for _ in range(-(-n // 128)):
                body(input_ids=ids)
        torch.cuda.synchronize()

    out: dict[str, Any] = {"rows": n, "prefix_tokens": len(prefix),
                           "mean_suffix_tokens": sum(map(len, suffixes)) / n,
                           "max_suffix_tokens": width, "decode_check": decode_check(policy, tasks)}
    prefill()
    hf_forward()
    out["prefill_s"] = timed(prefill)
    out["hf_forward_same_rows_s (128-row chunks at the longest suffix, no prefix)"] = timed(
        hf_forward)
    out["generate_s"] = timed(lambda: gen.generate(prefix, suffixes))
    log.info("profile: %s", out)
    from torch.profiler import ProfilerActivity, profile

    tables = []
    for name, fn in (("one 1024-row prefill", prefill),
                     ("one 1024-row env step (prefill + decode)",
                      lambda: gen.generate(prefix, suffixes))):
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        tables.append(f"## {name}\n" + prof.key_averages().table(sort_by="cuda_time_total",
                                                                  row_limit=30))
        tables.append(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=12))
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "profile.txt").write_text("\n\n".join(tables))
    sweeps: dict[str, Any] = {}
    for rows in (256, 1024):
        gen.static.prefill_rows = rows
        r = rollout_speed(policy, tasks, n, plan.speed_steps, repeats=1)
        sweeps[f"prefill_rows{rows}"] = {k: r["runs"][0][k] for k in (
            "steps_per_s", "breakdown_s", "other_s (env, parsing, python)")}
        log.info("prefill rows %d: %s", rows, sweeps[f"prefill_rows{rows}"])
    out["sweeps"] = sweeps
    return out


def sft_phase(plan: Plan, work: Path, base: dict[str, Any], model: Any,
              clock: Clock) -> tuple[Path, dict[str, Any]]:
    from phoneworld.rl.config import load_config
    from phoneworld.rl.sft_config import SFTConfig
    from phoneworld.rl.sft_trainer import run_sft

    logs: list[dict[str, Any]] = []
    over = {"prompt": base["prompt"], "tasks": base["tasks"], "model": model.__dict__,
            "demos_per_task": plan.demos_per_task,
            "demo_workers": min(12, os.cpu_count() or 1), "epochs": plan.sft_epochs,
            "batch_size": plan.sft_batch, "learning_rate": 1e-4, "max_length": 1024,
            "output_dir": str(work / "sft"), "resume": False, "logging_steps": 5,
            "time_budget_s": min(plan.sft_s, max(10.0, clock.left() - 330))}
    if plan.model == "tiny":
        over.update(max_steps=2, learning_rate=1e-3)
    t0 = time.monotonic()
    final = run_sft(load_config(SFTConfig, None, over), on_log=logs.append)
    clock.mark("sft", t0)
    last = next((r for r in reversed(logs) if "loss" in r), {})
    done = next((r for r in reversed(logs) if "train_runtime" in r), {})
    return final, {"steps": done.get("step"), "last_loss": last.get("loss"),
                   "train_loss": done.get("train_loss"),
                   "train_runtime_s": done.get("train_runtime"), "log": logs[-20:]}


def eval_phase(plan: Plan, base: dict[str, Any], model_dir: Path, out: Path) -> dict[str, Any]:
    from phoneworld.rl.assembly import load_policy
    from phoneworld.rl.config import load_config
    from phoneworld.rl.eval_config import EvalConfig
    from phoneworld.rl.evaluate import evaluate

    over = {**base, "init_from": str(model_dir), "episodes_per_task": plan.eval_episodes,
            "output": str(out), "batch_episodes": 1024}
    over["splits"] = ["heldout_tasks"] + (["heldout_apps"] if base["tasks"]["heldout_apps"]
                                          else []) + (["heldout_cross_app"]
                                                      if base["tasks"]["worlds"] else [])
    cfg = load_config(EvalConfig, None, over)
    return evaluate(cfg, load_policy(cfg.model, cfg.prompt, cfg.sampling, cfg.init_from))


def rl_phase(plan: Plan, work: Path, base: dict[str, Any], sft_dir: Path,
             budget_s: float, name: str = "grpo",
             cross_app_ratio: float = 0.0) -> tuple[Path, dict[str, Any]]:
    from phoneworld.rl.config import load_config
    from phoneworld.rl.grpo_config import GRPOConfig
    from phoneworld.rl.grpo_trainer import GRPOTrainer

    over = {**base, "init_from": str(sft_dir), "real_ratio": 0.0, "group_size": plan.group_size,
            "groups_per_update": plan.groups_per_update, "updates": 1000,
            "learning_rate": 1e-5 if plan.model != "tiny" else 1e-3, "max_staleness": 2,
            "output_dir": str(work / name), "resume": False, "save_every": 0,
            "cross_app_ratio": cross_app_ratio,
            "time_budget_s": budget_s, "micro_batch_tokens": 32768, "max_refills": 6,
            "sources": [{"name": "mock", "kind": "sim", "groups_per_batch":
                         plan.groups_per_batch}]}
    trainer = GRPOTrainer(load_config(GRPOConfig, None, over))
    if plan.model == "tiny":  # a random tiny model never succeeds: coin rewards keep it moving
        rng = random.Random(0)
        for s in trainer.sources:
            s.reward = lambda ep: float(rng.random() < 0.5)
    hist = trainer.train()
    final = max((work / name).glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1]))
    upd = sorted(h["update_s"] for h in hist)
    return final, {"updates": len(hist), "cross_app_ratio": cross_app_ratio,
                   "learning_rate": over["learning_rate"],
                   "median_update_s": upd[len(upd) // 2] if upd else None,
                   "rollout_steps_per_s": [round(h["rollout_steps_per_s"], 1) for h in hist],
                   "history": hist}


def headline(result: dict[str, Any]) -> dict[str, Any]:
    return {split: {"success_rate": d["overall"]["success_rate"], "ci95": d["overall"]["ci95"],
                    "episodes": d["overall"]["episodes"],
                    "parse_error_rate": d["overall"]["parse_error_rate"],
                    "mean_steps": d["overall"]["mean_steps"]}
            for split, d in result["splits"].items()}


def guarded(out: dict[str, Any], name: str, fn: Any, *args: Any) -> Any:
    """Run one step; on failure record the error (the run goes on, and writes what it has)."""
    try:
        return fn(*args)
    except Exception as exc:  # a one-shot GPU run must still report the phases that worked
        import traceback

        log.exception("%s failed", name)
        out.setdefault("errors", {})[name] = "".join(traceback.format_exception(exc))[-4000:]
        return None


def trained_speed(plan: Plan, base: dict[str, Any], model: Any, model_dir: Path) -> Any:
    from rl_speed import decode_check, rollout_speed

    from phoneworld.rl.assembly import load_policy, splits
    from phoneworld.rl.config import PromptConfig, SamplingConfig, TaskConfig, from_dict

    policy = load_policy(model, from_dict(PromptConfig, base["prompt"]),
                         from_dict(SamplingConfig, base["sampling"]), str(model_dir))
    tasks = [(s.source, s.ids) for s in splits(from_dict(TaskConfig, base["tasks"]))
             if s.name == "train" and s.ids]
    out = rollout_speed(policy, tasks, max(plan.speed_episodes), plan.speed_steps, repeats=1)
    out["decode_check"] = decode_check(policy, tasks)
    return out


def full_phase(plan: Plan, work: Path, train: list[str], held: list[str],
               clock: Clock, compile_layers: bool = False,
               worlds: list[str] | None = None) -> dict[str, Any]:
    """SFT (single-app and cross-app demonstrations), then two GRPO runs from the same SFT
    model: single-app tasks only, and single-app + cross-app tasks (CROSS_APP_RATIO of the
    groups); every model evaluated on held-out tasks, held-out apps and held-out cross-app
    tasks."""
    base = common(plan, train, held, plan.max_new_tokens, worlds)
    base["sampling"]["compile_layers"] = compile_layers  # as the speed phase measured best
    out: dict[str, Any] = {}
    model = model_cfg(plan, work, False)
    sft_res = guarded(out, "sft", sft_phase, plan, work, base, model, clock)
    if sft_res is None:
        return out
    sft_dir, out["sft"] = sft_res
    t0 = time.monotonic()
    ev_sft = guarded(out, "eval_after_sft", eval_phase, plan, base, sft_dir,
                     work / "eval_sft.json")
    clock.mark("eval_after_sft", t0)
    out["eval_after_sft"] = ev_sft
    out["success"] = {"after_sft": headline(ev_sft) if ev_sft else None}
    variants = [("single_app", 0.0)] + ([("mixed", CROSS_APP_RATIO)] if worlds else [])
    out["rl"], out["eval_after_rl"] = {}, {}
    last = None
    # one budget for every variant, fixed before the first starts, so they compare fairly
    n = len(variants)
    reserve = n * (1.3 * clock.phases["eval_after_sft"] + 10) + 40
    budget = max(15.0, min(plan.rl_max_s, (clock.left() - reserve) / n))
    out["rl_budget_s"] = budget
    for name, ratio in variants:
        t0 = time.monotonic()
        rl_res = guarded(out, f"rl_{name}", rl_phase, plan, work, base, sft_dir, budget,
                         f"grpo_{name}", ratio)
        clock.mark(f"rl_{name}", t0)
        if rl_res is None:
            continue
        rl_dir, out["rl"][name] = rl_res
        t0 = time.monotonic()
        ev = guarded(out, f"eval_after_rl_{name}", eval_phase, plan, base, rl_dir,
                     work / f"eval_rl_{name}.json")
        clock.mark(f"eval_after_rl_{name}", t0)
        out["eval_after_rl"][name] = ev
        out["success"][f"after_rl_{name}"] = headline(ev) if ev else None
        last = rl_dir
    if last is not None and clock.left() > 45:
        t0 = time.monotonic()
        out["speed_trained"] = guarded(out, "speed_trained", trained_speed, plan, base, model,
                                       last)
        clock.mark("speed_trained", t0)
    return out


def machine() -> dict[str, Any]:
    import torch
    import transformers
    import trl

    info = {"python": platform.python_version(), "torch": torch.__version__,
            "transformers": transformers.__version__, "trl": trl.__version__,
            "cpus": os.cpu_count()}
    if torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
    return info


def write(out: Path, name: str, data: dict[str, Any]) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    path.write_text(json.dumps(data, indent=1, default=str))
    log.info("wrote %s", path)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--phase", choices=("speed", "full", "smoke", "profile"), default="full")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results")
    ap.add_argument("--work", type=Path, default=Path("/tmp/rlgpu_work"))
    ap.add_argument("--budget-s", type=float, default=None)
    ap.add_argument("--with-real-apps", action="store_true", help="smoke: also use the "
                    "carried real-data apps (.rlgpu/b/apps)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    plan = SMOKE if args.phase == "smoke" else Plan()
    if args.budget_s:
        plan.budget_s = args.budget_s
    clock = Clock(plan.budget_s)
    if args.phase == "smoke":
        shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True, exist_ok=True)
    train, held = apps(args.work, args.phase == "smoke" and not args.with_real_apps)
    result: dict[str, Any] = {
        "phase": args.phase, "command": os.environ.get("RL_GPU_COMMAND", " ".join(sys.argv)),
        "machine": machine(), "apps": {"train": [Path(a).name for a in train],
                                       "heldout": [Path(a).name for a in held]},
        "plan": plan.__dict__, "anchor": ANCHOR}
    if args.phase == "profile":
        result["profile"] = guarded(result, "profile", profile_phase, plan, args.work, train,
                                    held, args.out)
    if args.phase in ("speed", "smoke"):
        t0 = time.monotonic()
        result["speed_random_init"] = guarded(result, "speed_random_init", speed_phase, plan,
                                              args.work, train, held)
        clock.mark("speed_random_init", t0)
        if args.phase == "speed":
            (CARRY / "a").mkdir(parents=True, exist_ok=True)
            (CARRY / "a" / "speed.json").write_text(json.dumps(result, default=str))
    if args.phase in ("full", "smoke"):
        prior = CARRY / "a" / "speed.json"
        if args.phase == "full" and prior.is_file():
            result["speed_random_init"] = json.loads(prior.read_text()).get("speed_random_init")
        chosen = bool((result.get("speed_random_init") or {}).get("compile_layers"))
        w = world(args.work, args.phase == "smoke")
        result["world"] = Path(w).name if w else None
        result.update(full_phase(plan, args.work, train, held, clock, chosen,
                                 [w] if w else None))
    result["phase_seconds"] = clock.phases
    name = {"profile": "rl_h200_profile.json", "speed": "rl_h200_speed.json", "full": "rl_h200.json", "smoke": "rl_smoke.json"}
    write(args.out, name[args.phase], result)


if __name__ == "__main__":
    main()
