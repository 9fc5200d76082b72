"""`abstract`: screen templates (one item template per list), widget ids, and reading observations.

Widget ids come from resource-ids (class and content-desc without one), unique within a screen,
and are the same on every visit of the screen: readings are keyed by them.
"""

from __future__ import annotations

from phoneworld.abstract import abstract
from phoneworld.ir.screens import ItemReading, TemplateNode
from phoneworld.ir.trace import Observation
from phoneworld.runtime.sim import Simulator
from tests.compiler_support import (
    BUTTON, CHECKBOX, EDIT, LINEAR, RECYCLER, ROW_PITCH, TEXT, W, b, back, click, compile_app,
    episode, row_list, screen, traces, view,
)


def shopping(*titles: str, checked: tuple[bool, ...] = (), header: str = "Groceries"
             ) -> Observation:
    return screen(view(TEXT, b(0, 0, W, 150), id="header", text=header),
                  row_list(*titles, checked=checked, list_id="items"),
                  view(BUTTON, b(40, 1700, 520, 1850), id="add", text="Add", clickable=True))


def wids(node: TemplateNode) -> list[str]:
    return [n.wid for n in node.walk()]


def test_repeated_rows_become_one_item_template() -> None:
    abstraction = abstract(traces(episode("e0", shopping("eggs", "milk", "tea", checked=(
        False, True, False)))))
    (main,) = abstraction.screens
    items = next(n for n in main.root.walk() if n.wid == "items")
    assert items.children == ()
    assert items.item is not None
    assert wids(items.item) == ["row", "title", "done"]
    assert items.item.clickable and items.item.resource_id == "com.example.tiny:id/row"
    assert (items.pitch, items.max_visible) == (ROW_PITCH, 7)  # 1400 px of list / 200 px rows


def test_list_records_are_read_item_by_item() -> None:
    abstraction = abstract(traces(episode("e0", shopping("eggs", "milk", checked=(False, True)))))
    (reading,) = abstraction.readings[0]
    assert reading.lists == {"items": (
        ItemReading(texts={"row": "", "title": "eggs", "done": ""}, checked={"done": False}),
        ItemReading(texts={"row": "", "title": "milk", "done": ""}, checked={"done": True}),
    )}
    assert "title" not in reading.texts  # item widgets are read per record, not per screen
    boxes = {(box.wid, box.item) for box in reading.boxes if box.list_wid == "items"}
    assert boxes == {("row", 0), ("title", 0), ("done", 0), ("row", 1), ("title", 1), ("done", 1)}


def test_a_list_first_seen_empty_takes_its_item_template_from_a_later_visit() -> None:
    abstraction = abstract(traces(episode("e0", shopping(), back(), shopping("eggs", "milk"),
                                          back(), shopping("tea"))))
    (main,) = abstraction.screens
    items = next(n for n in main.root.walk() if n.wid == "items")
    assert items.item is not None and wids(items.item) == ["row", "title"]
    assert [[i.texts["title"] for i in r.lists["items"]] for r in abstraction.readings[0]] == [
        [], ["eggs", "milk"], ["tea"]]


def test_a_list_never_seen_with_two_items_is_still_one_screen() -> None:
    abstraction = abstract(traces(episode("e0", shopping(), back(), shopping("eggs"))))
    (main,) = abstraction.screens
    items = next(n for n in main.root.walk() if n.wid == "items")
    assert items.item is not None and wids(items.item) == ["row", "title"]
    assert [[i.texts["title"] for i in r.lists["items"]] for r in abstraction.readings[0]] == [
        [], ["eggs"]]


def test_a_list_only_ever_seen_empty_is_one_screen_with_no_item_template() -> None:
    abstraction = abstract(traces(episode("e0", shopping(), back(), shopping(header="Other"))))
    (main,) = abstraction.screens
    items = next(n for n in main.root.walk() if n.wid == "items")
    assert (items.item, items.children) == (None, ())


def test_a_list_seen_with_one_item_takes_the_item_shape_seen_repeated() -> None:
    abstraction = abstract(traces(episode("e0", shopping("eggs"), back(),
                                          shopping("milk", "tea", checked=(False, True)))))
    # a row with a checkbox is another item shape than a bare row: the repeated one wins
    (main,) = abstraction.screens
    items = next(n for n in main.root.walk() if n.wid == "items")
    assert items.item is not None and wids(items.item) == ["row", "title", "done"]


def test_widget_ids_are_the_same_on_every_visit() -> None:
    editor = screen(view(EDIT, b(40, 200, 1040, 320), id="title_input", text="draft"),
                    activity=".EditorActivity")
    abstraction = abstract(traces(
        episode("e0", shopping("eggs"), back(), editor, back(), shopping("milk", "tea", header="2")),
        episode("e1", shopping("x", "y", "z", header="3")),
    ))
    main = [r for ep in abstraction.readings for r in ep if r.screen == "s00_main"]
    assert len(main) == 3
    assert {tuple(r.texts) for r in main} == {("frame_layout", "header", "items", "add")}
    assert [r.texts["header"] for r in main] == ["Groceries", "2", "3"]
    assert {tuple(box.wid for box in r.boxes if box.item is None) for r in main} == {
        ("frame_layout", "header", "items", "add")}
    add_boxes = {box.bounds for r in main for box in r.boxes if box.wid == "add"}
    assert add_boxes == {b(40, 1700, 520, 1850)}


def test_widget_ids_name_the_resource_id_or_the_class_and_are_unique_per_screen() -> None:
    obs = screen(
        view(LINEAR, b(0, 0, W, 300),
             view(TEXT, b(0, 0, 500, 150), id="label"),
             view(TEXT, b(500, 0, W, 150), id="label"),
             view(BUTTON, b(0, 150, 500, 300), desc="Open menu", clickable=True),
             view(BUTTON, b(500, 150, W, 300), clickable=True)),
        view(RECYCLER, b(0, 300, W, 1600), id="feed", scrollable=True),
    )
    (main,) = abstract(traces(episode("e0", obs))).screens
    assert wids(main.root) == ["frame_layout", "linear_layout", "label", "label_2",
                               "button_open_menu", "button", "feed"]


GROUP = "android.view.ViewGroup"


def test_a_container_at_a_list_place_on_another_screen_keeps_its_own_children() -> None:
    # An app without resource ids (React Native): the feed's rows and the form's fields sit in a
    # ViewGroup at the same class path, so the list learned on the feed is recognised at the
    # form's place too. The form shows no row of the feed's shape: its children are its structure,
    # not an empty list. (The feed shows other posts the second time: rows that always show the
    # same texts where nothing scrolls would be the screen's own views, `_Votes.fixed`.)
    def row(k: int, first: int = 0) -> object:
        return view(GROUP, b(0, 200 + 200 * k, W, 400 + 200 * k),
                    view(TEXT, b(40, 220 + 200 * k, 600, 380 + 200 * k), text=f"post {first + k}"),
                    clickable=True)

    feed = screen(view(GROUP, b(0, 200, W, 1800), *(row(k) for k in range(3))))
    later = screen(view(GROUP, b(0, 200, W, 1800), *(row(k, 5) for k in range(3))))
    form = screen(view(GROUP, b(0, 200, W, 1800),
                       view(TEXT, b(40, 220, 1000, 300), text="Enter the code"),
                       view(BUTTON, b(40, 400, 1000, 500), text="Verify", clickable=True)),
                  activity=".CodeActivity")
    abstraction = abstract(traces(episode("e0", feed, back(), later, back(), form)))
    shown = {s.activity.rsplit("/", 1)[-1]: s for s in abstraction.screens if s.activity}
    feed_box = shown[".MainActivity"].root.children[0]
    form_box = shown[".CodeActivity"].root.children[0]
    assert feed_box.item is not None and feed_box.children == ()
    assert form_box.item is None
    assert [(n.cls, n.text) for n in form_box.children] == [(TEXT, "Enter the code"),
                                                           (BUTTON, "Verify")]
    assert abstraction.readings[0][2].texts[form_box.children[1].wid] == "Verify"


def test_a_number_that_makes_another_widgets_name_skips_to_the_next() -> None:
    """Flutter draws views with no resource id, their texts as content-desc: the second plain
    View is `view_2` by its number and a View described "2" is `view_2` by its label; the screen
    compiles with one id each (it used to fail the build: two widgets with one id)."""
    plain = "android.view.View"
    counter = screen(view(plain, b(0, 0, W, 300), view(plain, b(0, 0, W, 150),
                                                        desc="Glasses of water")),
                     view(plain, b(0, 300, W, 600), desc="2"),
                     view(plain, b(0, 600, W, 900),
                          view(BUTTON, b(0, 600, 500, 900), desc="+", clickable=True)))
    c = compile_app(traces(episode("e0", counter, click(250, 750), counter)))
    (main,) = c.abstraction.screens
    ids = wids(main.root)
    assert len(ids) == len(set(ids)), ids
    assert {"view_2", "view_2_2"} <= set(ids) or {"view_2", "view_3"} <= set(ids)
    Simulator(c.spec).reset()


def badged(*rows: tuple[str, bool, bool]) -> Observation:
    """To-do rows (title, done, a "High" badge under the title) from the top of the list."""
    kids = []
    for k, (title, done, high) in enumerate(rows):
        y = 200 + k * ROW_PITCH
        parts = [view(CHECKBOX, b(20, y + 40, 140, y + 160), id="done", checkable=True,
                      clickable=True, checked=done),
                 view(TEXT, b(160, y + 20, 700, y + 90), id="title", text=title)]
        if high:
            parts.append(view(TEXT, b(160, y + 100, 300, y + 160), id="badge", text="High"))
        kids.append(view(LINEAR, b(0, y, W, y + ROW_PITCH), *parts, id="row"))
    return screen(view(TEXT, b(0, 0, W, 150), id="header", text="Tasks"),
                  view(RECYCLER, b(0, 200, W, 1600), *kids, id="items", scrollable=True))


def test_a_row_template_taken_from_a_lower_row_is_drawn_from_the_top() -> None:
    """The item template is the row that shows the most (here the second, with its badge); the
    list draws row k a pitch k times below the template, so the template stands where the first
    row stood. Before: every row was drawn one row low, and a tap on the second row's box ticked
    the first record."""
    rows = [("Pick up dry cleaning", False, False), ("Call the plumber", False, True),
            ("Book flights", False, False)]
    ticked = [(t, k == 1, h) for k, (t, _, h) in enumerate(rows)]
    compiled = compile_app(traces(episode(
        "e0", badged(*rows), click(80, 200 + ROW_PITCH + 100), badged(*ticked),
        click(80, 200 + ROW_PITCH + 100), badged(*rows))))
    items = next(n for n in compiled.abstraction.screens[0].root.walk() if n.wid == "items")
    assert items.item is not None and items.item.bounds.y1 == 200
    sim = Simulator(compiled.spec)
    sim.reset()
    sim.tap(80, 200 + ROW_PITCH + 100)
    boxes = [n.checked for n in sim.view().walk() if n.checkable]
    assert boxes == [False, True, False]
