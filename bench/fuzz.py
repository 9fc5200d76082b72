"""The long fuzz run: every input kind through the CLI for N minutes, held to the contract of
tests/fuzz/harness.py (exit 0/1/2, no traceback, every diagnostic with a hint, nothing outside
--out touched, bounded time and memory). Reports cases per second and saves each new failure as a
reproducer folder (case.json + files, the format of tests/fixtures/hostile: copy one there to
keep it as a regression case).

    python bench/fuzz.py --minutes 30 [--engine atheris|random] [--failures DIR] [--json FILE]

Engines: `atheris` (coverage-guided libFuzzer over phoneworld's own code; `pip install atheris`,
or `make fuzz`) mutates one file of a seed input per case, with libFuzzer's byte mutations and
the suite's structure-aware ones (tests/fuzz/mutate.py) as a custom mutator; `random` (the
fallback when atheris is missing) draws the suite's mutations from a seeded generator.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fuzz import cli_args, crafted, seeds  # noqa: E402
from tests.fuzz.harness import Case, Entry, Outcome, run_case  # noqa: E402
from tests.fuzz.mutate import mutate_bytes, mutate_tree  # noqa: E402


@dataclass(frozen=True)
class Kind:
    """One input kind: its seed files and the command that reads them."""

    name: str
    files: Callable[[], dict[str, Entry]]
    args: list[str]


def kinds(apps: Path) -> list[Kind]:
    out = [Kind(f"trace:{fmt}", make, ["check", "{dir}"])
           for fmt, make in sorted(seeds.TRACE_SEEDS.items())]
    world = seeds.WORLD_SPEC.replace(b"{apps}", str(apps).encode())
    out += [
        Kind("task spec", lambda: {"spec.yaml": seeds.TASK_SPEC},
             ["tasks", "check", str(crafted.GOLDEN_APP), "--specs", "{dir}/spec.yaml",
              "--only-specs"]),
        Kind("world", lambda: {"world.yaml": world}, ["world", "check", "{dir}/world.yaml"]),
        Kind("cli", dict, []),
    ]
    return out


class Run:
    """Counts cases, runs them, and saves each failure with a new signature."""

    def __init__(self, apps: Path, failures: Path, minutes: float) -> None:
        self.apps, self.failures = apps, failures
        self.base = Path(tempfile.mkdtemp(prefix="phoneworld_fuzz_bench_"))
        self.started = time.perf_counter()
        self.deadline = self.started + minutes * 60
        self.counts: Counter[str] = Counter()
        self.saved: list[str] = []
        self.seen = {p.name for p in failures.iterdir()} if failures.is_dir() else set()
        self.last_report = self.started

    def case(self, kind: Kind, files: dict[str, Entry], rng: random.Random) -> None:
        args = cli_args.command_line(rng, self.apps) if kind.name == "cli" else kind.args
        case = Case(f"c{sum(self.counts.values())}", files, args)
        outcome = run_case(case, self.base)
        shutil.rmtree(self.base / case.name, ignore_errors=True)
        self.counts[kind.name] += 1
        if outcome.broken:
            self.save(kind, outcome)
        if time.perf_counter() - self.last_report > 30:
            self.last_report = time.perf_counter()
            print(self.line(), file=sys.stderr, flush=True)

    def save(self, kind: Kind, outcome: Outcome) -> None:
        signature = re.sub(r"\d+|/tmp/\S+", "#", outcome.broken[0].splitlines()[-1])[:200]
        name = f"{kind.name.replace(':', '_').replace(' ', '_')}_" + hashlib.sha256(
            signature.encode()).hexdigest()[:10]
        if name in self.seen:
            return
        self.seen.add(name)
        folder = self.failures / name
        crafted.save_case(outcome.case, folder, self.apps)
        (folder / "outcome.txt").write_text("\n".join(outcome.broken) + "\n\n" + outcome.output,
                                            encoding="utf-8")
        self.saved.append(str(folder))
        print(f"new failure: {folder}: {outcome.broken[0][:300]}", file=sys.stderr, flush=True)

    def line(self) -> str:
        seconds = time.perf_counter() - self.started
        n = sum(self.counts.values())
        return (f"{n} cases in {seconds:.0f} s ({n / max(seconds, 1e-9):.1f} cases/s), "
                f"{len(self.saved)} new failure(s)")

    def done(self) -> bool:
        return time.perf_counter() >= self.deadline

    def summary(self, engine: str) -> dict[str, object]:
        seconds = time.perf_counter() - self.started
        n = sum(self.counts.values())
        return {"engine": engine, "seconds": round(seconds, 1), "cases": n,
                "cases_per_second": round(n / max(seconds, 1e-9), 2),
                "by_kind": dict(sorted(self.counts.items())), "new_failures": self.saved}


def run_random(run: Run, all_kinds: list[Kind], seed: int) -> None:
    rng = random.Random(seed)
    while not run.done():
        kind = rng.choice(all_kinds)
        run.case(kind, mutate_tree(kind.files(), rng), rng)


def run_atheris(run: Run, all_kinds: list[Kind], finish: Callable[[], None],
                max_seconds: int) -> None:
    import atheris

    with atheris.instrument_imports(include=["phoneworld"]):
        import phoneworld.cli  # noqa: F401  (the CLI imports its passes lazily: import them
        import phoneworld.ingest  # noqa: F401  inside the instrumentation)
        import phoneworld.pipeline  # noqa: F401
        import phoneworld.tasks.catalog  # noqa: F401
        import phoneworld.tasks.load  # noqa: F401
        import phoneworld.tasks.typecheck  # noqa: F401
        import phoneworld.world.cli  # noqa: F401
        import phoneworld.world.load  # noqa: F401

    names = [sorted(k.files()) or [""] for k in all_kinds]

    def split(data: bytes) -> tuple[Kind, str, bytes]:
        k = data[0] % len(all_kinds)
        return all_kinds[k], names[k][data[1] % len(names[k])], data[2:]

    def one_input(data: bytes) -> None:
        if run.done():
            finish()
            os._exit(0)  # libFuzzer would exit without running Python's shutdown
        if len(data) < 2:
            return
        kind, name, body = split(data)
        files = kind.files()
        if name:
            files[name] = body
        run.case(kind, files, random.Random(body))

    def mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if len(data) < 2 or rng.random() < 0.5:
            return atheris.Mutate(data, max_size)
        _, name, body = split(data)
        return (data[:2] + mutate_bytes(name, body, rng))[:max_size]

    corpus = Path(tempfile.mkdtemp(prefix="phoneworld_fuzz_corpus_"))
    for k, kind in enumerate(all_kinds):
        for i, name in enumerate(names[k]):
            body = kind.files().get(name, b"")
            (corpus / f"seed_{k}_{i}").write_bytes(bytes([k, i]) + (
                body if isinstance(body, bytes) else b""))
    atheris.Setup([sys.argv[0], str(corpus), f"-max_total_time={max_seconds + 60}",
                   "-timeout=0", "-rss_limit_mb=4096", "-max_len=262144", "-print_final_stats=0"],
                  one_input, custom_mutator=mutator)
    atheris.Fuzz()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--engine", choices=("auto", "atheris", "random"), default="auto")
    parser.add_argument("--failures", type=Path, default=REPO / "bench" / "fuzz_failures",
                        help="Where new failures are saved as reproducer folders.")
    parser.add_argument("--json", type=Path, default=None, help="Also write the figures here.")
    parser.add_argument("--seed", type=int, default=0, help="Seed of the random engine.")
    opts = parser.parse_args()
    engine = opts.engine
    if engine == "auto":
        try:
            import atheris  # noqa: F401
            engine = "atheris"
        except ImportError:
            engine = "random"
    from tests.conftest import build_mini_world

    apps = build_mini_world(Path(tempfile.mkdtemp(prefix="phoneworld_fuzz_apps_")))
    run = Run(apps, opts.failures, opts.minutes)
    all_kinds = kinds(apps)

    def finish() -> None:
        figures = run.summary(engine)
        print(f"{engine}: {run.line()}; by kind: {figures['by_kind']}", flush=True)
        if opts.json is not None:
            opts.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
        shutil.rmtree(run.base, ignore_errors=True)

    if engine == "atheris":
        run_atheris(run, all_kinds, finish, int(opts.minutes * 60))
    else:
        run_random(run, all_kinds, opts.seed)
    finish()


if __name__ == "__main__":
    main()
