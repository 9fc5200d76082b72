"""Cross-app tasks on the CI world: rules across apps, synthesis, the oracle, the sanity check,
and the stale-clipboard distractor."""

from __future__ import annotations

import pytest

from phoneworld.ir import trace as tr
from phoneworld.tasks.codegen import compile_verifier
from phoneworld.tasks.spec import TaskSpec
from phoneworld.world.check import check_all, check_one
from phoneworld.tasks.sanity import replay
from phoneworld.world.schema import instantiate, schema_of
from phoneworld.world.synth import handoff_tasks
from tests.world.driver import click, long_press

NOTES, MSG = "com.example.notes", "com.example.messages"


@pytest.fixture()
def schema(world):  # type: ignore[no-untyped-def]
    return schema_of(world)


@pytest.fixture(scope="module")
def checks(mini_world):  # type: ignore[no-untyped-def]
    from phoneworld.world.device import World
    from phoneworld.world.load import load_world

    w = World(load_world(mini_world))
    s = schema_of(w)
    return w, s, check_all(w, s, handoff_tasks(w, s))


def _task(rule: dict, **extra) -> TaskSpec:  # type: ignore[type-arg, no-untyped-def]
    return TaskSpec.model_validate({"id": "t", "app": "world:mini", "category": "cross_app",
                                    "instruction": "x", "rule": rule, **extra})


def test_a_rule_reads_two_apps_and_the_clipboard(world, schema) -> None:  # type: ignore[no-untyped-def]
    rule = {"all_of": [
        {"equals": {"var": "@clipboard", "value": "Buy milk"}},
        {"exists": {"collection": f"{NOTES}:note_list_items", "where": {"note_title": "Buy milk"}}},
        {"equals": {"var": f"{MSG}:body_input", "value": {"lookup": {
            "collection": f"{NOTES}:note_list_items", "where": {"note_done": False},
            "field": "note_title"}}}},
    ]}
    v = compile_verifier(_task(rule), schema)
    assert not v(world.peek(), {}, None).passed
    click(world, "Notes")
    long_press(world, "Buy milk")
    click(world, "Copy")
    world.step(tr.OpenApp(package=MSG))
    click(world, "New message")
    long_press(world, "body_input")
    click(world, "Paste")
    assert v(world.peek(), {}, None).passed
    assert v(world.state, {}, None).passed  # the JSON state reads the same as the live view


def test_verifiers_keep_hostile_names_strings(schema) -> None:  # type: ignore[no-untyped-def]
    from phoneworld.tasks.codegen import render_verifier

    evil = '"); import os; os.system("x'
    src = render_verifier(_task({"equals": {"var": "@clipboard", "value": evil}}), schema)
    v = compile_verifier(_task({"equals": {"var": "@clipboard", "value": evil}}), schema)
    import ast

    imported = {a.name for n in ast.walk(ast.parse(src)) if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in n.names}
    assert "os" not in imported
    assert v({"@clipboard": evil}, {}, None).passed


def test_synthesis_covers_every_mechanism_and_the_oracle_solves_all(checks) -> None:  # type: ignore[no-untyped-def]
    world, _, cs = checks
    kinds = {c.task.tags[0] for c in cs}
    assert kinds == {"copy", "stale_clipboard", "share", "file"}
    assert len(cs) >= 12
    failed = [(c.task.id, c.detail) for c in cs if not c.kept]
    assert not failed
    for c in cs:
        assert c.task.category == "cross_app" and "handoff" in c.task.tags
        apps = {str(k).split(":")[0] for k in _names(c.task.rule)}
        assert len(apps - {"@clipboard", "@files", "@notifications"}) >= 1
        assert replay(world, c.instance, c.verifier, c.oracle.moves)


def _names(rule) -> set[str]:  # type: ignore[no-untyped-def]
    import json
    import re

    return set(re.findall(r'"(?:var|collection)": "([^"]+)"', json.dumps(rule.model_dump(by_alias=True))))


def test_every_kept_task_was_searched_for_a_cheaper_passing_state(checks) -> None:  # type: ignore[no-untyped-def]
    """The world is searched as an app is (every path shorter than the staged solution): no
    state passes with fewer of the changes the rule reads."""
    _, _, cs = checks
    searched = [c.cheaper for c in cs if c.kept]
    assert searched and all(x is not None and x.tried > 0 and not x.found for x in searched)
    print(f"world handoffs: cheaper: tried {len(searched)}, found 0, "
          f"{sum(x.tried for x in searched)} states")  # type: ignore[union-attr]


def test_every_kept_task_fails_when_nothing_or_done_is_done(checks) -> None:  # type: ignore[no-untyped-def]
    world, _, cs = checks
    for c in cs:
        world.reset(c.instance.state)
        assert not c.verifier(world.peek(), c.instance.params, None).passed
        world.step(tr.Done(answer=""))
        assert not c.verifier(world.peek(), c.instance.params, "").passed


def _paste_without_copying(world, to: str) -> None:  # type: ignore[no-untyped-def]
    """A policy that knows the way but never copies: open Messages, paste, address, send."""
    world.step(tr.OpenApp(package=MSG))
    click(world, "New message")
    long_press(world, "body_input")
    click(world, "Paste")
    click(world, "to_input")
    world.step(tr.TypeText(text=to))
    click(world, "Send")


def test_stale_clipboard_distractor_fails_pasting_without_copying(checks) -> None:  # type: ignore[no-untyped-def]
    world, schema, cs = checks
    stale = [c for c in cs if c.task.tags[0] == "stale_clipboard" and c.task.id.endswith("com_example_messages")
             and c.instance.params["text"] != c.instance.state["@clipboard"]]
    assert stale
    for c in stale:
        inst = c.instance
        world.reset(inst.state)
        assert world.state["@clipboard"] not in ("", inst.params["text"])
        _paste_without_copying(world, inst.params["to_0"])
        sent = world.state[f"{MSG}:message_list_items"][-1]
        assert sent["message_text"] == inst.state["@clipboard"]  # the stale text went out
        assert not c.verifier(world.peek(), inst.params, None).passed
        assert c.kept and replay(world, inst, c.verifier, c.oracle.moves)  # the oracle passes


def test_a_redraw_keeps_the_distractor_apart_from_the_text(checks) -> None:  # type: ignore[no-untyped-def]
    _, schema, cs = checks
    c = next(c for c in cs if c.task.tags[0] == "stale_clipboard" and "note_title" in c.task.id)
    for seed in range(10):
        inst = instantiate(c.task, schema, seed=seed)
        assert inst.state["@clipboard"] == inst.params["stale"] != inst.params["text"]


def test_check_one_rejects_a_task_done_at_start(world, schema) -> None:  # type: ignore[no-untyped-def]
    c = check_one(world, schema, _task({"equals": {"var": "@clipboard", "value": "Stale text"}}))
    assert not c.kept and c.reason == "already satisfied at start"


def test_a_world_task_ends_on_an_app_screen(world, schema) -> None:  # type: ignore[no-untyped-def]
    settings = f"{NOTES}:s03_settings"
    assert settings in schema.screens and "@home" in schema.screens
    pins = [{"equals": {"var": f"{NOTES}:{v}", "value": False}}
            for v in ("dark_mode_switch", "sort_switch")]
    pins += [{"unchanged": {"collection": c}}
             for c in (f"{NOTES}:note_list_items", f"{MSG}:message_list_items")]
    c = check_one(world, schema, _task({"all_of": [{"screen": settings}, *pins]}))
    assert c.kept, c.detail
    assert c.end is not None and c.end["@screen"] == settings
    assert c.oracle is not None and c.attack is not None and c.attack.rejected == c.attack.tried


def test_a_world_screen_is_named_with_its_package(schema, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from phoneworld.errors import InputError
    from phoneworld.world.check import load_world_tasks

    (tmp_path / "t.yaml").write_text(
        "format: phoneworld-task/1\nid: t\napp: world:mini\ninstruction: x\n"
        "rule:\n  screen: s03_settings\n")
    with pytest.raises(InputError) as info:
        load_world_tasks([tmp_path], schema)
    d = info.value.diagnostics[0]
    assert (d.code, d.source.line) == ("PW304", 6)
    assert f"did you mean '{NOTES}:s03_settings'" in d.message


def test_a_world_search_given_a_longer_solution_finds_the_shorter_one(checks) -> None:  # type: ignore[no-untyped-def]
    """Where a path shorter than the solution passes, the world's cheaper search judges its end
    state (read off the world: a snapshot holds no state of its own) and reports it."""
    from dataclasses import replace

    from phoneworld.tasks.oracle import Move
    from phoneworld.tasks.sanity import changes
    from phoneworld.world.oracle import WORLD_ORACLE, search_cheaper

    world, schema, cs = checks
    c = min((c for c in cs if c.kept), key=lambda c: len(c.oracle.moves))
    padded = replace(c.oracle, moves=c.oracle.moves + (Move("back"),))
    start = dict(c.instance.state)
    found = search_cheaper(world, schema, c.instance, c.verifier, padded,
                           lambda state: changes(start, state, frozenset()),
                           replace(WORLD_ORACLE, max_cheaper=20_000))
    assert found.shorter is not None and len(found.shorter) <= len(c.oracle.moves)
