"""What success rules mean: the primitives generated verifiers call, and the `Verdict` they return.

Generated verifier modules (`verifiers/<task>.py`) are straight-line calls of these functions, one
function per clause of the rule, so a failed check names its clause.

Comparison conventions (shared by every verifier):
- A value's text is the runtime's (`phoneworld.runtime.semantics.value_text`: None is "",
  true/false are "true"/"false", numbers their digits, a collection its length), normalized:
  stripped, whitespace-collapsed, case-folded, with surrounding quotes and a final period dropped.
  State values (`equals`, `where` conditions) compare by that text, so a verifier reads the state
  as the simulator does: the text "no" is no flag (it is truthy there) and never equals false.
- `contains` is containment of normalized texts.
- Answers alone are read as words: an agent answers a yes/no question in words, so in an answer
  and the value it is compared with, "yes"/"on"/"y" mean "true" and "no"/"off"/"n" mean "false"
  (`answer_norm`; no other comparison reads them so).
- An answer matches an integer when it is that integer, or holds exactly one integer and it is
  that one ("3 notes"); otherwise its `answer_norm` must equal the expected value's.
- `count` bounds are integers; a bound that is no integer fails the clause.
- `screen` compares the screen id under the state's reserved key `@screen` (which every
  backend's `read_state` adds) with the one the rule names, exactly: ids are names, not texts.
  A state without the key is a caller's mistake, not a failed task: it raises.
- `unchanged` compares records as multisets of their fields' normalized texts; with `edit` it also
  identifies records by their place (`in_place`): the runtime never reorders a collection (a
  record is edited where it is, removed, or added at the start or the end), so a record deleted
  and added again is no longer where it was, which a rename is.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from phoneworld.runtime.semantics import value_text
from phoneworld.runtime.validate import SCREEN

Cond = tuple[str, str, Any]  # (field, "eq" | "contains", value)
Clause = Callable[[], "Verdict"]
_INT = re.compile(r"[-+]?\d+")
_ANSWER_YES = frozenset({"true", "yes", "on", "y"})
_ANSWER_NO = frozenset({"false", "no", "off", "n"})


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of a verifier: passed, why, and which clause decided it."""

    passed: bool
    reason: str
    clause: str = ""

    def __bool__(self) -> bool:
        return self.passed


def norm(v: Any) -> str:
    """A value's normalized text, for equality and containment (see the module docstring)."""
    return _normalized(value_text(v))


text_norm = norm  # containment reads the same text as equality


def answer_norm(v: Any) -> str:
    """`norm`, with the words of a yes/no answer read as flags (answers only)."""
    s = norm(v)
    if s in _ANSWER_YES:
        return "true"
    if s in _ANSWER_NO:
        return "false"
    return s


@functools.lru_cache(maxsize=65536)
def _normalized(text: str) -> str:
    s = " ".join(text.split()).casefold()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'":
        s = s[1:-1].strip()
    return s.rstrip(".").strip()


def same(a: Any, b: Any) -> bool:
    """Whether an answer `a` says the value `b` (or `b` says `a`): `answer_norm`s are equal."""
    return answer_norm(a) == answer_norm(b)


def has_text(haystack: Any, needle: Any) -> bool:
    return text_norm(needle) in text_norm(haystack)


def show(v: Any) -> str:
    """A value as it appears in a reason."""
    if v is None:
        return "nothing"
    return repr(v) if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)


# ----------------------------------------------------------------------------- reading state


def param(params: Mapping[str, Any], name: str) -> Any:
    if name not in params:
        raise KeyError(f"the task parameter {name!r} was not given to the verifier")
    return params[name]


def var(state: Mapping[str, Any], name: str) -> Any:
    return state.get(name)


def records(state: Mapping[str, Any], collection: str) -> list[Mapping[str, Any]]:
    recs = state.get(collection)
    return [r for r in recs if isinstance(r, dict)] if isinstance(recs, list) else []


def matching(state: Mapping[str, Any], collection: str,
             where: tuple[Cond, ...]) -> list[Mapping[str, Any]]:
    """The records of `collection` that meet every condition of `where`."""
    recs = records(state, collection)
    if not where:
        return recs
    conds = [(f, op == "contains", text_norm(v) if op == "contains" else norm(v))
             for f, op, v in where]
    out = []
    for r in recs:
        for f, contain, want in conds:
            if not (want in text_norm(r.get(f)) if contain else norm(r.get(f)) == want):
                break
        else:
            out.append(r)
    return out


def count_of(state: Mapping[str, Any], collection: str, where: tuple[Cond, ...] = ()) -> int:
    return len(matching(state, collection, where))


def lookup(state: Mapping[str, Any], collection: str, where: tuple[Cond, ...], field: str) -> Any:
    found = matching(state, collection, where)
    return found[0].get(field) if found else None


def selected(state: Mapping[str, Any], selection: str, collection: str, field: str) -> Any:
    idx = state.get(selection)
    recs = records(state, collection)
    if isinstance(idx, int) and not isinstance(idx, bool) and 0 <= idx < len(recs):
        return recs[idx].get(field)
    return None


def describe_where(where: tuple[Cond, ...]) -> str:
    if not where:
        return ""
    parts = [f"{f} {'contains' if op == 'contains' else '=='} {show(v)}" for f, op, v in where]
    return " where " + " and ".join(parts)


# ----------------------------------------------------------------------------- leaf clauses


def exists(state: Mapping[str, Any], collection: str, where: tuple[Cond, ...],
           label: str) -> Verdict:
    if matching(state, collection, where):
        return Verdict(True, f"a record of {collection}{describe_where(where)} exists", label)
    return Verdict(False, f"no record of {collection}{describe_where(where)}", label)


def _as_int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and _INT.fullmatch(v.strip()):
        return int(v)
    return None


def count(state: Mapping[str, Any], collection: str, where: tuple[Cond, ...], label: str,
          equals: Any = None, at_least: Any = None, at_most: Any = None) -> Verdict:
    n = count_of(state, collection, where)
    what = f"{n} record(s) of {collection}{describe_where(where)}"
    for name, bound, ok in (("exactly", equals, lambda b: n == b),
                            ("at least", at_least, lambda b: n >= b),
                            ("at most", at_most, lambda b: n <= b)):
        if bound is None:
            continue
        b = _as_int(bound)
        if b is None:
            return Verdict(False, f"the bound {show(bound)} is not an integer", label)
        if not ok(b):
            return Verdict(False, f"{what}, wanted {name} {b}", label)
    return Verdict(True, what, label)


def equals(actual: Any, expected: Any, label: str, what: str) -> Verdict:
    if norm(actual) == norm(expected):
        return Verdict(True, f"{what} is {show(actual)}", label)
    return Verdict(False, f"{what} is {show(actual)}, wanted {show(expected)}", label)


def contains(actual: Any, expected: Any, label: str, what: str) -> Verdict:
    if actual is not None and has_text(actual, expected):
        return Verdict(True, f"{what} {show(actual)} contains {show(expected)}", label)
    return Verdict(False, f"{what} {show(actual)} does not contain {show(expected)}", label)


def answer_matches(answer: Any, expected: Any) -> bool:
    if answer is None:
        return False
    want = _as_int(expected)
    if want is not None:
        ints = _INT.findall(str(answer))
        return len(ints) == 1 and int(ints[0]) == want
    return same(answer, expected)


def answer_equals(answer: Any, expected: Any, label: str) -> Verdict:
    if answer is None:
        return Verdict(False, "no answer was given", label)
    if answer_matches(answer, expected):
        return Verdict(True, f"the answer {show(answer)} is right", label)
    return Verdict(False, f"the answer {show(answer)} is not {show(expected)}", label)


def _rest(state: Mapping[str, Any], collection: str, excepts: tuple[tuple[Cond, ...], ...]
          ) -> Counter[tuple[tuple[str, str], ...]]:
    hit = {id(r) for where in excepts for r in matching(state, collection, where)}
    return Counter(tuple(sorted((k, norm(v)) for k, v in r.items()))
                   for r in records(state, collection) if id(r) not in hit)


def _record_text(rec: tuple[tuple[str, str], ...]) -> str:
    return "{" + ", ".join(f"{k}: {v!r}" for k, v in rec) + "}"


def _excepted(rec: Mapping[str, Any], excepts: tuple[tuple[Cond, ...], ...]) -> bool:
    return any(matching({"r": [rec]}, "r", where) for where in excepts)


def _fields(rec: Mapping[str, Any], skip: tuple[str, ...] = ()) -> dict[str, str]:
    return {k: norm(v) for k, v in rec.items() if k not in skip}


def in_place(before: list[Mapping[str, Any]], after: list[Mapping[str, Any]],
             excepts: tuple[tuple[Cond, ...], ...], edit: tuple[str, ...]) -> int | None:
    """Records identified by their place: None when every record of `before` is in `after`, in
    its order (an excepted one changed in the `edit` fields at most, any other one as it was)
    and `after`'s other records are new ones matching an `except`; else the index of the first
    record of `before` that is not (deleted, moved, or changed beyond `edit`)."""
    n, m = len(before), len(after)
    if n == 0:
        return None  # nothing to keep in place (what is new is `unchanged`'s multiset check)
    new = [_excepted(r, excepts) for r in after]
    kept = [_fields(r) for r in before]
    loose = [_fields(r, edit) if _excepted(r, excepts) else None for r in before]
    after_all = [_fields(r) for r in after]
    after_loose = [_fields(r, edit) for r in after]

    def fits(i: int, j: int) -> bool:
        return after_loose[j] == loose[i] if loose[i] is not None else after_all[j] == kept[i]

    def skip(js: set[int]) -> set[int]:  # and every place after a run of new records
        out = set()
        for j in js:
            out.add(j)
            while j < m and new[j]:
                j += 1
                out.add(j)
        return out

    reach = skip({0})  # the places of `after` that before[:i] can end at, skipped ones new
    for i in range(n):
        reach = skip({j + 1 for j in reach if j < m and fits(i, j)})
        if not reach:
            return i
    return None if m in reach else n - 1


def unchanged(state: Mapping[str, Any], start: Mapping[str, Any], collection: str,
              excepts: tuple[tuple[Cond, ...], ...], label: str, edit: tuple[str, ...] = ()
              ) -> Verdict:
    """The records of `collection` matching none of `excepts` are those of `start`; with `edit`,
    each record of `start` is also still in its place (see `in_place`)."""
    before, after = _rest(start, collection, excepts), _rest(state, collection, excepts)
    if before == after and edit:
        first = in_place(records(start, collection), records(state, collection), excepts, edit)
        if first is not None:
            rec = records(start, collection)[first]
            shown = "{" + ", ".join(f"{k}: {show(v)}" for k, v in sorted(rec.items())) + "}"
            return Verdict(False, f"the record {shown} of {collection} is not where it was, "
                           f"edited in {', '.join(edit)} at most (deleted and added again, "
                           "moved, or changed in another field)", label)
    if before == after:
        return Verdict(True, f"the other records of {collection} are as at the start", label)
    gone = [_record_text(r) for r in (before - after).elements()]
    new = [_record_text(r) for r in (after - before).elements()]
    what = "; ".join(x for x in (f"gone: {', '.join(gone[:3])}" if gone else "",
                                 f"new: {', '.join(new[:3])}" if new else "") if x)
    return Verdict(False, f"other records of {collection} changed ({what})", label)


def on_screen(state: Mapping[str, Any], screen: str, label: str) -> Verdict:
    """Whether the app is on `screen` (the state's `@screen`)."""
    at = state.get(SCREEN)
    if at is None:
        raise KeyError(f"the state has no {SCREEN!r} (the screen the app is on), which the rule's "
                       "`screen` clause reads: verify what a backend's read_state() gives")
    if at == screen:
        return Verdict(True, f"the app is on screen {screen!r}", label)
    return Verdict(False, f"the app is on screen {at!r}, wanted {screen!r}", label)


# ----------------------------------------------------------------------------- composites


def all_of(label: str, clauses: Iterable[Clause]) -> Verdict:
    for clause in clauses:
        v = clause()
        if not v.passed:
            return v
    return Verdict(True, "every clause holds", label)


def any_of(label: str, clauses: Iterable[Clause]) -> Verdict:
    failed: list[Verdict] = []
    for clause in clauses:
        v = clause()
        if v.passed:
            return v
        failed.append(v)
    why = "; ".join(f"[{v.clause}] {v.reason}" for v in failed)
    return Verdict(False, f"none of the alternatives holds: {why}", label)


def not_(label: str, inner: Verdict) -> Verdict:
    if inner.passed:
        return Verdict(False, f"it must not hold, but {inner.reason}", label)
    return Verdict(True, f"as required, {inner.reason}", label)
