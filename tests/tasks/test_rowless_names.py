"""Names for lists of apps without resource ids (React Native, Flutter: every widget is a
ViewGroup or a TextView, named by its class). A to-do list there was "Add a group with text view
"{title}"", "Mark the group "{title}" as check", "How many groups are there?": the container's
class (`view_group_2_items`) taken for the records' noun and the widgets' classes for their
fields. Now: an item, titled, checked."""

from __future__ import annotations

from phoneworld.ir.trace import Observation
from phoneworld.tasks import naming as nm
from phoneworld.tasks.synthesis import synthesize
from tests.compiler_support import CHECKBOX, EDIT, TEXT, b, click, compile_app, episode, \
    screen, traces, type_, view

GROUP = "android.view.ViewGroup"
SCROLL = "android.widget.ScrollView"
ADD, FIELD = click(945, 250), click(400, 250)


def todo(items: list[str], typed: str = "", done: tuple[str, ...] = ()) -> Observation:
    rows = [view(GROUP, b(0, y, 1080, y + 140),
                 view(CHECKBOX, b(20, y + 20, 100, y + 120), checkable=True, clickable=True,
                      checked=title in done),
                 view(TEXT, b(120, y + 20, 800, y + 120), text=title),
                 view(GROUP, b(900, y + 20, 1040, y + 120),
                      view(TEXT, b(930, y + 40, 1010, y + 100), text="\ue872"), clickable=True))
            for y, title in ((400 + 150 * k, t) for k, t in enumerate(items))]
    return screen(view(TEXT, b(40, 80, 1040, 160), text="My tasks"),
                  view(EDIT, b(40, 200, 800, 300), text=typed, clickable=True),
                  view(GROUP, b(850, 200, 1040, 300), view(TEXT, b(870, 220, 1020, 280),
                                                           text="ADD"), clickable=True),
                  view(SCROLL, b(0, 380, 1080, 1800), view(GROUP, b(0, 380, 1080, 1800), *rows),
                       scrollable=True), activity=".MainActivity")


def remove(k: int) -> object:
    return click(970, 470 + 150 * k)


def tick(k: int) -> object:
    return click(60, 470 + 150 * k)


def instructions() -> list[str]:
    compiled = compile_app(traces(episode(
        "e0", todo(["Milk", "Eggs"]), FIELD, todo(["Milk", "Eggs"]), type_("Bread"),
        todo(["Milk", "Eggs"], "Bread"), ADD, todo(["Milk", "Eggs", "Bread"]), tick(1),
        todo(["Milk", "Eggs", "Bread"], done=("Eggs",)), remove(0),
        todo(["Eggs", "Bread"], done=("Eggs",)))))
    assert any(v.kind == "collection" and v.name.startswith("view_group")
               for v in compiled.spec.state)  # the list's name says only its class
    return [t.instruction for t in synthesize(compiled.spec, None).tasks]


def test_a_list_without_ids_holds_items_titled_and_checked() -> None:
    said = instructions()
    assert 'Add an item titled "{title}"' in said
    assert 'Delete the item "{title}"' in said
    assert 'Mark the item "{title}" as checked' in said
    assert "How many items are there?" in said
    assert not [s for s in said if "group" in s or "text view" in s or " as check" in s
                and "checked" not in s]


def test_field_words_of_class_named_fields() -> None:
    assert nm.field_words("item", "check_box") == "checked"
    assert nm.field_words("item", "switch_compat_2") == "checked"
    assert nm.field_words("item", "text_view_3") == "text"
    assert nm.field_words("item", "text1") == "text"  # android.R.id.text1 of a simple row
    assert nm.field_words("item", "text1_on") == "checked"  # a CheckedTextView's own flag
    assert nm.field_words("note", "note_title") == "title"  # names that say something stay
    assert nm.field_words("task", "done_check") == "done check"


def framework(ids: str) -> Observation:
    """A ListActivity's list (`android:id/list`) of simple rows (`android:id/text1`)."""
    rows = [view(TEXT, b(0, 300 + 150 * k, 1080, 440 + 150 * k), text=t, clickable=True)
            for k, t in enumerate(("Alpha", "Beta", "Gamma"))]
    node = view("android.widget.ListView", b(0, 300, 1080, 1800),
                *[r.model_copy(update={"resource_id": "android:id/text1"}) for r in rows],
                scrollable=True)
    return screen(node.model_copy(update={"resource_id": ids}), activity=".ListActivity")


def test_framework_ids_say_no_noun() -> None:
    assert nm.tokens("noteTitle2") == ["note", "title", "2"]
    for ids, noun in (("android:id/list", "item"), ("com.example.tiny:id/recipes", "recipe")):
        compiled = compile_app(traces(episode("e0", framework(ids), click(500, 370),
                                              framework(ids))))
        coll = next(v.name for v in compiled.spec.state if v.kind == "collection")
        assert nm.list_noun(compiled.spec, coll) == noun


def test_articles() -> None:
    assert [f"{nm.article(n)} {n}" for n in ("item", "alarm", "note", "user", "event", "unit")] \
        == ["an item", "an alarm", "a note", "a user", "an event", "a unit"]


def cart(n: int) -> Observation:
    """A quantity stepper as React Native lays it out: a label, "-", the number, "+"."""
    return screen(view(TEXT, b(40, 80, 1040, 160), text="Cart"),
                  view(GROUP, b(0, 300, 1080, 420),
                       view(TEXT, b(40, 320, 400, 400), text="Quantity"),
                       view(GROUP, b(500, 320, 600, 400), view(TEXT, b(520, 330, 580, 390),
                                                               text="-"), clickable=True),
                       view(TEXT, b(620, 320, 700, 400), text=str(n)),
                       view(GROUP, b(720, 320, 820, 400), view(TEXT, b(740, 330, 800, 390),
                                                               text="+"), clickable=True)),
                  activity=".CartActivity")


def test_a_number_without_an_id_is_named_by_its_label() -> None:
    plus, minus = click(770, 360), click(550, 360)
    compiled = compile_app(traces(episode("e0", cart(1), plus, cart(2), plus, cart(3), minus,
                                          cart(2), minus, cart(1))))
    assert [v.kind for v in compiled.spec.state] == ["number"]  # named after its class
    said = [t.instruction for t in synthesize(compiled.spec, None).tasks]
    assert "Increase the quantity by 1" in said and "Decrease the quantity by 1" in said
    assert "What is the quantity?" in said


def test_plurals_of_record_nouns() -> None:
    from phoneworld.tasks.synth_answers import plural

    assert [plural(n) for n in ("wish", "box", "match", "entry", "day", "note", "news")] == [
        "wishes", "boxes", "matches", "entries", "days", "notes", "news"]
    assert plural("entry in shopping list") == "entries in shopping list"


def test_a_number_that_counts_things_is_asked_how_many() -> None:
    from phoneworld.tasks.synth_answers import _how_much

    assert _how_much("glasses of water") == "How many glasses of water are there?"
    assert _how_much("steps") == "How many steps are there?"
    assert _how_much("streak") == "What is the streak?"
    assert _how_much("quantity") == "What is the quantity?"
    assert _how_much("status") == "What is the status?"


def test_a_text_field_named_only_by_the_records_noun_is_the_records_title() -> None:
    from phoneworld.tasks.synth import _named

    # a to-do's `todo_text`: "Add a todo titled ...", not "Add a todo with todo ..."
    assert _named("todo", "todo_text", "title") == 'titled "{title}"'
    assert _named("song", "songs", "title") == 'titled "{title}"'
    assert _named("note", "note_title", "title") == 'titled "{title}"'
    assert _named("contact", "contact_phone", "p") == 'with phone "{p}"'
