"""Property-based fuzzing of every input kind through the CLI: mutated traces of each format,
task specs, world specs and command lines. Every case must keep the contract of
`tests/fuzz/harness.py` (exit 0, 1 or 2, no traceback, every diagnostic with a hint, nothing
outside --out touched, bounded time and memory). The case count is printed at the end of the run.

`PHONEWORLD_FUZZ_SCALE` multiplies the example counts (default 1: a few thousand cases in about
two minutes on two cores). The draws are derandomized, so `make test` runs the same cases every
time and a failure in CI is one that anybody can rerun; `PHONEWORLD_FUZZ_RANDOM=1` draws new ones,
and `bench/fuzz.py` is the long, coverage-guided run.
"""

from __future__ import annotations

import itertools
import os
import random
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz import cli_args, seeds
from tests.fuzz.crafted import GOLDEN_APP
from tests.fuzz.harness import Case, run_case
from tests.fuzz.mutate import mutate_bytes, mutate_tree

SCALE = float(os.environ.get("PHONEWORLD_FUZZ_SCALE", "1"))
DERANDOMIZE = os.environ.get("PHONEWORLD_FUZZ_RANDOM", "") != "1"
COUNTS: Counter[str] = Counter()
_ids = itertools.count()


def examples(n: int) -> settings:
    return settings(max_examples=max(1, int(n * SCALE)), deadline=None, database=None,
                    derandomize=DERANDOMIZE,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@pytest.fixture(scope="module")
def base() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="phoneworld_fuzz_"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def check(case: Case, base: Path, kind: str) -> None:
    case.name = f"{kind}_{next(_ids)}"
    outcome = run_case(case, base)
    shutil.rmtree(base / case.name, ignore_errors=True)
    COUNTS[kind] += 1
    assert not outcome.broken, (outcome.broken, outcome.output[-1500:])


@examples(2000)
@given(fmt=st.sampled_from(sorted(seeds.TRACE_SEEDS)), rng=st.randoms(use_true_random=False))
def test_mutated_traces_keep_the_contract(fmt: str, rng: random.Random, base: Path) -> None:
    files = mutate_tree(seeds.TRACE_SEEDS[fmt](), rng)
    check(Case("", dict(files), ["check", "{dir}"]), base, f"trace:{fmt}")


@examples(12)
@given(fmt=st.sampled_from(sorted(seeds.TRACE_SEEDS)), rng=st.randoms(use_true_random=False))
def test_mutated_traces_build_only_into_out(fmt: str, rng: random.Random, base: Path) -> None:
    files = mutate_tree(seeds.TRACE_SEEDS[fmt](), rng, rounds=1)
    check(Case("", dict(files), ["build", "{dir}", "--out", "{out}", "-q"]), base, "build")


@examples(500)
@given(rng=st.randoms(use_true_random=False), rounds=st.integers(1, 3))
def test_mutated_task_specs_keep_the_contract(rng: random.Random, rounds: int,
                                              base: Path) -> None:
    text = seeds.TASK_SPEC
    for _ in range(rounds):
        text = mutate_bytes("spec.yaml", text, rng)
    args = ["tasks", "check", str(GOLDEN_APP), "--specs", "{dir}/spec.yaml", "--only-specs"]
    check(Case("", {"spec.yaml": text}, args), base, "task spec")


@examples(400)
@given(rng=st.randoms(use_true_random=False), rounds=st.integers(1, 3))
def test_mutated_world_specs_keep_the_contract(rng: random.Random, rounds: int, base: Path,
                                               fuzz_apps: Path) -> None:
    text = seeds.WORLD_SPEC.replace(b"{apps}", str(fuzz_apps).encode())
    for _ in range(rounds):
        text = mutate_bytes("world.yaml", text, rng)
    check(Case("", {"world.yaml": text}, ["world", "check", "{dir}/world.yaml"]), base, "world")


@examples(300)
@given(rng=st.randoms(use_true_random=False))
def test_random_command_lines_keep_the_contract(rng: random.Random, base: Path,
                                                fuzz_apps: Path) -> None:
    check(Case("", {}, cli_args.command_line(rng, fuzz_apps)), base, "cli")
