"""A widget the app shows on several screens (a tab bar) does the same on a screen where the
recording never tried it, when every screen where it was tried agrees; any disagreement infers
nothing."""

from __future__ import annotations

import pytest

from phoneworld.ir.trace import Observation
from phoneworld.runtime.sim import Simulator
from tests.compiler_support import (
    BUTTON, TEXT, W, b, back as back_, compile_app, episode, screen, tap, traces, view,
)

TABS = ("Home", "Search", "Profile", "Settings")


def tab(name: str):  # type: ignore[no-untyped-def]
    k = TABS.index(name)
    return view(BUTTON, b(k * 270, 1700, (k + 1) * 270, 1900), text=name, clickable=True)


def page(activity: str) -> Observation:
    # headed unlike its tab, so that the tabs' labels name no page (`label_rules`)
    return screen(view(TEXT, b(0, 0, W, 150), id="title", text=f"My {activity.lower()}"),
                  *(tab(t) for t in TABS), activity=f".{activity}Activity")


def test_a_tab_tried_on_two_screens_works_on_a_third() -> None:
    # Profile leads to Profile from Home and from Search; Settings shows the tab but never used it
    run = episode("run#1", page("Home"), tap(tab("Profile")), page("Profile"),
                  tap(tab("Search")), page("Search"), tap(tab("Profile")), page("Profile"),
                  tap(tab("Settings")), page("Settings"))
    c = compile_app(traces(run))
    ids = {s.activity.rsplit(".", 1)[-1]: s.id for s in c.spec.screens if s.activity}
    settings, profile = ids["SettingsActivity"], ids["ProfileActivity"]
    inferred = [t for t in c.spec.transitions if t.support == 0]
    assert [(t.screen, t.target) for t in inferred] == [(settings, profile)]
    sim = Simulator(c.spec)
    sim.set_position(settings, {})
    sim.step(tap(tab("Profile")))
    assert sim.screen == profile


def test_a_labelled_button_is_the_same_widget_wherever_a_screen_places_it() -> None:
    """A "Sound: Cesium" row opens the sound picker from two screens where it sits at different
    heights (AutoDroid's synthesised rows, a form with more fields above it): the same row on a
    third screen, untried, opens it too."""
    def sound(y: int):  # type: ignore[no-untyped-def]
        return view(BUTTON, b(0, y, W, y + 150), text="Sound: Cesium", clickable=True)

    def form(activity: str, y: int) -> Observation:
        return screen(view(TEXT, b(0, 0, W, 150), id="title", text=activity), sound(y),
                      activity=f".{activity}Activity")

    picker = screen(view(TEXT, b(0, 0, W, 150), id="title", text="Sounds"),
                    activity=".PickerActivity")
    c = compile_app(traces(
        episode("e0", form("Alarm", 300), tap(sound(300)), picker),
        episode("e1", form("Timer", 600), tap(sound(600)), picker),
        episode("e2", form("Stopwatch", 900)),
    ))
    ids = {s.activity.rsplit(".", 1)[-1]: s.id for s in c.spec.screens if s.activity}
    inferred = [(t.screen, t.target) for t in c.spec.transitions if t.support == 0]
    assert inferred == [(ids["StopwatchActivity"], ids["PickerActivity"])]


def test_a_shared_widget_with_two_outcomes_infers_nothing() -> None:
    run = episode("run#1", page("Home"), tap(tab("Profile")), page("Profile"),
                  tap(tab("Search")), page("Search"), tap(tab("Profile")), page("Home"),
                  tap(tab("Settings")), page("Settings"))
    c = compile_app(traces(run))
    assert [t for t in c.spec.transitions if t.support == 0] == []


def test_where_the_tried_screens_disagree_the_one_most_like_it_decides() -> None:
    """Profile opens Me from Home and Account from Search; a second search page shows what
    Search shows (with one more line) and gets Search's outcome; a page like neither gets none."""
    def rows(*texts: str) -> list:  # type: ignore[type-arg]
        return [view(TEXT, b(0, 200 + 100 * k, W, 290 + 100 * k), text=t)
                for k, t in enumerate(texts)]

    def page_with(activity: str, *texts: str) -> Observation:
        return screen(view(TEXT, b(0, 0, W, 150), id="title", text=f"My {activity.lower()}"),
                      *rows(*texts),
                      *(tab(t) for t in TABS), activity=f".{activity}Activity")

    found = ("Recent", "Filters", "Sort by", "Saved searches", "Clear")
    c = compile_app(traces(
        episode("e0", page_with("Home", "Feed", "Stories"), tap(tab("Profile")), page("Me")),
        episode("e1", page_with("Search", *found), tap(tab("Profile")), page("Account")),
        episode("e2", page_with("Results", *found, "3 results")),
        episode("e3", page_with("Help", "FAQ")),
    ))
    ids = {s.activity.rsplit(".", 1)[-1]: s.id for s in c.spec.screens if s.activity}
    inferred = {t.screen: t.target for t in c.spec.transitions if t.support == 0}
    assert inferred[ids["ResultsActivity"]] == ids["AccountActivity"]
    assert ids["HelpActivity"] not in inferred


def test_a_widget_tried_on_one_screen_only_is_not_generalized() -> None:
    run = episode("run#1", page("Home"), tap(tab("Profile")), page("Profile"),
                  tap(tab("Settings")), page("Settings"))
    c = compile_app(traces(run))
    assert [t for t in c.spec.transitions if t.support == 0] == []


def dialog(*buttons: str) -> Observation:
    return screen(view(TEXT, b(0, 0, W, 150), id="title", text="Delete?"),
                  *(view(BUTTON, b(0, 300 + 200 * k, W, 480 + 200 * k), text=t, clickable=True)
                    for k, t in enumerate(buttons)), activity=".DialogActivity")


def test_an_untried_cancel_button_closes_its_screen_as_back_does() -> None:
    delete = view(BUTTON, b(0, 300, W, 480), text="Delete", clickable=True)
    home = screen(view(TEXT, b(0, 0, W, 150), id="title", text="Home"), delete)
    run = episode("run#1", home, tap(delete), dialog("OK", "Cancel"))
    c = compile_app(traces(run))
    inferred = [t for t in c.spec.transitions if t.support == 0]
    assert [(t.action, t.nav, t.target) for t in inferred] == [("click", "pop", None)]
    sim = Simulator(c.spec)
    sim.reset()
    sim.step(tap(delete))
    sim.step(tap(view(BUTTON, b(0, 500, W, 680))))  # Cancel
    assert sim.screen == c.spec.start_screen


@pytest.mark.parametrize("caption", ["取消", "キャンセル", "Schließen", "Отмена"],
                         ids=["chinese", "japanese", "german", "russian"])
def test_an_untried_cancel_button_in_another_language_closes_its_screen(caption: str) -> None:
    delete = view(BUTTON, b(0, 300, W, 480), text="Delete", clickable=True)
    home = screen(view(TEXT, b(0, 0, W, 150), id="title", text="Home"), delete)
    c = compile_app(traces(episode("run#1", home, tap(delete), dialog("OK", caption))))
    inferred = [t for t in c.spec.transitions if t.support == 0]
    assert [(t.action, t.nav, t.target) for t in inferred] == [("click", "pop", None)]


def _contacts(*names: str) -> Observation:
    return screen(view(TEXT, b(0, 0, W, 150), id="title", text="Contacts"),
                  *(view(BUTTON, b(0, 200 + 150 * k, W, 340 + 150 * k), text=n, clickable=True)
                    for k, n in enumerate(names)), activity=".ContactsActivity")


def test_an_untried_row_opens_what_the_tried_rows_of_its_run_opened() -> None:
    """A contact list as AutoDroid records it (a Button per contact, no list): Alice and Bob
    opened the contact page, so Jack does; with one row tried, or rows that disagree, no rule."""
    names = ("Alice", "Bob", "Jack")
    card = screen(view(TEXT, b(0, 0, W, 150), id="name", text="Contact"), activity=".CardActivity")
    row = {n: _contacts(*names).root.children[1 + k] for k, n in enumerate(names)}

    def inferred(*visits: tuple[str, Observation]) -> dict[str, str | None]:
        c = compile_app(traces(*(episode(f"e{k}", _contacts(*names), tap(row[n]), then)
                                 for k, (n, then) in enumerate(visits))))
        return {t.widget: t.target  # type: ignore[misc]
                for t in c.spec.transitions if t.support == 0}

    assert inferred(("Alice", card), ("Bob", card)) == {"button_3": "s01_card"}
    assert inferred(("Alice", card)) == {}
    other = screen(view(TEXT, b(0, 0, W, 150), id="name", text="Settings"),
                   activity=".SettingsActivity")
    assert inferred(("Alice", card), ("Bob", other)) == {}


def _menu(*entries: str) -> Observation:
    return screen(view(TEXT, b(0, 0, W, 150), id="title", text="My app"),
                  *(view(BUTTON, b(0, 300 + 200 * k, W, 480 + 200 * k), text=e, clickable=True)
                    for k, e in enumerate(entries)), activity=".MainActivity")


def _page(heading: str, activity: str, *more: str) -> Observation:
    return screen(view(TEXT, b(0, 0, W, 150), id="title", text=heading),
                  *(view(TEXT, b(0, 300 + 200 * k, W, 480 + 200 * k), text=t)
                    for k, t in enumerate(more)), activity=f".{activity}Activity")


def test_an_untried_button_opens_the_one_screen_its_label_heads() -> None:
    """"Settings" was never tapped, but the recording reached a page headed "Settings" another
    way: the button opens it. A label that heads two screens, or that its own screen also shows
    as a heading, or a heading that changes between visits, infers nothing."""
    menu = _menu("Help", "Settings", "About")
    button = {e: menu.root.children[1 + k] for k, e in enumerate(("Help", "Settings", "About"))}
    settings = _page("Settings", "Settings")
    run = episode("run#1", menu, tap(button["Help"]), _page("Help", "Help", "Open Settings"),
                  tap(view(BUTTON, b(0, 300, W, 480))), settings)
    c = compile_app(traces(run))
    ids = {s.activity.rsplit(".", 1)[-1]: s.id for s in c.spec.screens if s.activity}
    inferred = {(t.screen, t.widget): (t.target, t.nav) for t in c.spec.transitions
                if t.support == 0}
    assert inferred == {(ids["MainActivity"], "button_2"): (ids["SettingsActivity"], "push")}
    sim = Simulator(c.spec)
    sim.reset()
    sim.step(tap(button["Settings"]))
    assert sim.screen == ids["SettingsActivity"]
    # "About" heads two screens: which one it opens is not known
    two = episode("run#2", menu, tap(button["Help"]), _page("About", "Help"),
                  tap(view(BUTTON, b(0, 300, W, 480))), _page("About", "Settings"))
    assert not [t for t in compile_app(traces(two)).spec.transitions
                if t.support == 0 and t.widget == "button_3"]
    # a heading that changes between visits is no heading (a record's name on its detail page)
    varies = episode("run#3", menu, tap(button["Help"]), _page("Help", "Help"),
                     tap(view(BUTTON, b(0, 300, W, 480))), _page("Settings", "Detail"), back_(),
                     _page("Help", "Help"), tap(view(BUTTON, b(0, 300, W, 480))),
                     _page("Other", "Detail"))
    assert not [t for t in compile_app(traces(varies)).spec.transitions
                if t.support == 0 and t.widget == "button_2"]


IMAGE = "android.widget.ImageView"


def _icon_button(y: int, desc: str):  # type: ignore[no-untyped-def]
    # a Compose IconButton: the clickable button says nothing, the icon inside it is described
    return view(BUTTON, b(0, y, 150, y + 150), view(IMAGE, b(0, y, 150, y + 150), desc=desc),
                clickable=True)


def _under(icon, title: str, activity: str) -> Observation:  # type: ignore[no-untyped-def]
    """A page headed `title` beside its icon button."""
    return screen(icon, view(TEXT, b(200, 0, W, 150), id="title", text=title), activity=activity)


def test_a_rule_for_a_described_icon_goes_to_the_button_that_takes_its_taps() -> None:
    # The detail page's up arrow is an IconButton whose icon says "Navigate up"; the recording
    # tapped it and landed on a page of its own. The button it sits in takes the tap (the step
    # names the button), so no inferred pop may sit on the icon and shadow what was recorded.
    open_ = view(BUTTON, b(0, 300, W, 480), text="Open", clickable=True)
    home = screen(view(TEXT, b(0, 0, W, 150), id="title", text="Home"), open_)
    up = _icon_button(0, "Navigate up")
    detail = _under(up, "Detail", ".DetailActivity")
    saved = screen(view(TEXT, b(0, 0, W, 150), id="title", text="Saved"), activity=".SavedActivity")
    c = compile_app(traces(episode("run#1", home, tap(open_), detail, tap(up), saved)))
    assert [t for t in c.spec.transitions if t.support == 0] == []
    sim = Simulator(c.spec)
    sim.reset()
    sim.step(tap(open_))
    sim.step(tap(up))
    assert sim.screen not in (c.spec.start_screen, sim.app.start)  # the recorded page, not a pop
    assert "Saved" in sim.text()


def test_an_untried_icon_button_described_close_closes_its_screen() -> None:
    delete = view(BUTTON, b(0, 300, W, 480), text="Delete", clickable=True)
    home = screen(view(TEXT, b(0, 0, W, 150), id="title", text="Home"), delete)
    close = _icon_button(0, "Close")
    sheet = _under(close, "Delete?", ".SheetActivity")
    c = compile_app(traces(episode("run#1", home, tap(delete), sheet)))
    inferred = [t for t in c.spec.transitions if t.support == 0]
    button = next(n.wid for s in c.abstraction.screens for n in s.root.walk()
                  if n.cls == BUTTON and n.children)
    assert [(t.widget, t.nav, t.target) for t in inferred] == [(button, "pop", None)]
    assert any(wid == button for _, wid in c.schema.dismissing)
    sim = Simulator(c.spec)
    sim.reset()
    sim.step(tap(delete))
    sim.step(tap(close))
    assert sim.screen == c.spec.start_screen


def test_a_button_whose_caption_names_a_screen_opens_it_where_the_caption_takes_no_taps() -> None:
    # Compose and React Native draw a button as a clickable view around a Text that takes no
    # taps: the caption names the button, and the inferred push sits on the view a tap lands on
    def entry(k: int, caption: str):  # type: ignore[no-untyped-def]
        box = b(0, 300 + 200 * k, W, 480 + 200 * k)
        return view(BUTTON, box, view(TEXT, box, text=caption), clickable=True)

    menu = screen(view(TEXT, b(0, 0, W, 150), id="title", text="My app"),
                  *(entry(k, e) for k, e in enumerate(("Help", "Settings"))))
    holders = {e: menu.root.children[1 + k] for k, e in enumerate(("Help", "Settings"))}
    run = episode("run#1", menu, tap(holders["Help"]), _page("Help", "Help", "Open Settings"),
                  tap(view(BUTTON, b(0, 300, W, 480))), _page("Settings", "Settings"))
    c = compile_app(traces(run))
    ids = {s.activity.rsplit(".", 1)[-1]: s.id for s in c.spec.screens if s.activity}
    inferred = [(t.screen, t.target, t.nav) for t in c.spec.transitions if t.support == 0]
    assert inferred == [(ids["MainActivity"], ids["SettingsActivity"], "push")]
    held = next(t.widget for t in c.spec.transitions if t.support == 0)
    assert next(n for s in c.abstraction.screens for n in s.root.walk() if n.wid == held).clickable
    sim = Simulator(c.spec)
    sim.reset()
    sim.step(tap(holders["Settings"]))
    assert sim.screen == ids["SettingsActivity"]


@pytest.mark.parametrize("desc", ["转到上一层级", "Nach oben", "Перейти вверх", "Gino huca"],
                         ids=["chinese", "german", "russian", "no-language"])
def test_the_up_button_closes_its_screen_in_any_language_appcompat_speaks(desc: str) -> None:
    """The toolbar's up button described in the app's language (AppCompat's own translations,
    `state.framework_labels`), untried: it closes its screen as "Navigate up" does."""
    delete = view(BUTTON, b(0, 300, W, 480), text="Delete", clickable=True)
    home = screen(view(TEXT, b(0, 0, W, 150), id="title", text="Home"), delete)
    up = _icon_button(0, desc)
    edit = _under(up, "Edit", ".EditActivity")
    c = compile_app(traces(episode("run#1", home, tap(delete), edit)))
    inferred = [(t.nav, t.target) for t in c.spec.transitions if t.support == 0]
    if desc == "Gino huca":  # no such label in any language: nothing is inferred
        assert inferred == []
        return
    assert inferred == [("pop", None)]
    sim = Simulator(c.spec)
    sim.reset()
    sim.step(tap(delete))
    sim.step(tap(up))
    assert sim.screen == c.spec.start_screen
