"""Line numbers of the values in a JSON document, by path (ingest pass, for diagnostics).

`json` reports positions only for syntax errors; schema errors (a missing `device`, a bad action)
need the line of the value they are about. `value_lines` scans an already valid document once and
maps every path, e.g. `("steps", 3, "action", "x")`, to the 1-based line where its value starts.
"""

from __future__ import annotations

import json
import re

Path = tuple[str | int, ...]

_WS = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_decode_string = json.decoder.scanstring  # type: ignore[attr-defined]


def value_lines(text: str) -> dict[Path, int]:
    """Every path of the valid JSON `text`, mapped to the line its value starts on."""
    out: dict[Path, int] = {}
    _Scanner(text, out).value(_skip(text, 0), ())
    return out


def line_of(lines: dict[Path, int], path: Path) -> int | None:
    """The line of `path`, or of its nearest ancestor present in the map."""
    for cut in range(len(path), -1, -1):
        if path[:cut] in lines:
            return lines[path[:cut]]
    return None


def _skip(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos


class _Scanner:
    def __init__(self, text: str, out: dict[Path, int]) -> None:
        self.text = text
        self.out = out

    def line(self, pos: int) -> int:
        return self.text.count("\n", 0, pos) + 1

    def value(self, pos: int, path: Path) -> int:
        """Record `path` at `pos` and return the position after the value."""
        self.out[path] = self.line(pos)
        char = self.text[pos]
        if char == "{":
            return self.members(pos + 1, path)
        if char == "[":
            return self.items(pos + 1, path)
        if char == '"':
            return int(_decode_string(self.text, pos + 1)[1])
        match = _SCALAR.match(self.text, pos)
        if match is None:
            raise ValueError(f"not valid JSON at offset {pos}")
        return match.end()

    def members(self, pos: int, path: Path) -> int:
        pos = _skip(self.text, pos)
        if self.text[pos] == "}":
            return pos + 1
        while True:
            key, pos = _decode_string(self.text, pos + 1)
            pos = _skip(self.text, pos)
            pos = _skip(self.text, pos + 1)  # past ':'
            pos = _skip(self.text, self.value(pos, (*path, key)))
            if self.text[pos] == "}":
                return pos + 1
            pos = _skip(self.text, pos + 1)  # past ','

    def items(self, pos: int, path: Path) -> int:
        pos = _skip(self.text, pos)
        if self.text[pos] == "]":
            return pos + 1
        index = 0
        while True:
            pos = _skip(self.text, self.value(pos, (*path, index)))
            index += 1
            if self.text[pos] == "]":
                return pos + 1
            pos = _skip(self.text, pos + 1)
