"""Rules for widgets the recording showed but never tried, from what the app and Android's
conventions say they do. Every such rule carries no effects (those depend on the screen's own
state; one that opens a screen later takes what every recorded way into it sets,
`state._fresh_entries`) and `support=0`, which marks it as inferred rather than observed.

- **Shared widgets.** A tab bar, a toolbar button or a drawer entry that the app shows on several
  screens does the same thing on all of them. Where the same widget (same class, resource id,
  content description and text, outside any list; the same bounds too for one with neither text
  nor description) was acted on and led to one outcome on at least `MIN_TRIED` screens, the
  screens where it was shown but never tried get that outcome: the same target screen, or the
  same pop, with the navigation most observed steps took (a tab pops back to a screen on the back
  stack, or pushes a new one). Any disagreement (two targets, a guard that splits the outcome, a
  stay) infers nothing, unless one of the screens where it was tried is clearly the most like
  this one (the Jaccard of the class, id and text of what they show at least `NEAREST`, and more
  than any other's): its outcome holds here (a "More options" on a contact's page does what it
  did on the contact editor, not on the contact list). On the corpus, leaving one tried screen
  out at a time, the agreed outcome is right 48 times and wrong 6 times, the nearest screen's 18
  and 3 (`bench/untried.py`; the agreed one was right 25 times and wrong 3 while bounds were
  always part of the identity: a labelled row placed lower on a longer form was another widget).
- **Dismiss buttons.** A button labelled "Cancel", "Close", "Back", "Navigate up", "No", "Dismiss"
  or "Not now", or one the framework gives that role (an AlertDialog's negative button, a contextual
  action bar's close button, the toolbar's up button in any language AppCompat speaks:
  `framework_labels`) closes what it is on, as back does: a plain pop. The captions are read in
  the languages most apps ship in too ("取消", "Abbrechen", `DISMISS_ELSEWHERE`). The rule sits on the
  widget a tap lands on: an icon or caption that takes no taps, all that the clickable view holding
  it says (a Compose IconButton's "Navigate up" icon, a TextButton's "Cancel"), makes that view the
  dismiss button; on the icon, the rule would shadow the button's recorded one. On the corpus, 71 of
  the 79 tried clicks on such widgets went to the screen below (`bench/untried.py`; 71 of 78 with
  the rule on the caption itself). Labels that confirm ("OK", "Done") are left alone: they as often
  open another screen. A button's one inner text (an icon font's back arrow or cross, as apps
  without descriptions show) is not read as its label: of the 10 more tried clicks that would cover
  on the corpus, 1 went below.
- **Rows.** A page that is no list but shows its records as `MIN_RUN` or more consecutive
  labelled siblings of one class (a contact list as AutoDroid records it: a Button per contact):
  where at least `MIN_TRIED` of them were tapped and all opened one screen, the untried ones open
  it too. On the corpus, leaving one tried row out at a time, 6 right and 0 wrong
  (`bench/untried.py`); from one tried row it would be 8 right and 25 wrong, and with any
  sibling of one class as a peer 9 right and 58 wrong (a settings page's rows each open their
  own screen).
- **Labels that name a screen.** A button labelled as exactly one other screen is headed opens that
  screen: a "Settings" entry opens the page headed "Settings". A screen's heading is its topmost
  text that acts on nothing and sits in nothing that acts, the same in every recorded visit; the
  label (at most `MAX_LABEL` characters) must show as such a text on no third screen and not on the
  button's own (a section header or a field's caption is no page's name). Check boxes and switches
  act in place and are left out. A caption that takes no taps, all that the clickable view around it
  says (a Compose or React Native button), labels that view. On the corpus, leaving each tried click
  out, 47 right and 4 wrong (`bench/untried.py`; 49 and 5 with any such text as a heading, which
  also took a settings section "SHUTTER" for the shutter button's page); the rules above come first.
- **Overflow menus.** What the action bar's overflow button ("More options", or its label in any
  language AppCompat speaks) opens is a popup menu that choosing an item closes, so the state
  pass treats it as transient (`track.transient_screens`) even where the recording never backed
  out past it. On the corpus, the recording's own evidence agrees for 11 of the 11 such menus it
  has evidence for.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable

from phoneworld.ir.graph import TransitionGraph
from phoneworld.ir.model import Rule
from phoneworld.ir.screens import Abstraction, TemplateNode
from phoneworld.runtime.semantics import takes
from phoneworld.state import framework_labels

__all__ = ["DISMISS", "DISMISS_IDS", "OVERFLOW", "dismiss_widgets", "is_dismiss",
           "overflow_widgets", "untried_rules"]

MIN_TRIED = 2  # screens on which a shared widget must have been tried, with one outcome
MAX_LABEL = 40  # longest label read as a screen's heading
MIN_RUN = 3  # consecutive labelled siblings of one class that make a page's rows
NEAREST = 0.5  # how alike (Jaccard of what they show) the screen that decides a disagreement is
_ACTIONS = {"click", "long_press"}
Ident = tuple[object, ...]  # package, class, resource id, description, text, bounds
Key = tuple[object, ...]  # the action, then the widget's identity
Outcome = str | None  # the target screen; None: pop to the back stack; "": stay
_INVISIBLE = re.compile("[\u200b-\u200f\u2060\ufeff]")


def label_key(text: str) -> str:
    """A label as the rules below compare it: case, spacing and invisible joiners set aside."""
    return " ".join(_INVISIBLE.sub("", text).casefold().split())


# "Cancel", "Close" and "Back" as the languages most apps ship in write them (Chinese, Japanese,
# Korean, German, French, Spanish, Portuguese, Russian, Italian): a custom dialog's "取消"
DISMISS_ELSEWHERE = ("取消 关闭 關閉 返回 キャンセル 閉じる 戻る 취소 닫기 abbrechen schließen zurück "
                     "annuler fermer retour cancelar cerrar atrás fechar voltar отмена закрыть "
                     "назад annulla chiudi indietro").split()
DISMISS = frozenset({"cancel", "close", "back", "navigate up", "no", "dismiss", "not now"}
                    | {label_key(t) for t in DISMISS_ELSEWHERE}
                    | {label_key(t) for t in framework_labels.UP.values()})
# the framework's own: an AlertDialog's negative button, a contextual action bar's close button
DISMISS_IDS = frozenset({"android:id/button2", "android:id/action_mode_close_button"})
# the action bar's overflow button (the framework's content description): what it opens is a
# popup menu, which closes when one of its items is chosen
OVERFLOW = frozenset({label_key(t) for t in framework_labels.OVERFLOW.values()})


def untried_rules(abstraction: Abstraction, graph: TransitionGraph,
                  rules: tuple[Rule, ...] | list[Rule]) -> list[Rule]:
    """Rules for widgets shown but never tried: shared widgets first, then dismiss buttons, then
    rows, then labels that name a screen."""
    tried = {(s.screen, s.action, s.widget) for s in graph.steps if s.action is not None}
    tried |= {(r.screen, r.action, r.widget) for r in rules}
    shared = shared_rules(abstraction, tried, rules)
    tried |= {(r.screen, r.action, r.widget) for r in shared}
    dismiss = dismiss_rules(abstraction, tried)
    tried |= {(r.screen, r.action, r.widget) for r in dismiss}
    rows = row_rules(abstraction, tried, rules)
    tried |= {(r.screen, r.action, r.widget) for r in rows}
    return shared + dismiss + rows + label_rules(abstraction, tried)


def is_dismiss(node: TemplateNode) -> bool:
    """Whether `node` is a dismiss button: labelled as one, or with a framework id of that role
    (not a field, whatever it shows)."""
    label = label_key(node.text or node.content_desc)
    return (label in DISMISS or node.resource_id in DISMISS_IDS) and not node.editable


def dismiss_widgets(abstraction: Abstraction) -> frozenset[tuple[str, str]]:
    """(screen, wid) of every dismiss button (`is_dismiss`) outside lists: the widget a tap on it
    lands on (`_tapped`)."""
    return frozenset((screen.id, taker.wid) for screen in abstraction.screens
                     for node, taker in _tapped(screen.root)
                     if is_dismiss(node) and not taker.editable)


def overflow_widgets(abstraction: Abstraction) -> frozenset[tuple[str, str]]:
    """(screen, wid) of every widget outside lists described as the overflow menu button: the
    widget a tap on it lands on (`_tapped`)."""
    return frozenset((screen.id, taker.wid) for screen in abstraction.screens
                     for node, taker in _tapped(screen.root)
                     if label_key(node.content_desc) in OVERFLOW)


def _tapped(root: TemplateNode) -> list[tuple[TemplateNode, TemplateNode]]:
    """Each node outside lists with the node a tap on it lands on: itself where it takes taps,
    else the nearest ancestor that does where the node is all that ancestor says (a Compose
    IconButton, clickable, holding its icon described "Navigate up"; a Compose TextButton's
    "Cancel"), else itself. On Android a view that takes no taps passes them to the one holding
    it, and the recorded step names that one: a rule on the icon would shadow it in the mock."""
    out: list[tuple[TemplateNode, TemplateNode]] = []
    stack: list[tuple[TemplateNode, TemplateNode | None]] = [(root, None)]
    while stack:
        node, taker = stack.pop()
        if takes(node, "click"):
            taker = node
        said = taker is not None and taker is not node and [
            n for n in taker.walk() if n.text or n.content_desc] == [node]
        out.append((node, taker if said or taker is node else node))  # type: ignore[arg-type]
        if node.item is None:
            stack.extend((child, taker) for child in node.children)
    return out


def dismiss_rules(abstraction: Abstraction, tried: set[tuple[str, str, str | None]]
                  ) -> list[Rule]:
    """A plain pop for each untried click on a dismiss button."""
    return [Rule(screen=screen, action="click", widget=wid, target=None, nav="pop", support=0)
            for screen, wid in sorted(dismiss_widgets(abstraction))
            if (screen, "click", wid) not in tried]


def shared_rules(abstraction: Abstraction, tried: set[tuple[str, str, str | None]],
                 rules: tuple[Rule, ...] | list[Rule]) -> list[Rule]:
    """Rules for widgets shown but never acted on, from the same widget on other screens: the
    outcome they all agree on, else the outcome on the one screen most like this one
    (`NEAREST`)."""
    shown = _shared_widgets(abstraction)
    content = {screen.id: _content(screen.root) for screen in abstraction.screens}
    outcomes: dict[Key, dict[str, set[Outcome]]] = defaultdict(lambda: defaultdict(set))
    models: dict[tuple[Key, str], list[Rule]] = defaultdict(list)
    for r in rules:
        if r.action not in _ACTIONS or r.widget is None:
            continue
        ident = shown.get((r.screen, r.widget))
        if ident is None:
            continue
        key = (r.action, *ident)
        outcomes[key][r.screen].add(_outcome(r))
        models[(key, r.screen)].append(r)
    out: list[Rule] = []
    for key, per_screen in sorted(outcomes.items()):
        if len(per_screen) < MIN_TRIED:
            continue
        agreed = set().union(*per_screen.values())
        for (screen, wid), ident in sorted(shown.items()):
            if (key[0], *ident) != key or screen in per_screen or (screen, key[0], wid) in tried:
                continue
            used = sorted(per_screen) if len(agreed) == 1 else _nearest(
                content, screen, per_screen)
            found = set().union(*(per_screen[s] for s in used))
            if not used or len(found) != 1 or any(r.guard is not None for s in used
                                                  for r in models[(key, s)]):
                continue
            target = next(iter(found))
            if target == "" or target == screen:
                continue
            out.append(_like(screen, str(key[0]), wid, target,
                             [r for s in used for r in models[(key, s)]]))
    return out


def _like(screen: str, action: str, wid: str, target: Outcome, models: list[Rule]) -> Rule:
    """An inferred rule that goes where `models` (observed rules) went, with the navigation most
    of their steps took (a tab pops back to a screen on the stack, or pushes a new one)."""
    navs: Counter[str] = Counter()
    for r in models:
        navs[r.nav] += r.support
    nav = max(sorted(navs), key=lambda n: (navs[n], n == "pop"))
    return Rule(screen=screen, action=action, widget=wid, target=target, nav=nav, support=0,
                sources=tuple(r.sources[0] for r in models if r.sources)[:3])


def label(node: TemplateNode) -> str:
    """A widget's own text or description, lower case with spaces folded ("" when none)."""
    return " ".join((node.text or node.content_desc).lower().split())


def headings(abstraction: Abstraction) -> dict[str, str]:
    """Per screen, what heads it: the label (`label`, 3 to `MAX_LABEL` characters) of its topmost
    labelled widget outside lists that acts on nothing and sits in nothing that acts, where
    every recorded visit shows the same text there."""
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    for readings in abstraction.readings:
        for reading in readings:
            for wid, text in reading.texts.items():
                seen[(reading.screen, wid)].add(text)
    out: dict[str, str] = {}
    for screen in abstraction.screens:
        named = sorted((n for n in _inert(screen.root) if label(n)),
                       key=lambda n: (n.bounds.y1, n.bounds.x1))
        if named and 3 <= len(label(named[0])) <= MAX_LABEL \
                and len(seen.get((screen.id, named[0].wid), ())) <= 1:
            out[screen.id] = label(named[0])
    return out


def _inert(root: TemplateNode) -> list[TemplateNode]:
    """The nodes outside lists that act on nothing and sit in nothing that acts (a button's own
    caption is no heading)."""
    return _outside_lists(root, prune=_acts)


def label_targets(abstraction: Abstraction) -> dict[tuple[str, str], str]:
    """(screen, wid) -> the one other screen a clickable widget's label heads (`headings`), for
    the widgets outside lists (not dismiss buttons, fields, check boxes or switches, which act
    in place) whose label heads exactly one other screen and shows as a text that acts on
    nothing (`_inert`) neither on a third screen nor on their own."""
    heads = headings(abstraction)
    shown = {screen.id: {label(n) for n in _inert(screen.root)} for screen in abstraction.screens}
    out: dict[tuple[str, str], str] = {}
    for screen in abstraction.screens:
        for node, taker in _tapped(screen.root):
            name = label(node)
            if not (taker.clickable and 3 <= len(name) <= MAX_LABEL) or taker.editable \
                    or taker.checkable or is_dismiss(node) or name in shown[screen.id]:
                continue
            named = [other for other, head in heads.items() if other != screen.id and name == head]
            if len(named) == 1 and not any(name in texts for other, texts in shown.items()
                                           if other not in (screen.id, named[0])):
                out[(screen.id, taker.wid)] = named[0]
    return out


def label_rules(abstraction: Abstraction, tried: set[tuple[str, str, str | None]]
                ) -> list[Rule]:
    """A push to the screen an untried button's label heads (`label_targets`)."""
    return [Rule(screen=screen, action="click", widget=wid, target=target, nav="push", support=0)
            for (screen, wid), target in sorted(label_targets(abstraction).items())
            if (screen, "click", wid) not in tried]


def _acts(node: TemplateNode) -> bool:
    """Whether a node takes a tap, a long press or typing (scrolling aside: a scrolled page's
    heading is still its heading)."""
    return node.clickable or node.long_clickable or node.checkable or node.editable


def runs(root: TemplateNode) -> list[list[TemplateNode]]:
    """Rows of a page that is no list: `MIN_RUN` or more consecutive siblings of one class, each
    a labelled leaf (a contact list as AutoDroid records it: one Button per contact)."""
    out: list[list[TemplateNode]] = []
    for node in _outside_lists(root):
        if node.item is not None:
            continue
        cur: list[TemplateNode] = []
        for c in (*node.children, None):
            row = c is not None and not c.children and bool(c.text or c.content_desc)
            if row and cur and c.cls == cur[-1].cls:  # type: ignore[union-attr]
                cur.append(c)  # type: ignore[arg-type]
                continue
            if len(cur) >= MIN_RUN:
                out.append(cur)
            cur = [c] if row else []  # type: ignore[list-item]
    return out


def row_rules(abstraction: Abstraction, tried: set[tuple[str, str, str | None]],
              rules: tuple[Rule, ...] | list[Rule]) -> list[Rule]:
    """An untried row of a run (`runs`) does what every tried row of it did, where at least
    `MIN_TRIED` were tapped and all opened one screen (each contact opens the contact page)."""
    by_widget: dict[tuple[str, str], list[Rule]] = defaultdict(list)
    for r in rules:
        if r.action == "click" and r.widget is not None:
            by_widget[(r.screen, r.widget)].append(r)
    out: list[Rule] = []
    for screen in abstraction.screens:
        for run in runs(screen.root):
            done = [by_widget[(screen.id, c.wid)] for c in run if (screen.id, c.wid) in by_widget]
            found = {_outcome(r) for rs in done for r in rs}
            if len(done) < MIN_TRIED or len(found) != 1 or any(
                    r.guard is not None for rs in done for r in rs):
                continue
            target = next(iter(found))
            if target in ("", None, screen.id):
                continue
            out += [_like(screen.id, "click", c.wid, target, [r for rs in done for r in rs])
                    for c in run if (screen.id, "click", c.wid) not in tried]
    return out


def _content(root: TemplateNode) -> frozenset[tuple[str, str, str]]:
    """What a screen shows, for telling which screens are alike: each node's class, id and text."""
    return frozenset((n.cls, n.resource_id, n.text or n.content_desc) for n in root.walk()
                     if n.text or n.content_desc or n.resource_id)


def _nearest(content: dict[str, frozenset[tuple[str, str, str]]], screen: str,
             tried: dict[str, set[Outcome]]) -> list[str]:
    """The one tried screen most like `screen` (Jaccard of what they show, at least `NEAREST`
    and more than any other's), or none."""
    def like(other: str) -> float:
        a, b = content[screen], content[other]
        return len(a & b) / len(a | b) if a | b else 0.0

    ranked = sorted(((like(s), s) for s in tried), reverse=True)
    if ranked[0][0] < NEAREST or (len(ranked) > 1 and ranked[1][0] == ranked[0][0]):
        return []
    return [ranked[0][1]]


def _outcome(rule: Rule) -> Outcome:
    if rule.nav == "stay" or (rule.target is None and rule.nav != "pop"):
        return ""
    return rule.target


def _shared_widgets(abstraction: Abstraction) -> dict[tuple[str, str], Ident]:
    """(screen, wid) -> identity, for the widgets outside lists whose identity appears on more
    than one screen: package, class, id, description and text, and the place only of a widget
    that says nothing (a labelled row moves down a longer form; AutoDroid's synthesised rows
    stack by index)."""
    ident: dict[tuple[str, str], Ident] = {}
    for screen in abstraction.screens:
        for node in _outside_lists(screen.root):
            b = node.bounds
            if b.x2 <= b.x1 or b.y2 <= b.y1:
                continue
            where = (b.x1, b.y1, b.x2, b.y2) if not (node.text or node.content_desc) else ()
            ident[(screen.id, node.wid)] = (screen.package, node.cls, node.resource_id,
                                            node.content_desc, node.text, *where)
    counts = Counter(ident.values())
    return {k: v for k, v in ident.items() if counts[v] > 1}


def _outside_lists(root: TemplateNode,
                   prune: Callable[[TemplateNode], bool] | None = None) -> list[TemplateNode]:
    """The nodes of a screen outside its lists' items; with `prune`, less the nodes it holds for
    and everything under them."""
    out: list[TemplateNode] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if prune is not None and prune(node):
            continue
        out.append(node)
        if node.item is None:
            stack.extend(node.children)
    return out
