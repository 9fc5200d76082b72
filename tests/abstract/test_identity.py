"""`abstract`: which observations are one screen.

The signature is the view tree's shape (class, resource-id, content-desc, children), never texts,
checked flags, bounds or how many items a list holds; zero-area leaves are not structure.
"""

from __future__ import annotations

import pytest

from phoneworld.abstract import abstract, read
from phoneworld.abstract.shape import content_keys, is_ad
from phoneworld.ir.screens import Abstraction
from phoneworld.ir.trace import Observation, ViewNode
from tests.compiler_support import (
    BUTTON, CHECKBOX, LINEAR, RECYCLER, TEXT, W, b, back, episode, row_list, screen, traces, view,
)


def header(text: str = "Notes") -> ViewNode:
    return view(TEXT, b(0, 0, W, 150), id="header", text=text)


def add_button(text: str = "Add") -> ViewNode:
    return view(BUTTON, b(40, 1700, 520, 1850), id="add", text=text, clickable=True)


def visits(*observations: Observation) -> Abstraction:
    """The abstraction of one episode that sees `observations` in turn (pressing back between)."""
    steps: list[object] = []
    for obs in observations:
        steps += [obs, back()]
    return abstract(traces(episode("e0", *steps[:-1])))  # type: ignore[arg-type]


def screen_ids(abstraction: Abstraction) -> list[str]:
    return [r.screen for r in abstraction.readings[0]]


def scrolled(offset: int) -> Observation:
    """A list of four rows scrolled up by `offset` pixels: the first row is clipped at the top."""
    rows = []
    for k, title in enumerate("abcd"):
        y = 200 + k * 200 - offset
        top = max(200, y)
        rows.append(view(LINEAR, b(0, top, W, y + 200),
                         view(TEXT, b(40, max(top, y + 20), 600, y + 180), id="title", text=title),
                         id="row", clickable=True))
    return screen(view(RECYCLER, b(0, 200, W, 1600), *rows, id="list", scrollable=True))


SAME_SCREEN = {
    "texts": (screen(header("Notes"), add_button("Add")), screen(header("Later"), add_button("New"))),
    "list_length": (screen(header(), row_list("a", "b", "c")), screen(header(), row_list("x"))),
    "empty_list": (screen(header(), row_list("a", "b")), screen(header(), row_list())),
    "scroll_offset": (scrolled(0), scrolled(120)),
    "checked_flag": (
        screen(view(CHECKBOX, b(40, 200, 1040, 320), id="dark", checkable=True, checked=False)),
        screen(view(CHECKBOX, b(40, 200, 1040, 320), id="dark", checkable=True, checked=True)),
    ),
    "bounds": (screen(view(TEXT, b(0, 0, W, 150), id="header")),
               screen(view(TEXT, b(0, 40, W, 400), id="header"))),
    "zero_area_leaf": (screen(header(), view(TEXT, b(0, 0, 0, 0), id="ghost")), screen(header())),
}


@pytest.mark.parametrize("first,second", SAME_SCREEN.values(), ids=SAME_SCREEN.keys())
def test_observations_that_differ_only_in_content_are_one_screen(
        first: Observation, second: Observation) -> None:
    abstraction = visits(first, second)
    assert len(abstraction.screens) == 1
    assert abstraction.screens[0].observations == 2
    assert screen_ids(abstraction) == ["s00_main", "s00_main"]


OTHER_SCREEN = {
    "extra_widget": (screen(header()), screen(header(), add_button())),
    "other_class": (screen(view(TEXT, b(0, 0, W, 150), id="header")),
                    screen(view(BUTTON, b(0, 0, W, 150), id="header"))),
    "other_resource_id": (screen(view(TEXT, b(0, 0, W, 150), id="header")),
                          screen(view(TEXT, b(0, 0, W, 150), id="title"))),
    "other_content_desc": (screen(view(BUTTON, b(0, 0, 150, 150), desc="Back")),
                           screen(view(BUTTON, b(0, 0, 150, 150), desc="Menu"))),
    "other_order": (screen(header(), add_button()), screen(add_button(), header())),
}


@pytest.mark.parametrize("first,second", OTHER_SCREEN.values(), ids=OTHER_SCREEN.keys())
def test_observations_of_another_structure_are_two_screens(
        first: Observation, second: Observation) -> None:
    abstraction = visits(first, second)
    assert [s.id for s in abstraction.screens] == ["s00_main", "s01_main_2"]
    assert screen_ids(abstraction) == ["s00_main", "s01_main_2"]
    assert abstraction.screens[0].signature != abstraction.screens[1].signature


def test_another_package_is_another_screen() -> None:
    ours = screen(header())
    theirs = ours.model_copy(update={"package": "com.android.launcher"})
    assert len(visits(ours, theirs).screens) == 2


def test_same_structure_under_another_activity_is_another_screen() -> None:
    about = screen(header("About"), activity=".AboutActivity")
    help_ = screen(header("Help"), activity=".HelpActivity")
    assert len(visits(about, help_).screens) == 2


def test_repeated_bare_leaves_are_layout_not_a_list() -> None:
    def labels(n: int) -> Observation:
        return screen(view(LINEAR, b(0, 0, W, 600),
                           *[view(TEXT, b(0, k * 150, W, k * 150 + 150)) for k in range(n)]))

    assert len(visits(labels(2), labels(3)).screens) == 2


def letters(n: int, ids: str = "letter{k}") -> Observation:
    """A word game's answer row: as many numbered slots shown as the word has letters."""
    return screen(header("Puzzle"), view(LINEAR, b(0, 200, W, 350), *[
        view("android.widget.ImageView", b(k * 100, 200, k * 100 + 100, 350),
             id=ids.format(k=k + 1)) for k in range(n)], id="word"))


def test_a_pool_of_numbered_views_is_one_screen_whatever_how_many_are_shown() -> None:
    abstraction = visits(letters(4), letters(6), letters(3))
    assert len(abstraction.screens) == 1
    # every slot any visit showed is a widget of the template
    word = next(n for n in abstraction.screens[0].root.walk() if n.wid == "word")
    assert [c.resource_id.rsplit("/", 1)[-1] for c in word.children] == [
        f"letter{k}" for k in range(1, 7)]
    assert "letter6" in {box.wid for box in abstraction.readings[0][1].boxes}
    assert "letter4" not in {box.wid for box in abstraction.readings[0][2].boxes}


@pytest.mark.parametrize("ids", ["slot{k}x", "letter{k}0"], ids=["not-a-number-suffix",
                                                                  "not-consecutive"])
def test_views_not_numbered_one_after_another_are_layout(ids: str) -> None:
    assert len(visits(letters(2, ids), letters(3, ids)).screens) == 2


def task_row(k: int, title: str, badge: bool) -> ViewNode:
    y = 200 + 200 * k
    kids = [view(CHECKBOX, b(0, y, 120, y + 200), id="done", checkable=True),
            view(TEXT, b(120, y, 700, y + 200), id="task_title", text=title)]
    if badge:
        kids.append(view(TEXT, b(700, y, 900, y + 200), id="badge", text="High"))
    kids.append(view(BUTTON, b(900, y, W, y + 200), id="row_menu", desc="More options",
                     clickable=True))
    return view(LINEAR, b(0, y, W, y + 200), *kids, id="task_row")


def tasks(*rows: tuple[str, bool]) -> Observation:
    return screen(header("Tasks"), view(RECYCLER, b(0, 200, W, 1600), *[
        task_row(k, t, badge) for k, (t, badge) in enumerate(rows)], id="tasks", scrollable=True))


def test_rows_of_one_id_with_an_optional_child_are_one_list() -> None:
    abstraction = visits(tasks(("Pay rent", False), ("Call mum", True)),
                         tasks(("Call mum", True)), tasks(("A", False), ("B", False), ("C", True)))
    assert len(abstraction.screens) == 1
    item = next(n for n in abstraction.screens[0].root.walk() if n.wid == "tasks").item
    assert [c.wid for c in item.children] == ["done", "task_title", "badge", "row_menu"]
    # a row without the badge still reads the menu button after it
    first = abstraction.readings[0][0]
    assert [r.texts.get("task_title") for r in first.lists["tasks"]] == ["Pay rent", "Call mum"]
    assert "badge" not in first.lists["tasks"][0].texts
    assert {(box.wid, box.item) for box in first.boxes if box.wid == "row_menu"} == {
        ("row_menu", 0), ("row_menu", 1)}


def test_unlike_rows_without_an_id_are_still_a_page() -> None:
    def row(k: int, *extra: str) -> ViewNode:
        y = 200 + 200 * k
        return view(LINEAR, b(0, y, W, y + 200), view(TEXT, b(0, y, 800, y + 200), text="Sync"),
                    *[view(cls, b(800, y, W, y + 200)) for cls in extra])

    short = screen(view(RECYCLER, b(0, 200, W, 1600), row(0), row(1, CHECKBOX), id="prefs"))
    long = screen(view(RECYCLER, b(0, 200, W, 1600), row(0), row(1, CHECKBOX), row(2, TEXT),
                       id="prefs"))
    abstraction = visits(short, long)
    assert len(abstraction.screens) == 2
    assert all(n.item is None for s in abstraction.screens for n in s.root.walk())


def test_repeated_composite_children_are_a_list_even_when_not_scrollable() -> None:
    def rows(n: int) -> Observation:
        return screen(view(LINEAR, b(0, 0, W, 1200), *[
            view(LINEAR, b(0, k * 200, W, k * 200 + 200),
                 view(TEXT, b(0, k * 200, 800, k * 200 + 100), text=f"t{k}"),
                 view(CHECKBOX, b(900, k * 200, 1000, k * 200 + 100), checkable=True))
            for k in range(n)]))

    abstraction = visits(rows(2), rows(3), rows(1))
    assert len(abstraction.screens) == 1
    assert [len(r.lists["linear_layout"]) for r in abstraction.readings[0]] == [2, 3, 1]


def test_screens_are_numbered_in_first_seen_order_and_named_after_the_activity() -> None:
    main = screen(header(), add_button())
    editor = screen(view(TEXT, b(0, 0, W, 150)), activity=".EditorActivity")
    bare = screen(view(BUTTON, b(0, 0, W, 150)), activity=None)
    abstraction = visits(main, editor, main, bare)
    assert [s.id for s in abstraction.screens] == ["s00_main", "s01_editor", "s02_screen"]
    assert [s.activity for s in abstraction.screens] == [
        "com.example.tiny/.MainActivity", "com.example.tiny/.EditorActivity", None]
    assert [s.observations for s in abstraction.screens] == [2, 1, 1]
    assert screen_ids(abstraction) == ["s00_main", "s01_editor", "s00_main", "s02_screen"]
    assert abstraction.screens[0].sources[1].file == "e0/0002.xml"


def test_reading_an_unknown_structure_gives_no_screen() -> None:
    abstraction = visits(screen(header()))
    assert read(abstraction, screen(header("Other"))).screen == "s00_main"
    assert read(abstraction, screen(header(), add_button())).screen == ""


def test_a_recycler_view_of_unlike_children_is_a_page_not_a_list() -> None:
    def page(*kids: ViewNode) -> Observation:
        return screen(view(RECYCLER, b(0, 0, W, 1600), *kids, id="page", scrollable=True))

    title = view(TEXT, b(0, 0, W, 150), id="title")
    row = view(LINEAR, b(0, 150, W, 350), view(TEXT, b(40, 170, 600, 330), id="label"), id="row")
    switch = view(CHECKBOX, b(0, 350, W, 500), id="switch", checkable=True)
    assert len(visits(page(title, row), page(title, switch), page(title)).screens) == 3


def test_a_recycler_view_seen_with_one_item_at_most_is_one_screen_whatever_its_count() -> None:
    assert len(visits(screen(header(), row_list()), screen(header(), row_list("a")),
                      screen(header(), row_list())).screens) == 1


FRAME_CLS = "android.widget.FrameLayout"


def with_ad(slot: ViewNode | None) -> Observation:
    page = view(LINEAR, b(0, 150, W, 1600), add_button(), id="page")
    return screen(header(), page, *([slot] if slot is not None else []))


def test_an_ad_slot_is_neither_the_screen_nor_its_content() -> None:
    # The banner an ad SDK fills, the app's own advert in its place, or nothing, as ads load:
    # one screen, and the ad's views are no content a step changes.
    admob = view(FRAME_CLS, b(0, 1600, W, 1750),
                 view("com.google.android.gms.ads.AdView", b(0, 1600, W, 1750),
                      view("android.webkit.WebView", b(0, 1600, W, 1750))), id="flAdmob")
    advert = view(FRAME_CLS, b(0, 1600, W, 1750),
                  view(LINEAR, b(0, 1600, W, 1750),
                       view(TEXT, b(40, 1620, 400, 1700), text="PRO"),
                       view(TEXT, b(500, 1620, 900, 1700), text="Buy")), id="flCustomAdvert")
    bare = view("android.widget.RelativeLayout", b(0, 1600, W, 1750), id="theAdView")
    abstraction = visits(with_ad(admob), with_ad(advert), with_ad(bare), with_ad(None))
    assert len(set(screen_ids(abstraction))) == 1
    assert content_keys(with_ad(advert).root) == content_keys(with_ad(None).root)
    (main,) = abstraction.screens
    assert not [n for n in main.root.walk() if n.text in ("PRO", "Buy")]


@pytest.mark.parametrize("node, ad", [
    (view("com.google.android.gms.ads.nativead.NativeAdView", b(0, 0, W, 300)), True),
    (view(FRAME_CLS, b(0, 0, W, 300), id="ad_container"), True),
    (view(LINEAR, b(0, 0, W, 300), id="bannerAdLayout"), True),
    (view(BUTTON, b(0, 0, W, 300), id="remove_ads", text="Remove ads"), False),
    (view(TEXT, b(0, 0, W, 300), id="ad_badge", text="Ad"), False),
    (view(LINEAR, b(0, 0, W, 300), id="dialpad_key"), False),
    (view(LINEAR, b(0, 0, W, 300), id="header_title"), False),
    (view(LINEAR, b(0, 0, W, 300), id="loadMore"), False),
])
def test_ad_slots_are_containers_named_or_classed_as_ads(node: ViewNode, ad: bool) -> None:
    assert is_ad(node) is ad


GROUP = "android.view.ViewGroup"


def flat_list(*tasks: tuple[str, bool]) -> Observation:
    """A React Native FlatList: a ScrollView (not scrollable while its rows fit) around one
    content ViewGroup, its rows ViewGroups without resource ids; a high-priority task's row
    shows a "High" badge the others do not have."""
    rows = []
    for k, (title, high) in enumerate(tasks):
        y = 200 + 200 * k
        badge = (view(TEXT, b(800, y + 40, 1000, y + 160), text="High"),) if high else ()
        rows.append(view(GROUP, b(0, y, W, y + 200),
                         view(CHECKBOX, b(40, y + 40, 160, y + 160), checkable=True),
                         view(TEXT, b(200, y + 40, 780, y + 160), text=title), *badge,
                         clickable=True))
    content = view(GROUP, b(0, 200, W, 1600), *rows)
    return screen(view(TEXT, b(0, 0, W, 150), text="Tasks"),
                  view("android.widget.ScrollView", b(0, 200, W, 1600), content))


def test_a_flat_lists_rows_without_ids_are_one_list_whatever_each_shows() -> None:
    seen = visits(flat_list(("Pay rent", False), ("Call mom", True), ("Buy milk", False)),
                  flat_list(("Call mom", True), ("Buy milk", False)),
                  flat_list(("Pay rent", False), ("Buy milk", False), ("Fix bike", True),
                            ("Call mom", True)))
    assert len(set(screen_ids(seen))) == 1
    (main,) = seen.screens
    (rows,) = [n for n in main.root.walk() if n.item is not None]
    assert rows.cls == GROUP  # the content ViewGroup holds the list
    assert [len(r.lists[rows.wid]) for r in seen.readings[0]] == [3, 2, 4]


def test_a_scroll_views_form_of_fields_is_no_list() -> None:
    """Repeated leaves in a ScrollView's content (a form's fields) stay the form's layout."""
    def form(name: str) -> Observation:
        fields = [view("android.widget.EditText", b(40, 300 + 200 * k, 1040, 460 + 200 * k),
                       text=t, clickable=True) for k, t in enumerate((name, "Phone"))]
        return screen(view("android.widget.ScrollView", b(0, 200, W, 1600),
                           view(GROUP, b(0, 200, W, 1600), *fields)))
    seen = visits(form("Name"), form("Ada"))
    (main,) = seen.screens
    assert not [n for n in main.root.walk() if n.item is not None]


def tab(title: str, rows: list[ViewNode]) -> Observation:
    """A React Native tab: its title, then a ScrollView around one content ViewGroup of rows."""
    return screen(view(TEXT, b(0, 0, W, 150), text=title),
                  view("android.widget.ScrollView", b(0, 200, W, 1600),
                       view(GROUP, b(0, 200, W, 1600), *rows)))


def book_rows(*titles: str) -> list[ViewNode]:
    return [view(GROUP, b(0, 200 + 150 * k, W, 350 + 150 * k),
                 view(TEXT, b(40, 220 + 150 * k, 800, 330 + 150 * k), text=t), clickable=True)
            for k, t in enumerate(titles)]


def wish_rows(*titles: str) -> list[ViewNode]:
    return [view(GROUP, b(0, 200 + 150 * k, W, 350 + 150 * k),
                 view(TEXT, b(40, 220 + 150 * k, 800, 330 + 150 * k), text=t),
                 view(GROUP, b(900, 220 + 150 * k, 1040, 330 + 150 * k), desc="Remove",
                      clickable=True))
            for k, t in enumerate(titles)]


def test_two_screens_lists_at_one_place_are_both_lists() -> None:
    """Without resource ids the Books tab's list and the Wishlist's sit at one anchor (the same
    classes down the tree); the one seen more must not make the other's rows its layout."""
    seen = visits(tab("Books", book_rows("Dune", "Emma", "Ulysses")),
                  tab("Books", book_rows("Dune", "Emma")),
                  tab("Wishlist", wish_rows("Kindred", "Middlemarch")),
                  tab("Wishlist", wish_rows("Kindred", "Middlemarch", "Gilead")))
    ids = screen_ids(seen)
    assert ids[0] == ids[1] and ids[2] == ids[3] and ids[0] != ids[2]
    wishlist = next(s for s in seen.screens if s.id == ids[2])
    (rows,) = [n for n in wishlist.root.walk() if n.item is not None]
    assert [len(r.lists[rows.wid]) for r in seen.readings[0][2:]] == [2, 3]
