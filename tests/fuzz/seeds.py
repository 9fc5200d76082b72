"""Small valid inputs of every kind phoneworld reads, as {relative path: bytes}: the seeds that the
fuzz suite mutates and the crafted cases break one way each.

Trace formats: native (the notes episode of tests/fixtures/traces_ok), DroidBot, AutoDroid,
LlamaTouch and plain uiautomator dumps; a task spec for the notes app; a world spec over the two
bundled apps (`{apps}` in it stands for the folder that holds them, built once per session).
"""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NATIVE_EP = REPO / "tests" / "fixtures" / "traces_ok" / "com.example.notes" / "ep_0001"
APP = "com.example.app"


def dump(*nodes: str, package: str = APP, bounds: str = "[0,0][1080,1920]") -> bytes:
    """A uiautomator dump: one root FrameLayout holding `nodes` (raw <node .../> strings)."""
    inner = "".join(nodes)
    return (f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<hierarchy rotation=\"0\">"
            f"<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" "
            f"package=\"{package}\" content-desc=\"\" clickable=\"false\" enabled=\"true\" "
            f"bounds=\"{bounds}\">{inner}</node></hierarchy>\n").encode()


def button(text: str, bounds: str = "[40,250][1040,400]", rid: str = "ok") -> str:
    return (f'<node index="0" text="{text}" resource-id="{APP}:id/{rid}" '
            f'class="android.widget.Button" package="{APP}" content-desc="" clickable="true" '
            f'enabled="true" bounds="{bounds}" />')


def png(width: int, height: int) -> bytes:
    """A PNG whose header says width x height (one row of pixel data: headers are what is read)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(b"\x00" * (1 + 3 * min(width, 64)))) + chunk(b"IEND", b""))


def native() -> dict[str, bytes]:
    return {f"ep/{p.name}": p.read_bytes() for p in sorted(NATIVE_EP.iterdir())}


def uiautomator() -> dict[str, bytes]:
    return {"dumps/home.xml": dump(button("Settings")), "dumps/home.png": png(1080, 1920)}


def _view(i: int, parent: int, children: list[int], bounds: list[list[int]],
          cls: str = "android.widget.FrameLayout", text: str | None = None) -> dict[str, object]:
    return {"temp_id": i, "parent": parent, "children": children, "bounds": bounds, "class": cls,
            "visible": True, "focused": False, "package": APP, "text": text, "resource_id": None,
            "content_description": None, "clickable": cls.endswith("Button"), "enabled": True}


def droidbot() -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for k, name in enumerate(("s0", "s1")):
        views = [_view(0, -1, [1], [[0, 0], [1080, 1920]]),
                 _view(1, 0, [], [[40, 250], [1040, 400]], "android.widget.Button", name)]
        state = {"tag": f"t{k}", "state_str": name, "foreground_activity": f"{APP}/.Main",
                 "views": views}
        out[f"run/states/state_t{k}.json"] = json.dumps(state, indent=1).encode()
    event = {"tag": "1", "start_state": "s0", "stop_state": "s1",
             "event": {"event_type": "touch", "x": None, "y": None,
                       "view": _view(1, 0, [], [[40, 250], [1040, 400]])}}
    out["run/events/event_1.json"] = json.dumps(event, indent=1).encode()
    return out


def kea() -> dict[str, bytes]:
    """The DroidBot seed as Kea writes it: states in all_states/, numbered, tags from 0, and a
    rotation that has no event_type."""
    out: dict[str, bytes] = {}
    for path, data in droidbot().items():
        if "/states/" in path:
            state = json.loads(data)
            k = int(state["tag"][1:])
            state["tag"] = k
            out[f"run/all_states/state_{k + 1}.json"] = json.dumps(state, indent=2).encode()
        else:
            out[path] = data
    rotate = {"tag": "2", "start_state": "s1", "stop_state": "s0", "event": {"event_type": None},
              "event_str": "RotateDeviceToLandscapeEvent()"}
    out["run/events/event_2.json"] = json.dumps(rotate, indent=2).encode()
    return out


def autodroid() -> dict[str, bytes]:
    form = ("<button id=0 text='Add'></button><input id=1 >Title</input>"
            "<button id=2>go back</button>")
    utg = (
        "records:\n"
        f"- State: \"{form}\"\n  Choice: 0\n  Input: 'null'\n  state_str: a\n  new_state_str: b\n"
        f"- State: \"{form}\"\n  Choice: 1\n  Input: milk\n  state_str: b\n  new_state_str: c\n"
        f"- State: \"{form}\"\n  Choice: -1\n  Input: 'null'\n  state_str: c\n  new_state_str: d\n"
        "step_num: 3\n")
    return {"Notes/utg.yaml": utg.encode(), "Notes/package.txt": b"com.example.autonotes\n"}


def llamatouch() -> dict[str, bytes]:
    out = {
        "trace_1/eventStructs.txt": (b"[Click] Screen Resolution (1080, 1920), Click Position "
                                     b"(500, 300)\n[Back]\n"),
        "trace_1/instruction.txt": b"1\nOpen the settings\n",
    }
    for i in range(3):
        out[f"trace_1/{i}.xml"] = dump(button(f"Screen {i}"))
        out[f"trace_1/{i}.activity"] = f"{APP}/.Main".encode()
    out["trace_1/0.png"] = png(1080, 1920)
    return out


TRACE_SEEDS = {"native": native, "uiautomator": uiautomator, "droidbot": droidbot, "kea": kea,
               "autodroid": autodroid, "llamatouch": llamatouch}

TASK_SPEC = b"""\
format: phoneworld-task/1
id: fuzz_add_note
app: com.example.notes
category: single_app
instruction: Add a note titled "{title}"
params:
  title: {type: text, from: phrase}
rule:
  all_of:
    - exists:
        collection: note_list_items
        where: {note_title: {param: title}}
    - count: {collection: note_list_items, equals: 4}
"""

WORLD_SPEC = b"""\
format: phoneworld-world/1
name: fuzzworld
apps:
  - dir: {apps}/com.example.notes
  - dir: {apps}/com.example.messages
clipboard: "Stale text"
notifications:
  - {app: com.example.messages, text: "Bob: Pick up the parcel"}
"""
