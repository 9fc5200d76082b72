"""Toggles drawn as two checkable views: Google Maps' filter chip is a CompoundButton (it takes
the tap) around a Button (it takes none) that shows the same checked flag, as a Compose switch
inside its toggleable row does; a settings row takes the taps of the switch at its end, which
has no text of its own.

Before: the chip was two flags. A tap reached the inner Button first and turned it alone, so
"Turn on Delivery" (the outer flag) had no solution and "Is Delivery turned on?" sat beside
"Is "Delivery" checked?", one question asked twice; the settings switches were all "switch"
("Turn off switch" twice, for two switches)."""

from __future__ import annotations

from phoneworld.ir.trace import Observation
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks.synthesis import synthesize
from tests.compiler_support import (
    BUTTON, LINEAR, RECYCLER, TEXT, W, b, click, compile_app, episode, screen, tap, traces, view,
)

COMPOUND = "android.widget.CompoundButton"
SWITCH = "android.widget.Switch"
CHIP = b(40, 200, 400, 320)


def filters(delivery: bool, label_checked: bool | None = None) -> Observation:
    """A chip ("Delivery": the outer view takes taps, the inner shows the flag) and two
    settings rows, each a clickable row with a title, a summary and a switch that takes no
    taps."""
    inner = delivery if label_checked is None else label_checked
    chip = view(COMPOUND, CHIP, view(BUTTON, CHIP, text="Delivery", desc="Delivery",
                                     checkable=True, checked=inner),
                desc="Delivery", checkable=True, clickable=True, checked=delivery)
    rows = [view(LINEAR, b(0, 400 + 200 * k, W, 600 + 200 * k),
                 view(LINEAR, b(40, 400 + 200 * k, 870, 600 + 200 * k),
                      view(TEXT, b(40, 420 + 200 * k, 600, 480 + 200 * k), text=title),
                      view(TEXT, b(40, 490 + 200 * k, 860, 560 + 200 * k), text=summary)),
                 view(LINEAR, b(870, 400 + 200 * k, 1040, 600 + 200 * k),
                      view(SWITCH, b(900, 460 + 200 * k, 1030, 540 + 200 * k),
                           checkable=True)),
                 clickable=True)
            for k, (title, summary) in enumerate((
                ("Timeline emails", "Get highlights of your Timeline in your inbox"),
                ("Google Photos", "Show your Google Photos in Timeline")))]
    return screen(view(TEXT, b(40, 60, 800, 160), text="Filters"), chip, *rows)


def chip_tap() -> object:
    return tap(view(COMPOUND, CHIP))


def test_a_flag_drawn_twice_is_one_flag_and_a_tap_turns_both() -> None:
    compiled = compile_app(traces(episode(
        "e0", filters(False), chip_tap(), filters(True), chip_tap(), filters(False))))
    flags = compiled.schema.flag_vars
    chip_flags = {var for (_, wid), var in flags.items() if "button" in wid}
    assert len(chip_flags) == 1
    sim = Simulator(compiled.spec)
    sim.reset()
    sim.tap(220, 260)
    shown = [n.checked for n in sim.view().walk() if n.checkable and n.bounds == CHIP]
    assert shown == [True, True]
    said = [t.instruction for t in synthesize(compiled.spec, None).tasks]
    assert "Turn on Delivery" in said
    assert len([s for s in said if s.startswith("Is") and "Delivery" in s]) == 1


def test_a_switch_in_a_settings_row_is_named_by_the_row_title() -> None:
    spec = compile_app(traces(episode(
        "e0", filters(False), chip_tap(), filters(True), chip_tap(), filters(False)))).spec
    said = [t.instruction for t in synthesize(spec, None).tasks]
    assert "Turn on Timeline emails" in said and "Is Google Photos turned on?" in said
    assert not [s for s in said if "switch" in s.lower()]


def test_a_view_that_once_showed_another_flag_keeps_its_own() -> None:
    compiled = compile_app(traces(episode(
        "e0", filters(False), chip_tap(), filters(True, label_checked=False), chip_tap(),
        filters(False))))
    chip_flags = {var for (_, wid), var in compiled.schema.flag_vars.items() if "button" in wid}
    assert len(chip_flags) == 2


def settings_list(flags: list[bool]) -> Observation:
    """A RecyclerView of settings rows, each a clickable row with a title, a summary and a
    switch that takes no taps."""
    titles = [("Wi-Fi calling", "Use Wi-Fi when available"),
              ("Bluetooth scanning", "Let apps scan"), ("Data saver", "Reduce data use")]
    rows = [view(LINEAR, b(0, 200 + 200 * k, W, 400 + 200 * k),
                 view(TEXT, b(40, 220 + 200 * k, 600, 280 + 200 * k), id="title", text=t),
                 view(TEXT, b(40, 290 + 200 * k, 860, 360 + 200 * k), id="summary", text=s),
                 view(SWITCH, b(900, 260 + 200 * k, 1030, 340 + 200 * k), id="switch_widget",
                      checkable=True, checked=f), clickable=True)
            for k, ((t, s), f) in enumerate(zip(titles, flags))]
    return screen(view(TEXT, b(40, 60, 800, 160), text="Network"),
                  view(RECYCLER, b(0, 200, W, 1200), *rows, id="recycler_view", scrollable=True))


def test_a_switch_on_a_list_row_is_turned_on_not_marked() -> None:
    """A settings list (Android's own settings are a RecyclerView of such rows): its records'
    flag is a switch, so its tasks say "Turn on the item "Wi-Fi calling"" and ask "Is the item
    "Wi-Fi calling" turned on?". Before: "Mark the item "Wi-Fi calling" as checked", "Is the
    item "Wi-Fi calling" checked?"."""
    flags = [False, True, False]
    steps: list[object] = [settings_list(list(flags))]
    for k in (0, 1, 0, 2, 2):
        flags[k] = not flags[k]
        steps += [click(300, 300 + 200 * k), settings_list(list(flags))]
    spec = compile_app(traces(episode("e0", *steps))).spec
    tasks = synthesize(spec, None).tasks
    said = [t.instruction for t in tasks if "toggle" in t.tags]
    assert said and all(s.startswith(("Turn on the", "Turn off the")) for s in said)
    asked = [t.instruction for t in tasks if "answer" in t.tags]
    assert 'Is the item "{title}" turned on?' in asked
    assert "How many items are turned off?" in asked and not [a for a in asked if "checked" in a]
