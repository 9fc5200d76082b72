"""The trace IR: recorded episodes as typed models (native format `phoneworld-trace/1`, DESIGN section 2).

Every importer produces these models; the passes after ingest read nothing else.
Coordinates here are always device pixels: ingest converts normalized or foreign frames.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, model_validator

from phoneworld.ir.base import Bounds, Frozen, SourceRef

TRACE_FORMAT = "phoneworld-trace/1"


# Flutter draws every text but a field's as its node's content-desc (the engine's accessibility
# bridge sets the description to the semantics node's value, label and hint), on nodes of the
# generic class (`android.view.View`; a tappable tile's merges its row's texts) and on its toggles
# (a checklist row's label); so do WebView pages' nodes. Such a description is the node's text:
# what it shows, bound to state like any text, not a fixed name that tells the node apart. Unless
# a view inside shows it as its text (a web link named after its text), or it is a toggle with a
# resource id or views inside (a native one). Buttons keep theirs as a name: a native icon
# button's description names its icon (Habitica's "Positive"), and a Flutter button's label is
# as fixed.
DESCRIBED_TEXT = "android.view.View"
DESCRIBED_CONTROLS = frozenset({"android.widget.CheckBox", "android.widget.Switch",
                                "android.widget.RadioButton", "android.widget.ToggleButton"})


def shows_text_as_desc(cls: str, resource_id: str, desc: str, children: Any) -> bool:
    """Whether a node of this class, id, content-desc and children (nodes or their fields) that
    shows no text shows its text as that description (`DESCRIBED_TEXT`)."""
    kids = children if isinstance(children, (list, tuple)) else ()
    if cls in DESCRIBED_CONTROLS:
        return not resource_id and not kids
    return cls == DESCRIBED_TEXT and not any(
        (c.get("text") if isinstance(c, dict) else getattr(c, "text", None)) == desc
        for c in kids)


class ViewNode(Frozen):
    """One node of a `uiautomator dump` hierarchy. A text the app draws as the node's
    content-desc (`shows_text_as_desc`) is read as its `text`, with `text_in_desc` set: every pass
    treats it as a text, and a mock draws it back as a description."""

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
    text_in_desc: bool = False
    children: tuple[ViewNode, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _described_text(cls, data: Any) -> Any:
        if not isinstance(data, dict) or data.get("text") \
                or not isinstance(data.get("content_desc"), str) or not data["content_desc"]:
            return data  # (a damaged value is for field validation to name)
        if not shows_text_as_desc(str(data.get("cls", data.get("class", ""))),
                                  str(data.get("resource_id") or ""), data["content_desc"],
                                  data.get("children")):
            return data
        return {**data, "text": data["content_desc"], "content_desc": "", "text_in_desc": True}

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
