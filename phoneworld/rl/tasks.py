"""What rl needs from tasks: the `TaskSource` protocol, `RLTask`, fixed splits, and the adapter to
`phoneworld.tasks` (task specs, generated verifiers, the oracle).

rl owns no task system: `AppTasks` takes the tasks an app's build kept (`task_specs/`, indexed
in `tasks.json`), or synthesizes and sanity-checks them when the build has none, draws
instances with `phoneworld.tasks.params.instantiate`, and rewards with the generated verifier.
Oracle solutions become demonstrations in the policy's own action format (element ids where the
tap hits an element's tap point).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

log = logging.getLogger(__name__)

VerifyFn = Callable[[dict[str, Any], Any], bool]


@dataclass(frozen=True)
class RLTask:
    """One runnable draw of a task: what a rollout needs."""

    task_id: str
    app: str  # app folder (mock apps) or package (real apps)
    category: str
    instruction: str
    params: dict[str, Any] = field(default_factory=dict)
    initial_state: dict[str, Any] | None = None
    max_steps_train: int = 30
    max_steps_eval: int = 50
    verify: VerifyFn | None = field(default=None, compare=False, repr=False)
    seed: int = 0

    @property
    def key(self) -> str:
        """Identity of a group: the same task with the same parameters and start."""
        return f"{self.app}::{self.task_id}::{self.seed}"


@runtime_checkable
class TaskSource(Protocol):
    """Tasks of one app (or one real-app suite)."""

    def ids(self) -> list[str]:
        """Every task id, in a stable order."""
        ...

    def category(self, task_id: str) -> str:
        ...

    def draw(self, task_id: str, seed: int) -> RLTask:
        """An instance with parameters drawn from `seed`."""
        ...


def is_heldout(task_id: str, fraction: float, salt: str = "") -> bool:
    """A fixed split: a hash of the id decides, so it never moves between runs."""
    digest = hashlib.sha256(f"{salt}{task_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < fraction


def split_ids(ids: list[str], fraction: float, salt: str = "") -> tuple[list[str], list[str]]:
    """(train, held-out) ids; at least one of each when there are two or more tasks."""
    held = [t for t in ids if is_heldout(t, fraction, salt)]
    if fraction > 0 and not held and len(ids) > 1:
        held = [min(ids, key=lambda t: hashlib.sha256(f"{salt}{t}".encode()).hexdigest())]
    if len(held) == len(ids) and len(ids) > 1:
        held = held[1:]
    train = [t for t in ids if t not in held]
    return train, held


class StaticTasks:
    """A fixed list of tasks (tests, real-app suites given as instructions)."""

    def __init__(self, tasks: list[RLTask]) -> None:
        self._tasks = {t.task_id: t for t in tasks}

    def ids(self) -> list[str]:
        return list(self._tasks)

    def category(self, task_id: str) -> str:
        return self._tasks[task_id].category

    def draw(self, task_id: str, seed: int) -> RLTask:
        t = self._tasks[task_id]
        return RLTask(t.task_id, t.app, t.category, t.instruction, dict(t.params),
                      t.initial_state, t.max_steps_train, t.max_steps_eval, t.verify, seed)


class AppTasks:
    """The checked tasks of one compiled app, through `phoneworld.tasks`."""

    def __init__(self, app_dir: str | Path, spec_dirs: list[Path] | None = None) -> None:
        from phoneworld import load_app

        self.app_dir = str(app_dir)
        self.app = load_app(Path(app_dir))
        self._checks = {c.task.id: c for c in self._load(spec_dirs)}
        if not self._checks:
            log.warning("app %s has no task that passes the sanity check", self.app.package)

    def _load(self, spec_dirs: list[Path] | None) -> list[Any]:
        """Checked tasks: the build's kept ones (its sanity check already ran the oracle), or,
        for an app built without tasks or with extra `spec_dirs`, synthesized/loaded and
        checked here."""
        from phoneworld.tasks import TaskCheck, check_tasks, compile_verifier, load_catalog

        extra = [d for d in spec_dirs or [] if d.exists()]
        catalog = load_catalog(Path(self.app_dir))
        kept = {k for k, e in catalog.index().items() if e.get("kept")}
        trusted = [t.spec for t in catalog.tasks if t.spec.id in kept]
        checks = [TaskCheck(spec, True, verifier=compile_verifier(spec, self.app))
                  for spec in trusted]
        if extra or not trusted:
            from phoneworld.tasks import synthesize

            specs = ([t.spec for t in load_catalog(Path(self.app_dir), extra,
                                                   synthesized=False).tasks] if extra
                     else synthesize(self.app).tasks)
            checks += [c for c in check_tasks(self.app, specs) if c.kept]
        return checks

    def ids(self) -> list[str]:
        return sorted(self._checks)

    def category(self, task_id: str) -> str:
        return str(self._checks[task_id].task.kind())

    def draw(self, task_id: str, seed: int) -> RLTask:
        from phoneworld.tasks import instantiate

        check = self._checks[task_id]
        spec, verifier = check.task, check.verifier
        inst = instantiate(spec, self.app, seed=seed, verify=verifier)
        params = dict(inst.params)

        def verify(state: dict[str, Any], answer: Any) -> bool:
            return bool(verifier(state, params, answer).passed)

        return RLTask(task_id, self.app_dir, self.category(task_id), inst.instruction, params,
                      inst.state, spec.budget.train, spec.budget.eval, verify, seed)

    def demo(self, task_id: str, seed: int) -> tuple[RLTask, list[Any]] | None:
        """The task drawn with `seed` and the oracle's moves for it (None: unsolved)."""
        from phoneworld.runtime import Simulator
        from phoneworld.tasks import instantiate, solve

        check = self._checks[task_id]
        inst = instantiate(check.task, self.app, seed=seed, verify=check.verifier)
        res = solve(Simulator(self.app), inst, check.verifier)
        if not res.solved:
            return None
        return self.draw(task_id, seed), list(res.moves)


def move_action(move: Any, elements: Any, width: int, height: int) -> dict[str, Any]:
    """An oracle move in the policy's action format: element ids where a tap hits one."""
    spec = move.json_action(width, height)
    if move.x is not None and spec["type"] in ("click", "long_press", "double_click", "type"):
        hit = [e.id for e in elements if (e.x, e.y) == (move.x, move.y)]
        if hit:
            spec.pop("x", None)
            spec.pop("y", None)
            spec["element"] = hit[-1]
    return spec


class WorldTasks:
    """The kept cross-app tasks of a built world folder (`phoneworld world build`)."""

    def __init__(self, world_dir: str | Path) -> None:
        from phoneworld.tasks import compile_verifier
        from phoneworld.world import World, load_world, load_world_tasks, schema_of

        self.world_dir = str(world_dir)
        self.world = World(load_world(Path(world_dir)))
        self.schema = schema_of(self.world)
        specs = Path(world_dir) / "task_specs"
        loaded = load_world_tasks([specs], self.schema) if specs.is_dir() else []
        self._tasks = {t.spec.id: (t.spec, compile_verifier(t.spec, self.schema))  # type: ignore[arg-type]
                       for t in loaded}
        if not self._tasks:
            log.warning("world %s has no cross-app task", world_dir)

    def ids(self) -> list[str]:
        return sorted(self._tasks)

    def category(self, task_id: str) -> str:
        return "cross_app"

    def draw(self, task_id: str, seed: int) -> RLTask:
        from phoneworld.world import instantiate_world_task

        spec, verifier = self._tasks[task_id]
        inst = instantiate_world_task(spec, self.schema, seed=seed, verify=verifier)
        params = dict(inst.params)

        def verify(state: dict[str, Any], answer: Any) -> bool:
            return bool(verifier(state, params, answer).passed)

        return RLTask(task_id, self.world_dir, "cross_app", inst.instruction, params, inst.state,
                      spec.budget.train, spec.budget.eval, verify, seed)

    def demo(self, task_id: str, seed: int) -> tuple[RLTask, list[Any]] | None:
        """The task drawn with `seed` and the world oracle's moves for it (None: unsolved)."""
        from phoneworld.world import instantiate_world_task, solve_world_task

        spec, verifier = self._tasks[task_id]
        inst = instantiate_world_task(spec, self.schema, seed=seed, verify=verifier)
        res = solve_world_task(self.world, self.schema, inst, verifier)
        return (self.draw(task_id, seed), list(res.moves)) if res.solved else None


def is_world_dir(path: str) -> bool:
    """Whether a task's `app` is a world folder rather than one app's folder."""
    return (Path(path) / "world.yaml").is_file()
