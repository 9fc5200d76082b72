"""Line numbers of JSON values, used to point schema errors at the right line."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from phoneworld.ingest.jsonpos import line_of, value_lines

DOC = """{
  "format": "phoneworld-trace/1",
  "device": {"width": 1080,
             "height": 1920},
  "steps": [
    {"screen": "0.xml", "action": {"type": "click", "x": 1, "y": 2}},
    {"screen": "1.xml",
     "action": null}
  ]
}"""


def test_value_lines() -> None:
    lines = value_lines(DOC)
    assert lines[()] == 1
    assert lines[("format",)] == 2
    assert lines[("device", "height")] == 4
    assert lines[("steps", 0, "action", "x")] == 6
    assert lines[("steps", 1, "action")] == 8


def test_line_of_falls_back_to_the_nearest_ancestor() -> None:
    lines = value_lines(DOC)
    assert line_of(lines, ("steps", 1, "action", "text")) == 8
    assert line_of(lines, ("missing",)) == 1


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> set[tuple[Any, ...]]:
    out = {prefix}
    if isinstance(value, dict):
        for key, item in value.items():
            out |= paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out |= paths(item, (*prefix, index))
    return out


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda kids: st.lists(kids, max_size=4)
    | st.dictionaries(st.text(max_size=5), kids, max_size=4),
    max_leaves=20,
)


@given(JSON, st.sampled_from([None, 0, 2]))
def test_every_path_is_found(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    lines = value_lines(text)
    assert set(lines) == paths(value)
    assert all(1 <= line <= text.count("\n") + 1 for line in lines.values())
