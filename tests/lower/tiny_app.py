"""A tiny notes app recorded in two episodes (add a note; open one and rename it), for the lower
tests: its spec has a list, a selection, an entry variable, a guard and pop navigation.

`python -m tests.lower.tiny_app` prints the lowered spec's JSON (the byte-stability test runs it
under other hash seeds).
"""

from __future__ import annotations

from phoneworld.ir.trace import Observation, TraceSet
from tests.compiler_support import (
    BUTTON, EDIT, TEXT, W, b, compile_app, episode, on_row, row_list, screen, tap, traces, type_,
    view,
)

HEADER = view(TEXT, b(0, 0, W, 150), id="header", text="Notes")
ADD = view(BUTTON, b(740, 1620, 1040, 1740), id="add", text="Add", clickable=True)
SAVE = view(BUTTON, b(40, 400, 520, 520), id="save", text="Save", clickable=True)


def home(*titles: str, checked: tuple[bool, ...] = ()) -> Observation:
    return screen(HEADER, row_list(*titles, checked=checked, list_id="notes"), ADD)


def editor(title: str = "") -> Observation:
    return screen(view(EDIT, b(40, 200, 1040, 320), id="title_input", text=title), SAVE,
                  activity=".EditorActivity")


def notes_traces() -> TraceSet:
    return traces(
        episode("add", home("a", "b", checked=(False, True)), tap(ADD), editor(), type_("c"),
                editor("c"), tap(SAVE), home("a", "b", "c", checked=(False, True, False))),
        episode("rename", home("a", "b", checked=(False, True)), on_row(0), editor("a"),
                type_("z"), editor("z"), tap(SAVE), home("z", "b", checked=(False, True))),
    )


def spec_json() -> str:
    return compile_app(notes_traces()).spec.model_dump_json(indent=1)


if __name__ == "__main__":
    print(spec_json(), end="")
