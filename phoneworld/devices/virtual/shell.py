"""The virtual device's `sh`: enough of a POSIX shell for what adb clients send.

Supported: quoting (POSIX: '...', "...", backslash), lists with `;`, `&&`, `||`, pipes into
`grep`, `head`, `tail` and `cat`, output redirection (`> file`, `>> file`, `2>&1`,
`> /dev/null`), `$?`, and the builtins `echo`, `cat`, `rm`, `ls`, `mkdir`, `touch`, `sleep`,
`true`, `false`, `exit`, `id`. Android commands (`am`, `pm`, `input`, `uiautomator`,
`screencap`, ...) live in `virtual.commands`. Input events are applied when a command other than
`input` runs or the line ends (see `virtual.input`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from phoneworld.devices.virtual.device import DIRS, ShellResult, norm_path

if TYPE_CHECKING:
    from phoneworld.devices.virtual.device import VirtualDevice

logger = logging.getLogger(__name__)

Out = tuple[bytes, int]
Command = Callable[["VirtualDevice", list[str], bytes], Out]
_OPS = {";", "&&", "||", "&"}
_REDIRECTS = {">", ">>", ">&", "<", "&>"}
MAX_SLEEP = 30.0


class _Hang(Exception):
    """A command the test made hang."""


_STATUS = "\x00?"  # `$?` outside single quotes, expanded when its command runs
_TOKEN = re.compile(r"""\s*(?:(&&|\|\||>>|>&|&>|[;&|<>])|((?:[^\s'"\\;&|<>]+|'[^']*'|"(?:[^"\\]|\\.)*"|\\.)+))""",
                    re.DOTALL)
_PART = re.compile(r"""'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)|([^'"\\]+)""", re.DOTALL)
_DQ_ESCAPE = re.compile(r'\\([\\"$`])|\$\?')


def _unquote(word: str) -> str:
    parts: list[str] = []
    for single, double, escaped, bare in _PART.findall(word):
        if bare:
            parts.append(bare.replace("$?", _STATUS))
        elif double:
            parts.append(_DQ_ESCAPE.sub(lambda m: m.group(1) or _STATUS, double))
        else:
            parts.append(escaped or single)
    return "".join(parts)


def tokens(line: str) -> list[str]:
    """POSIX sh words and operators (quotes removed, `$?` marked); a regex, not shlex, because
    the backend's lines (a reset's JSON, a clear-and-type) are long and shlex reads by char."""
    out: list[str] = []
    line, pos = line.rstrip(), 0
    while pos < len(line):
        m = _TOKEN.match(line, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"unbalanced quotes near {line[pos:pos + 20]!r}")
        pos = m.end()
        out.append(m.group(1) if m.group(1) else _unquote(m.group(2)))
    return out


def run_line(dev: VirtualDevice, line: str) -> ShellResult:
    """Run a command line; output is stdout and stderr together, the code is the last status."""
    try:
        toks = tokens(line)
    except ValueError as exc:
        return ShellResult(f"/system/bin/sh: syntax error: {exc}\n".encode(), 2)
    out, code, delay = bytearray(), 0, 0.0
    skip = False
    try:
        for op, pipeline in _split_list(toks):
            if skip:
                skip = False
            elif pipeline:
                chunk, code, d = _pipeline(dev, pipeline, code)
                out += chunk
                delay += d
            if op == "&&" and code != 0 or op == "||" and code == 0:
                skip = True
        dev.flush_input()
    except _Hang:
        dev.flush_input()
        return ShellResult(bytes(out), 0, hang=True, delay=delay)
    return ShellResult(bytes(out), code, delay=delay)


def _split_list(toks: list[str]) -> list[tuple[str, list[str]]]:
    """[(operator after it, tokens of a pipeline)]."""
    out: list[tuple[str, list[str]]] = []
    cur: list[str] = []
    for t in toks:
        if t in _OPS:
            out.append((t, cur))
            cur = []
        else:
            cur.append(t)
    out.append(("", cur))
    return out


def _pipeline(dev: VirtualDevice, toks: list[str], last: int) -> tuple[bytes, int, float]:
    stages: list[list[str]] = [[]]
    for t in toks:
        if t == "|":
            stages.append([])
        else:
            stages[-1].append(t.replace(_STATUS, str(last)))
    data, code, delay = b"", 0, 0.0
    for stage in stages:
        args, target, append = _redirects(stage)
        if not args:
            continue
        name = args[0]
        if name != "input":
            dev.flush_input()
        if name in dev.faults.hang:
            raise _Hang(name)
        if name == "sleep":
            delay += _sleep(args)
            data, code = b"", 0
            continue
        data, code = _command(name)(dev, args, data)
        if target is not None:
            _write(dev, target, data, append)
            data = b""
    return data, code, delay


def _redirects(stage: list[str]) -> tuple[list[str], str | None, bool]:
    args: list[str] = []
    target: str | None = None
    append = False
    i = 0
    while i < len(stage):
        t = stage[i]
        if t in _REDIRECTS:
            if args and args[-1].isdigit() and len(args[-1]) == 1:
                args.pop()  # the "2" of "2>&1"
            dest = stage[i + 1] if i + 1 < len(stage) else ""
            if t in (">", ">>", "&>") and not dest.isdigit():
                target, append = dest, t == ">>"
            i += 2
            continue
        args.append(t)
        i += 1
    return args, target, append


def _write(dev: VirtualDevice, target: str, data: bytes, append: bool) -> None:
    if target in ("/dev/null", ""):
        return
    path = norm_path(target)
    dev.files[path] = (dev.files.get(path, b"") if append else b"") + data


def _sleep(args: list[str]) -> float:
    try:
        return min(MAX_SLEEP, max(0.0, float(args[1]))) if len(args) > 1 else 0.0
    except ValueError:
        return 0.0


def _command(name: str) -> Command:
    from phoneworld.devices.virtual.commands import ANDROID

    cmd = BUILTINS.get(name) or ANDROID.get(name)
    if cmd is None:
        return lambda dev, args, data: (f"/system/bin/sh: {name}: inaccessible or not found\n"
                                        .encode(), 127)
    return cmd


# ----------------------------------------------------------------------------- builtins


def _echo(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    rest = args[1:]
    newline = True
    if rest and rest[0] == "-n":
        rest, newline = rest[1:], False
    return (" ".join(rest) + ("\n" if newline else "")).encode(), 0


def _cat(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    if len(args) == 1:
        return data, 0
    out = bytearray()
    for p in args[1:]:
        path = norm_path(p)
        if path not in dev.files:
            return bytes(out) + f"cat: {p}: No such file or directory\n".encode(), 1
        out += dev.files[path]
    return bytes(out), 0


def _rm(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    force = any(a.startswith("-") and "f" in a for a in args[1:])
    for p in (a for a in args[1:] if not a.startswith("-")):
        if dev.files.pop(norm_path(p), None) is None and not force:
            return f"rm: {p}: No such file or directory\n".encode(), 1
    return b"", 0


def _ls(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    paths = [norm_path(a) for a in args[1:] if not a.startswith("-")] or ["/sdcard"]
    out = []
    for p in paths:
        if p in dev.files:
            out.append(p)
        elif p in DIRS:
            out += sorted(f.rsplit("/", 1)[1] for f in dev.files if f.rsplit("/", 1)[0] == p)
        else:
            return f"ls: {p}: No such file or directory\n".encode(), 1
    return "".join(o + "\n" for o in out).encode(), 0


def _grep(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    flags = "".join(a[1:] for a in args[1:] if a.startswith("-") and len(a) > 1)
    words = [a for a in args[1:] if not a.startswith("-")]
    if not words:
        return b"usage: grep PATTERN\n", 2
    pattern = words[0] if "E" in flags else re.escape(words[0]).replace(r"\|", "|")
    rx = re.compile(pattern, re.IGNORECASE if "i" in flags else 0)
    lines = data.decode(errors="replace").splitlines()
    hits = [ln for ln in lines if bool(rx.search(ln)) != ("v" in flags)]
    if "q" in flags:
        return b"", 0 if hits else 1
    return "".join(h + "\n" for h in hits).encode(), 0 if hits else 1


def _head_tail(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    n = 10
    for i, a in enumerate(args[1:], 1):
        if a == "-n" and i + 1 < len(args) and args[i + 1].isdigit():
            n = int(args[i + 1])
        elif a.startswith("-") and a[1:].isdigit():
            n = int(a[1:])
    lines = data.splitlines(keepends=True)
    return b"".join(lines[:n] if args[0] == "head" else lines[-n:] if n else []), 0


def _status(code: int) -> Command:
    return lambda dev, args, data: (b"", code)


def _exit(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    return b"", int(args[1]) if len(args) > 1 and args[1].isdigit() else 0


def _touch(dev: VirtualDevice, args: list[str], data: bytes) -> Out:
    for p in args[1:]:
        dev.files.setdefault(norm_path(p), b"")
    return b"", 0


BUILTINS: dict[str, Command] = {
    "echo": _echo, "cat": _cat, "rm": _rm, "ls": _ls, "grep": _grep, "head": _head_tail,
    "tail": _head_tail, "true": _status(0), "false": _status(1), "exit": _exit,
    "mkdir": _status(0), "touch": _touch, "sync": _status(0),
    "id": lambda dev, args, data: (b"uid=2000(shell) gid=2000(shell)\n", 0),
    "whoami": lambda dev, args, data: (b"shell\n", 0),
}
