"""Configs: YAML loading, overrides, unknown keys with a hint, bad combinations with the fix."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from phoneworld.rl.config import ConfigError, JudgeConfig, load_config
from phoneworld.rl.grpo_config import GRPOConfig
from phoneworld.rl.sft_config import SFTConfig


def test_yaml_with_nested_sections_and_overrides(tmp_path: Path) -> None:
    f = tmp_path / "run.yaml"
    f.write_text("tasks:\n  apps: [a]\nreal_ratio: 0\ngroup_size: 4\n"
                 "sources:\n  - {name: mock, kind: sim}\nprompt:\n  history: 3\n")
    cfg = load_config(GRPOConfig, f, {"prompt.max_new_tokens": 20})
    assert cfg.group_size == 4 and cfg.prompt.history == 3 and cfg.prompt.max_new_tokens == 20
    assert cfg.sources[0].apps == ["a"]  # sim sources default to tasks.apps
    assert cfg.sources[0].domain == "mock" and cfg.sources[0].reward == "verifier"


@pytest.mark.parametrize(("data", "needle"), [
    ({"grup_size": 4}, "did you mean 'group_size'"),
    ({"tasks": {"apps": ["a"]}, "real_ratio": 0.5}, "add a source with kind: real"),
    ({"tasks": {"apps": ["a"]}, "real_ratio": 0, "group_size": 1}, "group_size must be >= 2"),
    ({"tasks": {"apps": ["a"]}, "real_ratio": 0.5,
      "sources": [{"name": "m", "kind": "sim"}, {"name": "r", "kind": "real"}]},
     "no `judge:` section"),
    ({"sources": [{"name": "r", "kind": "real", "reward": "verifier"}], "real_ratio": 1},
     "use reward: judge"),
], ids=["typo", "ratio-without-real", "group-of-one", "judge-missing", "real-verifier"])
def test_bad_configs_say_the_fix(data: dict, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        load_config(GRPOConfig, None, data)


def test_set_values_take_the_field_type_or_say_what_is_wrong() -> None:
    from phoneworld.rl.config import parse_override

    # YAML 1.1 reads 1e-5 (no dot) as a string: a float field still gets the number
    overrides = dict(parse_override(x) for x in ["learning_rate=1e-5", "group_size=4"])
    cfg = load_config(GRPOConfig, None, {"tasks": {"apps": ["a"]}, "real_ratio": 0, **overrides})
    assert cfg.learning_rate == 1e-5 and isinstance(cfg.learning_rate, float)
    for key, value, needle in [("learning_rate", "fast", "must be a number, got 'fast'"),
                               ("group_size", 2.5, "must be a whole number"),
                               ("group_size", True, "must be a whole number")]:
        with pytest.raises(ConfigError, match=f"{key} {needle}"):
            load_config(GRPOConfig, None, {"tasks": {"apps": ["a"]}, "real_ratio": 0, key: value})


def test_sft_config_needs_data() -> None:
    with pytest.raises(ConfigError, match="nothing to train on"):
        SFTConfig(demos_per_task=0)


def test_every_field_has_help() -> None:
    import dataclasses

    for cls in (GRPOConfig, SFTConfig, JudgeConfig):
        for f in dataclasses.fields(cls):
            assert f.metadata.get("help"), f"{cls.__name__}.{f.name} has no help text"


def test_judge_key_stays_in_the_environment(monkeypatch: pytest.MonkeyPatch,
                                            caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-secret-123")
    cfg = JudgeConfig(base_url="http://127.0.0.1:9/v1", model="m", api_key_env="MY_JUDGE_KEY")
    assert cfg.resolved()[2] == "sk-secret-123"
    assert "sk-secret" not in repr(cfg) and "sk-secret" not in str(cfg)
    from phoneworld.rl.judge import RubricJudge

    with caplog.at_level(logging.DEBUG):
        RubricJudge(cfg)
    assert "sk-secret" not in caplog.text


@pytest.mark.parametrize("command,cls", [("sft", "SFTConfig"), ("train", "GRPOConfig"),
                                         ("eval", "EvalConfig")])
def test_help_lists_every_config_field_with_its_help(command: str, cls: str) -> None:
    import dataclasses
    import importlib

    from typer.testing import CliRunner

    from phoneworld.rl.cli import app as rl_app
    from phoneworld.rl.config import field_help

    module = {"sft": "phoneworld.rl.sft_config", "train": "phoneworld.rl.grpo_config",
              "eval": "phoneworld.rl.eval_config"}
    config = getattr(importlib.import_module(module[command]), cls)
    res = CliRunner().invoke(rl_app, [command, "--help"], env={"COLUMNS": "400"})
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    fields = field_help(config)
    tops = {k.split(".")[0].split("[")[0] for k, _, _ in fields}
    assert tops == {f.name for f in dataclasses.fields(config)}
    for key, _, help_text in fields:
        assert key in text, key
        assert " ".join(help_text.split())[:40] in text, key
    assert "sources[].kind" in text or command != "train"
