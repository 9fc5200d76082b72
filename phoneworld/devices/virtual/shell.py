"""The virtual device's `sh`: a real shell (mksh in a sandbox, `virtual.sandbox`), with a fast path
for the command lines harnesses send at every step.

`run_line` runs a line the way `adb shell LINE` does. A line goes to the real shell unless it is
in the small, closed grammar of `fast_plan`, which the device then runs in-process with the result
the real shell would give: Android commands (`commands.ANDROID`) with literal words (no `$`,
backquote, backslash, glob, redirection, `~`, `#`, assignment), joined by `;`, `&&`, `||`, each
optionally piped into one `grep [-E|-F] [-i] [-v] [-q] WORD` whose pattern is letters, digits and
`_ :/,=@%-` (and `|` with `-E`), plus `echo` of plain words and `true`/`false`. That covers
`input tap X Y`, a clear-and-type, the reset broadcast and the capture line (`uiautomator dump
...; dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'; pidof PKG; echo MARK; run-as PKG cat
files/screen.json`), so a step costs no process; tests/devices/test_shell.py checks that both
paths give the same bytes, codes and app state on such lines.

A command that keeps running (`ports.StillRunning`: `logcat`, `getevent`, uiautomator2's
`app_process`) ends a fast line: the exception carries what the line printed before it and its
`grep`, and the server streams it until the host closes the stream. In the real shell its shim
streams it the same way (`sandbox.CallServer`).

Input events of a line are applied when another Android command runs or the line ends (see
`virtual.input`); in the real shell also when 300 ms pass between two `input` commands (Android's
double-tap timeout), since the device process does not see the shell's own commands (`sleep`).
"""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from phoneworld.devices.virtual.ports import StillRunning
from phoneworld.devices.virtual.sandbox import MKSH_BUILTINS
from phoneworld.errors import ToolchainError

if TYPE_CHECKING:
    from phoneworld.devices.virtual.device import ShellResult, VirtualDevice

logger = logging.getLogger(__name__)

_PATTERN = re.compile(r"[A-Za-z0-9_ :/,=@%-]+")
_GREP_FLAGS = {"-E", "-F", "-i", "-v", "-q"}
OP = "\0"  # operators among the words are "\0;", "\0&&", "\0||", "\0|" (no word has a NUL)


@dataclass(frozen=True)
class Grep:
    pattern: str
    flags: frozenset[str]

    def run(self, data: bytes) -> tuple[bytes, int]:
        alts = self.pattern.split("|") if "-E" in self.flags else [self.pattern]
        if "-i" in self.flags:
            alts = [a.lower() for a in alts]
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        hits = []
        for raw in lines:
            text = raw.decode("latin-1")
            text = text.lower() if "-i" in self.flags else text
            if any(a in text for a in alts) != ("-v" in self.flags):
                hits.append(raw + b"\n")
        if "-q" in self.flags:
            return b"", 0 if hits else 1
        return b"".join(hits), 0 if hits else 1


@dataclass(frozen=True)
class Simple:
    argv: tuple[str, ...]
    grep: Grep | None = None


_PIECE = re.compile(r"""([ \t]+)|(&&|\|\||;|\|)|'([^']*)'|"([^"$`\\]*)"|([A-Za-z0-9_@%+=:,./-]+)""")


def fast_words(line: str) -> list[str] | None:
    """Words and operators of `line` if every word is literal (see the module docstring)."""
    if "\0" in line:
        return None
    out: list[str] = []
    word: list[str] | None = None
    pos, n = 0, len(line)
    while pos < n:
        m = _PIECE.match(line, pos)
        if m is None:
            return None
        pos = m.end()
        space, op = m.group(1), m.group(2)
        if space or op:
            if word is not None:
                out.append("".join(word))
                word = None
            if op:
                out.append(OP + op)
            continue
        if word is None:
            word = []
        word.append(next(g for g in m.groups()[2:] if g is not None))
    if word is not None:
        out.append("".join(word))
    return out


@functools.lru_cache(maxsize=4096)
def fast_plan(line: str, android: frozenset[str]) -> tuple[tuple[str, Simple], ...] | None:
    """[(operator before it, command)] when `line` is in the fast grammar, else None (cached:
    harnesses send the same lines at every step)."""
    words = fast_words(line)
    if not words:
        return None
    plan: list[tuple[str, Simple]] = []
    op, cur = "", list[str]()
    groups: list[tuple[str, list[str]]] = []
    for w in words:
        if w in (OP + ";", OP + "&&", OP + "||"):
            if not cur:
                return None
            groups.append((op, cur))
            op, cur = w[1:], []
        else:
            cur.append(w)
    if cur:
        groups.append((op, cur))
    elif op != ";":
        return None
    for op, toks in groups:
        simple = _simple(toks, android)
        if simple is None:
            return None
        plan.append((op, simple))
    return tuple(plan)


def _simple(toks: list[str], android: frozenset[str]) -> Simple | None:
    if OP + "|" in toks:
        at = toks.index(OP + "|")
        cmd, rest = toks[:at], toks[at + 1:]
        grep = _grep(rest)
        if grep is None:
            return None
    else:
        cmd, grep = toks, None
    if not cmd:
        return None
    name = cmd[0]
    if name == "echo":
        if any(a.startswith("-") or "\\" in a for a in cmd[1:]):
            return None
    elif name not in ("true", "false") and (name not in android or name in MKSH_BUILTINS):
        return None
    return Simple(tuple(cmd), grep)


def _grep(toks: list[str]) -> Grep | None:
    if not toks or toks[0] != "grep" or OP + "|" in toks:
        return None
    flags = toks[1:-1]
    pattern = toks[-1] if len(toks) > 1 else ""
    if not set(flags) <= _GREP_FLAGS or {"-E", "-F"} <= set(flags) or not pattern:
        return None
    if not _PATTERN.fullmatch(pattern.replace("|", "") if "-E" in flags else pattern):
        return None
    if "-E" in flags and "" in pattern.split("|"):
        return None
    return Grep(pattern, frozenset(flags))


# ----------------------------------------------------------------------------- running


class Hang(Exception):
    """A command the test made hang."""


def run_fast(dev: VirtualDevice, plan: tuple[tuple[str, Simple], ...]) -> tuple[bytes, int]:
    """Run a fast plan in-process (the caller holds the device lock)."""
    out, code = bytearray(), 0
    for op, cmd in plan:
        if op == "&&" and code != 0 or op == "||" and code == 0:
            continue  # skipped: `$?` stays, the next operator decides again
        name = cmd.argv[0]
        if name == "echo":
            data, code = (" ".join(cmd.argv[1:]) + "\n").encode(), 0
        elif name in ("true", "false"):
            data, code = b"", int(name == "false")
        else:
            if name != "input":
                dev.flush_input()
            if name in dev.faults.hang:
                raise Hang(name)
            try:
                data, code = dev.run_android(name, list(cmd.argv), b"")
            except StillRunning as running:  # the line's later commands wait for it: never run
                raise _piped(bytes(out), running, cmd.grep) from None
        if cmd.grep is not None:
            data, code = cmd.grep.run(data)
        out += data
    return bytes(out), code


def _piped(before: bytes, running: StillRunning, grep: Grep | None) -> StillRunning:
    """`running` as the line prints it: after the output of the commands before it, through its
    `grep` (which filters each new chunk of whole lines)."""
    if grep is None:
        return StillRunning(before + running.output, running.stop, running.more)
    more = running.more
    return StillRunning(before + grep.run(running.output)[0], running.stop,
                        None if more is None else lambda: grep.run(more())[0])


def run_line(dev: VirtualDevice, line: str) -> ShellResult:
    """Run a command line (fast path or real shell); output is stdout and stderr together."""
    from phoneworld.devices.virtual.device import ShellResult

    result = dev.fast_shell(line)
    if result is not None:
        return result
    try:
        box = dev.sandbox()
    except ToolchainError as exc:
        logger.error("virtual device %s: %s", dev.serial, exc)
        return ShellResult(f"/system/bin/sh: {exc}\n".encode(), 127)
    out, code = box.run(line)
    with dev.lock:
        dev.flush_input()
    return ShellResult(out, code, delay=dev.faults.delay)
