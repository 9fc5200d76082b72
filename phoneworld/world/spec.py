"""The world spec (YAML): several compiled apps on one simulated device, plus hand wiring.

    format: phoneworld-world/1
    name: office
    apps:
      - dir: ../generated_apps/com.example.notes      # a built app (relative to this file)
      - traces: traces_messages                        # or traces, built by `phoneworld world build`
        pick: [{screen: s01_compose, widget: attach_button, field: body_input}]
      - dir: apps/autodroid.sms_messenger
        receive: {path: [button], field: edit_text}   # the share sheet's "new item" screen
    clipboard: "Meeting moved to 3pm"                 # what the clipboard holds at reset

Wiring an app can have (all optional; `auto: true` derives the usual ones from the app itself, see
`phoneworld.world.wiring`):
- `receive`: how a share into this app lands: the widgets tapped from the start screen (`path`)
  and the editable widget (`field`) that gets the shared text;
- `share`: widgets that open the share sheet (`screen`, `widget`) and the widget whose text they
  share (`text_from`; default: the screen's first bound text);
- `pick`: widgets that open the file picker; the picked file's text goes into `field`;
- `notify`: `auto` (a transition that appends a record posts a notification naming it) or `off`.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, model_validator

from phoneworld.ir.base import Frozen

WORLD_FORMAT = "phoneworld-world/1"
NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,79}")


class Receive(Frozen):
    path: tuple[str, ...] = Field(default=(), description=(
        "Widget ids tapped one after the other from the app's start screen."))
    field: str = Field(description="The editable widget (wid) that receives the shared text.")


class ShareWire(Frozen):
    screen: str = Field(description="Screen id of the widget.")
    widget: str = Field(description="Widget id (wid) that opens the share sheet when clicked.")
    text_from: str | None = Field(default=None, description=(
        "Widget id whose rendered text is shared (default: the screen's first bound text)."))


class PickWire(Frozen):
    screen: str
    widget: str = Field(description="Widget id that opens the file picker when clicked.")
    field: str = Field(description="Editable widget that receives the picked file's text.")


class AppEntry(Frozen):
    dir: str | None = Field(default=None, description="A built app folder (holding app.json).")
    traces: str | None = Field(default=None, description="A trace folder to build the app from.")
    from_: str | None = Field(default=None, alias="from", description="Trace format of `traces`.")
    auto: bool = Field(default=True, description=(
        "Derive clipboard, share, picker and notification wiring from the app's widgets."))
    receive: Receive | None = None
    share: tuple[ShareWire, ...] = ()
    pick: tuple[PickWire, ...] = ()
    notify: Literal["auto", "off"] = "auto"

    @model_validator(mode="after")
    def _one_source(self) -> AppEntry:
        if (self.dir is None) == (self.traces is None):
            raise ValueError("give exactly one of `dir` (a built app) or `traces` (to build)")
        return self


class FileEntry(Frozen):
    name: str = Field(min_length=1)
    text: str
    app: str = ""


class NotificationEntry(Frozen):
    app: str = Field(description="Package of the app that posted it.")
    text: str


class WorldSpec(Frozen):
    format: Literal["phoneworld-world/1"] = WORLD_FORMAT
    name: str = Field(description="The world's name (letters, digits, _ . -).")
    apps: tuple[AppEntry, ...] = Field(min_length=1)
    clipboard: str = Field(default="", description="The clipboard's text at reset.")
    files: tuple[FileEntry, ...] = ()
    notifications: tuple[NotificationEntry, ...] = ()

    @model_validator(mode="after")
    def _name(self) -> WorldSpec:
        if not NAME_PATTERN.fullmatch(self.name):
            raise ValueError(f"world name {self.name!r} must match {NAME_PATTERN.pattern}")
        return self
