"""`phoneworld.rl`: the training backend of phoneworld (DESIGN section 1, item 4).

SFT on oracle demonstrations and traces (TRL's `SFTTrainer`), then multi-turn RL in the GRPO
family over mock apps in the simulator (rule verifiers) and real apps on devices (rubric judge),
mixed at a configured ratio through an asynchronous buffer. One training row per agent step.

Layout (TRL style, one `<method>_config.py` + `<method>_trainer.py` pair per method):
`config` (shared dataclasses, YAML), `model` (loading: HF path, the offline SmolLM2 GGUF, a tiny
model), `prompting` + `actions` (prompt template and strict action parser), `sampling` (batched
generation with a cached prompt prefix), `policy`, `tasks` (the task-source protocol), `rollout`,
`sources`, `buffer`, `advantage`, `rewards`, `judge`, `calibrate`, `sft_*`, `grpo_*`, `eval_*`,
`checkpoint`, `cli`.

This package imports torch lazily in the modules that need it; `import phoneworld` never imports it.
It uses the rest of phoneworld through public names only (`tests/test_import_surface.py`); its
version is phoneworld's (`phoneworld.__version__`).
"""
