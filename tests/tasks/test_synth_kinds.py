"""Task kinds on small hand-made apps: a checkbox's way back, lists that grow or shrink with
nothing typed, fields whose text another screen copies, fields that read alike on one screen."""

from __future__ import annotations

from phoneworld.ir.app import AppSpec, RemoveEffect
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


ADD = view(BUTTON, b(40, 1700, 1040, 1820), id="add", text="Add photo", clickable=True)


def gallery(n: int) -> Observation:
    """A title and a list of `n` image rows (nothing in a row has text), each with a remove
    button, and an "Add photo" button."""
    rows = []
    for k in range(n):
        y = 300 + k * 200
        rows.append(view(LINEAR, b(0, y, W, y + 200),
                         view(IMAGE, b(40, y + 20, 600, y + 180), id="thumb"),
                         view(BUTTON, b(700, y + 40, 860, y + 160), id="remove", desc="Remove",
                              clickable=True), id="row"))
    return screen(view(TEXT, b(40, 100, 1040, 200), id="title", text="Photos"),
                  view(RECYCLER, b(0, 300, W, 1600), *rows, id="photos", scrollable=True), ADD)


def test_a_list_that_grows_and_shrinks_with_nothing_typed_gets_create_and_delete() -> None:
    app = compile_app(traces(episode(
        "e0", gallery(2), tap(ADD), gallery(3), tap(ADD), gallery(4), click(780, 400),
        gallery(3), click(780, 600), gallery(2),
    ))).spec
    # The state pass does not tell which of several field-less records went; say it here.
    remove = RemoveEffect(collection="photos", target="item")
    app = app.model_copy(update={"transitions": tuple(
        t.model_copy(update={"effects": (remove,)}) if t.widget == "remove" else t
        for t in app.transitions)})
    kept = _kept(app)
    create, delete = kept["create_photo_added"], kept["delete_photo_removed"]
    assert create.instruction == 'Add a new photo to the list on the "Photos" screen'
    assert delete.instruction == 'Delete one photo from the list on the "Photos" screen'
    assert create.rule.model_dump(exclude_none=True) == {
        "count": {"collection": "photos", "where": {}, "equals": 3}}
    assert delete.rule.model_dump(exclude_none=True) == {
        "count": {"collection": "photos", "where": {}, "equals": 1}}
