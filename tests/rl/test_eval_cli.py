"""`phoneworld rl eval|train|sft` from the command line on the example app with a tiny model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

from .conftest import SMALL_PROMPT


def rl_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "phoneworld.cli", "rl", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


def write_yaml(path: Path, app: str, extra: str = "") -> Path:
    prompt = "".join(f"  {k}: {json.dumps(v)}\n" for k, v in SMALL_PROMPT.items())
    path.write_text(f"model:\n  device: cpu\nprompt:\n{prompt}tasks:\n  apps: [{app}]\n"
                    f"  eval_max_steps: 2\n{extra}")
    return path


def test_eval_writes_json_and_a_table(app_dir: str, tmp_path: Path) -> None:
    cfg = write_yaml(tmp_path / "eval.yaml", app_dir,
                     f"episodes_per_task: 1\noutput: {tmp_path / 'eval.json'}\n"
                     "splits: [heldout_tasks]\n")
    proc = rl_cli("eval", "--config", str(cfg))
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / "eval.json").read_text())
    overall = res["splits"]["heldout_tasks"]["overall"]
    assert overall["episodes"] >= 1 and overall["success_rate"] == 0.0
    assert overall["parse_error_rate"] == 1.0 and overall["mean_steps"] == 2.0
    assert res["splits"]["heldout_tasks"]["categories"]
    assert "parse errors" in proc.stderr and "heldout_tasks" in proc.stderr


def test_bad_config_exits_2_with_the_fix(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("grup_size: 3\n")
    proc = rl_cli("train", "--config", str(cfg))
    assert proc.returncode == 2 and "did you mean 'group_size'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_import_phoneworld_does_not_import_torch() -> None:
    code = ("import sys, phoneworld, phoneworld.cli, phoneworld.runtime.env; "
            "print(any(m in sys.modules for m in ('torch', 'transformers', 'trl', 'phoneworld.rl')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.stdout.strip() == "False", out.stderr
