"""Shared building blocks of the IR: the frozen model base, bounds and source references."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

MIN_IDS = 5  # distinct id names an app must show before its ids are judged shrunk
SHORT_ID = 3  # the longest id name a shrinker gives ("a", "re", "b3")


class Frozen(BaseModel):
    """Base of every IR model: immutable, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class WidgetTraits(Frozen):
    """How a widget takes input and shows state: shared by screen templates and app-spec widgets."""

    checkable: bool = False
    clickable: bool = False
    long_clickable: bool = False
    scrollable: bool = False
    focusable: bool = False
    enabled: bool = True
    password: bool = False
    selected: bool = False
    editable: bool = False
    text_in_desc: bool = False  # the text is drawn as the content-desc (`trace.shows_text_as_desc`)


def traits_of(view: object) -> dict[str, bool]:
    """The `WidgetTraits` fields read off anything that has them (a view node, a template)."""
    return {name: bool(getattr(view, name)) for name in WidgetTraits.model_fields}


def ids_shrunk(resource_ids: Iterable[str]) -> bool:
    """Whether an app's resource ids are names a shrinker gave (R8, AndResGuard: "a", "re",
    "b3"), which say nothing of what a view is: more than half of its own distinct id names (at
    least `MIN_IDS`; the framework's `android:id/...` left out) are at most `SHORT_ID` characters
    without an underscore. The corpus's apps show 0 to 4 such among 30 to 177 ("fab", "add",
    "bar", "url", "two")."""
    names = {rid.split(":id/", 1)[-1] for rid in resource_ids
             if rid and ":id/" in rid and not rid.startswith("android:")}
    short = [n for n in names if len(n) <= SHORT_ID and "_" not in n]
    return len(names) >= MIN_IDS and 2 * len(short) > len(names)


class SourceRef(Frozen):
    """Where a piece of input came from, so a diagnostic or a spec element can point back at it."""

    file: str
    line: int | None = None
    episode: str | None = None
    step: int | None = None

    def render(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
        if self.step is not None:
            where += f" (step {self.step})"
        return where


class Bounds(Frozen):
    """A view's rectangle in device pixels, as uiautomator writes `[x1,y1][x2,y2]`."""

    x1: int
    y1: int
    x2: int
    y2: int

    @property
    def width(self) -> int:
        return self.x2 - self.x1

    @property
    def height(self) -> int:
        return self.y2 - self.y1

    @property
    def area(self) -> int:
        return max(0, self.width) * max(0, self.height)

    @property
    def center(self) -> tuple[int, int]:
        return (self.x1 + self.x2) // 2, (self.y1 + self.y2) // 2

    def contains(self, x: float, y: float) -> bool:
        return self.x1 <= x < self.x2 and self.y1 <= y < self.y2

    def render(self) -> str:
        return f"[{self.x1},{self.y1}][{self.x2},{self.y2}]"

    def shifted(self, dy: int) -> Bounds:
        return Bounds(x1=self.x1, y1=self.y1 + dy, x2=self.x2, y2=self.y2 + dy)
