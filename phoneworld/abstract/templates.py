"""Screen templates (one widget tree per screen, with widget ids) and reading observations through them.

Observations of one screen share its shape, so outside lists their nodes align child for child with
the template; inside a list, every child is an item read against the one item template.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from phoneworld.abstract.shape import (
    ShapeIndex, is_placeholder, numbered_pool, visible_children,
)
from phoneworld.ir.base import traits_of
from phoneworld.ir.screens import HitBox, ItemReading, ScreenReading, ScreenTemplate, TemplateNode
from phoneworld.ir.trace import Observation, ViewNode


@dataclass
class _Names:
    """Widget ids, unique on one screen: the node's base name, numbered from its second use; a
    number that makes another base's name ("view" numbered 2 and a view described "2" are both
    `view_2`) skips to the next."""

    used: Counter[str] = field(default_factory=Counter)
    taken: set[str] = field(default_factory=set)
    ids_named: bool = True  # the app's resource ids say what a view is (`base.ids_shrunk`)

    def take(self, node: ViewNode) -> str:
        base = _base_name(node, self.ids_named)
        name = ""
        while not name or name in self.taken:
            self.used[base] += 1
            name = base if self.used[base] == 1 else f"{base}_{self.used[base]}"
        self.taken.add(name)
        return name


def _base_name(node: ViewNode, ids_named: bool = True) -> str:
    """The resource id's name, else the class and the description; a shrunk id ("re") is
    passed over for the latter."""
    if node.resource_id and ids_named:
        entry = node.resource_id.rsplit("/", 1)[-1]
        return _ident(entry) or "view"
    short = node.cls.rsplit(".", 1)[-1]
    label = node.content_desc or ""
    base = _ident(short)
    if label:
        base += "_" + _ident(label)[:24]
    return base or "view"


def _ident(text: str) -> str:
    out = []
    prev_lower = False
    for ch in text:
        if ch.isupper() and prev_lower:
            out.append("_")
        out.append(ch.lower() if ch.isascii() and ch.isalnum() else "_")
        prev_lower = ch.islower() or ch.isdigit()
    return "_".join(p for p in "".join(out).split("_") if p)


def build_template(index: ShapeIndex, observations: list[Observation], ids_named: bool = True
                   ) -> TemplateNode:
    """The template of a screen from its first observation (items from any observation);
    `ids_named`: whether widget ids may take the app's resource id names."""
    names = _Names(ids_named=ids_named)
    return _build(index, observations[0].root, "", names, [o.root for o in observations])


def _build(index: ShapeIndex, node: ViewNode, parent: str, names: _Names,
           peers: list[ViewNode]) -> TemplateNode:
    anchor = index.anchor(node, parent)
    wid = names.take(node)
    item_shape = index.item_shape(node, anchor)
    children: tuple[TemplateNode, ...] = ()
    item = None
    pitch = max_visible = 0
    items = [] if item_shape is None else [
        c for p in peers for c in visible_children(p) if index.shape(c, anchor) == item_shape]
    if items:
        # rows with optional children: the template is the row that shows the most, moved to
        # the first row's place (the list draws its k-th row a pitch k times below the template)
        first = items[0]
        if anchor in index.rows:
            first = _at_first_row(max(items, key=_size), index, anchor, item_shape, peers)
        item = _build(index, first, anchor, names, items)
        pitch, max_visible = _list_geometry(index, node, anchor, item_shape, peers)
    elif item_shape is None or any(visible_children(p) for p in peers):
        # (a container at a list's place on another screen, none of whose children is such an
        # item, as in an app without resource ids: its children are its structure)
        if numbered_pool(visible_children(node)) is not None:
            # a pool of numbered views: every view any observation showed is a widget
            node = max(peers, key=lambda p: len(visible_children(p)))
        kids = visible_children(node)
        peer_kids = [visible_children(p) for p in peers]
        children = tuple(
            _build(index, kid, anchor, names, [pk[i] for pk in peer_kids if len(pk) > i])
            for i, kid in enumerate(kids)
        )
    slot = next((s for s in index.empty.values() if s.list_anchor == anchor), None)
    empty = None if item_shape is None or slot is None else _build(
        index, slot.placeholder, parent, names, [slot.placeholder])
    replaces = slot.replaces if slot is not None else True
    if item is not None and empty is None:
        inner = _inner_placeholder(item, peers)
        if inner is not None:
            empty, replaces = _build(index, inner, anchor, names, [inner]), False
    return TemplateNode(
        wid=wid, cls=node.cls, resource_id=node.resource_id, content_desc=node.content_desc,
        package=node.package, text=node.text, checked=node.checked, bounds=node.bounds,
        **_traits(node, peers), children=children, item=item, empty=empty,
        empty_replaces=replaces,
        pitch=pitch, max_visible=max_visible,
    )


def _at_first_row(row: ViewNode, index: ShapeIndex, anchor: str, item_shape: str,
                  peers: list[ViewNode]) -> ViewNode:
    """`row` moved up or down to where the first row of its own list stood."""
    for p in peers:
        rows = [c for c in visible_children(p) if index.shape(c, anchor) == item_shape]
        if any(r is row for r in rows):
            return _shifted(row, rows[0].bounds.y1 - row.bounds.y1)
    return row


def _shifted(node: ViewNode, dy: int) -> ViewNode:
    if dy == 0:
        return node
    return node.model_copy(update={"bounds": node.bounds.shifted(dy),
                                   "children": tuple(_shifted(c, dy) for c in node.children)})


def _inner_placeholder(item: TemplateNode, peers: list[ViewNode]) -> ViewNode | None:
    """The message a list shows as its one row while it has no records ("No notes yet" drawn by
    the adapter): a child not of the items' class and id, alone in the list, with text and
    nothing to act on, and never shown beside a record (a header or a footer is)."""
    kind = (item.cls, item.resource_id)
    found = None
    for p in peers:
        kids = visible_children(p)
        foreign = [k for k in kids if (k.cls, k.resource_id) != kind]
        if foreign and len(foreign) < len(kids):
            return None
        if len(kids) == 1 and foreign and found is None and is_placeholder(foreign[0]):
            found = foreign[0]
    return found


# What a widget can do is what any observation saw it do: a button disabled until a field is filled
# is enabled in the template, and the recorded taps that did nothing become a guard instead. A text
# any observation drew as the description (`text_in_desc`) is drawn so.
_CAPABILITIES = ("checkable", "clickable", "long_clickable", "scrollable", "focusable", "enabled",
                 "editable", "text_in_desc")


def _traits(node: ViewNode, peers: list[ViewNode]) -> dict[str, bool]:
    traits = traits_of(node)
    for name in _CAPABILITIES:
        traits[name] = traits[name] or any(getattr(p, name) for p in peers)
    return traits


def _list_geometry(index: ShapeIndex, node: ViewNode, anchor: str, item_shape: str,
                   peers: list[ViewNode]) -> tuple[int, int]:
    pitches: Counter[int] = Counter()
    most = 0
    for p in peers:
        items = [c for c in visible_children(p) if index.shape(c, anchor) == item_shape]
        most = max(most, len(items))
        for a, b in zip(items, items[1:]):
            if b.bounds.y1 > a.bounds.y1:
                pitches[b.bounds.y1 - a.bounds.y1] += 1
    if pitches:
        pitch = pitches.most_common(1)[0][0]
    else:
        first = next((c for p in peers for c in visible_children(p)), None)
        pitch = max(1, first.bounds.height) if first is not None else max(1, node.bounds.height)
    fits = max(1, node.bounds.height // max(1, pitch))
    return pitch, max(fits, most)


def read_observation(index: ShapeIndex, screen: ScreenTemplate, obs: Observation, episode: int,
                     step: int) -> ScreenReading:
    """Texts, checked flags, list records and hit boxes of one observation of `screen`."""
    acc = _Reading()
    _read(index, screen.root, obs.root, "", acc)
    return ScreenReading(
        episode=episode, step=step, screen=screen.id, texts=acc.texts, checked=acc.checked,
        lists={k: tuple(v) for k, v in acc.lists.items()}, boxes=tuple(acc.boxes),
    )


@dataclass
class _Reading:
    texts: dict[str, str] = field(default_factory=dict)
    checked: dict[str, bool] = field(default_factory=dict)
    lists: dict[str, list[ItemReading]] = field(default_factory=dict)
    boxes: list[HitBox] = field(default_factory=list)


# Every box sets every field: one set of their names serves them all (pydantic copies it before
# changing it), where model_construct would make one set, some 700 bytes, per box.
_BOX_FIELDS = set(HitBox.model_fields)


def _box(t: TemplateNode, node: ViewNode, item: int | None, list_wid: str | None) -> HitBox:
    # model_construct: the values come from already-validated models, and there are many boxes.
    return HitBox.model_construct(
        _BOX_FIELDS, wid=t.wid, item=item, list_wid=list_wid, bounds=node.bounds,
        clickable=node.clickable, long_clickable=node.long_clickable, checkable=node.checkable,
        editable=node.editable, scrollable=node.scrollable, focused=node.focused,
    )


def _read(index: ShapeIndex, t: TemplateNode, node: ViewNode, parent: str, acc: _Reading) -> None:
    anchor = index.anchor(node, parent)
    acc.texts[t.wid] = node.text
    if t.checkable:
        acc.checked[t.wid] = node.checked
    acc.boxes.append(_box(t, node, None, None))
    if t.item is not None:
        records = acc.lists.setdefault(t.wid, [])
        kind = (t.item.cls, t.item.resource_id)
        for child in visible_children(node):
            if (child.cls, child.resource_id) != kind:
                continue  # a header, a footer, the message of an empty list: no record
            k = len(records)
            texts: dict[str, str] = {}
            checked: dict[str, bool] = {}
            _read_item(t.item, child, k, t.wid, texts, checked, acc.boxes)
            records.append(ItemReading(texts=texts, checked=checked))
        return
    for tc, child in zip(t.children, visible_children(node)):
        _read(index, tc, child, anchor, acc)


def _read_item(t: TemplateNode, node: ViewNode, k: int, list_wid: str, texts: dict[str, str],
               checked: dict[str, bool], boxes: list[HitBox]) -> None:
    if t.cls != node.cls:
        return
    texts[t.wid] = node.text
    if t.checkable:
        checked[t.wid] = node.checked
    boxes.append(_box(t, node, k, list_wid))
    if t.item is not None:
        return  # nested lists are read as part of the item only down to the inner container
    for tc, child in _aligned(t.children, visible_children(node)):
        _read_item(tc, child, k, list_wid, texts, checked, boxes)


def _size(node: ViewNode) -> int:
    return sum(1 for _ in node.walk())


def _aligned(template: tuple[TemplateNode, ...], kids: tuple[ViewNode, ...]
             ) -> list[tuple[TemplateNode, ViewNode]]:
    """Pairs of template child and shown child, in order, each shown child with the next template
    child of its class and id: a row that leaves out an optional child (a badge) still reads the
    children after it."""
    out = []
    i = 0
    for kid in kids:
        j = next((j for j in range(i, len(template))
                  if (template[j].cls, template[j].resource_id) == (kid.cls, kid.resource_id)),
                 None)
        if j is None:
            continue
        out.append((template[j], kid))
        i = j + 1
    return out
