"""The state-model IR (output of `state`, input of `lower`): bindings, state schema and rules.

A `Binding` ties a widget of a screen template to the state: its text and checked flag as
expressions. A `Rule` is a transition before naming: on a screen, an action on a widget, a guard,
effects, a target and a navigation kind, with how many recorded steps it explains.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from phoneworld.ir.app import Effect, Expr, Guard, StateVar
from phoneworld.ir.base import Frozen, SourceRef


class Binding(Frozen):
    screen: str
    widget: str
    text: Expr | None = None
    checked: Expr | None = None


class ListBinding(Frozen):
    screen: str
    widget: str
    collection: str
    scroll: int = 0  # records one recorded scroll moved it by (0: none known)
    # item widget -> the flag field its row shows it by (an optional "High" badge)
    shown: dict[str, str] = Field(default_factory=dict)


class Rule(Frozen):
    screen: str
    action: str
    widget: str | None = None
    guard: Guard | None = None
    effects: tuple[Effect, ...] = ()
    target: str | None = None
    nav: str = "push"
    support: int = 0
    sources: tuple[SourceRef, ...] = ()


class StateModel(Frozen):
    variables: tuple[StateVar, ...]
    bindings: tuple[Binding, ...]
    lists: tuple[ListBinding, ...]
    rules: tuple[Rule, ...]
    initial_state: dict[str, Any] = Field(default_factory=dict)
    dropped: tuple[str, ...] = ()  # recorded behaviour the model does not reproduce, and why
    # the steps behind `dropped`, as (episode, step) of the graph: each went elsewhere than the
    # rest of its trigger's steps, and no state condition tells it apart
    outvoted: tuple[tuple[int, int], ...] = ()
