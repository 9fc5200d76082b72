"""The sanity check every task passes before anyone trains on it (DESIGN section 6).

A task is kept only when, for its canonical instance: doing nothing fails (the start state does not
already satisfy the rule), ending at once with `done` (and an empty answer) fails, the oracle
solves it within its training budget, its solution replayed from scratch passing the verifier, and
the verifier rejects every near miss of the solution's end state (`phoneworld.tasks.adversary`:
swapped values, a change left undone or made to the wrong record, side effects, ...): a verifier
that accepts one is gameable, and the task says which near miss passed. Last, the app is searched
(the oracle's engine, every path shorter than its solution, `oracle.search_cheaper`) for a
passing state that makes fewer of the changes the rule reads than the solution: one that does is
a cheaper way to the reward than the instruction's, and the task is gameable too. A shorter
passing path that makes them all only means the solution is not proven shortest.
Rejected tasks say why, with a short reason that reports count and a detail for people.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from phoneworld.errors import InputError
from phoneworld.ir.app import AppSpec
from phoneworld.ir.report import TasksSummary
from phoneworld.runtime.sim import Simulator
from phoneworld.runtime.validate import SCREEN
from phoneworld.tasks.adversary import Attack, Writable, attack, changes, state_diff
from phoneworld.tasks.relevance import rule_reads
from phoneworld.tasks.codegen import Verifier, compile_verifier
from phoneworld.tasks.oracle import Cheaper, Move, OracleConfig, OracleResult, search_cheaper, solve
from phoneworld.tasks.params import TaskInstance, instantiate
from phoneworld.tasks.spec import TaskSpec

log = logging.getLogger(__name__)

ALREADY = "already satisfied at start"
DONE_PASSES = "an immediate done passes"
NO_PARAMS = "parameters cannot be drawn"
REPLAY = "oracle solution does not replay"
GAMEABLE = "gameable: a near miss passes"
CHEAPER = "gameable: a cheaper state passes"


@dataclass(frozen=True)
class TaskCheck:
    """The sanity check of one task: kept or not, why not, and the oracle's solution."""

    task: TaskSpec
    kept: bool
    reason: str = ""
    detail: str = ""
    oracle: OracleResult | None = None
    instance: TaskInstance | None = None
    verifier: Verifier | None = None
    attack: Attack | None = None  # the near misses tried on the oracle's end state
    end: dict[str, Any] | None = None  # that end state
    cheaper: Cheaper | None = None  # the search for passing states cheaper than it (None: none)

    @property
    def shortest(self) -> bool:
        """Whether the oracle's solution is proven shortest: the search for cheaper states found
        no shorter passing path, and either saw every shorter one or the oracle's own search
        proved it (a world's staged solution is proven by the first alone)."""
        if not (self.oracle and self.oracle.solved):
            return False
        c = self.cheaper
        if c is not None and c.shorter is not None:
            return False
        return self.oracle.shortest or (c is not None and c.complete)


class Playground(Protocol):
    """What the sanity check plays on: the app `Simulator` or a cross-app `World`."""

    screen: str

    def reset(self, state: Any = None) -> None: ...

    def step(self, action: Any) -> Any: ...

    def observed(self) -> Mapping[str, Any]:
        """The state as a verifier reads it (with `@screen`), live."""
        ...


def play(env: Playground, inst: TaskInstance, moves: tuple[Move, ...]
         ) -> tuple[dict[str, Any], Any]:
    """The state `moves` from the instance's start end in (as a verifier reads it), and the
    answer they give."""
    end, answer, _ = walk(env, inst, moves)
    return end, answer


def walk(env: Playground, inst: TaskInstance, moves: tuple[Move, ...]
         ) -> tuple[dict[str, Any], Any, tuple[str, ...]]:
    """`play`, and the screens the moves pass through (the start's and each one's before the
    last)."""
    env.reset(inst.state)
    answer, path = None, []
    for m in moves:
        if m.kind == "done":
            answer = m.text
            break
        path.append(env.screen)
        env.step(m.action)
    return dict(env.observed()), answer, tuple(path)


def replay(env: Playground, inst: TaskInstance, verifier: Verifier,
           moves: tuple[Move, ...]) -> bool:
    """Whether `moves` from the instance's start make the verifier pass."""
    end, answer = play(env, inst, moves)
    return verifier(end, inst.params, answer).passed


def counterexample(check: TaskCheck) -> list[str]:
    """The first near miss a task's verifier accepted, or the cheaper passing state found, as
    readable lines (a state diff from the oracle's end state and a hint of what would catch it)."""
    if check.cheaper is not None and check.cheaper.found and check.end is not None:
        return cheaper_lines(check)
    if check.attack is None or not check.attack.accepted or check.end is None:
        return []
    miss = check.attack.accepted[0]
    lines = [f"a near miss passes the verifier: {miss.kind}: {miss.what}",
             "  how it differs from the oracle's end state:"]
    lines += [f"    {d}" for d in state_diff(check.end, miss.state or check.end)]
    if miss.kind == "wrong answer":
        lines.append(f"    answer: {miss.answer!r}")
    lines.append(f"  hint: {miss.hint()}")
    return lines


def cheaper_lines(check: TaskCheck) -> list[str]:
    """The cheaper passing state a task's search found, as readable lines."""
    c, end, inst = check.cheaper, check.end, check.instance
    assert c is not None and c.fewer is not None and end is not None and inst is not None
    want, got = c.changes
    lines = [f"a cheaper state passes the verifier: {len(c.fewer)} step(s) making {got} of the "
             f"{want} change(s) the oracle's {len(check.oracle.moves) if check.oracle else '?'} "
             "step(s) make",
             "  its path: " + ", ".join(_move_text(m) for m in c.fewer),
             "  how it differs from the oracle's end state:"]
    lines += [f"    {d}" for d in state_diff(end, c.fewer_state or end)]
    lines.append("  hint: the rule does not ask for " + ("; ".join(c.missing) or "every change")
                 + ": add a clause that checks it (`exists`/`equals`/`count` on it)")
    return lines


def _move_text(m: Move) -> str:
    what = m.target or m.text or m.direction or ""
    return f"{m.kind} {what}".strip() if m.kind != "type" else f"type {m.text!r}"


def check_instance(env: Playground, task: TaskSpec, verifier: Verifier,
                   draw: Callable[[], TaskInstance],
                   solve_on: Callable[[TaskInstance], OracleResult],
                   writable: Writable | None = None, reads: frozenset[str] = frozenset(),
                   cheaper_on: Callable[[TaskInstance, OracleResult,
                                         Callable[[Mapping[str, Any]], list[str]]], Cheaper]
                   | None = None
                   ) -> TaskCheck:
    """The sanity check of one task on `env`: a draw exists (`draw`), neither doing nothing
    nor answering at once passes, the oracle (`solve_on`) solves it, its moves replay, no
    near miss of its end state passes (what a user can change: `writable`), and the search for
    cheaper states (`cheaper_on`, where the playground has one) finds no passing state making
    fewer of the changes the rule reads (`reads`) than the oracle's."""
    try:
        inst = draw()
    except InputError as exc:
        return TaskCheck(task, False, NO_PARAMS, str(exc), verifier=verifier)
    env.reset(inst.state)
    start = dict(env.observed())  # the instance's start, where the app stands at reset
    v = verifier(start, inst.params, None)
    if v.passed:
        return TaskCheck(task, False, ALREADY, f"doing nothing passes: {v.reason}", None, inst,
                         verifier)
    v = verifier(start, inst.params, "")
    if v.passed:
        return TaskCheck(task, False, DONE_PASSES, f"done at once passes: {v.reason}", None, inst,
                         verifier)
    res = solve_on(inst)
    if not res.solved:
        return TaskCheck(task, False, "oracle: " + res.reason.split(" (")[0],
                         f"{res.reason}; {res.explored} states explored", res, inst, verifier)
    end, answer, path = walk(env, inst, res.moves)
    if not verifier(end, inst.params, answer).passed:
        return TaskCheck(task, False, REPLAY, "the oracle's moves fail when replayed", res, inst,
                         verifier)
    result = attack(verifier, start, end, inst.params, writable or Writable(), answer, reads,
                    path)
    if result.accepted:
        miss = result.accepted[0]
        return TaskCheck(task, False, GAMEABLE, f"{miss.kind}: {miss.what} "
                         f"({len(result.accepted)} of {result.tried} near misses pass)", res, inst,
                         verifier, result, end)
    if cheaper_on is None:
        return TaskCheck(task, True, "", f"oracle: {len(res.moves)} steps; {result.tried} near "
                         "misses rejected", res, inst, verifier, result, end)
    found = cheaper_on(inst, res, lambda state: changes(start, state, reads))
    if found.found:
        want, got = found.changes
        return TaskCheck(task, False, CHEAPER, f"{len(found.fewer or ())} step(s) pass making "
                         f"{got} of the oracle's {want} change(s)", res, inst, verifier, result,
                         end, found)
    shorter = "" if found.shorter is None else f", a shorter path ({len(found.shorter)}) passes"
    return TaskCheck(task, True, "", f"oracle: {len(res.moves)} steps; {result.tried} near "
                     f"misses rejected; cheaper: {found.tried} states searched, none"
                     f"{' (capped)' if not found.complete else ''}{shorter}", res, inst, verifier,
                     result, end, found)


def check_one(sim: Simulator, task: TaskSpec, app: AppSpec,
              config: OracleConfig | None = None) -> TaskCheck:
    verifier = compile_verifier(task, app)
    reads = frozenset(rule_reads(app, task.rule))

    def count(inst: TaskInstance) -> Callable[[Mapping[str, Any]], list[str]]:
        start = {**inst.state, SCREEN: app.start_screen}
        return lambda state: changes(start, state, reads)

    return check_instance(sim, task, verifier, lambda: instantiate(task, app, verify=verifier),
                          lambda inst: solve(sim, inst, verifier, config, count(inst)),
                          Writable.of(app), reads,
                          lambda inst, res, n: search_cheaper(sim, inst, verifier, res, n, config))


def check_each(tasks: list[TaskSpec], check: Callable[[TaskSpec], TaskCheck],
               level: int = logging.DEBUG) -> list[TaskCheck]:
    """`check` of every task, in order, each verdict logged at `level`."""
    out = []
    for task in tasks:
        c = check(task)
        log.log(level, "task %s: %s %s", task.id, "kept" if c.kept else "rejected", c.detail)
        out.append(c)
    return out


def check_tasks(app: AppSpec, tasks: list[TaskSpec],
                config: OracleConfig | None = None) -> list[TaskCheck]:
    """The sanity check of every task of `app`, in order."""
    sim = Simulator(app)
    return check_each(tasks, lambda task: check_one(sim, task, app, config))


def summarize(checks: list[TaskCheck], dropped: Counter[str] | None = None) -> TasksSummary:
    """The `tasks` figures of report.json; `dropped` are synthesis' own drops (duplicates, caps)."""
    reasons: Counter[str] = Counter(dropped or {})
    reasons.update(c.reason for c in checks if not c.kept)
    kept = [c for c in checks if c.kept]
    kinds = Counter(c.task.kind() for c in kept)
    total = len(checks) + sum((dropped or Counter()).values())
    attacked = [c.attack for c in kept if c.attack is not None]  # all rejected, or not kept
    solved = [c for c in kept if c.oracle is not None and c.oracle.solved]
    searched = [c.cheaper for c in checks if c.cheaper is not None]
    return TasksSummary(synthesized=total, kept=len(kept), rejected=total - len(kept),
                        rejection_reasons=dict(sorted(reasons.items())),
                        kinds=dict(sorted(kinds.items())),
                        adversarial={"tried": sum(a.tried for a in attacked),
                                     "rejected": sum(a.rejected for a in attacked)},
                        gameable=sum(c.reason in (GAMEABLE, CHEAPER) for c in checks),
                        cheaper=cheaper_figures(searched),
                        solution_steps=round(sum(len(c.oracle.moves)  # type: ignore[union-attr]
                                                 for c in solved) / len(solved), 2)
                        if solved else None,
                        proven_shortest=sum(c.shortest for c in solved))


def cheaper_figures(searched: list[Cheaper]) -> dict[str, int]:
    """report.json's `tasks.cheaper`: the tasks searched for cheaper passing states, the states
    explored, the searches that saw every state within the oracle's length, and the tasks where
    a cheaper state passed."""
    return {"tried": len(searched), "states": sum(c.tried for c in searched),
            "complete": sum(c.complete for c in searched),
            "found": sum(c.found for c in searched)}
