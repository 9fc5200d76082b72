"""Widgets that share a resource id on one screen are widgets of their own, told apart by their
row's label: a profile whose rows are one layout ("Name" and "City", each value `id/value`) keeps
two values, and settings pages whose switches all carry one id keep a switch per setting, also
across pages. Before, every `id/value` on a screen read one variable (editing the name rewrote
the city) and the first switch of every page was one switch."""

from __future__ import annotations

from phoneworld.ir.trace import Observation
from phoneworld.runtime.sim import Simulator
from tests.compiler_support import (
    BUTTON, CHECKBOX, EDIT, LINEAR, TEXT, b, click, compile_app, episode, screen, traces, type_,
    view,
)

OK = click(900, 1050)
ROWS = (300, 500, 700)  # the tops of a page's rows, 150 px tall


def profile(name: str, city: str) -> Observation:
    rows = [view(LINEAR, b(0, y, 1080, y + 150),
                 view(TEXT, b(40, y + 10, 1040, y + 70), id="title", text=title),
                 view(TEXT, b(40, y + 80, 1040, y + 140), id="value", text=value),
                 id="row", clickable=True)
            for y, title, value in zip(ROWS, ("Name", "City"), (name, city))]
    return screen(view(TEXT, b(40, 80, 1040, 160), id="heading", text="Profile"), *rows,
                  activity=".ProfileActivity")


def editor(title: str, text: str) -> Observation:
    return screen(view(TEXT, b(40, 600, 1040, 700), id="dlg_title", text=title),
                  view(EDIT, b(40, 800, 1040, 900), id="input", text=text, focused=True,
                       clickable=True),
                  view(BUTTON, b(800, 1000, 1000, 1100), id="ok", text="OK", clickable=True),
                  activity=".EditActivity")


def row(k: int) -> object:
    return click(500, ROWS[k] + 75)


def shown(sim: Simulator, rid: str) -> list[str]:
    return [n.text for n in sim.view().walk() if n.resource_id.endswith(f"id/{rid}")]


def test_values_of_rows_of_one_layout_are_variables_of_their_own() -> None:
    compiled = compile_app(traces(episode(
        "e0", profile("Ann", "Paris"), row(0), editor("Name", "Ann"), type_("Bob"),
        editor("Name", "Bob"), OK, profile("Bob", "Paris"), row(1), editor("City", "Paris"),
        type_("Rome"), editor("City", "Rome"), OK, profile("Bob", "Rome"))))
    values = {wid: var for (s, wid), var in compiled.schema.text_vars.items()
              if wid.startswith("value")}
    assert len(set(values.values())) == 2
    sim = Simulator(compiled.spec)
    sim.reset()
    assert shown(sim, "value") == ["Ann", "Paris"]
    sim.tap(500, ROWS[0] + 75)
    sim.type_text("Zoe")
    sim.tap(900, 1050)
    assert shown(sim, "value") == ["Zoe", "Paris"]  # the city stays


def settings(heading: str, titles: tuple[str, ...], on: tuple[bool, ...],
             more: bool = False) -> Observation:
    rows = [view(LINEAR, b(0, y, 1080, y + 150),
                 view(TEXT, b(40, y + 40, 800, y + 110), id="title", text=title),
                 view(CHECKBOX, b(900, y + 40, 1040, y + 110), id="switch_widget",
                      checkable=True, checked=flag),
                 id="pref", clickable=True)
            for y, title, flag in zip(ROWS, titles, on)]
    extra = [view(TEXT, b(40, 1500, 1040, 1600), id="more", text="Advanced", clickable=True)] \
        if more else []
    return screen(view(TEXT, b(40, 80, 1040, 160), id="heading", text=heading), *rows, *extra,
                  activity=".SettingsActivity")


def test_a_switch_of_one_setting_is_not_the_first_switch_of_every_page() -> None:
    general = ("Dark theme", "Sounds")
    advanced = ("Backup", "Sync", "Logs")
    compiled = compile_app(traces(episode(
        "e0", settings("General", general, (False, False), more=True), row(0),
        settings("General", general, (True, False), more=True), click(500, 1550),
        settings("Advanced", advanced, (False, True, False)), row(0),
        settings("Advanced", advanced, (True, True, False)))))
    flags = compiled.schema.flag_vars
    assert len(set(flags.values())) == 5
    sim = Simulator(compiled.spec)
    sim.reset()
    sim.tap(500, ROWS[0] + 75)  # Dark theme on
    sim.tap(500, 1550)
    boxes = [n.checked for n in sim.view().walk() if n.checkable]
    assert boxes == [False, True, False]  # Backup, Sync, Logs as the page was first shown


def travel(city: str) -> Observation:
    return screen(view(TEXT, b(40, 80, 1040, 160), id="heading", text="Travel"),
                  view(LINEAR, b(0, 300, 1080, 450),
                       view(TEXT, b(40, 310, 1040, 370), id="title", text="City"),
                       view(TEXT, b(40, 380, 1040, 440), id="value", text=city),
                       id="row", clickable=True),
                  view(BUTTON, b(40, 1500, 400, 1600), id="next", text="Profile",
                       clickable=True), activity=".TravelActivity")


def test_a_lone_widget_of_a_repeated_id_joins_its_row() -> None:
    compiled = compile_app(traces(
        episode("e0", travel("Paris"), click(200, 1550), profile("Ann", "Paris")),
        episode("e1", travel("Rome"), click(200, 1550), profile("Bob", "Rome"))))
    var = {}
    for template in compiled.abstraction.screens:
        for node in template.root.walk():
            if node.resource_id.endswith("id/value"):
                var[(template.name, node.bounds.y1)] = compiled.schema.text_vars.get(
                    (template.id, node.wid))
    names = {screen for screen, _ in var}
    travel_screen = next(n for n in names if "travel" in n)
    profile_screen = next(n for n in names if "profile" in n)
    city = var[(profile_screen, ROWS[1] + 80)]
    assert city is not None and var[(travel_screen, 380)] == city
    assert var[(profile_screen, ROWS[0] + 80)] != city
