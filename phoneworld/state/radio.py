"""Radio groups: a click on a radio button checks it and unchecks the others of its group, as
Android's RadioGroup does, whatever the recording happened to show.

From diffs alone a tap that moved the choice from "Small" to "Medium" reads as two toggles, and
replayed from another choice it checked a third button beside the one already checked; a radio
button never tapped toggled like a box. Every radio button of a group (two or more RadioButton
widgets, outside lists, bound to flags, under one parent) now sets its own flag and clears the
group's others, on the clicks the recording learned (their effects on the group's flags are
replaced; what else they do, where they lead and their guards stay) and, where it was never
clicked, as a rule of its own that stays on the screen (`support=0`, inferred, as the untried
rules are).
"""

from __future__ import annotations

from collections import defaultdict

from phoneworld.ir.app import Effect, Lit, SetEffect, VarRef
from phoneworld.ir.model import Rule
from phoneworld.ir.screens import Abstraction, TemplateNode
from phoneworld.state.schema import Schema

__all__ = ["radio_groups", "radio_rules"]

RADIO = "RadioButton"  # RadioButton, AppCompatRadioButton, MaterialRadioButton


def radio_groups(abstraction: Abstraction, schema: Schema) -> dict[tuple[str, str], list[str]]:
    """(screen, radio wid) -> the flag variables of its group, its own first."""
    out: dict[tuple[str, str], list[str]] = {}
    for screen in abstraction.screens:
        by_parent: dict[str, list[TemplateNode]] = defaultdict(list)
        stack = [screen.root]
        while stack:
            node = stack.pop()
            if node.item is not None:
                continue  # a list's rows are records: their flags are fields
            for child in node.children:
                if child.cls.endswith(RADIO) and child.checkable \
                        and (screen.id, child.wid) in schema.flag_vars:
                    by_parent[node.wid].append(child)
            stack.extend(node.children)
        for radios in by_parent.values():
            flags = [schema.flag_vars[(screen.id, r.wid)] for r in radios]
            if len(radios) < 2 or len(set(flags)) < len(flags):
                continue
            for r, own in zip(radios, flags):
                out[(screen.id, r.wid)] = [own] + [f for f in flags if f != own]
    return out


def radio_rules(abstraction: Abstraction, schema: Schema, rules: list[Rule]) -> list[Rule]:
    """`rules` with every radio button's clicks checking it and clearing its group (module
    docstring), and a rule for each radio button the recording never clicked."""
    groups = radio_groups(abstraction, schema)
    if not groups:
        return rules
    out = []
    for rule in rules:
        group = groups.get((rule.screen, rule.widget or "")) if rule.action == "click" else None
        out.append(rule if group is None else rule.model_copy(
            update={"effects": _exclusive(group, rule.effects)}))
    clicked = {(r.screen, r.widget) for r in rules if r.action == "click"}
    for (screen, wid), group in sorted(groups.items()):
        if (screen, wid) not in clicked:
            out.append(Rule(screen=screen, action="click", widget=wid, target=None, nav="stay",
                            effects=_exclusive(group, ()), support=0))
    return out


def _exclusive(group: list[str], effects: tuple[Effect, ...]) -> tuple[Effect, ...]:
    """The group's own flag set, the others cleared, in place of what `effects` did to them."""
    kept = tuple(e for e in effects
                 if not (isinstance(getattr(e, "ref", None), VarRef) and e.ref.name in group))
    return tuple(SetEffect(ref=VarRef(name=name), value=Lit(value=name == group[0]))
                 for name in group) + kept
