"""What the HTML report is made from: the build's passes' outputs, handed over by the pipeline.

The report needs more than `app.json` and `report.json`: the recorded observations (and where
their screenshots are), the abstraction (which observation each screen merges), the tracked state
before each step and every replayed step's result, so it takes them from the build itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from phoneworld.fidelity import Replay
from phoneworld.ir.app import AppSpec
from phoneworld.ir.graph import TransitionGraph
from phoneworld.ir.report import BuildReport
from phoneworld.ir.screens import Abstraction
from phoneworld.ir.trace import Episode, TraceSet
from phoneworld.state.schema import Schema

if TYPE_CHECKING:
    from phoneworld.tasks.sanity import TaskCheck


@dataclass(frozen=True)
class ReportInputs:
    """One built app and what it was built from.

    `root` is the traces folder as given to the build: source files in the IR are relative to its
    parent, and screenshots relative to their episode's folder. Nothing of it reaches the page.
    `tasks` is None when the build synthesized no tasks.
    """

    spec: AppSpec
    report: BuildReport
    root: Path
    train: TraceSet
    held: TraceSet
    abstraction: Abstraction
    transitions: TransitionGraph
    schema: Schema
    train_replay: Replay
    held_replay: Replay | None = None
    tasks: tuple[TaskCheck, ...] | None = None  # the sanity check of each synthesized task


def episode_folder(root: Path, episode: Episode) -> Path:
    """The folder an episode's relative paths (screenshots, XML files) start from."""
    path = root.parent / episode.source.file
    return path.parent if path.is_file() else path


def screenshot_path(root: Path, episode: Episode, step: int) -> Path | None:
    """The recorded screenshot of one step, when the trace has one and it is still on disk."""
    shot = episode.steps[step].observation.screenshot
    if shot is None:
        return None
    path = episode_folder(root, episode) / shot
    return path if path.is_file() else None
