"""`phoneworld world build|check|tasks|run`, mounted on `phoneworld` by `phoneworld.cli`.

Bad world specs and task specs are reported compiler-style (`file:line: error[PW4xx]`, or PW3xx
for task specs) and exit with 1; a `check` in which a task fails its sanity check exits with 1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from phoneworld.errors import PhoneworldError
from phoneworld.tasks.cli import fail

err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)
world_app = typer.Typer(no_args_is_help=True, add_completion=False,
                        help="Cross-app worlds: several apps on one device, and tasks across them.")
WORLD_HELP = "A world folder built by `phoneworld world build`."


def _load(world_dir: Path):  # type: ignore[no-untyped-def]
    from phoneworld.world.check import load_world_tasks
    from phoneworld.world.device import World
    from phoneworld.world.load import load_world
    from phoneworld.world.schema import schema_of

    world = World(load_world(world_dir))
    schema = schema_of(world)
    specs = world_dir / "task_specs"
    tasks = load_world_tasks([specs], schema) if specs.is_dir() else []
    return world, schema, tasks


@world_app.command("build")
def build(spec: Path = typer.Argument(..., help="A world spec (YAML)."),
          out: Path = typer.Option(..., "--out", help="The world folder to write: new, empty, "
                                   "or one phoneworld wrote (see --force)."),
          force: bool = typer.Option(False, "--force", help="Take over an --out folder "
                                     "phoneworld did not write (its contents are replaced).")
          ) -> None:
    """Build or copy the apps, synthesize and sanity-check cross-app tasks, write OUT."""
    from phoneworld.world.build import build_world

    try:
        b = build_world(spec, out, force=force)
    except PhoneworldError as exc:
        fail(exc)
    rejected = ", ".join(f"{n} {r}" for r, n in sorted(b.rejected().items())) or "none"
    attacked = [c.attack for c in b.kept if c.attack is not None]
    searched = [c.cheaper for c in b.checks if c.cheaper is not None]
    err.print(f"{len(b.packages)} apps, {len(b.checks)} cross-app tasks synthesized, "
              f"{len(b.kept)} kept (rejected: {rejected}); the kept tasks' verifiers rejected "
              f"{sum(a.rejected for a in attacked)} of {sum(a.tried for a in attacked)} near "
              f"misses; cheaper: tried {len(searched)}, found "
              f"{sum(c.found for c in searched)} ({sum(c.tried for c in searched)} states)",
              markup=False)
    typer.echo(str(b.path))


@world_app.command("tasks")
def tasks(world_dir: Path = typer.Argument(..., help=WORLD_HELP)) -> None:
    """One line per kept cross-app task: id, kind, instruction."""
    from phoneworld.world.schema import instantiate

    try:
        _, schema, loaded = _load(world_dir)
    except PhoneworldError as exc:
        fail(exc)
    for t in loaded:
        typer.echo(f"{t.spec.id:<64} {t.spec.kind():<16} {instantiate(t.spec, schema).instruction}")


@world_app.command("check")
def check(world_dir: Path = typer.Argument(..., help=WORLD_HELP)) -> None:
    """Sanity-check every task of the world again (no-op fails, done fails, the oracle passes)."""
    from phoneworld.world.check import check_all

    try:
        world, schema, loaded = _load(world_dir)
    except PhoneworldError as exc:
        fail(exc)
    checks = check_all(world, schema, [t.spec for t in loaded])
    bad = [c for c in checks if not c.kept]
    for c in bad:
        err.print(f"{c.task.id}: {c.reason}: {c.detail}", style="red", markup=False)
    err.print(f"{len(checks) - len(bad)}/{len(checks)} tasks pass the sanity check", markup=False)
    if bad:
        raise typer.Exit(1)


@world_app.command("run")
def run(world_dir: Path = typer.Argument(..., help=WORLD_HELP),
        task: Optional[str] = typer.Option(None, "--task", help="A task id (else: no task)."),
        policy: str = typer.Option("oracle", help="oracle or random."),
        steps: int = typer.Option(20, help="Steps of the random policy."),
        seed: int = typer.Option(0, min=0, help="Seed of the parameters and the random policy.")) -> None:
    """Run one episode in the world and print each step as JSON lines."""
    import random

    from phoneworld.tasks.codegen import compile_verifier
    from phoneworld.world.oracle import solve
    from phoneworld.world.schema import instantiate

    if policy not in ("oracle", "random"):
        fail(PhoneworldError(f"--policy must be oracle or random, got {policy!r}"))
    try:
        world, schema, loaded = _load(world_dir)
        spec = next((t.spec for t in loaded if t.spec.id == task), None)
        if task is not None and spec is None:
            raise PhoneworldError(f"no task {task!r} in {world_dir} (list them: phoneworld "
                                  "world tasks DIR)")
    except PhoneworldError as exc:
        fail(exc)
    verifier = compile_verifier(spec, schema) if spec is not None else None  # type: ignore[arg-type]
    inst = instantiate(spec, schema, seed=seed, verify=verifier) if spec is not None else None
    if inst is not None:
        err.print(inst.instruction, markup=False)
    if policy == "oracle":
        if inst is None or verifier is None:
            fail(PhoneworldError("--policy oracle needs --task"))
        res = solve(world, schema, inst, verifier)  # type: ignore[arg-type]
        actions = [m.action for m in res.moves]
    else:
        from phoneworld.ir import trace as tr

        rng = random.Random(seed)
        actions = [tr.Click(x=rng.randrange(world.device.width), y=rng.randrange(world.device.height))
                   for _ in range(steps)]
    world.reset(inst.state if inst is not None else None)
    for i, a in enumerate(actions):
        r = world.step(a)
        typer.echo(json.dumps({"step": i, "action": a.model_dump(mode="json"),
                               "screen": world.screen, "changed": r.changed}))
    if verifier is not None and inst is not None:
        v = verifier(world.peek(), inst.params, None)
        err.print(f"{'passed' if v.passed else 'failed'}: {v.reason}", markup=False)
        if not v.passed:
            raise typer.Exit(1)
