"""Tasks and verifiers (issue 3): task specs, the rule language, generated verifiers, synthesis,
the oracle, the sanity check, and episodes as data.

Public API (names load lazily, so importing the package pulls in neither gymnasium nor jinja2):
- `TaskSpec` (spec), `load_task_specs(paths, app)` (load; InputError with file:line diagnostics)
- `instantiate(spec, app, seed)` -> `TaskInstance` (params)
- `compile_verifier(spec, app)` -> `Verifier`, `render_verifier(spec, app)` (codegen), `Verdict`
- `synthesize(app)` -> `Synthesis` (synthesis), `check_tasks(app, specs)` -> `TaskCheck`s (sanity)
- `solve(sim, instance, verifier)` -> `OracleResult` (oracle), `OracleConfig`
- `build_tasks(app)` -> `TaskBuild` (what `phoneworld build` adds to an app folder)
- `run_task`, `evaluate`, `demos`, `save_trace` (episodes), `load_catalog(app_dir)` (catalog)
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "TaskSpec": "spec", "render_instruction": "spec", "load_task_specs": "load",
    "LoadedTask": "load", "TaskInstance": "params", "instantiate": "params",
    "Verifier": "codegen", "compile_verifier": "codegen", "render_verifier": "codegen",
    "Verdict": "verdict", "Synthesis": "synthesis", "SynthConfig": "synthesis",
    "synthesize": "synthesis", "TaskCheck": "sanity", "check_tasks": "sanity",
    "OracleConfig": "oracle", "OracleResult": "oracle", "solve": "oracle",
    "TaskBuild": "build", "build_tasks": "build", "run_task": "episodes", "evaluate": "episodes",
    "demos": "episodes", "save_trace": "episodes", "load_catalog": "catalog",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
