"""The report's tasks section: the synthesized tasks, their sanity check, and each oracle solution
drawn as a strip of the mock's screens.

The checks come from the build (`ReportInputs.tasks`: `phoneworld.tasks.sanity.TaskCheck`s, one
per synthesized task, in order). A kept task's oracle solution is replayed from the task's start
state in a fresh simulator, and the screen before each move is drawn; a build that synthesized no
tasks gets a section that says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from phoneworld.report.images import THUMB_WIDTH, ImageStore, Picture
from phoneworld.report.inputs import ReportInputs
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks.rules import screens_named

if TYPE_CHECKING:
    from phoneworld.tasks.sanity import TaskCheck

TARGET_CHARS = 40  # of the element a move acts on, as the strip labels it
MAX_FRAMES = 16  # screens drawn per strip; a longer solution ends with "+n more moves"
NO_TASKS = ("No tasks were synthesized in this build: task synthesis and its sanity check "
            "(issue 3) hand their results to the report through ReportInputs.tasks.")


@dataclass(frozen=True)
class StripFrame:
    """One screen of an oracle solution, and the move made on it ("" on the last)."""

    screen: str
    picture: Picture
    action: str


@dataclass(frozen=True)
class TaskRow:
    id: str
    instruction: str
    category: str
    sane: bool  # kept by the sanity check
    verdict: str  # why it was rejected, or what the oracle needed
    strip: tuple[StripFrame, ...]
    more: int  # moves of the solution not drawn
    attack: tuple[str, ...] = ()  # the near misses tried, and the one that passed (if any)
    ends_on: tuple[str, ...] = ()  # the screens its `screen` clauses name (a navigation task)


@dataclass(frozen=True)
class TasksView:
    available: bool
    note: str
    tasks: tuple[TaskRow, ...]

    @property
    def sane(self) -> int:
        return sum(t.sane for t in self.tasks)


def move_text(move: Any) -> str:
    """`click "Save"`, `type "Buy milk"`, `scroll down`, `done "42"`."""
    if move.kind == "type" or (move.kind == "done" and move.text is not None):
        return f'{move.kind} "{move.text or ""}"'
    if move.kind == "scroll":
        return f"scroll {move.direction}"
    target = move.target
    if len(target) > TARGET_CHARS:
        target = target[: TARGET_CHARS - 1] + "…"
    return f"{move.kind} {target}" if target else move.kind


def solution_strip(sim: Simulator, check: TaskCheck, images: ImageStore
                   ) -> tuple[tuple[StripFrame, ...], int]:
    """The screens an oracle solution goes through, each with the move made on it."""
    if check.oracle is None or check.instance is None or not check.oracle.solved:
        return (), 0
    sim.reset(check.instance.state)
    device = sim.spec.device
    frames: list[StripFrame] = []
    moves = check.oracle.moves
    for move in moves[:MAX_FRAMES]:
        frames.append(StripFrame(sim.screen, images.mock(sim.frame(), device, THUMB_WIDTH),
                                 move_text(move)))
        if move.kind == "done":
            return tuple(frames), 0
        sim.step(move.trace_action())
    if len(moves) <= MAX_FRAMES:
        frames.append(StripFrame(sim.screen, images.mock(sim.frame(), device, THUMB_WIDTH), ""))
    return tuple(frames), max(0, len(moves) - MAX_FRAMES)


def task_row(sim: Simulator, check: TaskCheck, images: ImageStore) -> TaskRow:
    task = check.task
    instruction = check.instance.instruction if check.instance is not None else task.instruction
    verdict = check.detail if check.kept else (check.reason + (f": {check.detail}"
                                                               if check.detail else ""))
    strip, more = solution_strip(sim, check, images) if check.kept else ((), 0)
    return TaskRow(task.id, instruction, f"{task.category} / {task.kind()}", check.kept, verdict,
                   strip, more, attack_lines(check), tuple(sorted(screens_named(task.rule))))


def attack_lines(check: TaskCheck) -> tuple[str, ...]:
    """What the near-miss attack on the task's verifier found, as the report shows it."""
    from phoneworld.tasks.sanity import counterexample

    if check.attack is None:
        return ()
    head = f"near misses: {check.attack.rejected} of {check.attack.tried} rejected"
    c = check.cheaper
    if c is not None:
        head += (f"; cheaper states: {c.tried} searched, "
                 + ("one passes" if c.found else "none passes")
                 + ("" if c.complete else " (capped)"))
    return (head, *counterexample(check))


def tasks_view(inputs: ReportInputs, images: ImageStore) -> TasksView:
    """The rows of the app's synthesized tasks (none when the build synthesized none)."""
    if inputs.tasks is None:
        return TasksView(False, NO_TASKS, ())
    sim = Simulator(inputs.spec)
    rows = tuple(task_row(sim, c, images) for c in inputs.tasks)
    note = "" if rows else "Synthesis proposed no task for this app."
    return TasksView(True, note, rows)
