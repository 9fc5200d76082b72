"""The oracle's best-first search heads for the screen where the task's state can change."""

from __future__ import annotations

import pytest

from phoneworld.ir.app import AppSpec
from phoneworld.ir.trace import Action, Observation
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks import guide
from phoneworld.tasks.codegen import compile_verifier
from phoneworld.tasks.oracle import OracleConfig, solve
from phoneworld.tasks.params import instantiate
from phoneworld.tasks.synthesis import synthesize
from tests.compiler_support import (
    BUTTON, EDIT, TEXT, back, b, compile_app, episode, screen, tap, traces, type_, view,
)

ROOMS = 6


def _button(k: int, label: str, id: str) -> object:
    return view(BUTTON, b(40, 200 + 150 * k, 1040, 320 + 150 * k), id=id, text=label,
                clickable=True)


ROOM_BUTTONS = [_button(k, f"Room {k}", f"room{k}") for k in range(ROOMS)]
PROFILE = _button(ROOMS, "Profile", "profile")
SIDES = [_button(k, f"Side {k}", f"side{k}") for k in range(3)]
EDIT_BTN = _button(0, "Edit", "edit")
NAME = view(EDIT, b(40, 300, 1040, 420), id="name")


def home() -> Observation:
    return screen(*ROOM_BUTTONS, PROFILE)


def room(k: int) -> Observation:
    return screen(view(TEXT, b(40, 40, 1040, 160), id=f"room{k}_title", text=f"Room {k}"),
                  *SIDES, activity=f".Room{k}Activity")


def side(j: int) -> Observation:
    return screen(view(TEXT, b(40, 40, 1040, 160), id=f"side{j}_title", text=f"Side {j}"),
                  activity=f".Side{j}Activity")


def profile() -> Observation:
    return screen(EDIT_BTN, activity=".ProfileActivity")


def editor(name: str) -> Observation:
    return screen(NAME.model_copy(update={"text": name}), activity=".EditorActivity")


def _app() -> AppSpec:
    eps = []
    for k in range(ROOMS):
        steps: list[Observation | Action] = [home(), tap(ROOM_BUTTONS[k]), room(k)]
        for j in range(3):
            steps += [tap(SIDES[j]), side(j), back(), room(k)]
        eps.append(episode(f"r{k}", *steps))
    eps.append(episode("p", home(), tap(PROFILE), profile(), tap(EDIT_BTN), editor(""),
                       tap(NAME), editor(""), type_("Ada"), editor("Ada")))
    return compile_app(traces(*eps)).spec


@pytest.fixture(scope="module")
def app() -> AppSpec:
    return _app()


def _solve(app: AppSpec, config: OracleConfig):  # type: ignore[no-untyped-def]
    task = next(t for t in synthesize(app).tasks if t.id == "fill_name")
    verifier = compile_verifier(task, app)
    return solve(Simulator(app), instantiate(task, app, verify=verifier), verifier, config)


def test_the_guide_counts_screens_to_where_the_field_is(app: AppSpec) -> None:
    task = next(t for t in synthesize(app).tasks if t.id == "fill_name")
    g = guide.Guide(app, task.rule)
    by_name = {s.activity.rsplit(".", 1)[-1]: s.id for s in app.screens if s.activity}
    assert g.steps(by_name["EditorActivity"], (False,)) == 0
    assert g.steps(by_name["ProfileActivity"], (False,)) == 1
    assert g.steps(app.start_screen, (False,)) == 2
    assert g.steps(by_name["Room0Activity"], (False,)) > 2  # back is no recorded transition
    assert g.steps(app.start_screen, (True,)) == 0


def test_a_capped_best_first_search_finds_a_deep_field_with_the_guide(app: AppSpec,
                                                                     monkeypatch) -> None:
    few = OracleConfig(max_states=1, max_guided=30)
    res = _solve(app, few)
    assert res.solved and [m.kind for m in res.moves][-1] == "type", res
    monkeypatch.setattr(guide.Guide, "steps", lambda self, screen, held: 0)
    assert not _solve(app, few).solved  # the flat search spends its states on the rooms
