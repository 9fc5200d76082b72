"""Task synthesis (navigation): screens a user can be asked to open, verified by the screen the
agent ends on ("Open the "Settings" screen"), as LlamaTouch and AndroidWorld verify many tasks.

A screen gets a task when it is at least `SynthConfig.nav_min_steps` transitions from the start
(guards ignored; by default every reachable screen but the start) and a person can tell it by a
name, the first of:

- its heading: the top-most short literal text of a TextView (or of a web page's text node)
  that is neither clickable nor inside something clickable or a list (a toolbar title, a page
  heading); where the top-most such text is one the app sets as it opens the screen (one
  layout, several pages: the terms or the privacy policy, a dialog titled by what it asks), each
  text an opener sets names one page, and the rule asks for that text too (`pages`);
- the label of the widgets that open it: their text, description or the one text inside them,
  when every opener on a reachable screen says the same and it is no action ("Next", "Skip");
- its activity, in words (`.SettingsActivity` -> "settings"), unless that says nothing ("main").

Never its id, nor a text that is data (a record's value, a list item's text: a conversation
titled "Bob" is no "Bob" screen). A screen is skipped when it is transient (a menu, a dialog:
the app spec marks the screens that leaving dismisses by their `replace` transitions, and a
window that does not fill the screen is a dialog or a popup: one short of it only by the
status or navigation bar fills it), when it belongs to another package (a
system dialog, a share sheet). Screens that share a name are one task that ending on any of them
passes (a person cannot tell them apart by it: a page loading and loaded), skipped only when every
one of them is transient (the loading page that the loaded one replaces is still that page).
Screens two or more transitions away come first, nearest first, and those one tap away last: the
per-kind cap keeps the tasks that ask for a way through the app before the one-tap ones. A screen
the app opens only when a field holds one text (a sign-in the recording shows succeed with one
account: a guard `eq` on a typed field) says so: "...; on the way, type "{email}" into the email field",
the text a parameter with that one value, so the oracle types it as an agent would. The rule is
the screen clause (`screen: ID`, or `any_of` such clauses); the pins every synthesized task gets
keep the rest of the app as it was, so wandering through it and changing things on the way fails.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import replace

from phoneworld.ir.app import AppSpec, Guard, Lit, ScreenSpec, Transition, Var, Widget
from phoneworld.state.untried import DISMISS_ELSEWHERE
from phoneworld.tasks import naming as nm
from phoneworld.tasks.drafts import AppFacts, Draft, Raw
from phoneworld.tasks.synth import field_labels

NAVIGATION = "navigation"
NOT_NAMES = {"main", "home", "launcher", "start", "splash"}
# what a button says it does, not where it leads ("Skip" opens no "Skip" screen)
# and as the languages most apps ship in write them (Chinese, Japanese, Korean, German, French,
# Spanish, Portuguese, Russian, Italian): a game's "开始" opens no "开始" screen
# (their "Cancel", "Close" and "Back" are the state pass's `DISMISS_ELSEWHERE`)
ACTIONS_ELSEWHERE = (
    "接受 允许 允許 继续 繼續 删除 刪除 完成 下一步 否 确定 確定 好 移除 保存 儲存 跳过 跳過 开始 開始 "
    "提交 是 前往 "
    "同意 許可 続行 続ける 削除 次へ いいえ 送信 はい スキップ 開始する "
    "수락 허용 뒤로 계속 삭제 완료 다음 아니요 확인 저장 건너뛰기 시작 제출 예 "
    "akzeptieren zulassen erlauben weiter löschen fertig nein entfernen speichern überspringen "
    "starten senden absenden ja "
    "accepter autoriser continuer supprimer terminé suivant non retirer enregistrer passer "
    "ignorer commencer démarrer envoyer valider oui "
    "aceptar permitir continuar eliminar borrar listo hecho siguiente quitar guardar omitir "
    "saltar empezar comenzar enviar sí "
    "aceitar excluir apagar concluído próximo avançar não remover salvar pular começar iniciar "
    "sim "
    "принять разрешить продолжить удалить готово далее нет ок убрать сохранить пропустить начать "
    "отправить да "
    "accetta consenti continua elimina fatto avanti successivo rimuovi salva salta inizia invia "
    "sì").split()
ACTIONS = {"accept", "allow", "back", "cancel", "close", "continue", "delete", "done", "go",
           "next", "no", "ok", "okay", "remove", "save", "skip", "start", "submit", "yes",
           *DISMISS_ELSEWHERE, *ACTIONS_ELSEWHERE}
# what is left of a label once its end marks are set aside ("OK!", "确定。")
_END_MARKS = " .!。！"


def says_an_action(label: str) -> bool:
    """Whether `label` says what a button does rather than where it leads."""
    return label.casefold().strip(_END_MARKS) in ACTIONS


def typed_needs(guard: Guard | None, typable: set[str]) -> tuple[tuple[str, str], ...]:
    """The (field variable, text) pairs a transition's guard asks the user to have typed: its
    `eq` conditions on a typed field (the account that signs in); other conditions ask nothing
    a task must say."""
    if guard is None:
        return ()
    if guard.op == "all":
        return tuple(p for g in guard.terms for p in typed_needs(g, typable))
    if guard.op == "eq" and isinstance(guard.left, Var) and guard.left.name in typable \
            and isinstance(guard.right, Lit) and isinstance(guard.right.value, str):
        return ((guard.left.name, guard.right.value),)
    return ()


def given_texts(app: AppSpec, typable: set[str]) -> dict[str, tuple[tuple[str, str], ...]]:
    """Per reachable screen, what the user must type on the way there: the needs (`typed_needs`)
    of the path with the fewest of them, then the fewest transitions. A screen behind a sign-in
    that the recording shows succeed with one account needs that account."""
    out: dict[str, tuple[tuple[str, str], ...]] = {}
    todo = [(0, 0, app.start_screen, ())]
    while todo:
        _, steps, sid, needs = heapq.heappop(todo)
        if sid in out:
            continue
        out[sid] = needs
        for t in app.transitions:
            if t.screen == sid and t.target is not None and t.target not in out:
                more = tuple(dict.fromkeys(needs + typed_needs(t.guard, typable)))
                heapq.heappush(todo, (len(more), steps + 1, t.target, more))
    return out


# how far a full-screen window may stop short of the device's top (the status bar) and bottom
# (on-screen navigation buttons: an activity's window 1788 pixels high on a 1920 one)
BARS = (0.1, 0.15)


def on_the_way(facts: AppFacts, screens: list[str],
               given: dict[str, tuple[tuple[str, str], ...]]) -> tuple[str, dict[str, Raw]] | None:
    """What a task whose end lies on one of `screens` asks the user to type on the way there
    (`given_texts`: the path that asks the least), as words ('type "{email}" into the email
    field') and the parameters they name, each with its one text, so the oracle types it as an
    agent would; ("", {}) when the way asks nothing, None when it asks two texts of one field."""
    needs = min((given.get(s, ()) for s in screens), key=len, default=())
    if len({v for v, _ in needs}) < len(needs):
        return None
    if not needs:
        return "", {}
    labels = field_labels(facts, sorted({v for v, _ in needs}))
    return (", ".join(f'type "{{{v}}}" into {labels[v]}' for v, _ in needs),
            {v: {"type": "text", "from": "choice", "choices": [value]} for v, value in needs})


def _written(effect: object) -> str:
    """The variable or collection an effect writes ("" for none)."""
    ref = getattr(effect, "ref", None)
    return str(getattr(ref, "name", "") or getattr(effect, "collection", "") or "")


def acted_on(facts: AppFacts, names: set[str]) -> list[str]:
    """The reachable screens where a user changes one of `names` (variables or collections):
    those whose transitions write one, and those that show a field or a box bound to one."""
    app = facts.app
    out = {t.screen for t in app.transitions
           if t.screen in facts.reachable and any(_written(e) in names for e in t.effects)}
    out |= {sid for sid, w, _ in nm.widgets(app) if sid in facts.reachable and any(
        isinstance(x, Var) and x.name in names for x in (w.text, w.checked))}
    return sorted(out)


def via_sign_in(facts: AppFacts, d: Draft, given: dict[str, tuple[tuple[str, str], ...]]
                ) -> Draft | None:
    """A state-changing draft whose change lies behind a screen that opens only when a field
    holds one text (a sign-in, `given_texts`), asking to type it on the way as a navigate task
    does, so that the oracle types it as an agent would; the draft unchanged when the way asks
    nothing or it types into that field itself; None when the way asks two texts of one field."""
    names = d.names()
    screens = acted_on(facts, names)
    way = on_the_way(facts, screens, given) if screens else ("", {})
    if way is None:
        return None
    typing, needs = way
    if not typing or set(needs) & (names | set(d.params)):
        return d
    return replace(d, instruction=f"{d.instruction}; on the way, {typing}",
                   params={**d.params, **needs}, way=tuple(needs))


def transient(app: AppSpec, screen: ScreenSpec) -> bool:
    """Whether leaving `screen` dismisses it (a menu, a dialog, a popup): it has a `replace`
    transition, or its window does not fill the screen (narrower than the device, or short of
    its top or bottom by more than a status or navigation bar)."""
    if any(t.screen == screen.id and t.nav == "replace" for t in app.transitions):
        return True
    b, w, h = screen.root.bounds, app.device.width, app.device.height
    return b.x1 > 0 or b.x2 < w or b.y1 > h * BARS[0] or b.y2 < h * (1 - BARS[1])


def usable(text: str) -> bool:
    """A name a person reads: a few words, the first a word ("0 CAD" is a value, not a name),
    not only function words (a text split in pieces: "and")."""
    return (nm.label_like(text) and text[0].isalpha()
            and not set(text.casefold().split()) <= nm.FUNCTION_WORDS)


def _titles(screen: ScreenSpec) -> list[tuple[int, int, str, str]]:
    """(top, left, literal text, variable) of every TextView that could title the screen, top-most
    first: neither clickable nor inside something clickable or a list, showing a usable literal
    text or a text variable (a title the app sets as it opens the screen)."""
    found: list[tuple[int, int, str, str]] = []

    def visit(w: Widget, inside: bool) -> None:
        if not inside and not w.clickable and nm.shows_text(w):
            text = nm.literal(w)
            if usable(text) or isinstance(w.text, Var):
                found.append((w.bounds.y1, w.bounds.x1, text if usable(text) else "",
                              w.text.name if isinstance(w.text, Var) else ""))
        for c in w.children:
            visit(c, inside or w.clickable or w.list is not None)

    visit(screen.root, False)
    return sorted(found)


def heading(screen: ScreenSpec) -> str:
    """The screen's own title (see the module docstring), or ""."""
    return next((text for _, _, text, _ in _titles(screen) if text), "")


def pages(app: AppSpec, screen: ScreenSpec, reachable: set[str], data: set[str]
          ) -> list[tuple[str, str]]:
    """(name, variable) of each page of a screen whose title is a text the app sets as it opens it
    (one layout, several pages: the terms or the privacy policy, a dialog titled by what it asks):
    the top-most title is a variable, and each usable literal an opener (a transition from
    another reachable screen) writes into it names one page. [] for any other screen."""
    titles = _titles(screen)
    var = titles[0][3] if titles else ""
    out: list[tuple[str, str]] = []
    for t in openers(app, screen.id, reachable) if var else ():
        for e in t.effects:
            ref, value = getattr(e, "ref", None), getattr(e, "value", None)
            if e.kind != "set" or ref is None or ref.kind != "var" or ref.name != var \
                    or not isinstance(value, Lit) or not isinstance(value.value, str):
                continue
            name = value.value
            if usable(name) and name.casefold() not in data \
                    and not says_an_action(name) and (name, var) not in out:
                out.append((name, var))
    return out


def inner_label(w: Widget) -> str:
    """What a user calls the widget a tap opens a screen with: its text (the first line of one,
    a settings row's title above the value it is set to) or description, or for a container the
    one text inside it (never a neighbour's: next to a button is often the screen's own title)."""
    own = nm.title_line(w) or " ".join(w.content_desc.split())
    if own:
        return own
    texts = {t for t in (nm.title_line(c) or " ".join(c.content_desc.split())
                         for c in nm.descendants(w)) if t}
    return next(iter(texts)) if len(texts) == 1 else ""


def openers(app: AppSpec, sid: str, reachable: set[str]) -> list[Transition]:
    """The transitions that open `sid` from another reachable screen (a back to it opens
    nothing)."""
    return [t for t in app.transitions if t.target == sid and t.screen != sid
            and t.screen in reachable and t.nav != "pop"]


def opener_label(app: AppSpec, sid: str, reachable: set[str]) -> str:
    """The label every widget that opens `sid` from another reachable screen shows, or "". Not
    one of the choices `sid` offers (a checkable's text there): a dropdown that shows "Mobile"
    opens the list of phone types with "Mobile" checked, no "Mobile" screen."""
    widgets = {(s, w.wid): w for s, w, _ in nm.widgets(app)}
    labels = set()
    for t in openers(app, sid, reachable):
        hit = widgets.get((t.screen, t.widget or ""))
        labels.add(inner_label(hit) if hit is not None else "")
    label = next(iter(labels)) if len(labels) == 1 else ""
    choices = {nm.literal(w).casefold() for s, w, _ in nm.widgets(app) if s == sid and w.checkable}
    return "" if says_an_action(label) or label.casefold() in choices else label


def activity_words(screen: ScreenSpec) -> str:
    """`pkg/.SettingsActivity` -> "settings" ("" when it says nothing)."""
    if not screen.activity:
        return ""
    short = screen.activity.rsplit("/", 1)[-1].rsplit(".", 1)[-1]
    words = [t for t in nm.tokens(short) if t not in ("activity", "fragment", "screen")]
    text = " ".join(words)
    return text if words and text not in NOT_NAMES and usable(text) else ""


def record_texts(app: AppSpec) -> set[str]:
    """Texts that are data, not names (casefolded): the records' values in the initial state and
    the texts of list items (a conversation titled "Bob" is no "Bob" screen)."""
    out = {str(v).casefold() for recs in app.initial_state.values() if isinstance(recs, list)
           for r in recs if isinstance(r, dict) for v in r.values() if isinstance(v, str)}

    def visit(w: Widget, inside: bool) -> None:
        if inside and nm.literal(w):
            out.add(nm.literal(w).casefold())
        for c in w.children:
            visit(c, inside)
        if w.list is not None:
            visit(w.list.item, True)

    for sc in app.screens:
        visit(sc.root, False)
    return out


def screen_name(app: AppSpec, screen: ScreenSpec, reachable: set[str],
                data: set[str] | None = None) -> tuple[str, str]:
    """(name, where it comes from: "heading", "opener" or "activity"); ("", "") for none.
    `data`: texts that name records, not screens (`record_texts`)."""
    data = record_texts(app) if data is None else data
    for source, name in (("heading", heading(screen)),
                         ("opener", opener_label(app, screen.id, reachable)),
                         ("activity", activity_words(screen))):
        if usable(name) and name.casefold() not in data:
            return name, source
    return "", ""


def instruction(name: str, source: str) -> str:
    if source == "activity":
        return f"Open the {name} screen"
    return f"Open the {nm.quoted(name)} screen"


def navigations(facts: AppFacts, min_steps: int = 1) -> Iterator[Draft]:
    """A navigate draft per name that qualifies (see the module docstring): those two or more
    transitions away nearest first, then those one tap away. Screens that share a name (a page
    loading and loaded, a list with and without a banner) are one place to a person: ending on
    any of them passes."""
    app = facts.app
    far = app.distances()
    given = given_texts(app, facts.typable)
    data = record_texts(app)
    groups: dict[str, list[tuple[ScreenSpec, Raw]]] = {}  # by name: the screens and their clauses
    named: dict[str, tuple[str, str]] = {}
    for s in sorted((s for s in app.screens if s.id in far), key=lambda s: (far[s.id], s.id)):
        found = [(name, "heading", {"all_of": [{"screen": s.id},
                                               {"equals": {"var": var, "value": name}}]})
                 for name, var in pages(app, s, facts.reachable, data)]
        for name, source, clause in found or [(*screen_name(app, s, facts.reachable, data),
                                                {"screen": s.id})]:
            if name:
                groups.setdefault(name.casefold(), []).append((s, clause))
                named.setdefault(name.casefold(), (name, source))
    for key, members in sorted(groups.items(), key=lambda g: far[g[1][0][0].id] == 1):
        screens = [s for s, _ in members]
        if far[screens[0].id] < min_steps or any(s.package != app.package for s in screens) \
                or all(transient(app, s) for s in screens):
            continue
        name, source = named[key]
        clauses = [c for _, c in members]
        rule = clauses[0] if len(clauses) == 1 else {"any_of": clauses}
        way = on_the_way(facts, [s.id for s in screens], given)
        if way is None:
            continue  # two texts for one field on the way
        typing, params = way
        text = instruction(name, source) + (f"; on the way, {typing}" if typing else "")
        yield Draft("navigate", nm.slug(name), text, [rule], params, category=NAVIGATION)
