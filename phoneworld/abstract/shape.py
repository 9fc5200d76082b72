"""Structural shapes of view trees: the screen signature, and which containers are lists.

A node's shape digests its class, resource-id, content-desc and its children's shapes, never its
text, checked flag or bounds. A list container's shape digests its item shape once, whatever the
number of items. Lists are learned over all observations first (`ShapeIndex.learn`), so a list
seen with one item or none still collapses to the same shape as when it had many, and a list-class
container (RecyclerView, ListView, ...) is a list even when no observation shows two like items.
The rows of a list-class container that share their class and resource id are its items even
where some show an optional child (a badge, a subtitle) and others do not: one item template holds
the fullest row. A pool of numbered views (`letter1`, `letter2`, ... of one class, as a word
game's answer slots) has one shape however many of them are shown: the app shows as many as its
data needs.

A list the app hides while it is empty, showing a message in its place ("No notes yet": the
RecyclerView gone, a TextView shown), is one screen with the list empty (`learn_empty_slots`,
`ShapeIndex.fill`): before, the empty and the filled page were two screens, so adding the first
record read as a move to another screen with records out of nowhere, and deleting the last as a
rule on that record's title.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Container, Mapping
from dataclasses import dataclass, field
from typing import Any

from phoneworld.ir.screens import Abstraction, EmptySlot
from phoneworld.ir.trace import Observation, ViewNode

LIST_CLASSES = ("ListView", "RecyclerView", "GridView", "ExpandableListView")


# The classes a toolkit gives every view it draws (Flutter, Compose, WebView pages: `View`; React
# Native: `ViewGroup`): without a resource id, such views are told apart by their place only.
GENERIC_CLASSES = frozenset({"android.view.View", "android.view.ViewGroup"})


def anchor_key(node: ViewNode, parent_anchor: str, item: bool = False) -> str:
    """How a list container is recognised in another observation: its class and id and those of
    its ancestors; a generic view without an id (`GENERIC_CLASSES`) by its index among its
    siblings too, as an XPath does: a Flutter screen's header and list are two `View`s under one
    `View`, and the header is no list. Not a list's item (`item`, `ShapeIndex.anchor`): a row's
    place in its list is its record's, so every row (a Compose or React Native row, a generic
    view) anchors what it holds alike."""
    if not node.resource_id and node.cls in GENERIC_CLASSES and not item:
        return _digest(parent_anchor, node.cls, "", str(node.index))
    return _digest(parent_anchor, node.cls, node.resource_id)


_VISIBLE: dict[int, tuple[ViewNode, tuple[ViewNode, ...]]] = {}


# Ad slots: a banner an ad SDK fills, or the app's own advert in its place, comes and goes as ads
# load and rotate, whatever the user does; it is neither the screen's identity nor its content.
# A container is one when its class is an ad SDK's view (`com.google.android.gms.ads.AdView`,
# `NativeAdView`, ...) or a word of its resource id names an ad (`adView`, `ad_container`,
# `flAdmob`, `flCustomAdvert`); widgets (a "Remove ads" button, an "Ad" badge) are not.
AD_WORDS = frozenset({"ad", "ads", "admob", "adview", "advert", "adverts", "advertisement",
                      "adcontainer", "adlayout", "adbanner"})
_WIDGETS = ("Button", "TextView", "CheckBox", "Switch", "EditText", "ImageButton", "ImageView",
            "RadioButton", "ToggleButton", "CheckedTextView", "SeekBar", "Spinner")
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def is_ad(node: ViewNode) -> bool:
    """Whether `node` is an ad slot (see AD_WORDS): a container, never a widget."""
    short = node.cls.rsplit(".", 1)[-1]
    if short.endswith(_WIDGETS):
        return False
    if short.endswith("AdView"):
        return True
    entry = node.resource_id.rsplit("/", 1)[-1]
    return bool(entry) and any(w.lower() in AD_WORDS for w in _WORD.findall(entry))


def visible_children(node: ViewNode) -> tuple[ViewNode, ...]:
    """Children that take space on screen; zero-area views and ad slots are not part of the
    structure."""
    # Memoised on identity (the node is kept in the value so its id cannot be reused).
    hit = _VISIBLE.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    kids = tuple(c for c in node.children if (c.children or (
        c.bounds.x2 > c.bounds.x1 and c.bounds.y2 > c.bounds.y1)) and not is_ad(c))
    if len(_VISIBLE) > 500_000:
        _VISIBLE.clear()
    _VISIBLE[id(node)] = (node, kids)
    return kids


def _digest(*parts: str) -> str:
    return hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).hexdigest()


def _looks_like_list(node: ViewNode, child_shapes: list[str], kids: tuple[ViewNode, ...]) -> bool:
    if len(child_shapes) < 2 or len(set(child_shapes)) != 1:
        return False
    if node.scrollable or _is_list_class(node):
        return True
    # Composite repeated children (a row with a checkbox and a label) are list items even in a
    # non-scrollable container; repeated bare leaves (two TextViews) are just layout.
    return all(k.children for k in kids) or _tiles(kids)


def _tiles(kids: tuple[ViewNode, ...]) -> bool:
    """Whether `kids` are Flutter tiles: tappable leaves whose text is their description, each
    the views of a row merged into one (`ViewNode.text_in_desc`). Rows of a list, unless they
    always show the same texts (`ShapeIndex.learn`): a tab bar's."""
    return all(k.clickable and k.text_in_desc and not k.children for k in kids)


# Classes of controls: a view of one of them is a button or a toggle whatever it holds (Compose
# draws a button as a Button around its TextView, a labelled toggle as a Switch around its label).
CONTROL_CLASSES = ("Button", "CheckBox", "Switch", "RadioButton", "ToggleButton")


def _controls(kids: tuple[ViewNode, ...]) -> bool:
    """Whether `kids` are controls holding their labels (`CONTROL_CLASSES`): a dialog's Cancel
    and Add, a settings column's switches. Rows of a list, unless they always show the same
    texts (`_Votes.fixed`)."""
    return all(k.cls.endswith(CONTROL_CLASSES) for k in kids)


def _is_list_class(node: ViewNode) -> bool:
    return node.cls.endswith(LIST_CLASSES)


@dataclass
class ShapeIndex:
    """The list containers known for an app (anchor -> item shape; "" when no item was ever
    seen) and the shape function."""

    lists: dict[str, str] = field(default_factory=dict)
    # anchor -> the other item shapes seen repeated there, most seen first: without resource ids
    # (React Native) two screens' lists share an anchor (the Books tab's and the Wishlist's)
    others: dict[str, tuple[str, ...]] = field(default_factory=dict)
    rows: frozenset[str] = frozenset()  # list anchors whose items are told by the row alone
    # anchor -> the structures (`_tree_shape`) of the views its like items were seen holding
    parts: dict[str, frozenset[str]] = field(default_factory=dict)
    marks: dict[str, frozenset[str]] = field(default_factory=dict)  # anchor -> its items' `item_mark`s
    empty: dict[str, EmptySlot] = field(default_factory=dict)  # parent anchor -> `EmptySlot`
    _memo: dict[tuple[int, str], str] = field(default_factory=dict, repr=False)

    @classmethod
    def learn(cls, roots: list[ViewNode]) -> ShapeIndex:
        """Lists from every observation: a container is a list wherever it was seen with two or
        more like items, with the item shape most seen repeated. A list-class container (a
        RecyclerView) never seen with two or more children, only empty or with one item (before
        the second note is added), is a list too, of its one child's shape. One that holds unlike
        children is a page laid out by a RecyclerView, not a list of records: its children are
        its structure, unless all its children are rows of one class and resource id: then it is
        a list of those rows, whatever optional children each shows. A container seen repeating
        items of several shapes (on several screens) is a list of each (`item_shape`). Flutter
        tiles (`_tiles`) and controls (`_controls`) that always showed the same texts are a tab
        bar, a dialog's buttons, a settings column: no list. The votes are taken twice, the
        second time knowing where the first saw lists and what their items looked like
        (`item_mark`): a list showing one item no longer looks like a sibling holding one view
        (two repeated children, a list), and the views inside its rows are anchored by the list,
        not by each row's place (`ShapeIndex.anchor`)."""
        votes = _Votes()
        for root in roots:
            _collect(root, "", votes)
        grown = frozenset(a for a, counts in votes.counts.items() if len(counts) > 1)
        seen_as_lists = frozenset(votes.items.keys() - votes.fixed()) | grown
        if seen_as_lists:
            # Again, knowing them: a list showing one item looks like its sibling of one view
            votes = _Votes(known={a: frozenset(votes.marks[a]) for a in seen_as_lists},
                           grown=grown)
            for root in roots:
                _collect(root, "", votes)
        rows = votes.rows.keys() - votes.mixed
        fixed = votes.fixed()
        lists = {anchor: counter.most_common(1)[0][0] for anchor, counter in votes.items.items()
                 if anchor not in rows and anchor not in fixed}
        others = {anchor: tuple(shape for shape, _ in counter.most_common()[1:])
                  for anchor, counter in votes.items.items()
                  if anchor not in rows and anchor not in fixed and len(counter) > 1}
        for anchor in votes.sparse - votes.mixed - lists.keys() - rows:
            children = votes.children.get(anchor)
            lists[anchor] = children.most_common(1)[0][0] if children else ""
        for anchor in rows:
            lists[anchor] = votes.rows[anchor].most_common(1)[0][0]
        parts = {anchor: frozenset(votes.parts[anchor]) for anchor in lists}
        marks = {anchor: frozenset(votes.marks[anchor]) for anchor in lists if votes.marks[anchor]}
        return cls(lists=lists, others=others, rows=frozenset(rows), parts=parts, marks=marks)

    def facts(self) -> dict[str, Any]:
        """Every list fact the index learned, as the `Abstraction`'s fields (`of`)."""
        return {"list_shapes": dict(sorted(self.lists.items())),
                "list_others": dict(sorted(self.others.items())),
                "list_rows": tuple(sorted(self.rows)),
                "list_parts": {a: tuple(sorted(p)) for a, p in sorted(self.parts.items())},
                "list_marks": {a: tuple(sorted(m)) for a, m in sorted(self.marks.items())},
                "empty_slots": dict(sorted(self.empty.items()))}

    @classmethod
    def of(cls, abstraction: Abstraction) -> ShapeIndex:
        """The index `abstraction` was built with (`facts`): a held-out reading shapes as the
        build did."""
        return cls(lists=dict(abstraction.list_shapes), others=dict(abstraction.list_others),
                   rows=frozenset(abstraction.list_rows),
                   parts={a: frozenset(p) for a, p in abstraction.list_parts.items()},
                   marks={a: frozenset(m) for a, m in abstraction.list_marks.items()},
                   empty=dict(abstraction.empty_slots))

    def anchor(self, node: ViewNode, parent: str) -> str:
        """`node`'s anchor under the view anchored at `parent` (`anchor_key`): as an item when
        `parent` is a list and `node` looks like its items (`item_mark`); another screen's page
        at the list's place (a settings tab where the books were) keeps its index."""
        return _anchor(node, parent, self.marks, self.lists)

    def shape(self, node: ViewNode, parent: str = "") -> str:
        # Nodes are immutable and live for the whole pass, so their identity is a safe memo key.
        key = (id(node), parent)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._shape(node, parent)
        return found

    def _shape(self, node: ViewNode, parent: str) -> str:
        if parent in self.rows:
            return row_shape(node)
        anchor = self.anchor(node, parent)
        item = self.item_shape(node, anchor)
        if item is not None:
            return _digest(node.cls, node.resource_id, node.content_desc, "list", item)
        kids = visible_children(node)
        pool = numbered_pool(kids)
        if pool is not None:
            return _digest(node.cls, node.resource_id, node.content_desc, "pool", *pool)
        shapes = [self.shape(c, anchor) for c in kids]
        return _digest(node.cls, node.resource_id, node.content_desc, *shapes)

    def item_shape(self, node: ViewNode, anchor: str) -> str | None:
        """The item shape of the list at `anchor` as `node` shows it: the one most seen there,
        or where none of its children has that shape and some have another seen repeated
        there, that one (None: no list at `anchor`). A container of no list class showing
        none of those shapes and not only messages (`is_placeholder`) is none: without ids,
        another window's views sit at a list's place (a Flutter dialog where the overflow menu's
        items were), unless it shows rows of another layout: two or more like children, or
        children holding only what the items were seen holding (each with a badge)."""
        item = self.lists.get(anchor)
        kids = visible_children(node)
        if item is None or not kids:
            return item
        shown = {self.shape(c, anchor) for c in kids}
        if item in shown:
            return item
        found = next((o for o in self.others.get(anchor, ()) if o in shown), None)
        if found is not None:
            return found
        known = self.parts.get(anchor, frozenset())
        if _is_list_class(node) or (len(kids) > 1 and len(shown) == 1) \
                or all(is_placeholder(k) or _parts((k,)) <= known for k in kids):
            return item
        return None

    def screen_shape(self, obs: Observation) -> str:
        """A screen's identity: the package, the foreground activity and the tree's shape."""
        return _digest(obs.package, obs.activity or "", self.shape(obs.root))

    def fill(self, obs: Observation) -> Observation:
        """`obs` with every placeholder of an `empty` slot replaced by the slot's list container
        with no items (dropped where the container is shown too): the observation as the screen
        it is, its list empty. Unchanged when it shows none."""
        if not self.empty:
            return obs
        root = self._fill(obs.root, "")
        return obs if root is obs.root else obs.model_copy(update={"root": root})

    def _fill(self, node: ViewNode, parent: str) -> ViewNode:
        anchor = self.anchor(node, parent)
        if anchor in self.lists or not node.children:
            return node
        kids = [self._fill(c, anchor) for c in node.children]
        slot = self.empty.get(anchor)
        if slot is not None:
            shown = {id(c) for c in visible_children(node)}
            holder = self.shape(slot.filler, anchor)
            has_list = any(self.shape(c, anchor) == holder for c in node.children if id(c) in shown)
            out = []
            for old, new in zip(node.children, kids):
                if id(old) in shown and self.shape(old, anchor) in slot.placeholders:
                    if not has_list:
                        out.append(slot.filler)
                        has_list = True
                    continue
                out.append(new)
            kids = out
        if len(kids) == len(node.children) and all(a is b for a, b in zip(kids, node.children)):
            return node
        return node.model_copy(update={"children": tuple(kids)})


@dataclass
class _Votes:
    items: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    children: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    sparse: set[str] = field(default_factory=set)  # list-class, seen with at most one child
    mixed: set[str] = field(default_factory=set)  # list-class, seen with unlike children
    # list-class, seen with rows of one class and id but unlike contents (an optional badge)
    rows: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    # where like tiles or controls were seen where nothing scrolls -> the texts they showed
    tiles: dict[str, set[tuple[str, ...]]] = field(default_factory=lambda: defaultdict(set))
    # anchors another observation showed as a list -> the `item_mark`s of the items it showed
    known: dict[str, frozenset[str]] = field(default_factory=dict)
    marks: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    # a generic view's anchor -> how many rows of one layout it was seen holding; where that
    # varies, the rows are records (`grown`): a Flutter to-do list whose rows show a badge or not
    counts: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    grown: frozenset[str] = frozenset()
    parts: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # `_parts`
    listed: set[str] = field(default_factory=set)  # seen as a list other than by tiles or controls

    def saw(self, anchor: str, items: tuple[ViewNode, ...]) -> None:
        """Note what the items seen at `anchor` look like (`item_mark`)."""
        self.marks[anchor].update(item_mark(k) for k in items)

    def fixed(self) -> set[str]:
        """Anchors seen looking like a list only by their tiles or controls (`_tiles`,
        `_controls`) where nothing scrolls, always with the same texts: a tab bar of tiles, a
        dialog's buttons, a settings column of switches, not a list (they lead to different
        screens or set different things)."""
        return {a for a, seen in self.tiles.items() if len(seen) == 1 and a not in self.listed}


def _anchor(node: ViewNode, parent: str, marks: Mapping[str, Collection[str]],
            lists: Container[str]) -> str:
    """`ShapeIndex.anchor` given the items' marks and the lists known: a view that is a list
    where it stands keeps its place (a Flutter list of one tile beside its header, the two seen
    alike once: the header is no row of a list around both)."""
    placed = anchor_key(node, parent)
    if parent not in marks or placed in lists or item_mark(node) not in marks[parent]:
        return placed
    return anchor_key(node, parent, item=True)


def item_mark(node: ViewNode) -> str:
    """What tells a list's item from another page's view at its place without ids: its class,
    id and description, the kinds of views it holds at any depth, however many of each, and how
    deep they go (a book row holds a TextView, the settings column at the same place Switches; a
    popup's row is two levels of views around a text, the activity's content at the popup
    list's place a whole page, of views only where Flutter draws it)."""
    hit = _MARKS.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    kinds: set[str] = set()
    depth = 0
    stack = [(c, 1) for c in visible_children(node)]
    while stack:
        view, level = stack.pop()
        kinds.add(f"{view.cls}#{view.resource_id}")
        depth = max(depth, level)
        stack.extend((c, level + 1) for c in visible_children(view))
    mark = _digest(node.cls, node.resource_id, node.content_desc, str(depth), *sorted(kinds))
    if len(_MARKS) > 200_000:
        _MARKS.clear()
    _MARKS[id(node)] = (node, mark)
    return mark


_MARKS: dict[int, tuple[ViewNode, str]] = {}


def row_shape(node: ViewNode) -> str:
    """A list row's shape told by the row alone (its class, id and description): rows of one
    list that show an optional child (a badge, a subtitle) only on some records are one item."""
    return _digest(node.cls, node.resource_id, node.content_desc, "row")


_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def numbered_pool(kids: tuple[ViewNode, ...]) -> tuple[str, str] | None:
    """(class, id stem) when `kids` are two or more childless views of one class whose ids are
    one stem numbered 1, 2, 3, ... in order (`letter1`, `letter2`, ...): a fixed pool of views
    the app shows as many of as its data needs, so how many are shown is content, not layout."""
    if len(kids) < 2 or any(k.children or k.cls != kids[0].cls for k in kids):
        return None
    found = [_NUMBERED.match(k.resource_id) for k in kids]
    matches = [m for m in found if m is not None]
    if len(matches) != len(kids) or len({m.group(1) for m in matches}) != 1:
        return None
    first = int(matches[0].group(2))
    if [int(m.group(2)) for m in matches] != list(range(first, first + len(kids))):
        return None
    return kids[0].cls, matches[0].group(1)


def _collect(node: ViewNode, parent: str, votes: _Votes, content: bool = False) -> str:
    """The node's shape as far as one observation tells, voting for the lists it holds. A list's
    shape leaves its item out, so an outer item holding an inner list has one shape whatever the
    inner list holds. `content`: the node is the one child of a scrollable or a vertical
    ScrollView (a React Native FlatList's content container), whose rows without resource ids,
    of one class and one layout (`_rows_of_one_layout`), are a list's rows whatever each shows
    (an optional badge), as a list class's rows of one id are; so are those of a generic view
    seen holding more or fewer of them (`_Votes.grown`; a form always shows its fields) and those
    of a view that scrolls them (a Compose LazyColumn, its last row cut at the edge). A
    HorizontalScrollView's (a carousel) are left as they are: the mock does not window a
    carousel yet."""
    anchor = _anchor(node, parent, votes.known, votes.known)
    kids = visible_children(node)
    holds = (node.scrollable or node.cls.endswith("ScrollView")) and len(kids) == 1 \
        and not node.cls.endswith("HorizontalScrollView")
    shapes = [_collect(c, anchor, votes, holds) for c in kids]
    if anchor in votes.known and (not kids or item_mark(kids[0]) in votes.known[anchor]) \
            and len(kids) <= 1:
        return _digest(node.cls, node.resource_id, node.content_desc, "list")
    pool = numbered_pool(kids)
    if pool is not None:
        return _digest(node.cls, node.resource_id, node.content_desc, "pool", *pool)
    if _looks_like_list(node, shapes, kids):
        votes.items[anchor][shapes[0]] += 1
        votes.saw(anchor, kids)
        votes.parts[anchor].update(_parts(kids))
        if node.scrollable or _is_list_class(node) or content or not (
                _tiles(kids) or _controls(kids)):
            votes.listed.add(anchor)
        else:
            votes.tiles[anchor].add(tuple("\n".join(n.text for n in k.walk()) for k in kids))
        return _digest(node.cls, node.resource_id, node.content_desc, "list")
    one_kind = len(shapes) > 1 and len({row_shape(k) for k in kids}) == 1
    if not _is_list_class(node) and one_kind and not kids[0].resource_id \
            and _rows_of_one_layout(kids):
        if content or anchor in votes.grown or (
                node.scrollable and not node.cls.endswith("HorizontalScrollView")):
            votes.rows[anchor][row_shape(kids[0])] += 1
            votes.saw(anchor, kids)
            return _digest(node.cls, node.resource_id, node.content_desc, "list")
        if node.cls in GENERIC_CLASSES and not node.resource_id:
            votes.counts[anchor].add(len(kids))
            votes.saw(anchor, kids)
    if _is_list_class(node):
        if one_kind and kids[0].resource_id:
            votes.rows[anchor][row_shape(kids[0])] += 1
            votes.saw(anchor, kids)
            return _digest(node.cls, node.resource_id, node.content_desc, "list")
        if len(shapes) > 1:
            votes.mixed.add(anchor)
        else:
            votes.sparse.add(anchor)
            votes.children[anchor].update(shapes)
            votes.saw(anchor, kids)
            return _digest(node.cls, node.resource_id, node.content_desc, "list")
    return _digest(node.cls, node.resource_id, node.content_desc, *shapes)


def _rows_of_one_layout(kids: tuple[ViewNode, ...]) -> bool:
    """Whether views of one class are rows of one layout, each showing some of what the fullest
    shows (a badge or a subtitle on some only): each holds views, and the shapes of what each
    holds are all among the fullest's, and none is a row of tiles (a grid's row of actions). The
    sections of a page (a question, then its buttons) hold different things."""
    held = [[(_tree_shape(c), bool(c.children)) for c in visible_children(k)] for k in kids]
    for row in held:
        tiles = [shape for shape, holds in row if holds]
        if len(tiles) != len(set(tiles)):
            return False  # two views of one shape that hold views: a grid's row of tiles
    kinds = [{shape for shape, _ in row} for row in held]
    fullest = max(kinds, key=len)
    return all(kinds) and all(k <= fullest for k in kinds)


def _parts(items: tuple[ViewNode, ...]) -> set[str]:
    """The structures of the views `items` hold (`_tree_shape`)."""
    return {_tree_shape(c) for k in items for c in visible_children(k)}


def _tree_shape(node: ViewNode) -> str:
    """The shape of a subtree by its structure alone (classes, ids, descriptions), no lists."""
    return _digest(node.cls, node.resource_id, node.content_desc,
                   *(_tree_shape(c) for c in visible_children(node)))


def learn_empty_slots(index: ShapeIndex, roots: list[ViewNode]) -> dict[str, EmptySlot]:
    """The parents whose list the app hides while it is empty, and what it shows in its place.

    Under one parent, a placeholder is a child that shows text, holds nothing a user can act on
    and is small (a message, an icon with a caption), seen where the parent's other children are
    those of an observation showing the list with records, either in the list container's place
    (the container gone) or beside it with the list empty; never beside a list with records, and
    never on a screen with text in an editable field: a list emptied under a typed text is a
    search with no results ("HelloWorld", DroidBot's input), its records all still there.
    The list container may sit in wrappers of one child each (a SwipeRefreshLayout). Both the
    list container and the placeholder carry a resource id: without ids (React Native, Compose)
    the parents of different screens share one anchor, and a screen's lone label would read as
    the message standing for another screen's list. A parent with two such lists is left as it
    is (which list would the message stand for?)."""
    variants: dict[str, dict[tuple[str, ...], _Variant]] = defaultdict(dict)
    for root in roots:
        typed = any(n.editable and n.text.strip() for n in root.walk())
        _parents(index, root, "", variants, typed)
    out: dict[str, EmptySlot] = {}
    for anchor, seen in variants.items():
        if len(seen) < 2:
            continue
        slot = _slot(index, anchor, seen)
        if slot is not None:
            out[anchor] = slot
    return out


def _parents(index: ShapeIndex, node: ViewNode, parent: str,
             variants: dict[str, dict[tuple[str, ...], _Variant]], typed: bool) -> None:
    anchor = index.anchor(node, parent)
    if anchor in index.lists:
        return
    kids = visible_children(node)
    if kids:
        key = tuple(index.shape(k, anchor) for k in kids)
        variant = variants[anchor].setdefault(key, _Variant(kids))
        variant.typed = variant.typed or typed
        for shape, kid in zip(key, kids):
            if shape not in variant.holders and (_records(index, kid, anchor) or 0) > 0:
                variant.holders[shape] = kid
        for k in kids:
            _parents(index, k, anchor, variants, typed)


@dataclass
class _Variant:
    """The children one parent showed in one arrangement of child shapes: the first observation's,
    and per list container (or its wrapper) shape, one shown with records."""

    kids: tuple[ViewNode, ...]
    holders: dict[str, ViewNode] = field(default_factory=dict)
    typed: bool = False  # seen on a screen with text in an editable field


def _list_node(index: ShapeIndex, node: ViewNode, parent: str) -> tuple[ViewNode, str] | None:
    """The list container `node` is, or wraps through views of one child each, with its
    anchor; None when it is neither."""
    anchor = index.anchor(node, parent)
    while anchor not in index.lists:
        kids = visible_children(node)
        if len(kids) != 1:
            return None
        node, anchor = kids[0], index.anchor(kids[0], anchor)
    return node, anchor


def _records(index: ShapeIndex, node: ViewNode, parent: str) -> int | None:
    """How many items the list `node` is (or wraps) shows; None when it is no list's."""
    found = _list_node(index, node, parent)
    return None if found is None else len(visible_children(found[0]))


MAX_PLACEHOLDER_NODES = 6
_ACTING = ("clickable", "long_clickable", "checkable", "scrollable", "focused")


def is_placeholder(node: ViewNode) -> bool:
    """Whether `node` can be the message an empty list shows: text, small, nothing to act on."""
    nodes = node.walk()
    return (len(nodes) <= MAX_PLACEHOLDER_NODES and any(n.text.strip() for n in nodes)
            and not any(n.editable or any(getattr(n, a) for a in _ACTING) for n in nodes))


def _slot(index: ShapeIndex, anchor: str, seen: dict[tuple[str, ...], _Variant]
          ) -> EmptySlot | None:
    holders = {shape: kid for v in seen.values() for shape, kid in v.holders.items()}
    if len(holders) != 1:
        return None
    (holder, container), = holders.items()
    inner = _list_node(index, container, anchor)
    if inner is None or not inner[0].resource_id:
        return None
    full = {key for key, v in seen.items() if v.holders}  # arrangements shown with records
    found: set[str] = set()
    refuted: set[str] = set()
    swaps = inserts = 0
    for key, v in seen.items():
        for i, (shape, kid) in enumerate(zip(key, v.kids)):
            if shape == holder or not kid.resource_id or not is_placeholder(kid):
                continue
            if key in full or v.typed:
                refuted.add(shape)
            elif key[:i] + (holder,) + key[i + 1:] in full:
                found.add(shape)
                swaps += 1
            elif key[:i] + key[i + 1:] in full:
                found.add(shape)
                inserts += 1
    placeholders = tuple(sorted(found - refuted))
    if not placeholders:
        return None
    shown = next(kid for key, v in seen.items() for shape, kid in zip(key, v.kids)
                 if shape == placeholders[0])
    return EmptySlot(placeholders=placeholders, filler=_emptied(index, container, anchor),
                     placeholder=shown, list_anchor=inner[1],
                     replaces=swaps >= inserts)


def _emptied(index: ShapeIndex, node: ViewNode, parent: str) -> ViewNode:
    """`node` (a list container or a wrapper of one) with no items."""
    anchor = index.anchor(node, parent)
    if anchor in index.lists:
        return node.model_copy(update={"children": ()})
    kids = visible_children(node)
    return node.model_copy(update={"children": (_emptied(index, kids[0], anchor),)})


ContentKey = tuple[str, str, str, str, str]
_KEYS: dict[int, tuple[ViewNode, frozenset[ContentKey]]] = {}


def content_keys(root: ViewNode) -> frozenset[ContentKey]:
    """The visible content of a screen as a set of (class, resource-id, text, content-desc,
    checked): the last is "on" or "off" for a checkable view (a ticked box is content), else "".
    Ad slots (`is_ad`) are no content: what they show changes as ads load."""
    hit = _KEYS.get(id(root))
    if hit is not None and hit[0] is root:
        return hit[1]
    keys = frozenset(
        (n.cls, n.resource_id, n.text, n.content_desc,
         ("on" if n.checked else "off") if n.checkable else "")
        for n in _content_nodes(root)
        if n.bounds.area > 0
    )
    if len(_KEYS) > 100_000:
        _KEYS.clear()
    _KEYS[id(root)] = (root, keys)
    return keys


def _content_nodes(root: ViewNode) -> list[ViewNode]:
    """Every node of the tree but those in ad slots (`is_ad`)."""
    out: list[ViewNode] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if is_ad(node):
            continue
        out.append(node)
        stack.extend(node.children)
    return out
