"""`phoneworld rl sft|train|eval|calibrate --config FILE.yaml [--set key=value ...]`.

Thin: load the config, call one function, render progress (rich, on stderr) and results. torch and
the trainers are imported inside the commands, so `--help` stays fast.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from phoneworld import PhoneworldError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_show_locals=False,
                  help="Train and evaluate phone agents: SFT, step-wise GRPO, evaluation.")
err = Console(stderr=True, width=None if sys.stderr.isatty() else 160)
CONFIG = typer.Option(None, "--config", "-c", help="YAML config file.")
SET = typer.Option([], "--set", help="Override a config value: key.sub=value (YAML value); "
                   "repeatable.")


def _fields_epilog(module: str, name: str) -> str:
    """The config fields of `module.name` with their defaults and help, for `--help` (one
    paragraph each, as rich help text joins single lines)."""
    import importlib

    from rich.markup import escape

    from phoneworld.rl.config import field_help

    cls = getattr(importlib.import_module(module), name)
    rows = [f"[bold]{key}[/bold]{f' = {escape(default)}' if default else ''}: {escape(text)}"
            for key, default, text in field_help(cls)]
    return ("Config fields (YAML keys; nested ones as dotted --set keys):\n\n" +
            "\n\n".join(rows))


def _load(cls: Any, config: Optional[Path], sets: list[str]) -> Any:
    from phoneworld.rl.config import load_config, parse_override

    return load_config(cls, config, dict(parse_override(s) for s in sets))


def _fail(exc: Exception) -> None:
    err.print(f"error: {exc}", style="red", markup=False, highlight=False)
    raise typer.Exit(getattr(exc, "exit_code", 1))


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/"
                    "{task.total}"), TimeElapsedColumn(), TextColumn("{task.fields[info]}"),
                    console=err)


@app.command(epilog=_fields_epilog("phoneworld.rl.sft_config", "SFTConfig"))
def sft(config: Optional[Path] = CONFIG, sets: list[str] = SET) -> None:
    """Supervised fine-tuning on oracle demonstrations (TRL SFTTrainer)."""
    from phoneworld.rl.sft_config import SFTConfig

    try:
        cfg = _load(SFTConfig, config, sets)
        from phoneworld.rl.sft_trainer import run_sft

        with _progress() as prog:
            bar = prog.add_task("sft", total=None, info="")

            def on_log(rec: dict[str, Any]) -> None:
                prog.update(bar, completed=rec["step"], total=rec.get("max_steps"),
                            info=f"loss {rec.get('loss', rec.get('train_loss', 0)):.4f}")

            final = run_sft(cfg, on_log=on_log)
    except (PhoneworldError, RuntimeError, ValueError) as exc:
        _fail(exc)
        return
    typer.echo(str(final))


@app.command(epilog=_fields_epilog("phoneworld.rl.grpo_config", "GRPOConfig"))
def train(config: Optional[Path] = CONFIG, sets: list[str] = SET) -> None:
    """Online RL: step-wise GRPO over mixed mock/real sources."""
    from phoneworld.rl.grpo_config import GRPOConfig

    try:
        cfg = _load(GRPOConfig, config, sets)  # a bad config fails before torch is imported
        from phoneworld.rl.grpo_trainer import GRPOTrainer

        trainer = GRPOTrainer(cfg)
        with _progress() as prog:
            bar = prog.add_task("grpo", total=cfg.updates, completed=trainer.start_update, info="")

            def on_update(rec: dict[str, Any]) -> None:
                prog.update(bar, completed=rec["update"], info=(
                    f"reward {rec['reward']:.3f} success {rec['success']:.3f} "
                    f"real {rec['observed_real_ratio']:.2f} {rec['rollout_steps_per_s']:.0f} "
                    f"steps/s {rec['update_s']:.1f} s/update"))

            trainer.train(on_update)
    except (PhoneworldError, RuntimeError, ValueError, TimeoutError) as exc:
        _fail(exc)
        return
    typer.echo(str(Path(cfg.output_dir)))


@app.command("eval", epilog=_fields_epilog("phoneworld.rl.eval_config", "EvalConfig"))
def eval_(config: Optional[Path] = CONFIG, sets: list[str] = SET,
          as_json: bool = typer.Option(False, "--json", help="Print the JSON results.")) -> None:
    """Success per category on held-out tasks and apps, mean steps, parse-error rate."""
    from phoneworld.rl.eval_config import EvalConfig

    try:
        cfg = _load(EvalConfig, config, sets)
        from phoneworld.rl.evaluate import evaluate, rows_for_table

        with err.status("evaluating"):
            result = evaluate(cfg)
    except (PhoneworldError, RuntimeError, ValueError) as exc:
        _fail(exc)
        return
    table = Table(title=f"phoneworld rl eval: {result['model']}")
    for col in ("split", "category", "episodes", "success", "95% CI", "mean steps",
                "parse errors"):
        table.add_column(col, justify="left" if col in ("split", "category") else "right")
    for row in rows_for_table(result):
        table.add_row(*row)
    err.print(table)
    typer.echo(json.dumps(result, indent=1) if as_json else cfg.output)


@app.command()
def calibrate(config: Optional[Path] = CONFIG, sets: list[str] = SET) -> None:
    """Score the rubric judge against rule verifiers on mock-app episodes."""
    from phoneworld.rl.calibrate import CalibrationConfig, run_calibration

    try:
        cfg = _load(CalibrationConfig, config, sets)
        with err.status("calibrating the judge"):
            result = run_calibration(cfg)
    except (PhoneworldError, RuntimeError, ValueError) as exc:
        _fail(exc)
        return
    table = Table(title="judge against rule verifiers")
    for key in ("episodes", "scored", "agreement", "false_positive_rate", "false_negative_rate",
                "unscorable_rate"):
        table.add_row(key, f"{result[key]:.3f}" if isinstance(result[key], float)
                      else str(result[key]))
    err.print(table)
    typer.echo(cfg.output)


def main() -> None:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    app()
