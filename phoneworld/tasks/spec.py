"""The task spec (YAML under `task_specs/<app>/`, one task per file), validated with pydantic.

The shape follows android_world's tasks: an id, the app, a category, an instruction template with
typed parameters and their seeded generators, the initial state the task starts from (overrides of
the app's initial state: seed records, settings), a success rule (`phoneworld.tasks.rules`) and a
step budget. A canonical instance of the task draws its parameters with `seed`; demonstrations
re-draw them per episode.

    id: add_note
    app: com.example.notes
    category: single_app            # single_app | info_retrieval | navigation | cross_app
    instruction: Add a note titled "{title}"
    params:
      title: {type: text, from: phrase}
    rule:
      exists: {collection: note_list_items, where: {note_title: {param: title}}}
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal, Union

from pydantic import Field, field_validator, model_validator

from phoneworld.ir.base import Frozen
from phoneworld.tasks.rules import Rule, Scalar

TASK_FORMAT = "phoneworld-task/1"
ID_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,79}")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
Category = Literal["single_app", "info_retrieval", "navigation", "cross_app"]
ParamType = Literal["text", "number", "flag", "date"]


class _Gen(Frozen):
    type: ParamType = "text"
    distinct_from: tuple[str, ...] = Field(default=(), description=(
        "Other parameters this one must differ from (re-drawn until it does)."))


class PhraseGen(_Gen):
    """A short to-do style phrase ("Buy fresh bread"), from a fixed list of 48."""

    from_: Literal["phrase"] = Field(alias="from")


class WordsGen(_Gen):
    """`min`..`max` random words, the first capitalised."""

    from_: Literal["words"] = Field(alias="from")
    min: int = Field(default=1, ge=1, le=12)
    max: int = Field(default=3, ge=1, le=12)

    @model_validator(mode="after")
    def _ordered(self) -> WordsGen:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is more than max {self.max}")
        return self


class RangeGen(_Gen):
    """An integer in [min, max]."""

    from_: Literal["range"] = Field(alias="from")
    min: int = 0
    max: int = 100

    @model_validator(mode="after")
    def _ordered(self) -> RangeGen:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is more than max {self.max}")
        return self


class DateGen(_Gen):
    """A date in [start, end] (ISO dates), written with `format` (strftime)."""

    from_: Literal["dates"] = Field(alias="from")
    start: str = "2024-01-01"
    end: str = "2025-12-31"
    format: str = "%Y-%m-%d"

    @field_validator("start", "end", mode="before")
    @classmethod
    def _iso(cls, v: Any) -> Any:
        return v.isoformat() if hasattr(v, "isoformat") else v  # YAML reads 2024-01-01 as a date

    @field_validator("start", "end")
    @classmethod
    def _real_date(cls, v: str) -> str:
        try:
            dt.date.fromisoformat(v)
        except ValueError:
            raise ValueError(f"{v!r} is not a date: write YYYY-MM-DD, e.g. 2024-01-31") from None
        return v

    @model_validator(mode="after")
    def _ordered(self) -> DateGen:
        if self.start > self.end:  # ISO dates order as strings
            raise ValueError(f"start {self.start} is after end {self.end}")
        return self


class ChoiceGen(_Gen):
    """One of the listed values."""

    from_: Literal["choice"] = Field(alias="from")
    choices: tuple[Scalar, ...] = Field(min_length=1)


class AppDataGen(_Gen):
    """A value found in the task's initial state: `source` is `COLLECTION.FIELD` or a variable."""

    from_: Literal["app_data"] = Field(alias="from")
    source: str


ParamSpec = Annotated[
    Union[PhraseGen, WordsGen, RangeGen, DateGen, ChoiceGen, AppDataGen],
    Field(discriminator="from_"),
]
# what a parameter's required `from:` may say, in the order of ParamSpec
PARAM_SOURCES: tuple[str, ...] = tuple(
    g.model_fields["from_"].annotation.__args__[0]  # type: ignore[union-attr]
    for g in (PhraseGen, WordsGen, RangeGen, DateGen, ChoiceGen, AppDataGen))


class Budget(Frozen):
    """Step budgets: the paper trains with 30 steps and evaluates with 50."""

    train: int = Field(default=30, ge=1, le=1000)
    eval: int = Field(default=50, ge=1, le=1000)


class TaskSpec(Frozen):
    format: Literal["phoneworld-task/1"] = TASK_FORMAT
    id: str = Field(description="Unique per app; lowercase letters, digits and underscores.")
    app: str = Field(min_length=1, description="The package of the app the task runs in.")
    category: Category = "single_app"
    instruction: str = Field(min_length=1, description="Template; {name} inserts a parameter.")
    params: dict[str, ParamSpec] = {}
    initial_state: dict[str, Any] = Field(default={}, description=(
        "Overrides of the app's initial state, by state variable (seed records, settings)."))
    rule: Rule
    budget: Budget = Budget()
    seed: int = Field(default=0, description="Seed of the canonical parameter draw.")
    tags: tuple[str, ...] = Field(default=(), description="Free labels (synthesized kind, ...).")

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not ID_PATTERN.fullmatch(v):
            raise ValueError(f"task id {v!r} must match {ID_PATTERN.pattern} (it names a module)")
        return v

    @field_validator("params")
    @classmethod
    def _param_names(cls, v: dict[str, Any]) -> dict[str, Any]:
        for name in v:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                raise ValueError(f"parameter name {name!r} is not an identifier")
        return v

    @model_validator(mode="after")
    def _words_range(self) -> TaskSpec:
        for name, p in self.params.items():
            if isinstance(p, (WordsGen, RangeGen)) and p.min > p.max:
                raise ValueError(f"parameter {name!r}: min {p.min} > max {p.max}")
        return self

    def placeholders(self) -> list[str]:
        """The parameter names the instruction template uses, in order of first use."""
        seen: list[str] = []
        for m in PLACEHOLDER.finditer(self.instruction):
            if m.group(1) not in seen:
                seen.append(m.group(1))
        return seen

    def kind(self) -> str:
        """The first tag that names a synthesized kind, else the category."""
        return self.tags[0] if self.tags else self.category


def render_instruction(template: str, params: dict[str, Any]) -> str:
    """The instruction with `{name}` replaced by the parameter's text (no other format syntax:
    instructions come from traces, so `str.format` is never used)."""

    def sub(m: re.Match[str]) -> str:
        v = params.get(m.group(1))
        if v is None:
            return m.group(0)
        if isinstance(v, bool):
            return "on" if v else "off"
        return str(v)

    return PLACEHOLDER.sub(sub, template)
