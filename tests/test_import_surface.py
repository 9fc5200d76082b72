"""Packages use only public names of each other (STYLE.md, "At the joins").

- No module of `world/`, `report/` or `rl/` imports an underscore name from another phoneworld
  package, or reaches one through a module it imported (`from phoneworld.tasks import load as l`
  then `l._message`).
- `phoneworld.rl` (the training side, which the design puts on top of everything) imports other
  packages only through their public surface: `phoneworld` itself, a package's `__init__` or a
  top-level module, and only names listed in that module's `__all__` where it has one.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import pytest

import phoneworld

PACKAGE = Path(phoneworld.__file__).parent
CHECKED = ("world", "report", "rl")


@dataclass(frozen=True)
class Use:
    file: str
    line: int
    module: str  # the phoneworld module imported from
    name: str  # the name taken from it (or reached through it)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.module} -> {self.name}"


def _package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _uses(text: str, rel: str, own: str) -> list[Use]:
    """Every name the module `rel` (in package `own`, source `text`) takes from another phoneworld
    package."""
    tree = ast.parse(text, rel)
    uses: list[Use] = []
    aliases: dict[str, str] = {}  # local name -> the phoneworld module it is
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] == "phoneworld" and _package_of(node.module) != own:
            for a in node.names:
                uses.append(Use(rel, node.lineno, node.module, a.name))
                aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("phoneworld.") and _package_of(a.name) != own:
                    module, _, name = a.name.rpartition(".")
                    uses.append(Use(rel, node.lineno, module, name))
                    if a.asname:
                        aliases[a.asname] = a.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in aliases:
            uses.append(Use(rel, node.lineno, aliases[node.value.id], node.attr))
    return uses


def _file_uses(file: Path, own: str) -> list[Use]:
    return _uses(file.read_text(encoding="utf-8"), file.relative_to(PACKAGE.parent).as_posix(), own)


def _files(package: str) -> list[Path]:
    return sorted((PACKAGE / package).rglob("*.py"))


def _private(use: Use) -> bool:
    parts = [*use.module.split("."), use.name]
    return any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in parts)


@pytest.mark.parametrize("package", CHECKED)
def test_no_underscore_name_of_another_package_is_used(package: str) -> None:
    bad = [str(u) for f in _files(package) for u in _file_uses(f, package) if _private(u)]
    assert not bad, "private names of other packages (give them a public name at home):\n" + \
        "\n".join(bad)


def _public_surface(module: str, name: str) -> bool:
    if len(module.split(".")) > 2:
        return False  # a module or subpackage inside a package: the package is the surface
    mod = importlib.import_module(module)
    exported = getattr(mod, "__all__", None)
    if exported is None:
        return not name.startswith("_")
    # a submodule taken from a package (`from phoneworld import errors`) is public as a module
    return name in exported or importlib.util.find_spec(f"{module}.{name}") is not None


def test_rl_uses_only_the_public_surface_of_other_packages() -> None:
    bad = [str(u) for f in _files("rl") for u in _file_uses(f, "rl")
           if not _public_surface(u.module, u.name)]
    assert not bad, ("phoneworld.rl reaches past the public API (import from `phoneworld`, or "
                     "export the name from its package's __init__):\n" + "\n".join(bad))


def test_the_checker_sees_a_private_name_and_a_deep_path() -> None:
    text = ("from phoneworld.tasks.load import _message, line_of\n"
            "from phoneworld.tasks import load as tl\n"
            "from phoneworld.world import device\n"  # its own package: not counted
            "x = tl._near\n")
    uses = _uses(text, "phoneworld/world/probe.py", "world")
    assert [u.name for u in uses if _private(u)] == ["_message", "_near"]
    assert {u.name for u in uses} == {"_message", "line_of", "load", "_near"}
    assert not _public_surface("phoneworld.runtime.env", "PhoneEnv")
    assert not _public_surface("phoneworld.devices.virtual", "VirtualDevice")
    assert _public_surface("phoneworld.runtime", "PhoneEnv")
    assert _public_surface("phoneworld", "errors")
    assert not _public_surface("phoneworld.runtime", "episode_records")
