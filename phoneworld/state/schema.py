"""State schema discovery: which widgets are bound to state, and reading state values off a screen.

- A widget whose text varies across the observations of its screen, or an editable field, is
  bound to a text (or number) variable; a checkable widget's checked flag to a flag variable.
- Widgets with the same resource-id on different screens share their variable, so a value seen
  on one screen shows on the next (a counter on a list and on the same list under a snackbar);
  on a screen where its text never varied, such a widget reads the variable when every reading
  of it showed the value the variable was last shown with.
- An editable field without a resource-id (React Native, Flutter and web views set none) is the
  same variable on every screen that is a variant of one layout: the same field class at the same
  place, on screens of one activity that share more than half of their literal texts (a feedback
  form with one of five ratings picked is five screens, and what was typed stays as the rating
  changes). Any other widget without an id is a variable of its own screen.
- Widgets that share a resource-id on one screen outside lists are widgets of their own (rows
  built from one layout: a profile's "Name" and "City" values, a settings page's switches, a
  photo grid's boxes): one variable cannot hold two values. Each is told apart by its row's
  label, the first text that never varies in its row (the widget's ancestor as many levels up
  as the id's rows reach before they hold a second widget of the id), so the "City" value or
  the "Dark theme" switch is the same variable on every screen that shows it, and a lone widget
  of such an id joins the row it sits in. Where the rows have no label, or two share one, they
  are told apart by their place in reading order (the first is the id's variable elsewhere).
- A checkable widget that takes no taps inside a checkable one, showing its checked flag in every
  reading, is a picture of that flag, not a flag of its own (a Compose switch inside its
  toggleable row, a chip's label inside the chip): it reads its ancestor's variable, so a tap on
  either turns both and a task never asks for one without the other.
- A list container is a collection; its item template's varying texts and checked flags are fields.
- A variable or field is a number when every text it showed, on every screen bound to it, is a
  number in one layout ("{} / 50"); a later reading outside that layout (held-out "0.7 / 50")
  leaves the number the state held.
- Every screen that can be entered in more than one way gets an `entered_<screen>` variable
  recording how, so guards can tell "Save after Add" from "Save after Edit".
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from phoneworld.ir.screens import Abstraction, ScreenReading, TemplateNode

_NUMBER = re.compile(r"^(\D*?)(-?\d+)(.*)$", re.S)


@dataclass
class VarInfo:
    name: str
    kind: str  # text | number | flag | collection | selection
    fmt: str = "{}"
    fields: dict[str, tuple[str, str]] = field(default_factory=dict)  # field -> (kind, fmt)
    description: str = ""
    masked: bool = False  # a password field's: its readings are what it shows (masked)
    typed: bool = False  # an editable field's: what the user typed into it


@dataclass
class Schema:
    """Variables and where each screen's widgets read and write them."""

    variables: dict[str, VarInfo] = field(default_factory=dict)
    text_vars: dict[tuple[str, str], str] = field(default_factory=dict)  # (screen, wid) -> var
    flag_vars: dict[tuple[str, str], str] = field(default_factory=dict)
    list_vars: dict[tuple[str, str], str] = field(default_factory=dict)  # (screen, list wid) -> coll
    # (screen, list wid) -> field -> (item widget, "text" | "flag" | "shown"); "shown": the row
    # shows the widget or not (`_shown_children`)
    item_fields: dict[tuple[str, str], dict[str, tuple[str, str]]] = field(default_factory=dict)
    entry_vars: dict[str, str] = field(default_factory=dict)  # screen -> entered_<screen>
    # screens a click away dismisses (a menu, a dialog): see `track.transient_screens`
    transient: frozenset[str] = frozenset()
    # (screen, wid) of the widgets that close what they are on: see `untried.dismiss_widgets`
    dismissing: frozenset[tuple[str, str]] = frozenset()
    # screens back both stayed on and left: see `track.closed_over`
    closed_over: frozenset[str] = frozenset()

    def values(self, reading: ScreenReading) -> dict[str, Any]:
        """The state visible in one reading: scalar values and whole collections."""
        out: dict[str, Any] = {}
        s = reading.screen
        for wid, text in reading.texts.items():
            var = self.text_vars.get((s, wid))
            if var is None:
                continue
            value = self.parse(var, text)
            if value is not None:
                out[var] = value
        for wid, flag in reading.checked.items():
            var = self.flag_vars.get((s, wid))
            if var is not None:
                out[var] = flag
        for wid, items in reading.lists.items():
            coll = self.list_vars.get((s, wid))
            if coll is None:
                continue
            fields = self.item_fields[(s, wid)]
            info = self.variables[coll]
            records = []
            for item in items:
                rec: dict[str, Any] = {}
                for fname, (fwid, what) in fields.items():
                    kind, fmt = info.fields[fname]
                    if what == "flag":
                        rec[fname] = item.checked.get(fwid, False)
                    elif what == "shown":
                        rec[fname] = fwid in item.texts
                    else:  # a row that does not show this optional child, or a number
                        # outside the learned layout, reads the field's default
                        value = _parse(kind, fmt, item.texts[fwid]) if fwid in item.texts else None
                        rec[fname] = (0 if kind == "number" else "") if value is None else value
                records.append(rec)
            out[coll] = records
        return out

    def parse(self, var: str, text: str) -> Any:
        """The value `text` shows of `var`; None for a number outside the learned layout (a held-out
        "0.7 / 50" where training showed "{} / 50"): the state keeps what it held, since a number
        variable holds numbers only."""
        info = self.variables[var]
        return _parse(info.kind, info.fmt, text)


def _parse(kind: str, fmt: str, text: str) -> Any:
    if kind != "number":
        return text
    m = _NUMBER.match(text)
    if m is None or fmt != f"{m.group(1)}{{}}{m.group(3)}":
        return None
    return int(m.group(2))


def _number_fmt(values: set[str]) -> str | None:
    """The shared layout of numeric texts ("{} / 50"), or None when they are not all numbers (or
    there are none)."""
    fmts = set()
    for v in values:
        m = _NUMBER.match(v)
        if m is None:
            return None
        fmts.add(f"{m.group(1)}{{}}{m.group(3)}")
    return fmts.pop() if len(fmts) == 1 else None


def discover(abstraction: Abstraction, entries: dict[str, set[str]]) -> Schema:
    """Find the variables of an app from how its screens' texts vary across readings."""
    texts: dict[tuple[str, str], set[str]] = defaultdict(set)
    item_texts: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for episode in abstraction.readings:
        for r in episode:
            for wid, t in r.texts.items():
                texts[(r.screen, wid)].add(t)
            for lwid, items in r.lists.items():
                for item in items:
                    for wid, t in item.texts.items():
                        item_texts[(r.screen, lwid, wid)].add(t)
    schema = Schema()
    names = _VarNames()
    var_values: dict[str, set[str]] = defaultdict(set)
    field_values: dict[tuple[str, str], set[str]] = defaultdict(set)  # (collection, field)
    depths = _row_depths(abstraction)
    rows = {screen.id: _rows(screen.id, screen.root, depths, texts)
            for screen in abstraction.screens}
    for wid_key, place in _unnamed_fields(abstraction, texts).items():
        rows[wid_key[0]][wid_key[1]] = place
    mirrors = _mirrored_flags(abstraction)
    shown = _shown_children(abstraction, item_texts)
    for screen in abstraction.screens:
        _bind_screen(schema, names, screen.id, screen.root, texts, item_texts, var_values,
                     field_values, rows[screen.id], mirrors, shown)
    _bind_shared(schema, names, abstraction, rows)
    for var, values in var_values.items():
        fmt = _number_fmt(values)
        if fmt is not None and schema.variables[var].kind == "text":
            schema.variables[var].kind, schema.variables[var].fmt = "number", fmt
    for (coll, fname), values in field_values.items():  # every screen showing the list decides
        fmt = _number_fmt(values)
        if fmt is not None:
            schema.variables[coll].fields[fname] = ("number", fmt)
    for screen_id in sorted(entries):
        if len(entries[screen_id]) > 1:
            name = names.take(f"entered_{screen_id.split('_', 1)[-1]}", ("entry", screen_id))
            schema.variables[name] = VarInfo(name, "text", description=f"how {screen_id} was entered")
            schema.entry_vars[screen_id] = name
    return schema


@dataclass
class _VarNames:
    by_key: dict[tuple[Any, ...], str] = field(default_factory=dict)
    taken: set[str] = field(default_factory=set)

    def take(self, base: str, key: tuple[Any, ...]) -> str:
        if key in self.by_key:
            return self.by_key[key]
        name, n = base, 1
        while name in self.taken:
            n += 1
            name = f"{base}_{n}"
        self.taken.add(name)
        self.by_key[key] = name
        return name


def _bind_screen(schema: Schema, names: _VarNames, screen: str, root: TemplateNode,
                 texts: dict[tuple[str, str], set[str]],
                 item_texts: dict[tuple[str, str, str], set[str]],
                 var_values: dict[str, set[str]],
                 field_values: dict[tuple[str, str], set[str]],
                 rows: dict[str, _Row], mirrors: dict[tuple[str, str], str],
                 shown: dict[tuple[str, str], dict[str, str]]) -> None:
    stack = [root]  # an ancestor is bound before what it holds
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.item is not None:
            _bind_list(schema, names, screen, node, item_texts, field_values,
                       shown.get((screen, node.wid), {}))
            continue
        seen = texts.get((screen, node.wid), set())
        if node.editable or len(seen) > 1:
            key = _key("text", screen, node, rows)
            var = names.take(node.wid, key)
            schema.variables.setdefault(var, VarInfo(var, "text", description=_describe(node)))
            schema.text_vars[(screen, node.wid)] = var
            if node.password:
                schema.variables[var].masked = True
            if not node.editable:
                var_values[var] |= seen
            else:
                schema.variables[var].typed = True
                var_values[var] |= {"not a number"}
        if node.checkable and (screen, node.wid) in mirrors:
            schema.flag_vars[(screen, node.wid)] = \
                schema.flag_vars[(screen, mirrors[(screen, node.wid)])]
        elif node.checkable:
            key = _key("flag", screen, node, rows)
            var = names.take(f"{node.wid}_on" if node.wid in names.taken else node.wid, key)
            schema.variables.setdefault(var, VarInfo(var, "flag", description=_describe(node)))
            schema.flag_vars[(screen, node.wid)] = var


def _mirrored_flags(abstraction: Abstraction) -> dict[tuple[str, str], str]:
    """(screen, wid) of each checkable widget that takes no taps, outside lists, inside a
    checkable one whose checked flag it showed in every reading: the wid of that ancestor (the
    nearest checkable one)."""
    pairs: dict[tuple[str, str], str] = {}
    for screen in abstraction.screens:
        stack: list[tuple[TemplateNode, TemplateNode | None]] = [(screen.root, None)]
        while stack:
            node, outer = stack.pop()
            if node.item is not None:
                continue
            if node.checkable and outer is not None and not node.clickable:
                pairs[(screen.id, node.wid)] = outer.wid
            inner = node if node.checkable else outer
            stack.extend((child, inner) for child in node.children)
    for episode in abstraction.readings:
        for r in episode:
            for wid, flag in r.checked.items():
                outer = pairs.get((r.screen, wid))
                if outer is not None and r.checked.get(outer) != flag:
                    del pairs[(r.screen, wid)]
    return pairs


def _shown_children(abstraction: Abstraction,
                    item_texts: dict[tuple[str, str, str], set[str]]
                    ) -> dict[tuple[str, str], dict[str, str]]:
    """(screen, list wid) -> item widget -> field name, for each labelled leaf of a list's item
    template that always says the same (a "High" badge, a "Pinned" mark) and that some rows show
    and others leave out while drawn whole around it: something of the row shows level with it
    or above, and the row below follows or something shows level with it or below (a row cut at
    the list's edge loses what lies past the edge): whether a record shows it is a flag of
    the record, named by the label ("high"; `<wid>_shown` where the label is no short name), and
    the mock draws it only on the records that hold it."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for screen in abstraction.screens:
        for node in screen.root.walk():
            if node.item is None:
                continue
            leaves = {t.wid: t for t in node.item.walk()[1:] if not t.children and t.item is None
                      and not (t.editable or t.checkable) and (t.text or t.content_desc)
                      and len(item_texts.get((screen.id, node.wid, t.wid), set())) <= 1}
            tops = {t.wid: t.bounds.y1 for t in node.item.walk()[1:]}
            shows, leaves_out = set(), set()
            for episode in abstraction.readings:
                for r in episode:
                    if r.screen != screen.id:
                        continue
                    items = r.lists.get(node.wid, ())
                    for k, item in enumerate(items):
                        shown_tops = [tops[w] for w in item.texts if w in tops]
                        for wid, t in leaves.items():
                            if wid in item.texts:
                                shows.add(wid)
                            elif (k + 1 < len(items) or max(shown_tops, default=-1) >= t.bounds.y1
                                  ) and min(shown_tops, default=t.bounds.y1 + 1) <= t.bounds.y1:
                                leaves_out.add(wid)
            found = {wid: _flag_name(leaves[wid]) for wid in sorted(shows & leaves_out)}
            if found:
                out[(screen.id, node.wid)] = found
    return out


def _flag_name(node: TemplateNode) -> str:
    """A field name from a badge's label ("High" -> "high", "On sale" -> "on_sale"), or
    `<wid>_shown` where the label is not one to three short words of letters."""
    words = re.findall(r"[a-z]+", (node.text or node.content_desc).lower())
    label = "_".join(words)
    if 1 <= len(words) <= 3 and len(label) <= 24 and \
            " ".join(words) == " ".join((node.text or node.content_desc).lower().split()):
        return label
    return f"{node.wid}_shown"


# a widget's row among those of its resource id: a place, or the row's label; for an editable
# field without an id, the field it is on every variant of its screen (`_unnamed_fields`)
_Row = int | str | tuple[Any, ...]


def _key(kind: str, screen: str, node: TemplateNode, rows: dict[str, _Row]) -> tuple[Any, ...]:
    """The key of the variable a widget reads (module docstring): its resource id and row; a
    widget without an id is a variable of its own screen, or for a field, of every variant of its
    screen (`_unnamed_fields`)."""
    if not node.resource_id:
        shared = rows.get(node.wid)
        return (kind, *shared) if kind == "text" and isinstance(shared, tuple) \
            else (kind, screen, node.wid)
    row = rows.get(node.wid, 0)
    if kind == "text" and row == 0:
        return (kind, node.resource_id)
    return (kind, node.resource_id, row)


def _unnamed_fields(abstraction: Abstraction, texts: dict[tuple[str, str], set[str]]
                    ) -> dict[tuple[str, str], tuple[Any, ...]]:
    """(screen, wid) -> one key per field, for the editable fields without a resource-id that
    are one field on variants of one layout (module docstring): same class, same bounds, screens
    of one activity whose literal texts (those that never varied there) overlap by more than half
    (Jaccard), joined transitively. Fields on one screen only are left out."""
    literal: dict[str, set[str]] = {}
    spots: dict[tuple[Any, ...], list[tuple[str, str]]] = defaultdict(list)
    for screen in abstraction.screens:
        nodes = _outside_lists(screen.root)
        literal[screen.id] = {t for n in nodes if len(texts.get((screen.id, n.wid), set())) <= 1
                              and not n.editable and (t := n.text.strip())}
        for n in nodes:
            if n.editable and not n.resource_id:
                b = n.bounds
                spots[(screen.activity, n.cls, b.x1, b.y1, b.x2, b.y2)].append((screen.id, n.wid))
    out: dict[tuple[str, str], tuple[Any, ...]] = {}
    for spot, fields in spots.items():
        if len({s for s, _ in fields}) < 2:
            continue
        group = nx.Graph()
        group.add_nodes_from(fields)
        group.add_edges_from((a, b) for i, a in enumerate(fields) for b in fields[i + 1:]
                             if _overlap(literal[a[0]], literal[b[0]]) > 0.5)
        for part in nx.connected_components(group):
            if len(part) > 1:
                first = min(part)
                out.update((f, ("field", *spot, *first)) for f in part)
    return out


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _by_id(root: TemplateNode, keep: Callable[[str], bool]
           ) -> tuple[dict[str, TemplateNode], dict[str, list[TemplateNode]]]:
    """The parent of each node outside lists, and those nodes by resource id, for the ids `keep`
    accepts."""
    nodes = _outside_lists(root)
    by_id: dict[str, list[TemplateNode]] = defaultdict(list)
    for node in nodes:
        if keep(node.resource_id):
            by_id[node.resource_id].append(node)
    return {c.wid: n for n in nodes for c in n.children}, by_id


def _row_depths(abstraction: Abstraction) -> dict[str, int]:
    """Resource id -> how many levels up from a widget of that id its row reaches, for the ids
    that some screen shows more than once outside lists: the fewest levels up to the highest
    ancestor holding no other widget of the id, over every such widget."""
    depths: dict[str, int] = {}
    for screen in abstraction.screens:
        parent, by_id = _by_id(screen.root, lambda rid: bool(rid))
        for rid, same in by_id.items():
            if len(same) < 2:
                continue
            for node in same:
                levels, up = 0, node
                while (above := parent.get(up.wid)) is not None and sum(
                        n.resource_id == rid for n in above.walk()) == 1:
                    levels, up = levels + 1, above
                depths[rid] = min(depths.get(rid, levels), levels)
    return depths


def _rows(screen: str, root: TemplateNode, depths: dict[str, int],
          texts: dict[tuple[str, str], set[str]]) -> dict[str, _Row]:
    """wid -> the row of each widget outside lists whose resource id repeats somewhere
    (`_row_depths`): its row's label where every widget of the id on this screen has one of its
    own, else its place among them in reading order."""
    parent, by_id = _by_id(root, lambda rid: rid in depths)
    out: dict[str, _Row] = {}
    for rid, same in by_id.items():
        same.sort(key=lambda n: (n.bounds.y1, n.bounds.x1))
        labels = [_row_label(n, depths[rid], parent, screen, texts) for n in same]
        if all(labels) and len(set(labels)) == len(labels):
            out.update((n.wid, label) for n, label in zip(same, labels))
        else:
            out.update((n.wid, k) for k, n in enumerate(same))
    return out


def _row_label(node: TemplateNode, depth: int, parent: dict[str, TemplateNode], screen: str,
               texts: dict[tuple[str, str], set[str]]) -> str:
    """The first text in `node`'s row (`depth` levels up) that never varied on this screen and is
    no widget of its id; "" for none."""
    row = node
    for _ in range(depth):
        row = parent.get(row.wid, row)
    for other in row.walk():
        if other.item is None and other.resource_id != node.resource_id and not other.editable \
                and len(texts.get((screen, other.wid), set())) <= 1 \
                and (label := (other.text or other.content_desc).strip()):
            return label
    return ""


def _bind_shared(schema: Schema, names: _VarNames, abstraction: Abstraction,
                 rows: dict[str, dict[str, _Row]]) -> None:
    """Bind the widgets whose text never varied on their own screen but whose resource-id is a
    variable bound elsewhere, where every reading of theirs showed the value that variable was
    last shown with (a counter seen once on a second screen must not show a stale count)."""
    candidates: dict[tuple[str, str], str] = {}
    for screen in abstraction.screens:
        for node in _outside_lists(screen.root):
            var = names.by_key.get(_key("text", screen.id, node, rows[screen.id])) \
                if node.resource_id else None
            if var is not None and (screen.id, node.wid) not in schema.text_vars:
                candidates[(screen.id, node.wid)] = var
    agree: dict[tuple[str, str], int] = defaultdict(int)
    disagree: set[tuple[str, str]] = set()
    for episode in abstraction.readings:
        last: dict[str, str] = {}
        for r in episode:
            for wid, text in r.texts.items():
                var = candidates.get((r.screen, wid))
                if var is not None and var in last:
                    if last[var] == text:
                        agree[(r.screen, wid)] += 1
                    else:
                        disagree.add((r.screen, wid))
            for wid, text in r.texts.items():
                var = schema.text_vars.get((r.screen, wid))
                if var is not None:
                    last[var] = text
    for key, var in candidates.items():
        if agree[key] and key not in disagree:
            schema.text_vars[key] = var


def _outside_lists(root: TemplateNode) -> list[TemplateNode]:
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.item is None:
            out.append(node)
            stack.extend(node.children)
    return out


def _bind_list(schema: Schema, names: _VarNames, screen: str, node: TemplateNode,
               item_texts: dict[tuple[str, str, str], set[str]],
               field_values: dict[tuple[str, str], set[str]], shown: dict[str, str]) -> None:
    assert node.item is not None
    key = ("list", node.resource_id) if node.resource_id else ("list", screen, node.wid)
    coll = names.take(node.wid if node.wid.endswith("s") else f"{node.wid}_items", key)
    info = schema.variables.setdefault(coll, VarInfo(coll, "collection", description=_describe(node)))
    fields: dict[str, tuple[str, str]] = {}
    for t in node.item.walk():
        seen = item_texts.get((screen, node.wid, t.wid), set())
        if len(seen) > 1 or t.editable:
            info.fields.setdefault(t.wid, ("text", "{}"))
            field_values[(coll, t.wid)] |= seen
            fields[t.wid] = (t.wid, "text")
        if t.checkable:
            fname = f"{t.wid}_on" if t.wid in fields else t.wid
            info.fields.setdefault(fname, ("flag", "{}"))
            fields[fname] = (t.wid, "flag")
        elif t.wid in shown and t.wid not in fields:
            taken = set(fields) | {n.wid for n in node.item.walk()}
            fname = shown[t.wid] if shown[t.wid] not in taken else f"{t.wid}_shown"
            info.fields.setdefault(fname, ("flag", "{}"))
            fields[fname] = (t.wid, "shown")
    schema.list_vars[(screen, node.wid)] = coll
    schema.item_fields[(screen, node.wid)] = fields
    sel = f"{coll}_selected"
    schema.variables.setdefault(sel, VarInfo(sel, "selection", description=f"selected record of {coll}"))


def _describe(node: TemplateNode) -> str:
    label = node.resource_id or node.content_desc or node.cls.rsplit(".", 1)[-1]
    return f"{node.cls.rsplit('.', 1)[-1]} {label}"
