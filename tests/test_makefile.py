"""The Makefile's install graph, read with `make -n` (nothing is installed): `make demo` installs
the core only and says so; `make test` after it adds the extras into the same .venv and says
they are about 1.9 GB; once installed, neither installs again."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

OLD = 1_000_000_000  # an mtime older than any stamp


def plan(tmp: Path, target: str, stamps: tuple[str, ...] = ()) -> str:
    """What `make -n TARGET` would run in a copy of the Makefile with these stamps present."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(REPO / name, tmp / name)
    os.utime(tmp / "pyproject.toml", (OLD, OLD))
    (tmp / ".venv" / "bin").mkdir(parents=True, exist_ok=True)
    for stamp in stamps:
        (tmp / ".venv" / stamp).touch()
    proc = subprocess.run(["make", "-n", target, "PYTHON=python3"], cwd=tmp,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


CORE = "pip install --quiet -e .\n"
EXTRAS = 'pip install --quiet -e ".[test,rl,ray]"'


def test_demo_on_a_fresh_clone_installs_the_core_only(tmp_path: Path) -> None:
    out = plan(tmp_path, "demo")
    assert CORE in out and EXTRAS not in out and "about 1.9 GB" not in out
    assert "installing phoneworld and its core dependencies" in out
    steps = [line for line in out.splitlines() if line.startswith("echo \"== ")]
    assert [s.split()[2] for s in steps[1:4]] == ["1/3", "2/3", "3/3"]
    assert "report.html" in out and "task_specs/" in out and "android/" in out and "next:" in out


def test_test_after_demo_adds_the_extras_to_the_same_venv(tmp_path: Path) -> None:
    out = plan(tmp_path, "test", (".installed-core",))
    assert EXTRAS in out and CORE not in out
    assert "about 1.9 GB" in out
    assert out.index("about 1.9 GB") < out.index(EXTRAS)  # said before it starts


def test_nothing_is_installed_twice(tmp_path: Path) -> None:
    for target in ("demo", "test"):
        out = plan(tmp_path, target, (".installed-core", ".installed"))
        assert "pip install" not in out, target
