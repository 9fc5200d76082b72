"""The abstraction IR (output of `abstract`, input of graph and state): screens and what each step saw.

A `ScreenTemplate` is one abstract screen: the stable structure shared by all the observations merged
into it, with a widget id (`wid`) per node; list containers carry one item template. A
`ScreenReading` is one observation read through its screen's template: the texts and checked flags
per wid, the records of each list, and the visible widgets' bounds for hit-testing.
"""

from __future__ import annotations

from pydantic import Field

from phoneworld.ir.base import Bounds, Frozen, SourceRef, WidgetTraits
from phoneworld.ir.trace import ViewNode


class TemplateNode(WidgetTraits):
    wid: str
    cls: str
    resource_id: str = ""
    content_desc: str = ""
    package: str = ""
    text: str = ""  # as in the screen's first observation; state decides whether it is literal
    checked: bool = False
    bounds: Bounds
    children: tuple[TemplateNode, ...] = ()
    item: TemplateNode | None = None  # set on list containers: the template of one item
    empty: TemplateNode | None = None  # list containers: what shows while the list is empty
    empty_replaces: bool = True  # ... in the container's place (else inside it)
    pitch: int = 0  # list containers: distance between item tops in the representative observation
    max_visible: int = 0

    def walk(self) -> list[TemplateNode]:
        out: list[TemplateNode] = []
        stack = [self]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children))
            if node.item is not None:
                stack.append(node.item)
        return out


class ScreenTemplate(Frozen):
    id: str
    name: str
    package: str
    activity: str | None = None
    signature: str
    root: TemplateNode
    observations: int
    sources: tuple[SourceRef, ...] = ()


class HitBox(Frozen):
    """A visible widget of one observation, in drawing order (later boxes are on top)."""

    wid: str
    item: int | None = None  # index of the list item it belongs to
    list_wid: str | None = None
    bounds: Bounds
    clickable: bool = False
    long_clickable: bool = False
    checkable: bool = False
    editable: bool = False
    scrollable: bool = False
    focused: bool = False


class ItemReading(Frozen):
    texts: dict[str, str] = Field(default_factory=dict)
    checked: dict[str, bool] = Field(default_factory=dict)


class ScreenReading(Frozen):
    episode: int
    step: int
    screen: str  # ScreenTemplate.id, or "" when the observation matches no known screen
    texts: dict[str, str] = Field(default_factory=dict)
    checked: dict[str, bool] = Field(default_factory=dict)
    lists: dict[str, tuple[ItemReading, ...]] = Field(default_factory=dict)
    boxes: tuple[HitBox, ...] = ()


class EmptySlot(Frozen):
    """Where a list's container sits under one parent, what the app shows in its place while the
    list is empty (`abstract.shape.learn_empty_slots`): the placeholders' shapes, and the
    container with no items that stands in for a placeholder when reading such an observation."""

    placeholders: tuple[str, ...]
    filler: ViewNode
    placeholder: ViewNode  # one placeholder as recorded: what the mock shows for the empty list
    list_anchor: str  # the list container's anchor
    replaces: bool = True  # the container is gone while the placeholder shows (else beside it)


class Abstraction(Frozen):
    app: str
    screens: tuple[ScreenTemplate, ...]
    readings: tuple[tuple[ScreenReading, ...], ...]  # per episode, per step
    list_shapes: dict[str, str] = Field(default_factory=dict)  # list anchor -> item shape digest
    # list anchor -> the other item shapes seen repeated there (`ShapeIndex.others`)
    list_others: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    list_rows: tuple[str, ...] = ()  # list anchors whose items are told by the row alone
    # list anchor -> the structures its items were seen holding (`ShapeIndex.parts`)
    list_parts: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    # list anchor -> the marks of its items, which anchor as items (`ShapeIndex.marks`)
    list_marks: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    empty_slots: dict[str, EmptySlot] = Field(default_factory=dict)  # parent anchor -> its slot
    # per episode, the index of the episode it follows (`Episode.follows`) among these readings
    follows: tuple[int | None, ...] = ()

    def template(self, screen_id: str) -> ScreenTemplate:
        for s in self.screens:
            if s.id == screen_id:
                return s
        raise KeyError(screen_id)


TemplateNode.model_rebuild()
