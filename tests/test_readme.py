"""Every command the README shows runs as written on a fresh clone.

The README's fenced blocks say what they are in their info string: `sh` and `python` blocks are
run, in README order, in a copy of the repo's files (what a clone has: `git ls-files`), with
`phoneworld` and `python` on PATH meaning this interpreter and the copy's code; `text`, `yaml`
and `json` blocks are shown, not run; `sh NEED` / `python NEED` blocks need something a test
machine does not have (SKIPPED says what) and are listed, not run. A line ending in `# exit N`
must exit N, any other 0. The exit-code table's examples are run too and must give their code.
The `make` targets themselves are not run here: they install into .venv (minutes, network), and
`make demo` runs the same `phoneworld` commands as the blocks below."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO

README = REPO / "README.md"
DOCS = ("README.md", "docs/authoring-tasks.md")  # run in this order, in one clone
SKIPPED = {
    "device": "needs a phone or an emulator over adb (or `device serve`, which runs until Ctrl-C)",
    "gpu": "needs a GPU (the CPU version is `examples/rl/quickstart.sh`)",
    "real-data": "needs the real recordings in ../shared/data/real, which the repo does not ship",
    "slow": "takes minutes (measured by hand: see the README)",
    "make": "installs .venv (network, minutes); `make demo` runs the commands tested here",
    "install": "installs into the current environment; tests/test_wheel.py builds the wheel and "
               "installs it in a fresh venv",
}
RUN = {"sh", "python"}
SHOWN = {"text", "yaml", "json"}
EXIT = re.compile(r"#\s*exit\s+(\d+)\s*$")


@dataclass(frozen=True)
class Block:
    line: int
    lang: str
    need: str | None
    body: str


def blocks(text: str) -> list[Block]:
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if lines[i].startswith("```"):
            info = lines[i][3:].split()
            start, i = i, i + 1
            while not lines[i].startswith("```"):
                i += 1
            out.append(Block(start + 1, info[0] if info else "", info[1] if len(info) > 1
                             else None, "\n".join(lines[start + 1:i])))
        i += 1
    return out


def commands(body: str) -> list[tuple[str, int]]:
    """(command, expected exit code) per shell line, continuations joined."""
    out, pending = [], ""
    for raw in body.splitlines():
        line = pending + raw
        if line.rstrip().endswith("\\"):
            pending = line.rstrip()[:-1] + " "
            continue
        pending = ""
        if line.strip() and not line.lstrip().startswith("#"):
            m = EXIT.search(line)
            out.append((line.strip(), int(m.group(1)) if m else 0))
    return out


def exit_table(text: str) -> list[tuple[str, int]]:
    """(example command, code) of the rows of the README's exit-code table that have one."""
    section = text.split("### Exit codes", 1)[1].split("\n#", 1)[0]
    rows = []
    for m in re.finditer(r"^\| (\d) \|.*\| `([^`]+)` \|$", section, re.M):
        rows.append((m.group(2), int(m.group(1))))
    return rows


def fresh_clone(dest: Path) -> Path:
    """The files a clone has, copied to dest (every tracked and untracked-but-not-ignored file)."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                            capture_output=True, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: cannot tell which files a clone has")
    for name in filter(None, listed.stdout.decode().split("\0")):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def shims(bin_dir: Path) -> None:
    bin_dir.mkdir()
    for name, args in (("phoneworld", '-m phoneworld.cli "$@"'), ("python", '"$@"')):
        path = bin_dir / name
        path.write_text(f'#!/bin/sh\nexec "{sys.executable}" {args}\n')
        path.chmod(0o755)


@pytest.mark.parametrize("doc", DOCS)
def test_every_block_says_what_it_is(doc: str) -> None:
    found = blocks((REPO / doc).read_text())
    assert found
    bad = [(b.line, b.lang, b.need) for b in found
           if b.lang not in RUN | SHOWN or (b.need is not None and (b.lang in SHOWN or
                                                                    b.need not in SKIPPED))]
    assert bad == [], f"README blocks with an unknown info string (line, lang, need): {bad}"
    assert doc != "README.md" or exit_table(README.read_text()), "no exit-code examples"


def test_the_readme_commands_run_on_a_fresh_clone(tmp_path: Path) -> None:
    repo = fresh_clone(tmp_path / "clone")
    shims(tmp_path / "bin")
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(repo), "HF_HUB_OFFLINE": "1", "COLUMNS": "200"}
    ran: list[str] = []
    skipped: list[str] = []
    for doc in DOCS:
        run_blocks(repo, doc, env, ran, skipped)
    for cmd, code in exit_table((repo / "README.md").read_text()):
        proc = subprocess.run(["bash", "-c", cmd], cwd=repo, env=env, capture_output=True,
                              text=True, timeout=300, stdin=subprocess.DEVNULL)
        assert proc.returncode == code, f"exit-code table: `{cmd}` exited {proc.returncode}, " \
            f"not {code}\n{proc.stderr[-3000:]}"
        ran.append(cmd)
    print(f"ran {len(ran)} commands; not run:", *skipped, sep="\n  ")
    assert len(ran) >= 15


def run_blocks(repo: Path, doc: str, env: dict[str, str], ran: list[str],
               skipped: list[str]) -> None:
    """Run the runnable blocks of `doc` in order; each command must exit as it says."""
    for block in blocks((repo / doc).read_text()):
        if block.lang not in RUN:
            continue
        if block.need is not None:
            skipped.append(f"{doc}:{block.line}: {SKIPPED[block.need]}")
            continue
        if block.lang == "python":
            todo = [([sys.executable, "-c", block.body], 0, f"python block at line {block.line}")]
        else:
            todo = [(["bash", "-c", cmd], code, cmd) for cmd, code in commands(block.body)]
        for argv, code, shown in todo:
            proc = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True,
                                  timeout=300, stdin=subprocess.DEVNULL)
            assert proc.returncode == code, (f"{doc}:{block.line}: `{shown}` exited "
                                             f"{proc.returncode}, not {code}\n{proc.stderr[-3000:]}")
            assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
            ran.append(shown)
