"""The rule language and the task spec models: parsing, the comparison conventions, YAML dumps."""

from __future__ import annotations

import pytest
import yaml
from pydantic import ValidationError

from phoneworld.tasks import rules as r
from phoneworld.tasks import verdict as v
from phoneworld.tasks.dump import dump_task
from phoneworld.tasks.spec import TaskSpec, render_instruction

BASE = {"id": "t", "app": "com.example.notes", "instruction": "Do {x}",
        "params": {"x": {"type": "text", "from": "phrase"}}}

RULES = {
    "exists": {"exists": {"collection": "c", "where": {"f": {"param": "x"}, "g": True}}},
    "count": {"count": {"collection": "c", "where": {"f": {"contains": "a"}}, "at_least": 2}},
    "equals_var": {"equals": {"var": "v", "value": 3}},
    "equals_answer": {"equals": {"answer": True, "value": {"count": {"collection": "c"}}}},
    "contains_selected": {"contains": {"selected": {"collection": "c", "field": "f"},
                                       "value": "x"}},
    "lookup": {"equals": {"answer": True, "value": {"lookup": {"collection": "c", "field": "g",
                                                                "where": {"f": "a"}}}}},
    "nested": {"all_of": [{"any_of": [{"not": {"exists": {"collection": "c"}}},
                                      {"equals": {"var": "v", "value": {"var": "w"}}}]}]},
}


@pytest.mark.parametrize("raw", RULES.values(), ids=RULES.keys())
def test_rules_parse_and_dump_back_to_the_same_yaml(raw: dict) -> None:
    spec = TaskSpec.model_validate({**BASE, "rule": raw})
    again = TaskSpec.model_validate(yaml.safe_load(dump_task(spec)))
    assert again == spec
    assert spec.model_dump(mode="json", by_alias=True, exclude_defaults=True)["rule"] == raw


BAD = {
    "two_operators": {"exists": {"collection": "c"}, "count": {"collection": "c", "equals": 1}},
    "unknown_operator": {"exist": {"collection": "c"}},
    "no_subject": {"equals": {"value": 1}},
    "two_subjects": {"equals": {"var": "v", "answer": True, "value": 1}},
    "count_without_bound": {"count": {"collection": "c"}},
    "float_value": {"equals": {"var": "v", "value": 1.5}},
    "unknown_key": {"exists": {"collection": "c", "filter": {}}},
}


@pytest.mark.parametrize("raw", BAD.values(), ids=BAD.keys())
def test_malformed_rules_are_rejected(raw: dict) -> None:
    with pytest.raises(ValidationError):
        TaskSpec.model_validate({**BASE, "rule": raw})


@pytest.mark.parametrize(("a", "b", "same"), [
    ("Buy milk", " buy  MILK. ", True), ('"Buy milk"', "buy milk", True), (True, "yes", True),
    (False, "No", True), (3, "3", True), (None, "", True), ("milk", "milk!", False),
    (True, "1", False),
], ids=["case_space_period", "quotes", "yes", "no", "number", "none", "punctuation", "one"])
def test_values_compare_by_normalized_text(a: object, b: object, same: bool) -> None:
    assert v.same(a, b) is same


@pytest.mark.parametrize(("answer", "expected", "ok"), [
    ("3", 3, True), ("There are 3 notes.", 3, True), ("3 or 4", 3, False), (None, 0, False),
    ("Yes", True, True), ("no", True, False), ("Pay rent", "pay rent", True),
], ids=["digits", "sentence", "two_numbers", "no_answer", "yes", "no", "text"])
def test_answers_match_leniently_but_not_loosely(answer: object, expected: object, ok: bool) -> None:
    assert v.answer_matches(answer, expected) is ok


def test_instructions_insert_parameters_without_format_syntax() -> None:
    assert render_instruction("Add {t} {{x}} {0} {missing}", {"t": "{0}"}) == \
        "Add {0} {{x}} {0} {missing}"


def test_params_used_and_reads_answer() -> None:
    spec = TaskSpec.model_validate({**BASE, "rule": RULES["nested"]})
    assert r.params_used(spec.rule) == set() and not r.reads_answer(spec.rule)
    spec = TaskSpec.model_validate({**BASE, "rule": RULES["exists"]})
    assert r.params_used(spec.rule) == {"x"}
    assert r.reads_answer(TaskSpec.model_validate({**BASE, "rule": RULES["lookup"]}).rule)
