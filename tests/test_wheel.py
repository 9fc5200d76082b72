"""The distribution: the wheel built from the package, installed in a fresh venv, builds the
example and runs episodes with no source tree in reach; it holds the whole package (templates
included) and nothing else (no top-level `rl`).

Honest and fast: the wheel is built offline by the setuptools of the test environment
(`pip wheel --no-build-isolation --no-index`), and the fresh venv borrows that environment's
installed dependencies through a `.pth` line instead of downloading them (`--no-deps`). What is
under test is the wheel's own code, data and entry point: `phoneworld` is imported from the
venv's site-packages (asserted), run from a folder outside the repo with no PYTHONPATH.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE, REPO

APP = "com.example.notes"
TIMEOUT = 300


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    work: Path  # the cwd of every command: outside the repo

    @property
    def bin(self) -> Path:
        return self.venv / "bin"

    def run(self, *cmd: str | Path) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"
        proc = subprocess.run([str(c) for c in cmd], cwd=self.work, env=env, capture_output=True,
                              text=True, timeout=TIMEOUT)
        assert proc.returncode == 0, f"{cmd} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
        return proc


def _pip(*args: str | Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "-q",
                    *map(str, args)], check=True, timeout=TIMEOUT, capture_output=True)


def _build_wheel(dest: Path) -> Path:
    """The wheel of a copy of the package sources (so no build/ or egg-info lands in the repo)."""
    src = dest / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    shutil.copytree(REPO / "phoneworld", src / "phoneworld",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _pip("wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", dest / "dist", src)
    (wheel,) = (dest / "dist").glob("phoneworld-*.whl")
    return wheel


def _fresh_venv(venv: Path, wheel: Path) -> None:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=TIMEOUT)
    _pip("--python", venv / "bin" / "python", "install", "--no-deps", "--no-index", wheel)
    # The dependencies: this environment's site-packages, after the venv's own (so the wheel's
    # phoneworld comes first). Lines of a .pth are only appended to sys.path: the .pth files of
    # those folders (an editable install's finder among them) are not run.
    purelib = subprocess.run(
        [venv / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True).stdout.strip()
    borrowed = dict.fromkeys([*site.getsitepackages(), sysconfig.get_path("purelib"),
                              sysconfig.get_path("platlib")])
    Path(purelib, "zz_test_environment.pth").write_text("\n".join(borrowed) + "\n")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("wheel")
    wheel = _build_wheel(root)
    _fresh_venv(root / "venv", wheel)
    work = root / "work"
    work.mkdir()
    return Installed(wheel, root / "venv", work)


def test_the_wheel_holds_the_package_and_nothing_else(installed: Installed) -> None:
    names = zipfile.ZipFile(installed.wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"phoneworld", installed.wheel.name.split("-py")[0] + ".dist-info"}
    source = {p.relative_to(REPO).as_posix() for p in (REPO / "phoneworld").rglob("*")
              if p.is_file() and "__pycache__" not in p.parts}
    missing = sorted(source - set(names))
    assert not missing, f"files of the package the wheel leaves out: {missing[:20]}"
    assert "phoneworld/templates/verifiers/verifier.py.j2" in names
    assert "phoneworld/rl/grpo_trainer.py" in names


def test_pip_show_lists_no_top_level_rl(installed: Installed) -> None:
    shown = installed.run(sys.executable, "-m", "pip", "--python", installed.bin / "python",
                          "show", "-f", "phoneworld").stdout
    files = [line.strip() for line in shown.split("Files:", 1)[1].splitlines() if line.strip()]
    assert f"Location: {installed.venv}" in shown
    assert "phoneworld/templates/kotlin/app/build.gradle.j2" in files
    assert not [f for f in files if f.split("/")[0] == "rl"]


@pytest.fixture(scope="module")
def app_dir(installed: Installed) -> Path:
    """The example, built by the installed `phoneworld build`."""
    out = installed.work / "apps"
    installed.run("phoneworld", "build", EXAMPLE, "--out", out)
    return out / APP


def test_the_installed_cli_builds_the_example_and_runs_episodes(installed: Installed,
                                                                app_dir: Path) -> None:
    version = installed.run("phoneworld", "--version").stdout.strip()
    assert version == "phoneworld " + installed.wheel.name.split("-")[1]
    for part in ("app.json", "report.html", "verifiers/__init__.py", "android/settings.gradle"):
        assert (app_dir / part).is_file(), part
    random_run = installed.run("phoneworld", "run", app_dir, "--steps", "5", "--seed", "1").stdout
    assert random_run.count("step ") == 6  # the reset, then 5 steps
    kept = [t["id"] for t in json.loads((app_dir / "tasks.json").read_text())["tasks"]
            if t["kept"]]
    oracle = installed.run("phoneworld", "run", app_dir, "--policy", "oracle", "--task",
                           kept[0]).stdout
    assert "success: True" in oracle


PROBE = """
import importlib.util, json, sys
import phoneworld

env = phoneworld.PhoneEnv(sys.argv[1])
obs, info = env.reset(seed=0)
for _ in range(3):
    obs, reward, terminated, truncated, info = env.step({"type": "back"})
print(json.dumps({"phoneworld": phoneworld.__file__, "screen": obs["screen"],
                  "version": phoneworld.__version__, "no_rl": importlib.util.find_spec("rl") is None,
                  "heavy": sorted(m for m in ("torch", "transformers", "trl") if m in sys.modules)}))
"""


def test_the_installed_package_runs_an_env_from_python(installed: Installed,
                                                       app_dir: Path) -> None:
    got = json.loads(installed.run(installed.bin / "python", "-c", PROBE, app_dir).stdout)
    assert Path(got["phoneworld"]).is_relative_to(installed.venv), got["phoneworld"]
    assert got["screen"] and got["no_rl"] and got["heavy"] == []
    assert got["version"] == installed.wheel.name.split("-")[1]
