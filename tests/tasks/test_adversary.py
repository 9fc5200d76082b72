"""Every verifier is attacked with near-miss end states before its task ships (issue 16):
a verifier that accepts one is gameable, the task is rejected (synthesized) or `tasks check`
fails with the near miss as a state diff and a hint (hand-written)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from phoneworld.cli import app as cli
from phoneworld.ir.app import AppSpec
from phoneworld.pipeline import BuildResult
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks import sanity
from phoneworld.tasks.adversary import Writable, attack, near_misses, state_diff
from phoneworld.tasks.catalog import load_catalog
from phoneworld.tasks.codegen import compile_verifier
from phoneworld.tasks.episodes import demos
from phoneworld.tasks.params import instantiate
from phoneworld.tasks.spec import TaskSpec

GAMEABLE = Path(__file__).resolve().parent / "fixtures" / "gameable_specs"
NOTES = "note_list_items"


def _spec(notes: AppSpec, rule: dict, instruction: str, params: dict) -> TaskSpec:  # type: ignore[type-arg]
    return TaskSpec.model_validate({"id": "t", "app": notes.package, "instruction": instruction,
                                    "params": params, "rule": rule})


def _rename(extra: list) -> dict:  # type: ignore[type-arg]
    return {"all_of": [
        {"exists": {"collection": NOTES, "where": {"note_title": {"param": "new"}}}},
        {"not": {"exists": {"collection": NOTES, "where": {"note_title": {"param": "old"}}}}},
        *extra]}


RENAME = ('Rename the note "{old}" to "{new}"',
          {"old": {"from": "app_data", "source": f"{NOTES}.note_title"},
           "new": {"from": "choice", "choices": ["Walk the dog"]}})


def _renamed(notes: AppSpec, spec: TaskSpec) -> tuple[dict, dict, dict]:  # type: ignore[type-arg]
    inst = instantiate(spec, notes, verify=compile_verifier(spec, notes))
    end = {k: v for k, v in inst.state.items()}
    end[NOTES] = [dict(r) for r in inst.state[NOTES]]
    for r in end[NOTES]:
        if r["note_title"] == inst.params["old"]:
            r["note_title"] = inst.params["new"]
    return inst.state, end, inst.params


def test_a_rule_that_ignores_the_other_records_accepts_side_effects(notes: AppSpec) -> None:
    spec = _spec(notes, _rename([{"count": {"collection": NOTES, "equals": 3}}]), *RENAME)
    start, end, params = _renamed(notes, spec)
    result = attack(compile_verifier(spec, notes), start, end, params, Writable.of(notes),
                    reads=frozenset({NOTES}))
    kinds = {m.kind for m in result.accepted}
    assert "side effect" in kinds  # another note's title or done flag changed passes
    assert result.tried > len(result.accepted)


def test_unchanged_makes_the_same_rule_reject_every_near_miss(notes: AppSpec) -> None:
    pins = [{"count": {"collection": NOTES, "equals": 3}},
            {"unchanged": {"collection": NOTES, "except": [{"note_title": {"param": "old"}},
                                                            {"note_title": {"param": "new"}}],
                           "edit": ["note_title"]}},  # renamed in place, not deleted and re-added
            {"equals": {"var": "dark_mode_switch", "value": False}},
            {"equals": {"var": "sort_switch", "value": False}}]
    spec = _spec(notes, _rename(pins), *RENAME)
    start, end, params = _renamed(notes, spec)
    verifier = compile_verifier(spec, notes)
    assert verifier(end, params).passed
    result = attack(verifier, start, end, params, Writable.of(notes),
                    reads=frozenset({NOTES, "dark_mode_switch", "sort_switch"}))
    assert result.tried >= 8 and not result.accepted, [m.what for m in result.accepted]


def test_near_misses_cover_each_class(notes: AppSpec) -> None:
    start = {NOTES: [{"note_title": "A", "note_done": False}, {"note_title": "B", "note_done": True}],
             "dark_mode_switch": False, "sort_switch": False}
    end = {**start, NOTES: [{"note_title": "A", "note_done": False},
                            {"note_title": "B", "note_done": True},
                            {"note_title": "X", "note_done": False}]}
    misses = near_misses(Writable.of(notes), start, end, {"title": "X", "other": "Y"},
                         reads=frozenset({NOTES}))
    kinds = {m.kind for m in misses}
    assert {"swap", "undone", "side effect"} <= kinds
    assert all(m.state != end for m in misses)
    undone = next(m for m in misses if m.kind == "undone")
    assert state_diff(end, undone.state) == [f"{NOTES}: - {{note_done: False, note_title: 'X'}}"]


def test_the_swapped_demonstration_fails_its_verifier(notes: AppSpec, example_dir: Path) -> None:
    """The issue's draw: "add A and rename B to C", demonstrated as add C and rename B to A."""
    task = next(t.spec for t in load_catalog(example_dir).tasks
                if t.spec.id == "pair_note_title_and_note")
    verifier = compile_verifier(task, notes)
    inst = instantiate(task, notes, verify=verifier)
    new = next(n for n, p in task.params.items() if p.from_ == "phrase" and n != "title")
    check = sanity.check_one(Simulator(notes), task, notes)
    assert check.kept and check.end is not None
    swapped = {**check.end, NOTES: [
        {**r, "note_title": {inst.params["title"]: inst.params[new],
                             inst.params[new]: inst.params["title"]}.get(r["note_title"],
                                                                         r["note_title"])}
        for r in check.end[NOTES]]}
    assert swapped != check.end
    assert verifier(check.end, inst.params).passed
    assert not verifier(swapped, inst.params).passed


def test_every_kept_task_of_the_example_rejects_all_its_near_misses(
        example_build: BuildResult) -> None:
    t = example_build.apps[0].report.tasks
    assert t is not None and t.adversarial["tried"] > 100
    assert t.adversarial["rejected"] == t.adversarial["tried"]
    print(f"example: {t.kept} kept tasks, near misses {t.adversarial['rejected']}/"
          f"{t.adversarial['tried']} rejected, {t.gameable} gameable")


def test_the_count_less_spec_fails_check_with_the_rename_counterexample(example_dir: Path) -> None:
    """"Add X, mark it done, turn on Dark mode" without a count: the oracle renames the done
    note "Call Alice" instead, and the check shows it."""
    res = CliRunner().invoke(cli, ["tasks", "check", str(example_dir), "--specs", str(GAMEABLE),
                                   "--only-specs"])
    assert res.exit_code == 1, res.output
    assert "REJECTED add_done_dark" in res.output
    assert "a near miss passes the verifier" in res.output
    assert "Call Alice" in res.output and "hint:" in res.output
    assert "count: {collection: note_list_items" in res.output


def test_create_note_done_demonstrations_have_no_detour(notes: AppSpec, example_dir: Path) -> None:
    task = next(t.spec for t in load_catalog(example_dir).tasks if t.spec.id == "create_note_done")
    for record in demos(notes, [task], per_task=4):
        acts = [s["action"] for s in record["steps"]]
        assert len(acts) <= 5, acts  # add, type, save, tick (and done)
        taps = [(a.get("element"), a["type"]) for a in acts if a["type"] == "click"]
        checks = [s["target"] for s in record["steps"] if "CheckBox" in s["target"]]
        assert len(checks) <= 1, checks  # no box ticked and unticked again
        assert len(taps) == len(set(taps)) or len(checks) <= 1


def test_a_detour_is_cut_from_a_best_first_solution(notes: AppSpec, example_dir: Path) -> None:
    """The issue's demonstration: tick "Buy milk" first, untick it last, around the real work."""
    from phoneworld.tasks.oracle import Move, OracleConfig, _Search

    task = next(t.spec for t in load_catalog(example_dir).tasks if t.spec.id == "create_note_done")
    verifier = compile_verifier(task, notes)
    inst = instantiate(task, notes, verify=verifier)
    sim = Simulator(notes)
    check = sanity.check_one(sim, task, notes)
    assert check.oracle is not None and len(check.oracle.moves) == 4
    sim.reset(inst.state)
    box = next(e for e in sim.frame().elements if e.checkable)
    tick = Move("click", box.x, box.y)
    detour = (tick, *check.oracle.moves, tick)
    search = _Search(sim, check.instance, verifier, OracleConfig())
    assert search.passes(detour)
    assert search.shorten(detour) == check.oracle.moves


def test_the_report_shows_each_task_s_attack(example_dir: Path) -> None:
    html = (example_dir / "report.html").read_text(encoding="utf-8")
    assert "near misses: " in html and " rejected" in html
    kept = load_catalog(example_dir).tasks
    assert kept and html.count("near misses: ") >= len(kept)


def test_check_and_eval_report_the_attack_and_the_solution_lengths(example_dir: Path) -> None:
    check = CliRunner().invoke(cli, ["tasks", "check", str(example_dir)])
    assert check.exit_code == 0, check.output
    assert "near misses: " in check.output and "0 task(s) gameable" in check.output
    assert "proven shortest" in check.output
    ev = CliRunner().invoke(cli, ["tasks", "eval", str(example_dir), "--policy", "oracle",
                                  "--episodes", "1", "--task", "create_note"])
    assert ev.exit_code == 0, ev.output
    assert "near misses at build time" in ev.output and "proven shortest" in ev.output
