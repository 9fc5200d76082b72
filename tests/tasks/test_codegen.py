"""Generated verifiers: untrusted text stays text, the code is what the template lays out, and
the files a build writes verify exactly like the in-memory verifiers the oracle used."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phoneworld.ir.app import AppSpec
from phoneworld.tasks.codegen import compile_verifier, pylit, pystr, render_verifier
from phoneworld.tasks.params import instantiate
from phoneworld.tasks.spec import TaskSpec

HOSTILE = [
    '"""); import os; os.system("x")#',
    "'''; __import__('os').system('x') #",
    "\\\"); exec('1')\n# {title}",
    "\u2028\u2029\x00\x85 ünï 🙂",
    "{{ evil }} {% raw %}",
]


def _hostile_task(text: str) -> TaskSpec:
    return TaskSpec.model_validate({
        "id": "hostile", "app": "com.example.notes", "instruction": text + " {title}",
        "params": {"title": {"type": "text", "from": "choice", "choices": [text]}},
        "rule": {"all_of": [
            {"exists": {"collection": "note_list_items", "where": {"note_title": text}}},
            {"contains": {"var": "title_input", "value": text}},
            {"equals": {"answer": True, "value": {"param": "title"}}},
        ]},
    })


@pytest.mark.parametrize("text", HOSTILE, ids=["triple_double", "triple_single", "backslash",
                                                "separators", "jinja"])
def test_hostile_task_text_stays_a_string(notes: AppSpec, text: str) -> None:
    source = render_verifier(_hostile_task(text), notes)
    tree = ast.parse(source)  # well-formed Python
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name)}
    assert not calls & {"exec", "eval", "__import__", "compile", "open"}
    assert not any(isinstance(n, ast.Import) for n in ast.walk(tree))  # only `from` imports
    assert source.isascii()
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    assert text + " {title}" in strings  # the instruction survives byte for byte
    verify = compile_verifier(_hostile_task(text), notes)
    state = {"note_list_items": [{"note_title": text, "note_done": False}], "title_input": text}
    assert verify(state, {"title": text}, text).passed


@pytest.mark.parametrize("value", ["a'b", 'a"b', "a\\b", "\n", "🙂", ""],
                         ids=["quote", "dquote", "backslash", "newline", "emoji", "empty"])
def test_literal_filters_round_trip(value: str) -> None:
    assert ast.literal_eval(pystr(value)) == value
    assert ast.literal_eval(pylit(value)) == value
    assert pylit(True) == "True" and pylit(7) == "7"


def test_rendering_is_deterministic(notes: AppSpec) -> None:
    task = _hostile_task("x")
    assert render_verifier(task, notes) == render_verifier(task, notes)


def test_built_verifier_files_agree_with_the_in_memory_ones(example_dir: Path, notes: AppSpec,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from phoneworld.tasks.catalog import load_catalog

    monkeypatch.syspath_prepend(str(example_dir))
    for name in [m for m in sys.modules if m == "verifiers" or m.startswith("verifiers.")]:
        monkeypatch.delitem(sys.modules, name)
    package = importlib.import_module("verifiers")
    cat = load_catalog(example_dir)
    assert set(package.TASKS) == {t.spec.id for t in cat.tasks}
    for t in cat.tasks:
        inst = instantiate(t.spec, notes)
        memory = compile_verifier(t.spec, notes)
        state = {**inst.state, "@screen": notes.start_screen}  # as a backend's read_state() has it
        for answer in (None, "3", "yes"):
            got = package.verify(t.spec.id, state, inst.params, answer)
            assert got == memory(state, inst.params, answer), t.spec.id


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(min_size=1, max_size=40))
def test_any_text_enters_generated_code_only_as_a_string(notes: AppSpec, text: str) -> None:
    task = TaskSpec.model_validate({
        "id": "prop", "app": "com.example.notes", "instruction": text,
        "rule": {"contains": {"var": "title_input", "value": text}},
    })
    source = render_verifier(task, notes)
    tree = ast.parse(source)
    assert text in [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    assert compile_verifier(task, notes)({"title_input": "x" + text}, {}, None).passed
