"""The success-rule language of task specs: a small declarative language over the final app state
and the agent's answer (never free Python).

A rule is a mapping with exactly one operator key (the YAML surface syntax is the model):

    exists:   {collection: C, where: {field: MATCH, ...}}       some record of C matches
    count:    {collection: C, where: {...}, equals|at_least|at_most: VALUE}
    equals:   {var: V | answer: true | selected: {collection, field}, value: VALUE}
    contains: {var: V | answer: true | selected: {...}, value: VALUE}   text containment
    screen:   ID                                             the app is on screen ID at the end
    all_of:   [RULE, ...]
    any_of:   [RULE, ...]
    not:      RULE
    unchanged: {collection: C, except: [{field: MATCH, ...}, ...]}
              the records of C that match none of the `except` conditions are those of the
              task's start state (the same records, in any order): nothing else was edited,
              deleted or added
    unchanged: {collection: C, except: [...], edit: [FIELD, ...]}
              as above, and the records are identified by their place: every record of the
              start is still there, in its order, those matching an `except` condition changed
              in the `edit` fields at most (a rename is an edit, not a delete and an add); the
              records the end has besides them are new ones, each matching an `except` condition

`screen` reads where the agent ended: ID is a screen id of the app's app.json (`screens[].id`,
e.g. `s03_settings`), for a world task `<package>:<screen id>` (or a system screen such as
`@home`). Verifiers read it from the reserved state key `@screen` that every backend's
`read_state` adds (`phoneworld.runtime.validate.SCREEN`).

VALUE is a literal (text, integer, true/false), `{param: NAME}` (a task parameter),
`{var: NAME}` (a state variable), `{count: {collection, where}}` or `{lookup: {collection, where, field}}` (the field of the first
matching record), all read from the final state. MATCH is a VALUE (equality) or
`{contains: VALUE}`. How values compare is `phoneworld.tasks.verdict`'s business.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, ClassVar, Union

from pydantic import Discriminator, Field, Tag, model_validator

from phoneworld.ir.base import Frozen

Scalar = Union[str, int, bool]
RULE_OPS = ("exists", "count", "equals", "contains", "all_of", "any_of", "not", "unchanged",
            "screen")
VALUE_KEYS = ("param", "var", "count", "lookup")
BAD_TAG = "<not one key>"


def _key(v: Any, known: tuple[str, ...]) -> str:
    """The operator key of a raw mapping or a model (tagged-union discriminator)."""
    if isinstance(v, dict):
        if len(v) != 1:
            return BAD_TAG
        return str(next(iter(v)))
    op = getattr(type(v), "OP", None)
    return op if isinstance(op, str) else BAD_TAG


def _value_key(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, str):
        return "str"
    return _key(v, VALUE_KEYS)


# ----------------------------------------------------------------------------- values


class ParamRef(Frozen):
    OP: ClassVar[str] = "param"
    param: str


class VarValue(Frozen):
    OP: ClassVar[str] = "var"
    var: str


class CollectionQuery(Frozen):
    collection: str
    where: dict[str, Match] = {}


class CountValue(Frozen):
    OP: ClassVar[str] = "count"
    count: CollectionQuery


class LookupQuery(Frozen):
    collection: str
    where: dict[str, Match] = {}
    field: str


class LookupValue(Frozen):
    OP: ClassVar[str] = "lookup"
    lookup: LookupQuery


class ContainsMatch(Frozen):
    OP: ClassVar[str] = "contains"
    contains: Value


Value = Annotated[
    Union[
        Annotated[bool, Tag("bool")], Annotated[int, Tag("int")], Annotated[str, Tag("str")],
        Annotated[ParamRef, Tag("param")], Annotated[VarValue, Tag("var")],
        Annotated[CountValue, Tag("count")], Annotated[LookupValue, Tag("lookup")],
    ],
    Discriminator(_value_key),
]
Match = Annotated[
    Union[
        Annotated[bool, Tag("bool")], Annotated[int, Tag("int")], Annotated[str, Tag("str")],
        Annotated[ParamRef, Tag("param")], Annotated[VarValue, Tag("var")],
        Annotated[CountValue, Tag("count")], Annotated[LookupValue, Tag("lookup")],
        Annotated[ContainsMatch, Tag("contains")],
    ],
    Discriminator(_value_key),
]

# ----------------------------------------------------------------------------- rules


class SelectedRef(Frozen):
    collection: str
    field: str


class Compare(Frozen):
    """The subject of `equals`/`contains` (exactly one of var, answer, selected) and the value."""

    var: str | None = None
    answer: bool = False
    selected: SelectedRef | None = None
    value: Value

    @model_validator(mode="after")
    def _one_subject(self) -> Compare:
        n = (self.var is not None) + bool(self.answer) + (self.selected is not None)
        if n != 1:
            raise ValueError("name exactly one subject: `var: NAME`, `answer: true` or "
                             "`selected: {collection: C, field: F}`")
        return self


class CountBody(Frozen):
    collection: str
    where: dict[str, Match] = {}
    equals: Value | None = None
    at_least: Value | None = None
    at_most: Value | None = None

    @model_validator(mode="after")
    def _bound(self) -> CountBody:
        if self.equals is None and self.at_least is None and self.at_most is None:
            raise ValueError("a count needs `equals`, `at_least` or `at_most`")
        return self


class Exists(Frozen):
    OP: ClassVar[str] = "exists"
    exists: CollectionQuery


class CountRule(Frozen):
    OP: ClassVar[str] = "count"
    count: CountBody


class Equals(Frozen):
    OP: ClassVar[str] = "equals"
    equals: Compare


class Contains(Frozen):
    OP: ClassVar[str] = "contains"
    contains: Compare


class UnchangedBody(Frozen):
    collection: str
    except_: tuple[dict[str, Match], ...] = Field(default=(), alias="except")
    edit: tuple[str, ...] = ()  # the fields an excepted record of the start may change in place


class Unchanged(Frozen):
    OP: ClassVar[str] = "unchanged"
    unchanged: UnchangedBody


class OnScreen(Frozen):
    OP: ClassVar[str] = "screen"
    screen: str = Field(min_length=1)  # a screen id (a world's: "<package>:<screen id>")


class AllOf(Frozen):
    OP: ClassVar[str] = "all_of"
    all_of: tuple[Rule, ...] = Field(min_length=1)  # codegen joins the parts with `and`


class AnyOf(Frozen):
    OP: ClassVar[str] = "any_of"
    any_of: tuple[Rule, ...] = Field(min_length=1)


class Not(Frozen):
    OP: ClassVar[str] = "not"
    not_: Rule = Field(alias="not")


Rule = Annotated[
    Union[
        Annotated[Exists, Tag("exists")], Annotated[CountRule, Tag("count")],
        Annotated[Equals, Tag("equals")], Annotated[Contains, Tag("contains")],
        Annotated[AllOf, Tag("all_of")], Annotated[AnyOf, Tag("any_of")],
        Annotated[Not, Tag("not")], Annotated[Unchanged, Tag("unchanged")],
        Annotated[OnScreen, Tag("screen")],
    ],
    Discriminator(lambda v: _key(v, RULE_OPS)),
]

for _m in (CollectionQuery, LookupQuery, ContainsMatch, Compare, CountBody, UnchangedBody, AllOf,
           AnyOf, Not):
    _m.model_rebuild()

RuleNode = Union[Exists, CountRule, Equals, Contains, AllOf, AnyOf, Not, Unchanged, OnScreen]
ValueNode = Union[bool, int, str, ParamRef, VarValue, CountValue, LookupValue]

# ----------------------------------------------------------------------------- walking


def children(rule: RuleNode) -> tuple[RuleNode, ...]:
    if isinstance(rule, AllOf):
        return rule.all_of
    if isinstance(rule, AnyOf):
        return rule.any_of
    if isinstance(rule, Not):
        return (rule.not_,)
    return ()


def walk(rule: RuleNode) -> Iterator[RuleNode]:
    """Every node of a rule, pre-order."""
    yield rule
    for c in children(rule):
        yield from walk(c)


def rule_values(rule: RuleNode) -> Iterator[Any]:
    """Every value and match directly inside one (leaf) rule node."""
    if isinstance(rule, Exists):
        yield from rule.exists.where.values()
    elif isinstance(rule, CountRule):
        b = rule.count
        yield from b.where.values()
        yield from (v for v in (b.equals, b.at_least, b.at_most) if v is not None)
    elif isinstance(rule, (Equals, Contains)):
        body = rule.equals if isinstance(rule, Equals) else rule.contains
        yield body.value
    elif isinstance(rule, Unchanged):
        for where in rule.unchanged.except_:
            yield from where.values()


def nested_values(value: Any) -> Iterator[Any]:
    """A value and every value inside it (a count's or lookup's where, a contains match)."""
    yield value
    if isinstance(value, ContainsMatch):
        yield from nested_values(value.contains)
    elif isinstance(value, CountValue):
        for v in value.count.where.values():
            yield from nested_values(v)
    elif isinstance(value, LookupValue):
        for v in value.lookup.where.values():
            yield from nested_values(v)


def params_used(rule: RuleNode) -> set[str]:
    out: set[str] = set()
    for node in walk(rule):
        for v in rule_values(node):
            out.update(x.param for x in nested_values(v) if isinstance(x, ParamRef))
    return out


def screens_named(rule: RuleNode) -> set[str]:
    """The screens the rule's `screen` clauses name."""
    return {node.screen for node in walk(rule) if isinstance(node, OnScreen)}


def reads_answer(rule: RuleNode) -> bool:
    """Whether the rule looks at the agent's answer (an information-retrieval task)."""
    for node in walk(rule):
        if isinstance(node, Equals) and node.equals.answer:
            return True
        if isinstance(node, Contains) and node.contains.answer:
            return True
    return False
