"""The public API in `phoneworld/__init__.py`: lazy names that are the real objects, the error
tree, `__version__` and `phoneworld --version`; `import phoneworld` stays light."""

from __future__ import annotations

import importlib.metadata
import inspect
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import phoneworld
from phoneworld import errors
from phoneworld.cli import app
from tests.conftest import EXAMPLE, REPO

# What `import phoneworld` must not load: the training stack, and the compiler's and runtime's
# own heavy dependencies (they load when a name that needs them is first used).
HEAVY = ("torch", "transformers", "trl", "gymnasium", "numpy", "lxml", "networkx", "jinja2",
         "pydantic", "PIL", "yaml")

# public name -> where it lives
HOMES = {
    "build": "phoneworld.pipeline", "BuildConfig": "phoneworld.pipeline",
    "BuildResult": "phoneworld.pipeline", "PhoneEnv": "phoneworld.runtime.env",
    "load_app": "phoneworld.runtime.appdir", "World": "phoneworld.world.device",
    "world_env": "phoneworld.world.env", "load_world": "phoneworld.world.load",
}


def test_import_phoneworld_loads_no_heavy_module() -> None:
    code = ("import sys, phoneworld; "
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})));"
            "print(' '.join(sorted(m for m in sys.modules if m.startswith('phoneworld'))))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                          timeout=60, check=True)
    top, ours = (line.split() for line in proc.stdout.splitlines())
    assert not set(HEAVY) & set(top), set(HEAVY) & set(top)
    assert ours == ["phoneworld", "phoneworld.errors"]


@pytest.mark.parametrize("name", sorted(HOMES))
def test_a_public_name_is_the_object_of_its_home_module(name: str) -> None:
    home = importlib.import_module(HOMES[name])
    assert getattr(phoneworld, name) is getattr(home, name)


def test_all_and_dir_list_the_public_names_and_each_resolves() -> None:
    assert set(HOMES) <= set(phoneworld.__all__)
    assert dir(phoneworld) == sorted(phoneworld.__all__)
    for name in phoneworld.__all__:
        assert getattr(phoneworld, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'PhoneEnvv'"):
        phoneworld.PhoneEnvv  # noqa: B018


def test_the_error_tree_is_exported_whole() -> None:
    classes = {n for n, c in vars(errors).items()
               if inspect.isclass(c) and issubclass(c, errors.PhoneworldError)}
    assert classes <= set(phoneworld.__all__)
    for name in classes:
        assert getattr(phoneworld, name) is getattr(errors, name)
    assert issubclass(phoneworld.OutputError, phoneworld.UsageError)
    assert issubclass(phoneworld.DeviceError, phoneworld.EnvError)


def test_version_is_the_package_metadata_and_the_cli_prints_it() -> None:
    assert phoneworld.__version__ == importlib.metadata.version("phoneworld")
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"phoneworld {phoneworld.__version__}"


def test_build_and_an_episode_through_the_public_names(tmp_path: Path) -> None:
    result = phoneworld.build(phoneworld.BuildConfig(traces=str(EXAMPLE), out=str(tmp_path),
                                                     html=False, android=False, tasks=False))
    app_dir = result.apps[0].path
    assert app_dir == tmp_path / "com.example.notes"
    assert phoneworld.load_app(app_dir).package == "com.example.notes"
    env = phoneworld.PhoneEnv(app_dir)
    obs, _ = env.reset(seed=0)
    obs, _, terminated, truncated, info = env.step({"type": "back"})
    assert obs["screen"] and not info.get("invalid_action")
    with pytest.raises(phoneworld.UsageError, match="no such file or folder"):
        phoneworld.BuildConfig(traces=tmp_path / "missing")
