"""Command line of the tasks package, mounted on `phoneworld` by `phoneworld.cli`:
`phoneworld tasks list|show|check|eval APP` and `phoneworld demos APP --out FILE.jsonl`.

APP is a built app folder; its tasks are the synthesized specs in APP/task_specs/ plus any
`--specs` file or folder of hand-written ones. Bad specs are reported compiler-style (file:line)
and exit with 1, as does a `check` in which some task fails its sanity check.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

from phoneworld.ir.report import TasksSummary

import typer
from rich.console import Console

from phoneworld.errors import PhoneworldError

err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)
tasks_app = typer.Typer(no_args_is_help=True, add_completion=False,
                        help="Tasks of a built app: list, show, sanity-check, evaluate.")
APP_HELP = "A built app folder (holding app.json)."
SPECS_HELP = "Hand-written task spec files or folders (e.g. task_specs/<app>/); repeatable."
SpecsOpt = typer.Option([], "--specs", help=SPECS_HELP)
DEMOS_SIGNATURE = b'{"app": '  # how every demonstrations line begins


def fail(exc: PhoneworldError) -> None:
    if exc.diagnostics:
        for d in exc.diagnostics:
            style = {"error": "red", "warning": "yellow", "note": "cyan"}[d.severity]
            err.print(d.render(), style=style, markup=False, highlight=False)
    err.print(f"error: {exc}", style="red", markup=False, highlight=False)
    raise typer.Exit(exc.exit_code)


def _catalog(app_dir: Path, specs: list[Path], only_specs: bool = False):  # type: ignore[no-untyped-def]
    from phoneworld.tasks.catalog import load_catalog

    return load_catalog(app_dir, specs, synthesized=not only_specs)


@tasks_app.command("list")
def list_tasks(app_dir: Path = typer.Argument(..., help=APP_HELP),
               specs: list[Path] = SpecsOpt) -> None:
    """One line per task: id, kind, oracle steps (from the build), instruction."""
    from phoneworld.tasks.params import instantiate

    try:
        cat = _catalog(app_dir, specs)
        index = cat.index()
        for t in cat.tasks:
            steps = index.get(t.spec.id, {}).get("oracle_steps")
            text = instantiate(t.spec, cat.app).instruction
            typer.echo(f"{t.spec.id:<48} {t.spec.kind():<8} {steps if steps else '-':>3}  {text}")
    except PhoneworldError as exc:
        fail(exc)
    rejected = [e for e in cat.index().values() if not e["kept"]]
    err.print(f"{len(cat.tasks)} task(s); {len(rejected)} synthesized task(s) were rejected by "
              "the sanity check (see tasks.json)", markup=False)


@tasks_app.command("show")
def show(app_dir: Path = typer.Argument(..., help=APP_HELP),
         task_id: str = typer.Argument(..., help="The task id."),
         specs: list[Path] = SpecsOpt,
         seed: Optional[int] = typer.Option(None, min=0, help="Draw the parameters with this seed.")) -> None:
    """The task's spec, a drawn instance, and the oracle's solution."""
    from phoneworld.runtime.sim import Simulator
    from phoneworld.tasks.codegen import compile_verifier
    from phoneworld.tasks.dump import dump_task
    from phoneworld.tasks.oracle import solve
    from phoneworld.tasks.params import instantiate

    try:
        cat = _catalog(app_dir, specs)
        task = cat.find(task_id)
        verifier = compile_verifier(task.spec, cat.app)
        inst = instantiate(task.spec, cat.app, seed, verify=verifier)
        res = solve(Simulator(cat.app), inst, verifier)
    except PhoneworldError as exc:
        fail(exc)
        return
    typer.echo(f"# {task.file}\n{dump_task(task.spec, header=False)}")
    typer.echo(f"instruction: {inst.instruction}\nparams: {json.dumps(inst.params)}")
    if not res.solved:
        typer.echo(f"oracle: not solved ({res.reason})")
        return
    how = "shortest" if res.shortest else "found by best-first search"
    typer.echo(f"oracle: {len(res.moves)} step(s), {how}, {res.explored} states explored")
    for i, m in enumerate(res.moves):
        action = m.json_action(cat.app.device.width, cat.app.device.height)
        typer.echo(f"  {i:>2} {json.dumps(action, ensure_ascii=False)}  {m.target}".rstrip())


@tasks_app.command("check")
def check(app_dir: Path = typer.Argument(..., help=APP_HELP), specs: list[Path] = SpecsOpt,
          only_specs: bool = typer.Option(False, "--only-specs",
                                          help="Check only the --specs tasks.")) -> None:
    """Validate the specs, then sanity-check every task: the oracle solves it, doing nothing and
    an immediate `done` fail, and its verifier rejects every near miss of the oracle's end state
    (a gameable task prints the near miss that passes), and no state reached in fewer steps than
    its solution passes with fewer of the changes the rule reads (a cheaper state, printed the
    same way). Exit 1 when a spec is bad or a task fails."""
    from phoneworld.tasks.sanity import check_tasks, counterexample, summarize

    try:
        cat = _catalog(app_dir, specs, only_specs)
        checks = check_tasks(cat.app, [t.spec for t in cat.tasks])
    except PhoneworldError as exc:
        fail(exc)
        return
    for c in checks:
        mark = "ok      " if c.kept else "REJECTED"
        typer.echo(f"{mark} {c.task.id:<48} {c.detail}")
        for line in counterexample(c):
            typer.echo(f"         {line}")
    bad = [c for c in checks if not c.kept]
    attacks = [c.attack for c in checks if c.attack is not None]
    figures = summarize(checks)
    err.print(f"{len(checks) - len(bad)}/{len(checks)} task(s) pass the sanity check; near misses: "
              f"{sum(a.rejected for a in attacks)}/{sum(a.tried for a in attacks)} rejected, "
              f"{figures.gameable} task(s) gameable; {_cheaper(figures)}; oracle solutions: "
              f"{_steps(figures)}", markup=False)
    if bad:
        raise typer.Exit(1)


def _cheaper(figures: TasksSummary) -> str:
    c = figures.cheaper
    return (f"cheaper: tried {c.get('tried', 0)}, found {c.get('found', 0)} ({c.get('states', 0)} "
            f"states, {c.get('complete', 0)} searches complete)")


def _steps(figures: TasksSummary) -> str:
    if figures.solution_steps is None:
        return "none"
    return (f"{figures.solution_steps:g} steps on average, {figures.proven_shortest} of "
            f"{figures.kept} proven shortest")


@tasks_app.command("eval")
def evaluate(app_dir: Path = typer.Argument(..., help=APP_HELP), specs: list[Path] = SpecsOpt,
             policy: str = typer.Option("random", help="Policy: random or oracle."),
             episodes: int = typer.Option(10, min=1, help="Episodes per task."),
             steps: int = typer.Option(30, min=1, help="Step budget of an episode."),
             seed: int = typer.Option(0, min=0, help="First parameter seed (one per episode)."),
             task: list[str] = typer.Option([], help="Only these task ids; repeatable.")) -> None:
    """Success rate of a built-in policy over the tasks (parameters re-drawn per episode)."""
    from phoneworld.tasks.episodes import evaluate as run_eval

    try:
        cat = _catalog(app_dir, specs)
        res = run_eval(cat.app, [t.spec for t in cat.select(task)], policy, episodes, steps, seed)
    except PhoneworldError as exc:
        fail(exc)
        return
    for tid, (wins, n) in res.per_task.items():
        typer.echo(f"{tid:<48} {wins:>3}/{n}")
    typer.echo(f"{policy} policy: {res.successes}/{res.episodes} episodes solved "
               f"({100 * res.rate:.1f}%) within {steps} steps, {len(res.per_task)} tasks")
    built = [e for e in cat.index().values() if e.get("kept") and e["id"] in res.per_task]
    attacked = [e["near_misses"] for e in built if e.get("near_misses")]
    searched = [e["cheaper"] for e in built if e.get("cheaper")]
    solved = [e for e in built if e.get("oracle_steps") is not None]
    if attacked or solved:  # the build's sanity check of these tasks (tasks.json)
        mean = sum(e["oracle_steps"] for e in solved) / len(solved) if solved else 0
        typer.echo(f"their verifiers rejected {sum(a['rejected'] for a in attacked)} of "
                   f"{sum(a['tried'] for a in attacked)} near misses at build time; cheaper: "
                   f"tried {len(searched)}, found {sum(bool(c['found']) for c in searched)}; "
                   "oracle "
                   f"solutions {mean:.2f} steps on average, "
                   f"{sum(bool(e.get('shortest')) for e in solved)} of {len(solved)} proven "
                   "shortest")


def demos(app_dir: Path = typer.Argument(..., help=APP_HELP),
          out: Path = typer.Option(..., "--out", help="The JSON-lines file to write."),
          specs: list[Path] = SpecsOpt,
          per_task: int = typer.Option(3, min=1, help="Episodes per task (parameters re-drawn)."),
          seed: int = typer.Option(0, min=0, help="First parameter seed."),
          traces: Optional[Path] = typer.Option(None, help="Also save every episode as a native "
                                                "trace under this folder (rebuildable)."),
          task: list[str] = typer.Option([], help="Only these task ids; repeatable."),
          force: bool = typer.Option(False, "--force", help="Replace an --out file, or take over a "
                                     "--traces folder, that phoneworld did not write.")) -> None:
    """Write oracle demonstrations for SFT: one JSON line per episode (instruction, observation
    text, history and action in the paper's format at every step)."""
    from phoneworld import outdir
    from phoneworld.tasks.episodes import demos as make_demos

    try:
        outdir.claim_file(out, [app_dir], force, DEMOS_SIGNATURE, "demonstrations file")
        root = None if traces is None else outdir.claim_root(
            traces, outdir.TRACES_KIND, [app_dir], force, outdir.legacy_traces_root)
        cat = _catalog(app_dir, specs)
        tasks = [t.spec for t in cat.select(task)]
        out.parent.mkdir(parents=True, exist_ok=True)
        n = 0
        with outdir.atomic_text(out) as fh:
            for record in make_demos(cat.app, tasks, per_task, seed, root):
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
                n += 1
    except PhoneworldError as exc:
        fail(exc)
        return
    err.print(f"{n} demonstration(s) of {len(tasks)} task(s) written", markup=False)
    typer.echo(str(out))
