"""Task synthesis (state-changing tasks): from an app spec, the effects a user can cause from the
start, each turned into a task draft with a natural instruction.

- create: an `append` whose record takes a typed field -> "Add a note titled "{title}"" (and
  "... and mark it as done" when records have a flag a user can set); one that takes none ->
  "Add a new photo to the list on the "Album" screen" (the list ends one record longer)
- edit: a `set` of a record field from a typed field -> "Rename the note "{old}" to "{new}""
- toggle: a record flag a tap can change -> "Mark the note "{title}" as done" / "as not done"
  (shown as a switch: "Turn on the alarm "{title}"" / "Turn off ...");
  a bulk `set_each` ("Uncheck all") -> "Mark every note as not done"
- delete: a `remove` -> "Delete the note "{title}"" ("Delete one photo ..." where no text field
  names a record); a bulk `remove_where` on a flag ("Clear completed") -> the same task (flag the
  record, clear the flagged) and, where the start holds flagged records, "Delete every note that
  is done"
- select: a `select` -> "Open the note "{title}""
- setting: a flag variable behind a switch or checkbox -> "Turn on Dark mode" (the reverse too,
  from a seeded initial state, for switches and checkboxes: not for radio buttons)
- counter: a number variable an `add` changes -> "Decrease the streak by 1"
- fill: a typed field no effect writes into a list record (that is a create or edit task's input)
  -> "Type "{text}" into the search field"; fields that would read alike are told apart by their
  place on the screen ("the second Address field") or by what they show at the start; the text
  is what the field asks for (`fill_values`: an address for an email field, digits for a code,
  a password for a password field), else a short phrase

Information-retrieval tasks are in `synth_answers`, pairs and final assembly in `synth_pairs`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from phoneworld.ir.app import AppSpec, Widget
from phoneworld.tasks import naming as nm
from phoneworld.tasks import params
from phoneworld.tasks.drafts import AppFacts, Collection, Draft, Raw

PHRASE: Raw = {"type": "text", "from": "phrase"}


def _data(c: Collection, field: str) -> Raw:
    return {"type": "text", "from": "app_data", "source": f"{c.var.name}.{field}"}


def _p(name: str) -> Raw:
    return {"param": name}


NAMING_FIELDS = ("title", "name", "text")  # a record's field that names it: "titled", "Rename"


def _text_words(noun: str, field: str) -> str:
    """A text field as words (`field_words`); "text" where they say only the record's noun (a
    to-do's `todo_text`: "Add a todo titled ...", not "Add a todo with todo ...")."""
    attr = nm.field_words(noun, field)
    said = {nm.singular(w) for w in attr.split()}
    return "text" if said <= {nm.singular(w) for w in noun.split()} else attr


def _named(noun: str, field: str, param: str) -> str:
    attr = _text_words(noun, field)
    if attr in NAMING_FIELDS:
        return f"{'named' if attr == 'name' else 'titled'} \"{{{param}}}\""
    return f"with {attr} \"{{{param}}}\""


def _typed_field(facts: AppFacts, record: dict[str, object], c: Collection) -> str | None:
    """The field of an appended record that takes what the user typed (the naming one first)."""
    fields = [f for f, e in record.items()
              if getattr(e, "kind", None) == "input"
              or (getattr(e, "kind", None) == "var" and getattr(e, "name", None) in facts.typable)]
    if c.id_field in fields:
        return c.id_field
    return fields[0] if fields else None


def _list_place(facts: AppFacts, c: Collection) -> str:
    """' to the list on the "Inbox" screen' (the first reachable screen showing the list)."""
    title = nm.list_title(facts.app, c.var.name, facts.reachable)
    if title is None:
        return ""
    return f' to the list on the "{title}" screen' if title else " to the list"


def _one_more(facts: AppFacts, c: Collection, change: int) -> Draft:
    """A record added or removed where no typed text names it: the list ends one longer or
    shorter (the count pin is the rule; which record goes is the app's business)."""
    coll, n = c.var.name, len(facts.start.get(c.var.name) or [])
    place = _list_place(facts, c)
    deltas: dict[str, tuple[int, int]] = {coll: (change, change)}
    if change > 0:
        kind, slug, text = "create", f"{c.noun}_added", f"Add a new {c.noun}{place}"
    else:
        kind, slug = "delete", f"{c.noun}_removed"
        text = f"Delete one {c.noun}{place.replace(' to ', ' from ', 1)}"
        deltas.update({f"{coll}.{f}": (-1, 0) for f in c.flags})  # the one removed may be set
    return Draft(kind, slug, text, [{"count": {"collection": coll, "equals": n + change}}],
                 deltas=deltas, touches={coll: None})


def creates(facts: AppFacts) -> Iterator[Draft]:
    for t in facts.app.transitions:
        if t.screen not in facts.reachable:
            continue
        for e in t.effects:
            c = facts.collections.get(getattr(e, "collection", "")) if e.kind == "append" else None
            field = _typed_field(facts, dict(e.record), c) if c is not None else None
            if c is not None and field is None:
                yield _one_more(facts, c, 1)
            if c is None or field is None:
                continue
            base = f"Add {nm.article(c.noun)} {c.noun} {_named(c.noun, field, 'title')}"
            title, drawn = {field: _p("title")}, record_values(facts, c, field)
            coll = c.var.name
            yield Draft("create", c.noun, base, [{"exists": {"collection": coll, "where": title}}],
                        {"title": drawn}, {coll: (1, 1)}, touches={coll: (title,)})
            for flag in c.flags:
                word = nm.field_words(c.noun, flag)
                yield Draft("create", f"{c.noun}_{word}", f"{base} and mark it as {word}",
                            [{"exists": {"collection": coll, "where": {**title, flag: True}}}],
                            {"title": drawn}, {coll: (1, 1), f"{coll}.{flag}": (1, 1)},
                            touches={coll: (title,)})


def edits(facts: AppFacts) -> Iterator[Draft]:
    carried = _carried(facts)
    for t in facts.app.transitions:
        if t.screen not in facts.reachable:
            continue
        for e in t.effects:
            ref = getattr(e, "ref", None)
            if e.kind != "set" or ref is None or ref.kind != "record":
                continue
            c = facts.collections.get(ref.collection)
            v = e.value
            typed = v.kind == "input" or (v.kind == "var" and v.name in carried)
            if c is None or c.id_field is None or not typed:
                continue
            yield _edit(c, ref.field, record_values(facts, c, ref.field))


def _carried(facts: AppFacts) -> set[str]:
    """The typable variables and those that take what one of them holds (a contact page's name,
    set from the editor's field when it saves, and written to the record on the way back)."""
    out = set(facts.typable)
    copies = [(e.ref.name, e.value.name) for t in facts.app.transitions
              if t.screen in facts.reachable for e in t.effects
              if e.kind == "set" and e.ref.kind == "var" and e.value.kind == "var"]
    grew = True
    while grew:
        more = {dst for dst, src in copies if src in out} - out
        out |= more
        grew = bool(more)
    return out


def _edit(c: Collection, field: str, new: Raw) -> Draft:
    """The edit of a record's `field`, to a value drawn from `new`."""
    coll, idf, attr = c.var.name, c.id_field or field, _text_words(c.noun, field)
    if field == idf:
        verb = (f'Rename the {c.noun} "{{old}}" to "{{new}}"' if attr in NAMING_FIELDS
                else f'Change the {attr} of the {c.noun} "{{old}}" to "{{new}}"')
        return Draft("edit", f"{c.noun}_{attr}", verb, [
            {"exists": {"collection": coll, "where": {field: _p("new")}}},
            {"not": {"exists": {"collection": coll, "where": {field: _p("old")}}}},
        ], {"old": _data(c, field), "new": new},
            touches={coll: ({field: _p("old")}, {field: _p("new")})}, edits={coll: (field,)})
    return Draft("edit", f"{c.noun}_{attr}",
                 f'Set the {attr} of the {c.noun} "{{key}}" to "{{new}}"',
                 [{"exists": {"collection": coll, "where": {idf: _p("key"), field: _p("new")}}}],
                 {"key": _data(c, idf), "new": new}, touches={coll: ({idf: _p("key")},)},
                 edits={coll: (field,)})


def toggles(facts: AppFacts) -> Iterator[Draft]:
    for c in facts.collections.values():
        if c.id_field is None:
            continue
        for flag in c.flags:
            word = nm.field_words(c.noun, flag)
            switch = nm.item_switch(facts.app, c.var.name, flag)
            for on in (True, False):
                where = {c.id_field: _p("title"), flag: on}
                said = (f'Turn {"on" if on else "off"} the {c.noun} "{{title}}"' if switch
                        else f'Mark the {c.noun} "{{title}}" as {"" if on else "not "}{word}')
                yield Draft("toggle", f"{c.noun}_{'' if on else 'not_'}{word}", said,
                            [{"exists": {"collection": c.var.name, "where": where}}],
                            {"title": _data(c, c.id_field)},
                            {f"{c.var.name}.{flag}": (1, 1) if on else (-1, -1)},
                            touches={c.var.name: ({c.id_field: _p("title")},)},
                            edits={c.var.name: (flag,)})
    marks = dict.fromkeys((e.collection, e.field, e.value) for t in facts.app.transitions
                          if t.screen in facts.reachable for e in t.effects
                          if e.kind == "set_each")
    for coll, flag, value in marks:
        c = facts.collections.get(coll)
        if c is not None:
            yield from _every_marked(facts, c, flag, value)


def _every_marked(facts: AppFacts, c: Collection, flag: str, value: object) -> Iterator[Draft]:
    """A bulk mark ("Uncheck all", "Mark all as read"), where the start has records to change."""
    coll, records = c.var.name, facts.start.get(c.var.name) or []
    other = sum(r.get(flag) != value for r in records)
    if not other:
        return
    word = nm.field_words(c.noun, flag)
    yield Draft("toggle", f"every_{c.noun}_{'' if value else 'not_'}{word}",
                f"Mark every {c.noun} as {'' if value else 'not '}{word}",
                [{"not": {"exists": {"collection": coll, "where": {flag: not value}}}},
                 {"count": {"collection": coll, "equals": len(records)}}],
                deltas={f"{coll}.{flag}": (other, other) if value else (-other, -other)},
                touches={coll: ({},)}, edits={coll: (flag,)})


def deletes_and_selects(facts: AppFacts) -> Iterator[Draft]:
    for t in facts.app.transitions:
        if t.screen not in facts.reachable:
            continue
        for e in t.effects:
            c = facts.collections.get(getattr(e, "collection", ""))
            if c is not None and c.id_field is None and e.kind == "remove" \
                    and facts.start.get(c.var.name):
                yield _one_more(facts, c, -1)
            if c is not None and e.kind == "remove_where":
                yield from _every_flagged(facts, c, e.field, e.value)
            if c is None or c.id_field is None \
                    or e.kind not in ("remove", "remove_where", "select"):
                continue
            coll, idf = c.var.name, c.id_field
            if e.kind != "select":  # one record, by a remove or by flagging it for a bulk one
                yield Draft("delete", c.noun, f'Delete the {c.noun} "{{title}}"',
                            [{"not": {"exists": {"collection": coll, "where": {idf: _p("title")}}}}],
                            {"title": _data(c, idf)},
                            {coll: (-1, -1), **{f"{coll}.{f}": (-1, 0) for f in c.flags}},
                            touches={coll: ({idf: _p("title")},)})
            else:
                yield Draft("select", c.noun, f'Open the {c.noun} "{{title}}"',
                            [{"equals": {"selected": {"collection": coll, "field": idf},
                                         "value": _p("title")}}],
                            {"title": _data(c, idf)})


def _every_flagged(facts: AppFacts, c: Collection, flag: str, value: object) -> Iterator[Draft]:
    """A bulk remove ("Clear completed"): every record holding the flag's value gone and the
    others kept, where the start holds some such record (else the task is done at the start)."""
    coll, records = c.var.name, facts.start.get(c.var.name) or []
    gone = sum(r.get(flag) == value for r in records)
    if not gone:
        return
    word = nm.field_words(c.noun, flag)
    yield Draft("delete", f"every_{c.noun}_{'' if value else 'not_'}{word}",
                f"Delete every {c.noun} that is {'' if value else 'not '}{word}",
                [{"not": {"exists": {"collection": coll, "where": {flag: value}}}},
                 {"count": {"collection": coll, "equals": len(records) - gone}}],
                deltas={coll: (-gone, -gone), **{f"{coll}.{f}": (-gone, 0) for f in c.flags}},
                touches={coll: ({flag: value},)})


def flag_label(app: AppSpec, name: str, bound: tuple[str, Widget, Widget | None] | None
               ) -> tuple[str, str]:
    """(label, place) of flag variable `name`, `bound` to a widget (`naming.bound_widget`): the
    widget's label, or the title of the row that takes its taps (`naming.row_label`), else the
    variable's name in words; the place (`naming.place`: "the box on the 7th image") where the
    widget has no label of its own, else ""."""
    label = (nm.checkable_label(bound[1], bound[2]) or nm.row_label(app, bound[0], bound[1])
             if bound is not None else "")
    where = nm.place(app, bound[0], bound[1]) if bound is not None and not label else ""
    return label or nm.humanize(name), where


def _flag_vars(facts: AppFacts) -> Iterator[tuple[str, str, str, Widget | None]]:
    """(variable, label, place, bound widget or None) of every flag a user can change."""
    app = facts.app
    for v in app.state:
        if v.kind != "flag":
            continue
        bound = nm.bound_widget(app, v.name, "checked")
        tappable = bound is not None and bound[0] in facts.reachable and bound[1].checkable
        if not tappable and v.name not in facts.written:
            continue
        yield v.name, *flag_label(app, v.name, bound), bound[1] if bound is not None else None


def _setting(name: str, label: str, where: str, w: Widget | None, on: bool, seed: Raw) -> Draft:
    text = (nm.flag_phrase(w, label, on, where) if w is not None
            else f"Turn {'on' if on else 'off'} {label}")
    return Draft("setting", f"{nm.slug(where or label)}_{'on' if on else 'off'}", text,
                 [{"equals": {"var": name, "value": on}}], initial_state=seed, targets=(name,))


def settings(facts: AppFacts) -> Iterator[Draft]:
    """Each flag set away from its start value; a switch or a checkbox also back, from a seeded
    start (a radio button cannot be cleared by a tap: the one checked at the start is left to
    the tasks that select another). A checkbox's way back comes after every flag's first task,
    so that the per-kind cap keeps the variety."""
    later: list[Draft] = []
    for name, label, where, w in _flag_vars(facts):
        init = bool(facts.start.get(name, False))
        if not (init and w is not None and nm.is_radio(w)):
            yield _setting(name, label, where, w, not init, {})
        back = _setting(name, label, where, w, init, {name: not init})
        if w is not None and nm.is_switch(w):
            yield back
        elif w is not None and nm.is_checkbox(w):
            later.append(back)
    yield from later


def counters(facts: AppFacts) -> Iterator[Draft]:
    seen: set[tuple[str, int]] = set()
    for t in facts.app.transitions:
        for e in t.effects:
            if t.screen not in facts.reachable or e.kind != "add" or e.ref.kind != "var":
                continue
            name, d = e.ref.name, e.delta
            if (name, d) in seen or d == 0:
                continue
            seen.add((name, d))
            init = facts.start.get(name)
            if not isinstance(init, int) or isinstance(init, bool):
                continue
            label = nm.number_label(facts.app, name)
            if label is None:
                continue
            yield Draft("counter", f"{label}_{'up' if d > 0 else 'down'}",
                        f"{'Increase' if d > 0 else 'Decrease'} the {label} by {abs(d)}",
                        [{"equals": {"var": name, "value": init + d}}], targets=(name,))


ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")


def _record_inputs(facts: AppFacts) -> set[str]:
    """Variables an effect writes into a list record: what a user types there is the create or
    edit task's input, not a task of its own."""
    out = set()
    for t in facts.app.transitions:
        for e in t.effects:
            ref = getattr(e, "ref", None)
            into_record = e.kind == "append" or (ref is not None and ref.kind == "record")
            for ex in [getattr(e, "value", None), *getattr(e, "record", {}).values()]:
                if into_record and getattr(ex, "kind", None) == "var":
                    out.add(ex.name)
    return out


def field_labels(facts: AppFacts, names: list[str]) -> dict[str, str]:
    """How each typed field is named; fields of one screen that would read the same are told
    apart by their place on it ("the second text field of the "Sign in" screen"), fields of
    several screens by the screen ("the text field showing "pic3" on the "Rename" screen")."""
    found = {n: nm.bound_widget(facts.app, n, "text") for n in names}
    labels = {n: (nm.field_label(facts.app, *b, shows=str(facts.start.get(n) or ""))
                  if b is not None else f"the {nm.humanize(n)} field")
              for n, b in found.items()}
    order = {id(w): k for k, (_, w, _) in enumerate(nm.widgets(facts.app))}
    for label in sorted({v for v in labels.values() if list(labels.values()).count(v) > 1}):
        same = [n for n in names if labels[n] == label]
        spots = [found[n] for n in same]
        if all(b is not None for b in spots) and len({b[0] for b in spots}) == 1 \
                and len(same) <= len(ORDINALS):  # type: ignore[index]
            same.sort(key=lambda n: order[id(found[n][1])])  # type: ignore[index]
            for k, n in enumerate(same):
                labels[n] = f"the {ORDINALS[k]} {label.removeprefix('the ')}"
            continue
        # On several screens: by the screen's title where that is its own, else by what each
        # shows at the start where that is its own (the others keep the shared label, and all
        # but one of them are dropped as duplicates).
        titles = {n: nm.screen_title(facts.app, b[0]) if b is not None else ""
                  for n, b in zip(same, spots)}
        shows = {n: " ".join(str(facts.start.get(n) or "").split()) for n in same}
        for n in same:
            if titles[n] and list(titles.values()).count(titles[n]) == 1:
                labels[n] = f"{label} on the {nm.quoted(titles[n])} screen"
            elif shows[n] and len(shows[n]) <= 40 and list(shows.values()).count(shows[n]) == 1 \
                    and not label.startswith("the text field showing"):
                labels[n] = f"the text field showing {nm.quoted(shows[n])}"
    return labels


# Words of a field's resource id, description or label that say what it asks for
_ASKS = (
    ({"email", "mail", "e-mail"}, params.EMAILS),
    ({"phone", "tel", "telephone", "mobile", "cell"}, params.PHONES),
    ({"number", "num", "pin", "otp", "code", "zip", "postcode", "amount", "price", "age",
      "quantity", "qty", "digits", "cvv"}, params.NUMBERS),
    ({"password", "passcode", "pwd", "pass"}, params.PASSWORDS),
    ({"url", "website", "link"}, params.URLS),
)
# The same in the languages most apps ship in (Chinese, Japanese, Korean, German, French,
# Spanish, Portuguese, Russian, Italian), found anywhere in the field's label, id or description:
# "请输入手机号码", "Telefonnummer", "Mot de passe"
_ASKS_ELSEWHERE: dict[tuple[str, ...], tuple[str, ...]] = {
    params.EMAILS: ("邮箱", "邮件", "郵件", "電子郵件", "メール", "이메일", "correo", "courriel",
                    "почта"),
    params.PHONES: ("手机", "手機", "电话", "電話", "携帯", "전화", "휴대폰", "telefon", "téléphone",
                    "teléfono", "telefone", "телефон", "telefono", "móvil", "celular"),
    params.NUMBERS: ("验证码", "驗證碼", "数量", "數量", "金额", "金額", "价格", "價格", "年龄",
                     "年齡", "番号", "번호", "코드", "código", "numéro", "número", "nummer",
                     "numero", "код", "номер", "cantidad", "montant", "betrag"),
    params.PASSWORDS: ("密码", "密碼", "パスワード", "비밀번호", "passwort", "mot de passe",
                       "contraseña", "senha", "пароль"),
    params.URLS: ("网址", "網址", "链接", "連結", "リンク", "링크", "enlace"),
}
_EMAIL = re.compile(r"^[^@\s]*@[^@\s]*$")  # shows an address, or the start of one ("@")
# nouns and field words of lists of people, and a person's name as such a list shows it
_PEOPLE = frozenset({"contact", "person", "people", "friend", "member", "user", "author", "artist",
                     "player", "student", "employee", "patient", "customer", "guest", "attendee"})
_PERSON = re.compile(r"[A-Z][^\W\d_]+(?:[ '-][A-Z][^\W\d_]+){1,2}")
_PHONE = re.compile(r"\+?[\d\s().-]+")  # digits with the marks a phone number is written with
# shows an amount of money: a currency's code or sign ("INR(D)", "$0.00")
_MONEY = re.compile(r"(?<![A-Za-z])(USD|EUR|GBP|INR|JPY|CNY|CAD|AUD|CHF|RUB|BRL)(?![a-z])|[$€£¥₹]")


def fill_values(facts: AppFacts, name: str, label: str) -> Raw:
    """What a user would type into field `name`: what the field asks for (a password field, a
    field whose id, description or label says "email", "phone", "code", ... in English or another
    language most apps ship in (`_ASKS_ELSEWHERE`), or one that shows an
    address (or its "@"), a number or an amount of money ("INR", "$") at the start), else a short
    phrase."""
    bound = nm.bound_widget(facts.app, name, "text")
    w = bound[1] if bound is not None else None
    if w is not None and w.password:
        return {"type": "text", "from": "choice", "choices": list(params.PASSWORDS)}
    said = " ".join([name, label, w.resource_id.split(":id/", 1)[-1] if w else "",
                     w.content_desc if w else ""])
    words = {x for t in nm.tokens(said) for x in re.findall(r"[a-z]+", t)}
    text = said.casefold()
    shown = str(facts.start.get(name) or "").strip()
    for asks, values in _ASKS:
        if words & asks or any(w in text for w in _ASKS_ELSEWHERE[values]) or (
                values is params.EMAILS and _EMAIL.search(shown)) or (
                values is params.NUMBERS and (shown.isdigit() or _MONEY.search(shown))):
            return {"type": "text", "from": "choice", "choices": list(values)}
    return PHRASE


def record_values(facts: AppFacts, c: Collection, field: str) -> Raw:
    """What a user would type into a record's `field`: what its name asks for ("phone",
    "email", ...) or what every record shows in it (a phone number "555-0134", an address, a
    number; a person's name in a list of people), else a short phrase."""
    words = {x for t in nm.tokens(field) for x in re.findall(r"[a-z]+", t)}
    shown = [str(r.get(field, "")).strip() for r in facts.app.initial_state.get(c.var.name) or []
             if isinstance(r, dict)]  # the app's own records (not those seeded for the tasks)
    shown = [v for v in shown if v]
    # a field that names a person, or the naming field of a list of people
    people = words & (_PEOPLE | {"name"}) or (field == c.id_field and set(c.noun.split()) & _PEOPLE)
    if people and shown and all(_PERSON.fullmatch(v) for v in shown):
        return {"type": "text", "from": "choice", "choices": list(params.NAMES)}
    for asks, values in _ASKS:
        if values is params.PASSWORDS:
            continue
        if words & asks or (shown and all(_shows(values, v) for v in shown)):
            return {"type": "text", "from": "choice", "choices": list(values)}
    return PHRASE


def _shows(values: tuple[str, ...], text: str) -> bool:
    """Whether `text` looks like one of `values`' kind (`_ASKS`)."""
    if values is params.EMAILS:
        return bool(_EMAIL.search(text)) and "@" in text
    if values is params.PHONES:
        return bool(_PHONE.fullmatch(text)) and sum(ch.isdigit() for ch in text) >= 5
    if values is params.NUMBERS:
        return text.isdigit() or bool(_MONEY.search(text))
    return values is params.URLS and text.startswith(("http://", "https://", "www."))


def fills(facts: AppFacts) -> Iterator[Draft]:
    names = sorted(facts.typable - _record_inputs(facts))
    for name, label in field_labels(facts, names).items():
        yield Draft("fill", nm.humanize(name), f'Type "{{text}}" into {label}',
                    [{"equals": {"var": name, "value": _p("text")}}],
                    {"text": fill_values(facts, name, label)}, targets=(name,))


def state_changing(facts: AppFacts) -> Iterator[Draft]:
    """Every state-changing draft, grouped by kind in a stable order."""
    for gen in (creates, edits, toggles, deletes_and_selects, settings, counters, fills):
        yield from gen(facts)
