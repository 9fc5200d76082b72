"""Flutter's dumps: no resource ids, every view an `android.view.View`, every text but a field's
drawn as its node's content-desc, and a tappable tile merging its row's texts into its own.

Such a description is the node's text (`ViewNode.text_in_desc`); generic views without ids are
told apart by their index (`anchor_key`); tiles are a list's rows unless they always show the
same texts (a tab bar).
"""

from __future__ import annotations

from phoneworld.abstract.shape import ShapeIndex, anchor_key
from phoneworld.ir.trace import Observation, ViewNode
from phoneworld.runtime import Simulator
from phoneworld.runtime.render import (
    elements_from_view, frame_elements, frame_text, frame_view, frame_xml,
)
from tests.compiler_support import PKG, W, b, compile_app, episode, screen, tap, traces

from .test_identity import screen_ids, visits

VIEW = "android.view.View"


def node(cls: str, bounds: object, *children: ViewNode, index: int = 0, desc: str = "",
         **flags: bool) -> ViewNode:
    return ViewNode(cls=cls, bounds=bounds, content_desc=desc, package=PKG, index=index,
                    children=children, **flags)


def notes(*titles: str, title: str = "Notes") -> Observation:
    """A Flutter list screen: a header View (its title) and a list View of tappable tiles, each
    merging a note's title and date ("Milk\\nMonday"), side by side under one View."""
    tiles = [node(VIEW, b(0, 200 + 150 * k, W, 350 + 150 * k), index=k,
                  desc=f"{t}\nMonday", clickable=True) for k, t in enumerate(titles)]
    header = node(VIEW, b(0, 0, W, 200), node(VIEW, b(40, 40, 800, 160), desc=title), index=0)
    return screen(node(VIEW, b(0, 0, W, 1900), header,
                       node(VIEW, b(0, 200, W, 1700), *tiles, index=1), index=0))


def tabs(*labels: str, page: str) -> Observation:
    """A screen whose bottom bar holds tappable tiles that never change (tabs)."""
    bar = [node(VIEW, b(k * 360, 1700, (k + 1) * 360, 1900), index=k, desc=t, clickable=True)
           for k, t in enumerate(labels)]
    return screen(node(VIEW, b(0, 0, W, 1900),
                       node(VIEW, b(0, 0, W, 1700), node(VIEW, b(40, 40, 800, 160), desc=page),
                            index=0),
                       node(VIEW, b(0, 1700, W, 1900), *bar, index=1), index=0))


def test_a_generic_views_description_is_its_text() -> None:
    tile = node(VIEW, b(0, 0, W, 100), desc="Milk\nMonday", clickable=True)
    assert (tile.text, tile.content_desc, tile.text_in_desc) == ("Milk\nMonday", "", True)
    box = node("android.widget.CheckBox", b(0, 0, 100, 100), desc="Eggs", checkable=True)
    assert (box.text, box.content_desc, box.text_in_desc) == ("Eggs", "", True)
    # a native icon button, a toggle with an id, a view with a text of its own: left as they are
    for kept in (node("android.widget.ImageButton", b(0, 0, 100, 100), desc="Navigate up"),
                 node("android.widget.Button", b(0, 0, 100, 100), desc="Save"),
                 ViewNode(cls="android.widget.Switch", bounds=b(0, 0, 100, 100),
                          resource_id=f"{PKG}:id/dark", content_desc="Dark"),
                 ViewNode(cls=VIEW, bounds=b(0, 0, 100, 100), text="Hi", content_desc="Greeting")):
        assert not kept.text_in_desc and kept.content_desc


def test_a_read_back_tree_keeps_the_text_it_read() -> None:
    """What a pass writes back (`model_dump`, the native trace format) reads back the same."""
    tile = node(VIEW, b(0, 0, W, 100), desc="Milk")
    assert ViewNode.model_validate(tile.model_dump()) == tile


def test_views_without_ids_under_one_parent_are_told_apart_by_index() -> None:
    first, second = (node(VIEW, b(0, 0, W, 100), index=k) for k in (0, 1))
    assert anchor_key(first, "p") != anchor_key(second, "p")
    native = [ViewNode(cls="android.widget.LinearLayout", bounds=b(0, 0, W, 100), index=k)
              for k in (0, 1)]
    assert anchor_key(native[0], "p") == anchor_key(native[1], "p")


def test_flutter_tiles_are_a_list_beside_a_header_that_is_none() -> None:
    seen = visits(notes("Milk", "Rent", "Dentist"), notes("Milk", "Rent"), notes("Milk"))
    assert len(set(screen_ids(seen))) == 1
    (main,) = seen.screens
    lists = [n for n in main.root.walk() if n.item is not None]
    assert len(lists) == 1  # the header's one View is not a list of the tiles
    assert [len(r.lists[lists[0].wid]) for r in seen.readings[0]] == [3, 2, 1]
    assert lists[0].item.text_in_desc and lists[0].item.clickable
    header_title = next(n for n in main.root.walk() if n.text == "Notes")
    assert header_title.text_in_desc


def test_tiles_that_always_show_the_same_texts_are_a_tab_bar() -> None:
    observations = [tabs("Books", "Wishlist", "Stats", page=p) for p in ("Dune", "Emma", "Kim")]
    index = ShapeIndex.learn([o.root for o in observations])
    assert not index.lists
    a = notes("Milk", "Rent")
    index = ShapeIndex.learn([a.root, notes("Milk", "Rent", "Bread").root])
    assert len(index.lists) == 1


def test_a_flutter_app_draws_its_texts_back_as_descriptions() -> None:
    """The mock shows a tile's text where Flutter does, in the content-desc, in its XML and its
    text form; read back, the dump is the recorded tree's reading."""
    first = notes("Milk", "Rent")
    compiled = compile_app(traces(episode("e0", first, tap(first.root.children[0].children[1]),
                                          notes("Milk", "Rent", "Dentist"))))
    frame = Simulator(compiled.spec).frame()
    xml = frame_xml(frame)
    assert 'text="" resource-id="" class="android.view.View"' in xml
    assert 'content-desc="Milk&#10;Monday"' in xml and 'content-desc="Notes"' in xml
    assert 'text="Milk' not in xml
    text = frame_text(frame)
    assert 'View desc="Milk\\nMonday" clickable' in text and '"Notes"' in text
    assert '] View "' not in text
    view = frame_view(frame)
    assert any(n.text == "Milk\nMonday" and n.text_in_desc for n in view.walk())
    assert elements_from_view(view) == tuple(e._replace(wid=None, item=None)
                                             for e in frame_elements(frame))


def todo(*rows: tuple[str, bool]) -> Observation:
    """A Flutter to-do list: rows of a checkbox, the task and, for important ones, a "High"
    badge (so no two observations need show rows all of one shape), and a menu button."""
    out = []
    for k, (task, high) in enumerate(rows):
        y = 200 + 170 * k
        kids = [node("android.widget.CheckBox", b(20, y + 20, 140, y + 150), index=0,
                     checkable=True, clickable=True),
                node(VIEW, b(160, y + 30, 720, y + 90), index=1, desc=task)]
        if high:
            kids.append(node(VIEW, b(160, y + 100, 270, y + 140), index=2, desc="High"))
        kids.append(node("android.widget.Button", b(930, y + 20, 1060, y + 150),
                         index=len(kids), desc="More options", clickable=True))
        out.append(node(VIEW, b(0, y, W, y + 170), *kids, index=k))
    return screen(node(VIEW, b(0, 0, W, 1900), node(VIEW, b(0, 0, W, 200), index=0),
                       node(VIEW, b(0, 200, W, 1700), *out, index=1), index=0))


def form(name: str, error: bool = False) -> Observation:
    """A Flutter form: rows of a label and a field, the first with a line under it (a hint, or
    an error) so that its rows are of one layout but never all alike."""
    rows = []
    for k, label in enumerate(("Name", "Phone")):
        y = 200 + 250 * k
        kids = [node(VIEW, b(40, y, 400, y + 60), index=0, desc=label),
                ViewNode(cls="android.widget.EditText", bounds=b(40, y + 70, 1040, y + 190),
                         text=name if k == 0 else "", index=1, package=PKG, clickable=True)]
        if k == 0:
            kids.append(node(VIEW, b(40, y + 195, 600, y + 240), index=2,
                             desc="Required" if error else "As on your card"))
        rows.append(node(VIEW, b(0, y, W, y + 250), *kids, index=k))
    return screen(node(VIEW, b(0, 0, W, 1900), *rows, index=0))


def test_rows_of_one_layout_a_generic_view_shows_more_or_fewer_of_are_a_list() -> None:
    """No observation shows the to-do's rows all alike, but their number changes: a list."""
    seen = visits(todo(("Pay rent", True), ("Call mom", False), ("Buy milk", True)),
                  todo(("Pay rent", True), ("Call mom", False)),
                  todo(("Fix bike", False), ("Pay rent", True), ("Call mom", False),
                       ("Buy milk", True)),
                  todo(("Pay rent", True)))
    assert len(set(screen_ids(seen))) == 1
    (main,) = seen.screens
    (rows,) = [n for n in main.root.walk() if n.item is not None]
    assert [len(r.lists[rows.wid]) for r in seen.readings[0]] == [3, 2, 4, 1]
    # a form always shows its fields: rows of one layout, never more or fewer, are no list
    seen = visits(form("Ada"), form("", error=True), form("Bob"))
    assert all(n.item is None for s in seen.screens for n in s.root.walk())


def test_a_dialog_where_a_menus_items_were_is_no_list() -> None:
    """Without ids a popup menu's list and a dialog's content sit at one anchor; the dialog's
    texts and buttons are its structure, not a list of menu items (nor of none)."""
    def menu(*items: str) -> Observation:
        return screen(node(VIEW, b(560, 70, 1070, 370), *[
            node(VIEW, b(560, 90 + 130 * k, 1070, 210 + 130 * k),
                 node(VIEW, b(600, 100 + 130 * k, 1030, 200 + 130 * k), desc=t), index=k,
                 clickable=True) for k, t in enumerate(items)], index=0))

    def dialog(question: str) -> Observation:
        return screen(node(VIEW, b(70, 670, 1010, 1160), node(
            VIEW, b(70, 670, 1010, 1160),
            node(VIEW, b(130, 730, 950, 820), desc=question, index=0),
            node(VIEW, b(70, 1030, 1010, 1160),
                 node("android.widget.Button", b(480, 1040, 720, 1150), desc="Cancel",
                      clickable=True, index=0),
                 node("android.widget.Button", b(740, 1040, 990, 1150), desc="Reset",
                      clickable=True, index=1), index=1), index=0), index=0))
    seen = visits(menu("Reset", "Settings"), dialog("Reset counter?"), menu("Reset", "Settings"),
                  dialog("Reset it?"))
    ids = screen_ids(seen)
    assert ids[0] == ids[2] and ids[1] == ids[3] and ids[0] != ids[1]
    box = next(s for s in seen.screens if s.id == ids[1])
    assert all(n.item is None for n in box.root.walk())
    assert {n.content_desc for n in box.root.walk()} >= {"Cancel", "Reset"}
    assert {r.texts.get(next(n.wid for n in box.root.walk() if n.text_in_desc))
            for r in (seen.readings[0][1], seen.readings[0][3])} == {"Reset counter?", "Reset it?"}


def test_a_held_out_reading_knows_the_lists_rows_and_their_layout() -> None:
    """`Reader` reads with every list fact the build learned (rows, what items hold): a held-out
    to-do list of important tasks only is the screen training saw."""
    from phoneworld.abstract import Reader
    seen = visits(todo(("Pay rent", True), ("Call mom", False), ("Buy milk", True)),
                  todo(("Pay rent", True), ("Call mom", False)))
    (main,) = seen.screens
    assert Reader(seen).read(todo(("Fix bike", True), ("Pay rent", True))).screen == main.id
    assert Reader(seen).read(todo(("Fix bike", True))).screen == main.id


def test_a_web_link_named_after_its_text_keeps_the_name() -> None:
    """A WebView link's description repeats the text of the view inside it: a name."""
    label = ViewNode(cls="android.widget.TextView", bounds=b(0, 0, 100, 40), text="Privacy")
    link = node(VIEW, b(0, 0, 100, 40), label, desc="Privacy", clickable=True)
    assert (link.text, link.content_desc, link.text_in_desc) == ("", "Privacy", False)
    tile = node(VIEW, b(0, 0, W, 100), node("android.widget.Button", b(900, 0, W, 100),
                                            desc="Call"), desc="Ada\n555-0101", clickable=True)
    assert (tile.text, tile.text_in_desc) == ("Ada\n555-0101", True)
