"""The trace IR: recorded episodes as typed models (native format `phoneworld-trace/1`, DESIGN section 2).

Every importer produces these models; the passes after ingest read nothing else.
Coordinates here are always device pixels: ingest converts normalized or foreign frames.
"""

from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import Field

from phoneworld.ir.base import Bounds, Frozen, SourceRef

TRACE_FORMAT = "phoneworld-trace/1"


class ViewNode(Frozen):
    """One node of a `uiautomator dump` hierarchy."""

    cls: str = Field(alias="class")
    resource_id: str = ""
    text: str = ""
    content_desc: str = ""
    package: str = ""
    bounds: Bounds
    index: int = 0
    checkable: bool = False
    checked: bool = False
    clickable: bool = False
    long_clickable: bool = False
    scrollable: bool = False
    focusable: bool = False
    focused: bool = False
    enabled: bool = True
    selected: bool = False
    password: bool = False
    children: tuple[ViewNode, ...] = ()

    @property
    def editable(self) -> bool:
        return self.cls.endswith("EditText") or self.cls.endswith("AutoCompleteTextView")

    def walk(self) -> list[ViewNode]:
        """All nodes in document (pre-)order, this one first."""
        out: list[ViewNode] = []
        stack = [self]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children))
        return out


class Observation(Frozen):
    """What the agent saw at one step."""

    root: ViewNode
    package: str
    activity: str | None = None
    xml_file: str | None = None
    screenshot: str | None = None  # path as given in the trace, relative to the episode folder
    rotation: int = 0


# ----------------------------------------------------------------------------- actions

class Click(Frozen):
    type: Literal["click"] = "click"
    x: int
    y: int


class DoubleClick(Frozen):
    type: Literal["double_click"] = "double_click"
    x: int
    y: int


class LongPress(Frozen):
    type: Literal["long_press"] = "long_press"
    x: int
    y: int


class TypeText(Frozen):
    type: Literal["type"] = "type"
    text: str


class Scroll(Frozen):
    type: Literal["scroll"] = "scroll"
    direction: Literal["up", "down", "left", "right"]
    x: int | None = None
    y: int | None = None


class Drag(Frozen):
    type: Literal["drag"] = "drag"
    x1: int
    y1: int
    x2: int
    y2: int


class Back(Frozen):
    type: Literal["back"] = "back"


class Home(Frozen):
    type: Literal["home"] = "home"


class Menu(Frozen):
    type: Literal["menu"] = "menu"


class Enter(Frozen):
    type: Literal["enter"] = "enter"


class OpenApp(Frozen):
    type: Literal["open_app"] = "open_app"
    package: str


class CloseApp(Frozen):
    type: Literal["close_app"] = "close_app"


class Wait(Frozen):
    type: Literal["wait"] = "wait"


class Done(Frozen):
    type: Literal["done"] = "done"
    answer: str | None = None


Action = Annotated[
    Union[
        Click, DoubleClick, LongPress, TypeText, Scroll, Drag, Back, Home, Menu, Enter,
        OpenApp, CloseApp, Wait, Done,
    ],
    Field(discriminator="type"),
]

ACTION_TYPES: tuple[str, ...] = (
    "click", "double_click", "long_press", "type", "scroll", "drag", "back", "home", "menu",
    "enter", "open_app", "close_app", "wait", "done",
)
POINT_ACTIONS: frozenset[str] = frozenset({"click", "double_click", "long_press"})


# ----------------------------------------------------------------------------- episodes

class Device(Frozen):
    width: int
    height: int
    density: int | None = None
    sdk: int | None = None


class Step(Frozen):
    """An observation and the action taken on it (None on the last step)."""

    index: int
    observation: Observation
    action: Action | None = None
    source: SourceRef


class Handoff(Frozen):
    """Kept when ingest splits an episode that crossed apps, so cross-app worlds can join the parts."""

    origin_episode: str
    part: int
    previous_app: str | None = None
    next_app: str | None = None
    exit_action: Action | None = None  # the action on this part's last screen that left the app


class Episode(Frozen):
    id: str
    app: str
    device: Device
    instruction: str | None = None
    steps: tuple[Step, ...]
    source: SourceRef
    handoff: Handoff | None = None
    # The episode of the same app and recording that ended just before this one began, where
    # nothing in between restarted the app (a gap in the recording, a lost state file, a visit to
    # another app): the app's state and back stack carry over from its end.
    follows: str | None = None
    # This episode's first screen is where the app went by itself from where `follows` ended: no
    # action was recorded between them (a recorder read a splash or a loading page, and the app
    # had moved on by the next event).
    moved_by_itself: bool = False


class TraceSet(Frozen):
    """All episodes of one ingest run, in a canonical order (by app, then id)."""

    episodes: tuple[Episode, ...]

    def apps(self) -> list[str]:
        return sorted({ep.app for ep in self.episodes})

    def for_app(self, app: str) -> TraceSet:
        return TraceSet(episodes=tuple(ep for ep in self.episodes if ep.app == app))

    def follows(self) -> tuple[int | None, ...]:
        """Per episode, the index of the earlier episode here that it follows, if any."""
        index = {ep.id: n for n, ep in enumerate(self.episodes)}
        return tuple(index.get(ep.follows) if ep.follows is not None
                     and index.get(ep.follows, n) < n else None
                     for n, ep in enumerate(self.episodes))
