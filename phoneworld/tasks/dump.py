"""Task specs as YAML text (what `phoneworld build` writes to `<app>/task_specs/`): deterministic,
in the field order a person reads them, and loadable again by `phoneworld.tasks.load`."""

from __future__ import annotations

from typing import Any

import yaml

from phoneworld.tasks.spec import TASK_FORMAT, TaskSpec

HEADER = ("# Synthesized by `phoneworld build` and kept by its sanity check; rebuild to refresh.\n"
          "# To change a task, copy it to task_specs/{app}/ and edit the copy.\n")


class _Dumper(yaml.SafeDumper):
    """Block style everywhere, long strings kept on one line, no aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def task_data(spec: TaskSpec) -> dict[str, Any]:
    """The spec as plain data, fields in reading order, defaults of nested parts left out."""
    out: dict[str, Any] = {"format": TASK_FORMAT, "id": spec.id, "app": spec.app,
                           "category": spec.category}
    if spec.tags:
        out["tags"] = list(spec.tags)
    out["instruction"] = spec.instruction
    if spec.params:
        out["params"] = {}
        for name, p in spec.params.items():
            data = p.model_dump(mode="json", by_alias=True, exclude_defaults=True)
            out["params"][name] = {"type": p.type, "from": p.from_, **data}
    if spec.initial_state:
        out["initial_state"] = spec.initial_state
    out["rule"] = _rule(spec)
    out["budget"] = spec.budget.model_dump(mode="json")
    out["seed"] = spec.seed
    return out


def _rule(spec: TaskSpec) -> Any:
    dumped = spec.model_dump(mode="json", by_alias=True, exclude_defaults=True, include={"rule"})
    return dumped["rule"]


def dump_task(spec: TaskSpec, header: bool = True) -> str:
    """The YAML text of one task spec."""
    text = yaml.dump(task_data(spec), Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100)
    return (HEADER.format(app=spec.app) if header else "") + text
