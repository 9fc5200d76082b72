"""Mutations of valid inputs, driven by a `random.Random` (hypothesis's `st.randoms()` in the test
suite, so failures shrink; a seeded or coverage-guided one in `bench/fuzz.py`).

Each mutation breaks a seed the way a damaged, careless or hostile input would: bytes flipped or
cut, hostile numbers and names, keys deleted or given another type, nesting and YAML aliases,
and whole files replaced by FIFOs, symlinks leaving the folder or loops, or renamed.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from tests.fuzz.harness import Entry, Fifo, Link

NUMBERS = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "9" * 5000, "-1", "0", "-0",
           "2147483648", "1e-400", "18446744073709551616", "0.5", "1e18", "-99999999"]
STRINGS = ["", ".", "..", "../../outside.xml", "/etc/passwd", "a" * 5000, "\u00b2", "\x00",
           "x\u202ey", "\ud7ff", "{title}", "{{", "${x}", "\"); Runtime.exec(\"", "<b>",
           "\u00e9t\u00e9", "null", "true", "NaN", " ", "\n"]
INSERTS = [b"NaN", b"1e400", b"\x00", b"\xff\xfe\xfd", b"&a [*a]", b"*missing", b"\x07",
           b"<node>", b"]]>", b"<!DOCTYPE x [<!ENTITY e SYSTEM 'file:///etc/passwd'>]>", b"&e;",
           b"!!python/object/apply:os.system ['true']", b"{", b"[", b"\"", b"\\u0000",
           b"- ", b": ", b"\t", b"\r\n", b"%YAML 9.9\n", b"--- ", b"9" * 5000]
BOMB = ("a0: &a0 [x, x, x, x, x, x, x, x, x]\n"
        + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, 9)))
NUMBER_RE = re.compile(rb"-?\d+(?:\.\d+)?")
QUOTED_RE = re.compile(rb'"[^"\\\n]{0,80}"')


def _byte_flips(data: bytes, rng: random.Random) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    out = bytearray(data)
    for _ in range(rng.randint(1, 5)):
        out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[:rng.randrange(len(data) + 1)]


def _insert(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice(INSERTS) + data[at:]


def _number(data: bytes, rng: random.Random) -> bytes:
    spots = list(NUMBER_RE.finditer(data))
    if not spots:
        return _insert(data, rng)
    spot = rng.choice(spots)
    return data[:spot.start()] + rng.choice(NUMBERS).encode() + data[spot.end():]


def _string(data: bytes, rng: random.Random) -> bytes:
    spots = list(QUOTED_RE.finditer(data))
    if not spots:
        return _insert(data, rng)
    spot = rng.choice(spots)
    value = json.dumps(rng.choice(STRINGS)).encode()
    return data[:spot.start()] + value + data[spot.end():]


def _json_values(rng: random.Random) -> Any:
    return rng.choice([None, True, 5, -1, 0.5, 10 ** 30, "x", "", [], {}, [1, 2], {"a": 1},
                       [[[[[[[[[[]]]]]]]]]], "9" * 300, {"type": "click"}])


def _json_edit(data: bytes, rng: random.Random) -> bytes:
    """Delete a key or give a value another type, somewhere in the document."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return _number(data, rng)
    nodes: list[Any] = []

    def walk(item: Any, depth: int) -> None:
        if isinstance(item, (dict, list)) and depth < 12:
            nodes.append(item)
            for v in (item.values() if isinstance(item, dict) else item):
                walk(v, depth + 1)

    walk(doc, 0)
    if not nodes:
        return json.dumps(_json_values(rng)).encode()
    target = rng.choice(nodes)
    if isinstance(target, dict) and target:
        key = rng.choice(sorted(target))
        if rng.random() < 0.4:
            del target[key]
        else:
            target[key] = _json_values(rng)
    elif isinstance(target, list) and target:
        i = rng.randrange(len(target))
        if rng.random() < 0.3:
            del target[i]
        elif rng.random() < 0.5:
            target.insert(i, target[i] if rng.random() < 0.5 else _json_values(rng))
        else:
            target[i] = _json_values(rng)
    return json.dumps(doc).encode()


def _nest(data: bytes, rng: random.Random) -> bytes:
    depth = rng.choice([50, 99, 101, 150, 300, 1200])
    if data.lstrip().startswith(b"<"):
        node = b'<node bounds="[0,0][1,1]">'
        at = data.find(b"</node>")
        if at < 0:
            return data + node * depth
        return data[:at] + node * depth + b"</node>" * depth + data[at:]
    if data.lstrip().startswith((b"{", b"[")):
        return b'{"deep": ' + b"[" * depth + b"]" * depth + b", " + data.lstrip()[1:]
    return data + b"\ndeep: " + b"[" * depth + b"]" * depth + b"\n"


def _yaml_alias(data: bytes, rng: random.Random) -> bytes:
    choice = rng.randrange(3)
    if choice == 0:
        return BOMB.encode() + data
    if choice == 1:
        return data + b"\nloop: &loop [*loop]\n"
    return data + b"\nref: *nosuchanchor\n"


BYTES_MUTATIONS = (_byte_flips, _truncate, _insert, _number, _string, _nest)


def mutate_bytes(name: str, data: bytes, rng: random.Random) -> bytes:
    """One mutation of a file's bytes, chosen with the file's kind in mind."""
    options = list(BYTES_MUTATIONS)
    if name.endswith(".json"):
        options += [_json_edit] * 3
    if name.endswith((".yaml", ".yml")):
        options += [_yaml_alias]
    return rng.choice(options)(data, rng)


def _rename(rel: str, rng: random.Random) -> str:
    folder, _, base = rel.rpartition("/")
    stem, dot, ext = base.rpartition(".")
    new = rng.choice(["99999999", "\u00b2", "-1", "01", "x", "", " 1", "1 "])
    return f"{folder}/{new}{dot}{ext}" if folder else f"{new}{dot}{ext}"


def mutate_tree(files: dict[str, Entry], rng: random.Random, rounds: int | None = None
                ) -> dict[str, Entry]:
    """`rounds` mutations (1-3 when None) of a case's files: mostly contents, sometimes whole
    files (deleted, a FIFO, a symlink out of the folder or a loop, renamed)."""
    out = dict(files)
    for _ in range(rounds if rounds is not None else rng.randint(1, 3)):
        names = sorted(k for k, v in out.items() if isinstance(v, bytes))
        if not names:
            break
        rel = rng.choice(names)
        roll = rng.random()
        if roll < 0.8:
            out[rel] = mutate_bytes(rel, out[rel], rng)  # type: ignore[arg-type]
        elif roll < 0.85:
            del out[rel]
        elif roll < 0.89:
            out[rel] = Fifo()
        elif roll < 0.93:
            out[rel] = Link(rng.choice(["/etc/hostname", "/dev/zero", "../../../outside",
                                        rel.rpartition("/")[2]]))
        else:
            new = _rename(rel, rng)
            if new not in out:
                out[new] = out.pop(rel)
    return out
