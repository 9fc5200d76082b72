"""Screens of a tiny notes app for the state tests: a list with an Add button, an editor with a
title field and Save, a detail screen with Delete. Each test records the few steps it needs."""

from __future__ import annotations

from phoneworld.ir.model import Rule, StateModel
from phoneworld.ir.trace import Observation, ViewNode
from tests.compiler_support import BUTTON, EDIT, TEXT, b, row_list, screen, view

ADD = view(BUTTON, b(740, 1620, 1040, 1740), id="add", text="Add", clickable=True)
SAVE = view(BUTTON, b(40, 400, 520, 520), id="save", text="Save", clickable=True)
DELETE = view(BUTTON, b(40, 400, 520, 520), id="delete", text="Delete", clickable=True)


def home(*titles: str, checked: tuple[bool, ...] = (), removable: bool = False) -> Observation:
    return screen(row_list(*titles, checked=checked, removable=removable, list_id="notes"), ADD)


def title_input(text: str = "") -> ViewNode:
    return view(EDIT, b(40, 200, 1040, 320), id="title_input", text=text)


def editor(title: str = "") -> Observation:
    return screen(title_input(title), SAVE, activity=".EditorActivity")


def detail(title: str) -> Observation:
    return screen(view(TEXT, b(40, 200, 1040, 320), id="note_title", text=title), DELETE,
                  activity=".DetailActivity")


def rules_for(model: StateModel, screen_id: str, action: str, widget: str | None) -> list[Rule]:
    return [r for r in model.rules
            if (r.screen, r.action, r.widget) == (screen_id, action, widget)]


def rule_for(model: StateModel, screen_id: str, action: str, widget: str | None) -> Rule:
    (rule,) = rules_for(model, screen_id, action, widget)
    return rule


__all__ = ["ADD", "DELETE", "SAVE", "detail", "editor", "home", "rule_for", "rules_for",
           "title_input"]
