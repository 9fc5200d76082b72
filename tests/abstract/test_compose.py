"""Jetpack Compose's dumps: no resource ids, layouts and lists as `android.view.View`, texts in
TextViews, a button or a labelled toggle a Button / CheckBox / Switch around its TextView, and
every screen in one activity, its tabs' pages at one place.

A list's rows anchor what they hold alike whatever their place (`ShapeIndex.anchor`): another
tab's page at the list's place keeps its index (`item_mark` tells them apart); rows of views
that always show the same texts in a container that does not scroll (a dialog's buttons, a
settings column) are the screen's structure, not a list.
"""

from __future__ import annotations

from phoneworld.abstract import Reader
from phoneworld.abstract.shape import ShapeIndex
from phoneworld.ir.trace import Observation, ViewNode
from tests.compiler_support import PKG, W, b, screen

from .test_flutter import node
from .test_identity import screen_ids, visits

VIEW, TEXT = "android.view.View", "android.widget.TextView"


def text(value: str, bounds: object, index: int = 0) -> ViewNode:
    return ViewNode(cls=TEXT, bounds=bounds, text=value, package=PKG, index=index)


def tab(title: str, page: ViewNode) -> Observation:
    """A tab of a Compose app: a header (its title), the tab's page, a bottom bar."""
    bar = [node(VIEW, b(k * 360, 1700, (k + 1) * 360, 1900),
                text(t, b(k * 360 + 40, 1800, k * 360 + 300, 1880)), index=k, clickable=True)
           for k, t in enumerate(("Books", "Settings"))]
    return Observation(package=PKG, activity=f"{PKG}/.MainActivity", root=node(
        VIEW, b(0, 0, W, 1900),
        node(VIEW, b(0, 0, W, 200), text(title, b(40, 40, 800, 160)), index=0),
        page.model_copy(update={"index": 1}),
        node(VIEW, b(0, 1700, W, 1900), *bar, index=2), index=0))


def page_lists(template: object) -> list[object]:
    """The lists of a screen's page: not the bottom bar (tabs of generic views are a list's
    rows, as React Native's and native bars are)."""
    return [n for n in template.root.walk() if n.item is not None and n.bounds.y1 < 1700]


def books(*titles: str) -> Observation:
    """The Books tab: a list of tappable rows, each a View around its title."""
    return tab("Books", node(VIEW, b(0, 200, W, 1700), *[
        node(VIEW, b(0, 200 + 150 * k, W, 350 + 150 * k),
             text(t, b(40, 220 + 150 * k, 900, 330 + 150 * k)), index=k, clickable=True)
        for k, t in enumerate(titles)]))


def settings(*on: bool) -> Observation:
    """The Settings tab: at the list's place, a column of two Switches, each around its label."""
    switches = [node("android.widget.Switch", b(0, 200 + 150 * k, W, 350 + 150 * k),
                     text(label, b(40, 220 + 150 * k, 900, 330 + 150 * k)), index=k,
                     checkable=True, clickable=True, checked=value)
                for k, (label, value) in enumerate(zip(("Reminder", "Wi-Fi only"), on))]
    return tab("Settings", node(VIEW, b(0, 200, W, 1700),
                                node(VIEW, b(0, 200, W, 500), *switches, index=0)))


def test_a_lists_rows_are_alike_where_another_tab_shows_a_column_at_the_first_rows_place() -> None:
    """The settings column sits where the first book row does (index 0 under the page): the
    first row is still one of the list's, not a list of its own."""
    seen = visits(books("Dune", "Emma", "Beloved"), settings(True, False),
                  books("Dune", "Emma", "Beloved", "Persuasion"), settings(False, False),
                  books("Emma", "Beloved"))
    ids = screen_ids(seen)
    assert ids[0] == ids[2] == ids[4] and ids[1] == ids[3] and ids[0] != ids[1]
    main = next(s for s in seen.screens if s.id == ids[0])
    (shelf,) = page_lists(main)
    assert [len(seen.readings[0][k].lists[shelf.wid]) for k in (0, 2, 4)] == [3, 4, 2]
    title = next(n.wid for n in shelf.item.walk() if n.cls == TEXT)
    assert [it.texts[title] for it in seen.readings[0][0].lists[shelf.wid]] == [
        "Dune", "Emma", "Beloved"]
    # held out: a shelf of books never seen is the same screen, every row an item
    assert Reader(seen).read(books("Kindred", "Gilead")).screen == ids[0]
    assert len(Reader(seen).read(books("Kindred", "Gilead")).lists[shelf.wid]) == 2


def test_rows_that_always_show_the_same_texts_are_no_list() -> None:
    """A settings column of labelled switches, a dialog's Cancel / Add: like rows that never
    change their texts where nothing scrolls are the screen's own views."""
    seen = visits(settings(True, False), settings(False, False), settings(True, True))
    assert len(set(screen_ids(seen))) == 1
    (page,) = seen.screens
    assert not page_lists(page)
    boxes = [n for n in page.root.walk() if n.checkable]
    assert len(boxes) == 2
    assert [[r.checked[w.wid] for w in boxes] for r in seen.readings[0]] == [
        [True, False], [False, False], [True, True]]

    def dialog(question: str) -> Observation:
        buttons = [node("android.widget.Button", b(480 + 260 * k, 1040, 720 + 260 * k, 1150),
                        text(t, b(500 + 260 * k, 1060, 700 + 260 * k, 1130)), index=k,
                        clickable=True) for k, t in enumerate(("Cancel", "Add"))]
        return Observation(package=PKG, activity=f"{PKG}/.MainActivity", root=node(
            VIEW, b(70, 670, 1010, 1160), text(question, b(130, 730, 950, 820), index=0),
            node(VIEW, b(70, 1030, 1010, 1160), *buttons, index=1), index=0))
    index = ShapeIndex.learn([dialog(q).root for q in ("Add a book?", "Add it?", "Sure?")])
    assert not index.lists
    # rows whose texts change are records, where nothing scrolls too
    assert ShapeIndex.learn([books("Dune", "Emma").root, books("Emma", "Kindred").root]).lists


def playlist(first: int) -> Observation:
    """A LazyColumn (a View that scrolls) of songs from `first` on: title and artist per row,
    the last row cut at the screen's edge showing its title only."""
    rows = []
    for k in range(4):
        y = 200 + 300 * k
        kids = [text(f"Song {first + k}", b(40, y + 20, 900, y + 120), index=0)]
        if k < 3:
            kids.append(text(f"Artist {first + k}", b(40, y + 140, 900, y + 260), index=1))
        rows.append(node(VIEW, b(0, y, W, min(y + 300, 1300)), *kids, index=k, clickable=True))
    return tab("Songs", node(VIEW, b(0, 200, W, 1300), *rows, scrollable=True))


def test_rows_of_one_layout_in_a_view_that_scrolls_are_a_list_with_the_cut_row() -> None:
    """Every row but the one cut at the edge shows title and artist: still one list, the cut
    row one of its items (not dropped from the screen, not another screen)."""
    seen = visits(playlist(0), playlist(3), playlist(6))
    assert len(set(screen_ids(seen))) == 1
    (main,) = seen.screens
    (songs,) = page_lists(main)
    title = next(n.wid for n in songs.item.walk() if n.cls == TEXT)
    assert [it.texts[title] for it in seen.readings[0][2].lists[songs.wid]] == [
        "Song 6", "Song 7", "Song 8", "Song 9"]


def test_a_popups_rows_where_the_activitys_page_stands_leave_the_page_as_it_is() -> None:
    """Without ids a popup menu's list sits where the activity's page does (the first view under
    the window's root). Its rows (a view around a view around a label) and the page (a view
    around the header and the to-do list) look alike two levels down: the page is still no row
    of the menu, and the to-do list it holds, seen with more and fewer rows and none, is one
    list."""
    from .test_flutter import todo

    def page(*rows: tuple[str, bool]) -> Observation:
        inner = todo(*rows).root.children[0]  # the screen's View around header and list
        return screen(node(VIEW, b(0, 0, W, 1900),
                           node(VIEW, b(0, 0, W, 1900), node(VIEW, b(0, 0, W, 1900), inner)),
                           index=0))

    def menu() -> Observation:
        rows = [node(VIEW, b(560, 90 + 130 * k, 1070, 210 + 130 * k),
                     node(VIEW, b(580, 100 + 130 * k, 1050, 200 + 130 * k),
                          node(VIEW, b(600, 110 + 130 * k, 1030, 190 + 130 * k), desc=t)),
                     index=k, clickable=True) for k, t in enumerate(("Edit", "Delete"))]
        return screen(node(VIEW, b(560, 70, 1070, 370), *rows, index=0))

    seen = visits(page(("Pay rent", True), ("Call mom", False), ("Buy milk", True)), menu(),
                  page(("Pay rent", True), ("Call mom", False)), menu(),
                  page(("Fix bike", False), ("Pay rent", True), ("Call mom", False)), page())
    ids = screen_ids(seen)
    assert ids[0] == ids[2] == ids[4] and ids[1] == ids[3] and ids[0] != ids[1]
    # emptied, the page holds views only, as the menu's rows do, but goes deeper: the same page
    assert ids[5] == ids[0]
    main = next(s for s in seen.screens if s.id == ids[0])
    (tasks,) = [n for n in main.root.walk() if n.item is not None]
    assert [len(seen.readings[0][k].lists[tasks.wid]) for k in (0, 2, 4)] == [3, 2, 3]
