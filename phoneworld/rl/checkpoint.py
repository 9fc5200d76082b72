"""Checkpoints of the RL trainer: weights (safetensors), tokenizer, optimizer, trainer state.

`output_dir/checkpoint-<update>/` holds `model.safetensors` + config + tokenizer files (so the
folder is also a model for `from_pretrained`), `optimizer.pt` and `trainer_state.json`.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
from pathlib import Path
from typing import Any

import torch

log = logging.getLogger(__name__)
PATTERN = re.compile(r"checkpoint-(\d+)$")
STATE = "trainer_state.json"


def checkpoints(output_dir: str | Path) -> list[Path]:
    """Checkpoint folders in update order."""
    root = Path(output_dir)
    if not root.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in root.iterdir()
             if (m := PATTERN.search(p.name)) and (p / STATE).is_file()]
    return [p for _, p in sorted(found)]


def latest(output_dir: str | Path) -> Path | None:
    found = checkpoints(output_dir)
    return found[-1] if found else None


def save(output_dir: str | Path, update: int, model: Any, tokenizer: Any, optimizer: Any,
         state: dict[str, Any], keep: int = 2) -> Path:
    path = Path(output_dir) / f"checkpoint-{update}"
    tmp = path.with_name(path.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    model.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    torch.save(optimizer.state_dict(), tmp / "optimizer.pt")
    (tmp / STATE).write_text(json.dumps({"update": update, **state}, indent=1))
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)
    for old in checkpoints(output_dir)[:-keep] if keep > 0 else []:
        shutil.rmtree(old, ignore_errors=True)
    log.info("saved %s", path)
    return path


def load_state(path: Path) -> dict[str, Any]:
    return dict(json.loads((path / STATE).read_text()))


def load_optimizer(path: Path, optimizer: Any) -> None:
    file = path / "optimizer.pt"
    if file.is_file():
        optimizer.load_state_dict(torch.load(file, map_location="cpu", weights_only=True))
