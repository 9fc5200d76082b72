"""Words for synthesized instructions, taken from the app: the labels of widgets and the names of
state variables ("note_list_items" -> "note", "note_done" -> "done", a Switch labelled "Dark mode").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from phoneworld.ir.app import AppSpec, ItemField, Widget
from phoneworld.ir.base import ids_shrunk

NOISE = {
    "list", "items", "item", "view", "views", "recycler", "container", "layout", "rv", "lv", "grid",
    "collection", "text", "txt", "tv", "label", "value", "edit", "et", "input", "field", "og",
    "widget", "compound", "button", "btn", "the", "id", "linear", "frame", "relative", "box",
}
TITLE_WORDS = ("title", "name", "text", "label", "subject", "content")
DONE_WORDS = {"done", "completed", "complete", "finished", "checked"}
# the words of checkable widget classes (CheckBox, SwitchCompat, RadioButton, ...): a field named
# only by them says nothing but that it is a box
CHECK_CLASS_WORDS = {"check", "checkbox", "switch", "compat", "toggle", "radio", "material",
                     "appcompat"}
SWITCH_CLASSES = ("Switch", "ToggleButton", "CompoundButton", "SwitchCompat")
FUNCTION_WORDS = {"a", "an", "and", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with"}


def tokens(name: str) -> list[str]:
    """The words of an identifier: split at "_", case changes and where letters meet digits
    ("noteTitle2" -> note, title, 2; Android's own "text1" -> text, 1)."""
    split = re.sub(r"([a-zA-Z])(\d)", r"\1_\2", re.sub(r"([a-z])([A-Z])", r"\1_\2", name))
    return [t for t in re.split(r"[_\W]+", split.lower()) if t]


def singular(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def humanize(name: str) -> str:
    """A variable or id name as words, without the usual widget noise ("streak_text_view" ->
    "streak"); falls back to all words when only noise is left."""
    words = [t for t in tokens(name) if t not in NOISE and not t.isdigit()]
    return " ".join(words or [t for t in tokens(name) if not t.isdigit()] or ["item"])


def meaningful(name: str) -> str | None:
    """`humanize(name)` when the name says more than its widget kind ("streak_text_view"), else
    None ("edit_text_2", "button")."""
    words = [t for t in tokens(name) if t not in NOISE and not t.isdigit()]
    return " ".join(words) if words else None


def slug(text: str, words: int = 5) -> str:
    return "_".join(re.findall(r"[a-z0-9]+", text.lower())[:words]) or "item"


def collection_noun(name: str) -> str:
    words = [t for t in tokens(name) if t not in NOISE and not t.isdigit()]
    if not words:
        return "item"
    if len(words) == 1:
        return singular(words[0])
    return "entry in " + " ".join(words)


def article(noun: str) -> str:
    """ "a" or "an" before `noun` ("an item", "an alarm", "a user", "a note")."""
    low = noun.lower()
    vowel = low[:1] in ("a", "e", "i", "o", "u") and not low.startswith(("uni", "use", "usu",
                                                                        "eu", "one"))
    return "an" if vowel else "a"


def field_words(noun: str, field: str) -> str:
    """A record field as words, without the collection's noun ("note_title" -> "title"). A field
    whose name says only its widget's class (a row's `check_box`, `text_view_3`, as apps without
    resource ids name them) is "checked" for a box and "text" for a text."""
    skip = set(noun.split()) | {singular(w) for w in noun.split()} | NOISE
    words = [t for t in tokens(field) if t not in skip and not t.isdigit()]
    if words and set(words) <= CHECK_CLASS_WORDS | {"on"}:  # "text1_on": a text's own box
        return "checked"
    if not words and meaningful(field) is None:
        return "text"
    return " ".join(words) or humanize(field)


def list_noun(app: AppSpec, collection: str) -> str:
    """The noun of a collection's records: from its variable's name ("note_list_items" ->
    "note"), or "item" where no widget showing the list has a resource id of the app's own:
    its name then says only the container's class ("view_group_2_items") or the framework's
    role for it (`android:id/list`, an AlertDialog's `android:id/select_dialog_listview`)."""
    ids = [w.resource_id for _, w, _ in widgets(app)
           if w.list is not None and w.list.collection == collection]
    own = [i for i in ids if i and not i.startswith("android:")]
    return collection_noun(collection) if own or not ids else "item"


def id_field(fields: list[tuple[str, str]]) -> str | None:
    """The text field that names a record (title, name, ... or the first text field)."""
    texts = [name for name, kind in fields if kind == "text"]
    for word in TITLE_WORDS:
        for name in texts:
            if word in tokens(name):
                return name
    return texts[0] if texts else None


def quoted(text: str) -> str:
    return f'"{text}"'


def widgets(app: AppSpec) -> Iterator[tuple[str, Widget, Widget | None]]:
    """(screen id, widget, its parent) for every widget, list item templates included."""
    def visit(sid: str, w: Widget, parent: Widget | None) -> Iterator[tuple[str, Widget, Widget | None]]:
        yield sid, w, parent
        for c in w.children:
            yield from visit(sid, c, w)
        if w.list is not None:
            yield from visit(sid, w.list.item, w)

    for s in app.screens:
        yield from visit(s.id, s.root, None)


def _raw_literal(w: Widget) -> str:
    return w.text.value if w.text.kind == "lit" and isinstance(w.text.value, str) else ""


def literal(w: Widget) -> str:
    return " ".join(_raw_literal(w).split())


def title_line(w: Widget) -> str:
    """The first line of the widget's literal text: a settings row recorded as one text
    ("Font size\nMedium") is named by its title, not by the value its summary shows."""
    return next((" ".join(line.split()) for line in _raw_literal(w).splitlines()
                 if line.strip()), "")


# what ends a sentence: a stop, a question mark and their full-width forms (Chinese, Japanese)
SENTENCE_ENDS = (".", "?", "\u3002", "\uff1f")


def label_like(text: str) -> bool:
    """A few words (not a sentence, nor a quote mark or an icon glyph alone, nor a date or a
    time: "Mon Feb 06 2023" is the day the app was recorded, not what a screen is called). A
    mark standing apart is no word: "Log In / Sign Up" is four. A few words that exclaim are a
    heading, not a sentence: "Wrong Answer!", "Welcome to Blobit!"."""
    words = sum(_word_count(w) for w in text.split())
    return 0 < words <= 4 and not text.endswith(SENTENCE_ENDS) and not datelike(text)


_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def _word_count(piece: str) -> int:
    """The words in a piece of text between spaces: none for a mark, one for a word, and for
    Chinese, Japanese or Korean, written without spaces, one per two characters."""
    cjk = len(_CJK.findall(piece))
    if cjk:
        return -(-cjk // 2) + any(ch.isalnum() for ch in _CJK.sub("", piece))
    return 1 if any(ch.isalnum() for ch in piece) else 0


_MONTHS_DAYS = ("jan feb mar apr may jun jul aug sep sept oct nov dec january february march april "
                "june july august september october november december mon tue tues wed thu thur "
                "thurs fri sat sun monday tuesday wednesday thursday friday saturday sunday").split()
_DATE = re.compile(r"\b\d{1,2}:\d{2}\b|\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b")
# a year beside a day's number, in any language's words: "6. Februar 2023", "2023年2月6日"
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
_DAY = re.compile(r"(?<!\d)\d{1,2}(?!\d)")


def datelike(text: str) -> bool:
    """A date or a time: 10:30, 2023-02-06, 06/02/2023, a year with a day's number, or a month
    or weekday with a number."""
    if _DATE.search(text) or (_YEAR.search(text) and _DAY.search(text)):
        return True
    words = re.findall(r"[a-z]+", text.lower())
    return any(ch.isdigit() for ch in text) and any(w in _MONTHS_DAYS for w in words)


def widget_label(w: Widget, parent: Widget | None) -> str:
    """What a user would call a widget: its text, its description, the one text inside it (a
    Compose switch or box is its whole row, the label a TextView under it), or a short label
    next to it."""
    text = literal(w) or " ".join(w.content_desc.split())
    if text:
        return text
    inside = [t for d in descendants(w) if (t := literal(d))]
    if len(inside) == 1:
        return inside[0]
    return label_beside(w, parent)


def label_beside(w: Widget, parent: Widget | None) -> str:
    """The first short label among `w`'s siblings that takes no taps ("" for none)."""
    siblings = parent.children if parent is not None else ()
    return next((t for sib in siblings if sib is not w and not sib.clickable
                 and label_like(t := literal(sib))), "")


# the state words Android's Switch adds to the text it reports ("Auto-backup OFF"; uiautomator
# and DroidBot read the text with it)
SWITCH_STATES = ("ON", "OFF")


def checkable_label(w: Widget, parent: Widget | None) -> str:
    """What a user calls a switch or a box: its own text without the state word a Switch adds
    to it, unless that text holds no letter (a "+" / "−" sign toggle: then its description), and,
    where that label is a sentence (a summary: "Backup database daily at the specified time
    (07:00)"), the short label beside it ("Auto-backup"); else `widget_label`."""
    own = literal(w)
    head, _, last = own.rpartition(" ")
    if is_switch(w) and head and last in SWITCH_STATES:
        own = head
    if not any(ch.isalpha() for ch in own):
        own = " ".join(w.content_desc.split())
    if own and not label_like(own):
        return label_beside(w, parent) or own
    return own or widget_label(w, parent)


_WORDS = re.compile(r"[^\W\d_]+(?: [^\W\d_]+)*")  # words of letters only: "Mobile Number"
SMALL_CONTAINER = 4  # children of a parent that holds a field and its label (and a clear button)


def number_label(app: AppSpec, var: str) -> str | None:
    """What an instruction calls a number variable: its name when that says something
    ("streak_text_view" -> "streak"), else the short label beside the text showing it in a small
    container (a "Quantity" row's "-", "2", "+" in an app without resource ids), else None."""
    named = meaningful(var)
    if named:
        return named
    bound = bound_widget(app, var, "text")
    if bound is None or bound[2] is None or len(bound[2].children) > SMALL_CONTAINER:
        return None  # in a page of many views a text beside it is as often the page's title
    near = widget_label(bound[1], bound[2])
    plain = near[:1].isalpha() and not any(ch.isdigit() or ch in "…:" for ch in near)
    return near.lower() if label_like(near) and plain else None


def field_label(app: AppSpec, sid: str, w: Widget, parent: Widget | None, shows: str = ""
                ) -> str:
    """How an instruction names a text field: its resource id (not one a shrinker gave,
    `base.ids_shrunk`) or description when they say something, a short label beside it in a
    small container or just before that container (`label_above`; not the screen's title where
    the field shows words of letters only at the start: that is the page's heading, and the words
    its hint, "Mobile Number"; an example value, "abc@xyz.com", leaves the label), what it shows
    at the start (`shows`: its placeholder, "Search"), a label elsewhere among its siblings, else
    "the text field" of the screen's title. (In a page whose views are all one parent's
    children, as AutoDroid records them, a sibling label is as often the page's title as the
    field's.)"""
    named = meaningful(w.resource_id.split(":id/", 1)[-1]) \
        if w.resource_id and not ids_shrunk(v.resource_id for _, v, _ in widgets(app)) else None
    desc = " ".join(w.content_desc.split())
    if named:
        return f"the {named} field"
    if label_like(desc):
        return f"the {desc} field"
    near = widget_label(w.model_copy(update={"content_desc": ""}), parent)
    near = near if near and near != literal(w) else ""
    if near and parent is not None and len(parent.children) <= SMALL_CONTAINER:
        return f"the {near} field"
    shows = " ".join(shows.split())
    above = label_above(app, sid, parent) if not near else ""
    if above and above == screen_title(app, sid) and label_like(shows) and _WORDS.fullmatch(shows):
        above = ""  # the page's heading above a form (a sign-in's "Log In / Sign Up"): its hint
    if above:
        return f"the {above} field"
    if label_like(shows) and len(shows) <= 40:
        return f"the text field showing {quoted(shows)}"
    if near:
        return f"the {near} field"
    title = screen_title(app, sid)
    return f'the text field of the "{title}" screen' if title else "the text field"


def label_above(app: AppSpec, sid: str, parent: Widget | None) -> str:
    """The label just before a field's own small container (a label row, then the field with its
    clear or show-password button, as React Native and Compose forms lay them out): the sibling
    before that container when it is one short literal text that starts with a letter and
    nothing a user taps."""
    if parent is None or len(parent.children) > SMALL_CONTAINER:
        return ""
    for s2, w, grand in widgets(app):
        if s2 != sid or w is not parent or grand is None:
            continue
        k = next(i for i, c in enumerate(grand.children) if c is parent)
        if k == 0:
            return ""
        prev = grand.children[k - 1]
        texts = [literal(d) for d in (prev, *descendants(prev)) if literal(d)]
        tapped = prev.clickable or any(d.clickable for d in descendants(prev))
        ok = len(texts) == 1 and label_like(texts[0]) and texts[0][0].isalpha() and not tapped
        return texts[0] if ok else ""  # "+1 555 0100" above a code field is where it was sent
    return ""


def descendants(w: Widget) -> Iterator[Widget]:
    """Every widget under `w`, depth first."""
    for c in w.children:
        yield c
        yield from descendants(c)


def shows_text(w: Widget) -> bool:
    """A widget that is a text: a TextView, or a web page's text, which a WebView's tree holds as
    a plain `android.view.View` ("reCAPTCHA" above its checkbox)."""
    return w.cls.endswith("TextView") or w.cls == "android.view.View"


def screen_title(app: AppSpec, sid: str) -> str:
    """The first short literal text of a screen that starts with a letter (its toolbar title,
    usually; "0 CAD" is a balance, not a title)."""
    for s2, w, _ in widgets(app):
        text = literal(w)
        if s2 == sid and shows_text(w) and label_like(text) and text[0].isalpha():
            return text
    return ""


def list_title(app: AppSpec, collection: str, reachable: set[str]) -> str | None:
    """The title (`screen_title`, "" for none) of the first reachable screen that shows
    `collection`'s list; None when no reachable screen does."""
    for sid, w, _ in widgets(app):
        if sid in reachable and w.list is not None and w.list.collection == collection:
            return screen_title(app, sid)
    return None


def bound_widget(app: AppSpec, var: str, attr: str) -> tuple[str, Widget, Widget | None] | None:
    """The first widget (in screen order) whose `attr` ("text" / "checked") reads variable `var`,
    preferring interactive ones."""
    found = [(sid, w, p) for sid, w, p in widgets(app)
             if getattr(w, attr).kind == "var" and getattr(w, attr).name == var]
    found.sort(key=lambda x: not (x[1].clickable or x[1].checkable or x[1].editable))
    return found[0] if found else None


def is_switch(w: Widget) -> bool:
    return w.cls.rsplit(".", 1)[-1] in SWITCH_CLASSES


def item_switch(app: AppSpec, collection: str, field: str) -> bool:
    """Whether the records of `collection` show their flag `field` as a switch (a settings list,
    an alarm's on/off): "Turn on", not "Mark as"."""
    for _, w, _ in widgets(app):
        lst = w.list
        if lst is not None and lst.collection == collection:
            for v in (lst.item, *descendants(lst.item)):
                if isinstance(v.checked, ItemField) and v.checked.field == field:
                    return is_switch(v)
    return False


def is_checkbox(w: Widget) -> bool:
    """A box a tap both checks and clears (a radio button only selects)."""
    return w.cls.rsplit(".", 1)[-1] in ("CheckBox", "AppCompatCheckBox",
                                        "MaterialCheckBox")


def is_radio(w: Widget) -> bool:
    """A radio button (RadioButton, AppCompatRadioButton, MaterialRadioButton): a tap only
    selects it, and choosing another clears it."""
    return w.cls.endswith("RadioButton")


def flag_phrase(w: Widget, label: str, on: bool, where: str = "") -> str:
    """"Turn on Dark mode", "Check "Vibrate"", "Select "5 minutes"" and their opposites; with
    `where` (`place`: a box with no label of its own), "Check the box on the 7th image"."""
    short = w.cls.rsplit(".", 1)[-1]
    if is_switch(w):
        return f"Turn {'on' if on else 'off'} {where or label}"
    if is_radio(w):
        return (f"Select {where or quoted(label)}" if on
                else f"Clear {where}" if where else f"Clear the option {quoted(label)}")
    return f"{'Check' if on else 'Uncheck'} {where or quoted(label)}"


MIN_CELLS = 3  # siblings of one shape that make a grid or a column of cells


def _shape(w: Widget) -> tuple[str, ...]:
    return (w.cls, *sorted(d.cls for d in descendants(w)))


def _path(root: Widget, w: Widget) -> list[Widget]:
    """The widgets from `root` down to `w` (both included), or [] when `w` is not under it."""
    if root is w:
        return [root]
    for c in root.children:
        found = _path(c, w)
        if found:
            return [root, *found]
    return []


def row_label(app: AppSpec, sid: str, w: Widget) -> str:
    """The title of the row that takes a widget's taps: a switch that takes none, inside a
    clickable row, is named by the row's first short text (a settings row: "Timeline emails"
    above its summary, the switch at the end); "" where no clickable row holds it, or the row
    shows no such text."""
    screen = next((s for s in app.screens if s.id == sid), None)
    if w.clickable or screen is None:
        return ""
    row = next((a for a in reversed(_path(screen.root, w)[:-1]) if a.clickable), None)
    if row is None:
        return ""
    titles = [t for d in descendants(row) if not (d.clickable or d.checkable)
              and (t := title_line(d))]
    return titles[0] if titles and label_like(titles[0]) else ""


def ordinal(n: int) -> str:
    """1 -> "1st", 2 -> "2nd", 11 -> "11th", 23 -> "23rd"."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def place(app: AppSpec, sid: str, w: Widget) -> str:
    """A box or switch with no label, named by the cell it sits in: a cell is one of `MIN_CELLS`
    or more siblings of one shape (a picker's grid of photos, each with its box). The cells' one
    shared description or text is a noun, the cell counted in reading order ("the box on the 7th
    image"); where each cell shows its own, that names it ("the box on "report.pdf""). "" where
    the widget sits in no such cell."""
    screen = next((s for s in app.screens if s.id == sid), None)
    path = _path(screen.root, w) if screen is not None else []
    what = ("switch" if is_switch(w) else "option"
            if w.cls.rsplit(".", 1)[-1] == "RadioButton" else "box")
    for parent, cell in reversed(list(zip(path, path[1:]))):
        like = sorted((c for c in parent.children if _shape(c) == _shape(cell)),
                      key=lambda c: (c.bounds.y1, c.bounds.x1))
        if len(like) < MIN_CELLS:
            continue
        names = [{t for t in (literal(d) or " ".join(d.content_desc.split())
                              for d in (c, *descendants(c)) if not d.checkable) if t}
                 for c in like]
        k = next(i for i, c in enumerate(like) if c is cell)
        if all(len(n) == 1 for n in names) and len(set().union(*names)) == 1:
            return f"the {what} on the {ordinal(k + 1)} {next(iter(names[k])).lower()}"
        if len(names[k]) == 1 and names.count(names[k]) == 1:
            return f"the {what} on {quoted(next(iter(names[k])))}"
        return ""
    return ""
