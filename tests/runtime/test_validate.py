"""Loading app specs and checking specs and states before the runtime trusts them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from phoneworld.errors import AppSpecError, EnvError
from phoneworld.ir.app import (
    AppSpec, Count, FieldSpec, Guard, RemoveEffect, Selected, StateVar, Transition, Var,
)
from phoneworld.runtime import load_app
from phoneworld.runtime.compiled import compile_app
from phoneworld.runtime.validate import check_spec, normalize_state

from .notes_app import B, button, go, mini_app, notes_app


def write(folder: Path, data: Any) -> Path:
    path = folder / "app.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_load_app_from_folder_and_file(tmp_path: Path) -> None:
    app = notes_app()
    path = write(tmp_path, app.model_dump(mode="json", by_alias=True))
    assert load_app(tmp_path) == app
    assert load_app(path) == app


@pytest.mark.parametrize(("content", "message"), [
    (None, "run|phoneworld build"),
    ("{\n  \"format\": \"phoneworld-app/1\",\n  oops\n}", r"app\.json:3:3: invalid JSON"),
    ([1, 2], "JSON object"),
    ({"format": "phoneworld-app/0"}, "'phoneworld-app/0' is not supported.*'phoneworld-app/1'"),
    ({"format": "phoneworld-app/1", "package": 3}, "not a valid app spec"),
], ids=["missing", "bad-json", "not-an-object", "wrong-format", "schema"])
def test_load_app_errors(tmp_path: Path, content: Any, message: str) -> None:
    if content is not None:
        write(tmp_path, content)
    with pytest.raises(AppSpecError, match=message):
        load_app(tmp_path)


def test_load_app_checks_references(tmp_path: Path) -> None:
    bad = mini_app({"a": [button("btn", B(0, 0, 10, 10))]}, [go("t", "a", "btn", "nowhere")])
    write(tmp_path, bad.model_dump(mode="json", by_alias=True))
    with pytest.raises(AppSpecError, match="unknown target screen 'nowhere'"):
        load_app(tmp_path)


def test_check_spec_lists_every_problem() -> None:
    kids = [button("btn", B(0, 0, 10, 10)), button("btn", B(0, 0, 10, 10), text="x"),
            button("lbl", B(0, 0, 10, 10), text="y").model_copy(update={"text": Var(name="nope")}),
            button("cnt", B(0, 0, 10, 10)).model_copy(update={"text": Count(collection="flag")}),
            button("sel", B(0, 0, 10, 10)).model_copy(
                update={"text": Selected(collection="items", field="t")})]
    state = (StateVar(name="flag", kind="flag"), StateVar(name="items", kind="collection"),
             StateVar(name="flag", kind="text"))
    trans = [go("t", "a", "ghost", "b"), go("t", "a", "btn", None),
             Transition(id="r", screen="zz", action="click",
                        effects=(RemoveEffect(collection="items", target="selected"),)),
             Transition(id="g", screen="a", action="click", widget="btn",
                        guard=Guard(op="all", terms=(Guard(op="nonempty"),)))]
    problems = check_spec(mini_app({"a": kids}, trans, state))
    text = "\n".join(problems)
    for needle in ["'btn' is not unique", "unknown state variable 'nope'",
                   "'flag' is not a collection", "'items' has no selection variable",
                   "'flag' is declared twice", "transition id is not unique",
                   "has no widget 'ghost'", "unknown target screen 'b'", "unknown screen 'zz'",
                   "guard 'nonempty' has no left operand"]:
        assert needle in text, (needle, text)


def test_a_broken_initial_state_is_a_spec_error() -> None:
    app = notes_app().model_copy(update={"initial_state": {"saves": "many"}})
    with pytest.raises(AppSpecError, match=r"initial_state.*saves must be a number"):
        compile_app(app)


def test_normalize_fills_defaults_and_coerces() -> None:
    app = compile_app(notes_app())
    out = normalize_state(app, {"notes": [{"title": "a"}, {"done": True, "extra": 1}],
                                "saves": 3.0, "verifier_only": {"k": [1]}})
    assert out["notes"] == [{"title": "a", "done": False}, {"title": "", "done": True, "extra": 1}]
    assert out["saves"] == 3 and out["editor_title"] == "" and out["selected_note"] is None
    assert out["verifier_only"] == {"k": [1]}


@pytest.mark.parametrize(("state", "message"), [
    ([], "must be a JSON object"),
    ({"notes": {}}, "notes must be a list of records"),
    ({"notes": ["x"]}, r"notes\[0\] must be a record"),
    ({"notes": [{"title": 1}]}, r"notes\[0\]\.title must be a text value"),
    ({"notes": [{"extra": [1]}]}, r"notes\[0\]\.extra must be a scalar"),
    ({"saves": True}, "saves must be a number"),
    ({"saves": 1.5}, "saves must be a number"),
    ({"selected_note": "0"}, "selected_note must be a selection"),
    ({"x": {1, 2}}, "not JSON-serialisable"),
], ids=["not-object", "collection", "record", "field", "nested-extra", "bool-number", "float",
        "selection", "extra-not-json"])
def test_normalize_rejects_wrong_types(state: Any, message: str) -> None:
    with pytest.raises(EnvError, match=message):
        normalize_state(compile_app(notes_app()), state)


def test_field_defaults_of_the_wrong_type_fall_back_to_the_kind_default() -> None:
    items = StateVar(name="items", kind="collection",
                     fields=(FieldSpec(name="n", kind="number"), FieldSpec(name="f", kind="flag")))
    app = compile_app(mini_app({"a": []}, [], (items,), {"items": [{}]}))
    assert app.initial_state["items"] == [{"n": 0, "f": False}]
    assert isinstance(app.spec, AppSpec)
