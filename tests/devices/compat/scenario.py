"""What every client's tests assert: a dump is valid uiautomator XML and the simulator's own; a
screenshot is a PNG of the screen's size with the simulator's pixels; the note episode ends with
the note in the dump and in the app's state."""

from __future__ import annotations

import io
import json
from typing import Any

from lxml import etree
from PIL import Image

from .conftest import Phone, Reference

NOTE = "Walk the dog"
ADD = {"content_desc": "Add note"}
TITLE = {"resource_id": "com.example.notes:id/title_input"}
SAVE = {"text": "Save"}
XFAIL_SHELL = ("the virtual shell (shell.py) lacks {what}; the real sandboxed shell that replaces "
               "it runs this unmodified")


def assert_dump(xml: str, ref: Reference) -> None:
    """`xml` parses as a uiautomator hierarchy and is byte-equal to the simulator's."""
    root = etree.fromstring(xml.encode())
    assert root.tag == "hierarchy" and root.get("rotation") == "0"
    nodes = list(root.iter("node"))
    assert nodes and all(n.get("bounds", "").startswith("[") for n in nodes)
    assert xml == ref.sim.xml()


def assert_png(data: bytes, phone: Phone) -> Image.Image:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:40]
    img = Image.open(io.BytesIO(data))
    img.load()
    dev = phone.spec.device
    assert img.format == "PNG" and img.size == (dev.width, dev.height)
    return img


def assert_screen(img: Image.Image, ref: Reference) -> None:
    """`img` shows what the simulator's screen shows, pixel for pixel."""
    from phoneworld.runtime.screenshot import render_image

    dev = ref.sim.spec.device
    want = render_image(ref.sim.frame(), dev.width, dev.height, 1.0)
    assert img.convert("RGB").tobytes() == want.tobytes()


def app_state(phone: Phone, shell: Any = None) -> dict[str, Any]:
    """The app's state as its APK keeps it (`run-as PKG cat files/state.json`)."""
    out = (shell or phone.shell)(f"run-as {phone.package} cat files/state.json")
    return json.loads(out)


def assert_note_added(xml: str, state: dict[str, Any], ref: Reference) -> None:
    assert f'text="{NOTE}"' in xml
    assert xml == ref.sim.xml()
    assert NOTE in json.dumps(state, ensure_ascii=False)
    assert state == ref.sim.state
