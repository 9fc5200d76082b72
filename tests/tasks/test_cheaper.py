"""Issue 16's search for cheaper passing states and record identity in `unchanged`: a state
reached in fewer steps than the oracle's solution that passes with fewer of the changes the rule
reads makes the task gameable; a rename done as a delete and an add fails an `unchanged` pin
with `edit` (records are identified by their place)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from typer.testing import CliRunner

from phoneworld.cli import app as cli
from phoneworld.ir.app import AppSpec
from phoneworld.pipeline import BuildResult
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks import sanity
from phoneworld.tasks.adversary import changes
from phoneworld.tasks.codegen import compile_verifier
from phoneworld.tasks.oracle import search_cheaper, solve
from phoneworld.tasks.params import instantiate
from phoneworld.tasks.spec import TaskSpec
from phoneworld.tasks.verdict import in_place, unchanged

REPLACED = Path(__file__).resolve().parent / "fixtures" / "replaced_specs"
NOTES = "note_list_items"
START = {NOTES: [{"note_title": "A", "note_done": False}, {"note_title": "Old", "note_done": True},
                 {"note_title": "B", "note_done": False}]}
EXCEPT = ((("note_title", "eq", "Old"),), (("note_title", "eq", "New"),))


def _notes(*recs: tuple[str, bool]) -> dict:  # type: ignore[type-arg]
    return {NOTES: [{"note_title": t, "note_done": d} for t, d in recs]}


def _spec(notes: AppSpec, task_id: str, rule: dict, instruction: str = "t",  # type: ignore[type-arg]
          params: dict | None = None) -> TaskSpec:  # type: ignore[type-arg]
    return TaskSpec.model_validate({"id": task_id, "app": notes.package, "instruction": instruction,
                                    "params": params or {}, "rule": rule})


def test_a_rename_keeps_its_place_a_delete_and_add_does_not() -> None:
    renamed = _notes(("A", False), ("New", True), ("B", False))
    readded = _notes(("A", False), ("B", False), ("New", True))
    assert unchanged(renamed, START, NOTES, EXCEPT, "u", edit=("note_title",)).passed
    assert unchanged(readded, START, NOTES, EXCEPT, "u").passed  # without identity: passes
    v = unchanged(readded, START, NOTES, EXCEPT, "u", edit=("note_title",))
    assert not v.passed and "'Old'" in v.reason and "not where it was" in v.reason
    # the done flag is no field the rename may change; a new record may come at either end
    assert in_place(START[NOTES], _notes(("A", False), ("New", False), ("B", False))[NOTES],
                    EXCEPT, ("note_title",)) == 1
    assert in_place(START[NOTES], _notes(("New", False), ("A", False), ("Old", True),
                                         ("B", False))[NOTES], EXCEPT, ("note_title",)) is None


def test_the_rename_spec_rejects_its_delete_and_add(notes: AppSpec) -> None:
    """task_specs' rename_note identifies the note by its place: the delete-and-add fails."""
    from tests.tasks.conftest import HAND_SPECS
    from phoneworld.tasks.load import load_task_specs

    spec = next(t.spec for t in load_task_specs([HAND_SPECS], notes) if t.spec.id == "rename_note")
    verifier = compile_verifier(spec, notes)
    inst = instantiate(spec, notes, verify=verifier)
    old, new = inst.params["old"], inst.params["new"]
    recs = [dict(r) for r in inst.state[NOTES]]
    i = next(i for i, r in enumerate(recs) if r["note_title"] == old)
    renamed = [*recs[:i], {**recs[i], "note_title": new}, *recs[i + 1:]]
    readded = [*recs[:i], *recs[i + 1:], {**recs[i], "note_title": new}]
    assert verifier({**inst.state, NOTES: renamed}, inst.params).passed
    if i < len(recs) - 1:
        assert not verifier({**inst.state, NOTES: readded}, inst.params).passed


def test_a_spec_without_identity_fails_check_with_the_delete_and_add(example_dir: Path) -> None:
    res = CliRunner().invoke(cli, ["tasks", "check", str(example_dir), "--specs", str(REPLACED),
                                   "--only-specs"])
    assert res.exit_code == 1, res.output
    assert "REJECTED rename_anyhow" in res.output and "replaced:" in res.output
    assert "the same records in another order" in res.output
    assert "edit: [note_title]" in res.output


def test_a_state_that_passes_with_fewer_changes_is_found(notes: AppSpec) -> None:
    """A solution that adds a note and turns on Dark mode, for a rule that asks only for Dark
    mode (and reads the notes): turning it on alone passes in fewer steps, with fewer changes."""
    rule = {"all_of": [{"equals": {"var": "dark_mode_switch", "value": True}},
                       {"count": {"collection": NOTES, "at_least": 3}}]}
    spec = _spec(notes, "dark", rule)
    both = _spec(notes, "both", {"all_of": [
        {"exists": {"collection": NOTES, "where": {"note_title": {"param": "title"}}}},
        {"equals": {"var": "dark_mode_switch", "value": True}}]},
        'Add "{title}" and turn on Dark mode', {"title": {"from": "choice", "choices": ["X"]}})
    sim, verifier = Simulator(notes), compile_verifier(spec, notes)
    padded = replace(solve(sim, instantiate(both, notes, verify=compile_verifier(both, notes)),
                           compile_verifier(both, notes)), cheaper=None)  # another task's search
    inst = instantiate(spec, notes, verify=verifier)
    reads = frozenset({NOTES, "dark_mode_switch"})
    found = search_cheaper(sim, inst, verifier, padded,
                           lambda st: changes(inst.state, st, reads))
    assert padded.solved and found.found and found.fewer is not None
    assert len(found.fewer) < len(padded.moves) and found.changes == (2, 1)
    end, _ = sanity.play(sim, inst, padded.moves)
    check = sanity.TaskCheck(spec, False, sanity.CHEAPER, "", padded, inst, verifier, end=end,
                             cheaper=found)
    lines = sanity.counterexample(check)
    assert lines[0].startswith("a cheaper state passes the verifier: 2 step(s) making 1 of the 2")
    assert any(x.strip() == "note_list_items: - {note_done: False, note_title: 'X'}" for x in lines)
    assert "hint: the rule does not ask for note_list_items: + " in lines[-1]


def test_the_oracle_proves_best_first_solutions_shortest_or_shortens_them(notes: AppSpec) -> None:
    """With no breadth-first budget every solution is best-first; the search after it proves
    the short ones shortest and replaces a longer one by the shortest."""
    from phoneworld.tasks.catalog import load_catalog  # noqa: F401 (same engine as the build)
    from phoneworld.tasks.oracle import OracleConfig

    spec = _spec(notes, "dark", {"equals": {"var": "dark_mode_switch", "value": True}})
    verifier = compile_verifier(spec, notes)
    inst = instantiate(spec, notes, verify=verifier)
    bfs = solve(Simulator(notes), inst, verifier)
    guided = solve(Simulator(notes), inst, verifier, OracleConfig(max_states=1))
    assert bfs.shortest and guided.cheaper is not None
    assert guided.shortest and len(guided.moves) == len(bfs.moves)


def test_the_example_reports_its_cheaper_search(example_build: BuildResult) -> None:
    t = example_build.apps[0].report.tasks
    assert t is not None and t.cheaper["tried"] == t.kept and t.cheaper["found"] == 0
    assert t.cheaper["states"] > 0 and t.cheaper["complete"] >= t.kept // 2
    assert t.proven_shortest >= t.cheaper["complete"] - 2
    print(f"example: cheaper: tried {t.cheaper['tried']}, found {t.cheaper['found']}, "
          f"{t.cheaper['complete']} complete; {t.proven_shortest}/{t.kept} proven shortest")
