"""Names for Jetpack Compose apps: no resource ids, a labelled switch is its whole row (a Switch
around the TextView of its label), and two tabs' lists are both lists of "item"s.

Before: "Turn on switch" (the variable's name: the label is inside the switch, not beside it),
and one "Add an item titled ..." for the Books tab and the Wishlist tab alike, so the second
was dropped as a duplicate of the first: one create and one delete task for two lists. (The
bottom bar, read as a list of items, stays without tasks: they were the lists' duplicates.)
"""

from __future__ import annotations

from phoneworld.ir.app import Lit, Widget
from phoneworld.ir.trace import Observation, ViewNode
from phoneworld.tasks import naming as nm
from phoneworld.tasks.synthesis import synthesize
from tests.abstract.test_compose import VIEW, tab, text
from tests.abstract.test_flutter import node
from tests.compiler_support import EDIT, PKG, W, b, click, compile_app, episode, tap, traces, type_

BUTTON = "android.widget.Button"


def settings(reminder: bool) -> Observation:
    row = node("android.widget.Switch", b(0, 200, W, 350),
               text("Daily reminder", b(40, 220, 900, 330)), checkable=True, clickable=True,
               checked=reminder)
    return tab("Settings", node(VIEW, b(0, 200, W, 1700), node(VIEW, b(0, 200, W, 500), row)))


def test_a_switch_is_named_by_the_one_text_inside_it() -> None:
    spec = compile_app(traces(episode(
        "e0", settings(False), click(540, 275), settings(True), click(540, 275),
        settings(False)))).spec
    said = [t.instruction for t in synthesize(spec, None).tasks]
    assert "Turn on Daily reminder" in said and "Is Daily reminder turned on?" in said
    assert not [s for s in said if "switch" in s.lower()]
    box = node("android.widget.CheckBox", b(0, 0, 100, 100), checkable=True)
    row = node(VIEW, b(0, 0, W, 100), box, text("Vibrate", b(120, 0, 900, 100), index=1))
    assert nm.widget_label(nm_widget(box), nm_widget(row)) == "Vibrate"  # beside it, as before


def nm_widget(n: ViewNode) -> Widget:
    """A view as the app spec's widget (literal texts), for the naming helpers."""
    return Widget(wid=n.cls.rsplit(".", 1)[-1].lower(), cls=n.cls, bounds=n.bounds,
                  text=Lit(value=n.text), checked=Lit(value=n.checked), checkable=n.checkable,
                  children=tuple(nm_widget(c) for c in n.children))


def shelf(title: str, items: list[str], typed: str = "") -> Observation:
    """A tab (header `title`) with a field, an Add button and a list of rows without ids; the
    Wishlist's page says what it is for above its list (the two pages are two screens)."""
    rows = [node(VIEW, b(0, 600 + 150 * k, W, 750 + 150 * k),
                 text(t, b(40, 620 + 150 * k, 700, 730 + 150 * k)),
                 node(BUTTON, b(900, 620 + 150 * k, 1040, 730 + 150 * k),
                      text("Remove", b(910, 640 + 150 * k, 1030, 710 + 150 * k)), index=1,
                      clickable=True), index=k) for k, t in enumerate(items)]
    page = node(VIEW, b(0, 200, W, 1700),
                ViewNode(cls=EDIT, bounds=b(40, 220, 800, 330), text=typed, package=PKG,
                         clickable=True, index=0),
                node(BUTTON, b(850, 220, 1040, 330), text("Add", b(870, 240, 1020, 310)),
                     index=1, clickable=True),
                node(VIEW, b(0, 600, W, 1700), *rows, index=2, scrollable=True),
                *([text("Books to buy one day", b(40, 400, 1000, 500), index=3)]
                  if title == "Wishlist" else []), index=1)
    return tab(title, page)


def test_two_tabs_lists_of_items_are_told_apart_by_their_screens_titles() -> None:
    add, field = click(945, 275), click(420, 275)
    to_wishlist = tap(tab("x", node(VIEW, b(0, 0, 1, 1))).root.children[2].children[1])

    def session(title: str, first: str, new: str) -> list[object]:
        return [shelf(title, [first, "Emma"]), field, shelf(title, [first, "Emma"]), type_(new),
                shelf(title, [first, "Emma"], new), add, shelf(title, [first, "Emma", new]),
                click(970, 675), shelf(title, ["Emma", new])]

    books = session("Books", "Dune", "Kindred")
    wishes = session("Wishlist", "Middlemarch", "Gilead")
    spec = compile_app(traces(episode("e0", *books, to_wishlist, *wishes))).spec
    said = [t.instruction for t in synthesize(spec, None).tasks]
    for title in ("Books", "Wishlist"):
        assert f'Add a {title} item titled "{{title}}"' in said, said
        assert f'Delete the {title} item "{{title}}"' in said, said
        assert f"How many {title} items are there?" in said, said
    # the bottom bar read as a list of items is no list of records to ask about
    assert not [s for s in said if "the item" in s or s == "How many items are there?"], said
