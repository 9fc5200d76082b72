"""The machine-readable part of a report page: which recorded observations each screen merges and
which steps the mock got wrong, embedded as JSON so that `phoneworld report --compare` can tell
screens merged or split between two builds without the traces."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from phoneworld.errors import InputError
from phoneworld.fidelity import Replay
from phoneworld.report.inputs import ReportInputs

DATA_FORMAT = "phoneworld-report-data/1"
DATA_ID = "pw-data"
_BLOCK = re.compile(r'<script type="application/json" id="pw-data">(.*?)</script>', re.DOTALL)


def observation_key(episode: str, step: int) -> str:
    return f"{episode}:{step}"


def _mismatches(replay: Replay | None) -> list[str]:
    if replay is None:
        return []
    return [observation_key(r.episode, r.step) for r in replay.steps if not r.transition_match]


def page_data(inputs: ReportInputs) -> dict[str, Any]:
    members: dict[str, list[str]] = {s.id: [] for s in inputs.spec.screens}
    for e, readings in enumerate(inputs.abstraction.readings):
        episode = inputs.train.episodes[e].id
        for r in readings:
            if r.screen in members:
                members[r.screen].append(observation_key(episode, r.step))
    return {
        "format": DATA_FORMAT,
        "app": inputs.spec.package,
        "screens": {s.id: {"name": s.name, "observations": members[s.id]}
                    for s in inputs.spec.screens},
        "mismatches": {"training": _mismatches(inputs.train_replay),
                       "heldout": _mismatches(inputs.held_replay)},
    }


def read_page_data(page: Path) -> dict[str, Any] | None:
    """The data embedded in a report page, or None when the page is absent or has none."""
    if not page.is_file():
        return None
    match = _BLOCK.search(page.read_text(encoding="utf-8"))
    if match is None:
        return None
    try:
        data = json.loads(match.group(1))
    except json.JSONDecodeError as exc:
        raise InputError(f"{page}: the embedded report data is not JSON ({exc})") from exc
    if not isinstance(data, dict) or data.get("format") != DATA_FORMAT:
        raise InputError(f"{page}: the embedded report data is not {DATA_FORMAT}; regenerate the "
                         "page with `phoneworld report APP_DIR --traces TRACES`")
    return data
