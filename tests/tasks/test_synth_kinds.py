"""Task kinds on small hand-made apps: a checkbox's way back, lists that grow or shrink with
nothing typed, fields whose text another screen copies, fields that read alike on one screen."""

from __future__ import annotations

from phoneworld.ir.app import AppSpec
from phoneworld.ir.trace import Observation
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks import sanity
from phoneworld.tasks.spec import TaskSpec
from phoneworld.tasks.synthesis import synthesize
from tests.compiler_support import (
    BUTTON, CHECKBOX, EDIT, LINEAR, RECYCLER, TEXT, W, b, click, compile_app, episode, screen,
    tap, traces, type_, view,
)

IMAGE = "android.widget.ImageView"


def _kept(app: AppSpec) -> dict[str, TaskSpec]:
    checks = sanity.check_tasks(app, synthesize(app).tasks)
    return {c.task.id: c.task for c in checks if c.kept}


def _checkbox_app() -> AppSpec:
    def settings(on: bool) -> Observation:
        return screen(view(CHECKBOX, b(40, 200, 1040, 320), id="wifi", text="Wi-Fi only",
                           checkable=True, clickable=True, checked=on),
                      activity=".SettingsActivity")

    return compile_app(traces(episode(
        "e0", settings(False), click(500, 250), settings(True), click(500, 250), settings(False),
    ))).spec


def test_a_checkbox_is_checked_and_also_cleared_from_a_seeded_start() -> None:
    kept = _kept(_checkbox_app())
    on, off = kept["setting_wi_fi_only_on"], kept["setting_wi_fi_only_off"]
    assert (on.instruction, on.initial_state) == ('Check "Wi-Fi only"', {})
    assert (off.instruction, off.initial_state) == ('Uncheck "Wi-Fi only"', {"wifi": True})


def test_a_radio_button_is_not_cleared() -> None:
    raw = _checkbox_app().model_dump_json().replace("android.widget.CheckBox",
                                                    "android.widget.RadioButton")
    ids = {t.id for t in synthesize(AppSpec.model_validate_json(raw)).tasks}
    assert "setting_wi_fi_only_on" in ids and "setting_wi_fi_only_off" not in ids
