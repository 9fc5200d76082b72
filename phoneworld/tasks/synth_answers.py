"""Task synthesis (information retrieval): facts a user could look up, as questions with answers.

- "How many notes are there?", "How many notes are done?" / "... are not done?"
- "Is the note "{title}" done?" (the flag of the record the parameter names)
- "Is Dark mode turned on?" (a flag variable shown by a switch or checkbox)
- "What is the streak?" (a number variable shown on screen)

Only about what the app itself shows: a list on a screen of another package (a share sheet, a
system picker) asks nothing. Where what a question asks about is shown only past a form that
opened with one text (a sign-in the recording shows succeed with one account), the question
says to type it on the way first, as a navigate task does (`synth_navigation.on_the_way`).

The answer is compared with the value read from the final state; a pin clause keeps that value
at its start value, so an agent cannot make the question true instead of answering it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from phoneworld.tasks import naming as nm
from phoneworld.tasks.drafts import AppFacts, Collection, Draft, Raw
from phoneworld.tasks.synth import flag_label
from phoneworld.tasks.synth_navigation import given_texts, on_the_way


def plural(noun: str) -> str:
    """"wish" -> "wishes", "entry" -> "entries", "note" -> "notes"; a noun ending in "s" is
    taken as plural already ("news", "settings")."""
    if noun.startswith("entry in "):
        return "entries in " + noun[len("entry in "):]
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    if noun.endswith(("x", "z", "ch", "sh")):
        return noun + "es"
    return noun if noun.endswith("s") else noun + "s"


def _answer(value: Raw) -> Raw:
    return {"equals": {"answer": True, "value": value}}


def _flag_count(app_state: dict[str, Any], c: Collection, flag: str, on: bool) -> int:
    recs = app_state.get(c.var.name) or []
    return sum(1 for r in recs if isinstance(r, dict) and bool(r.get(flag)) == on)


def shown_by_app(facts: AppFacts) -> dict[str, list[str]]:
    """Per collection, the reachable screens of the app's own package that list it (a share
    sheet's or a system picker's list is not the app's data to ask about)."""
    own = {s.id for s in facts.app.screens if s.package == facts.app.package}
    out: dict[str, list[str]] = {}
    for sid, w, _ in nm.widgets(facts.app):
        if w.list is not None and sid in own and sid in facts.reachable:
            out.setdefault(w.list.collection, []).append(sid)
    return out


def _asked(question: str, typing: str) -> str:
    """A question whose answer lies behind a form (a sign-in): what to type on the way first."""
    return f"{typing[:1].upper()}{typing[1:]} on the way, then answer: {question}" if typing \
        else question


def collection_questions(facts: AppFacts) -> Iterator[Draft]:
    state = facts.start
    shown = shown_by_app(facts)
    given = given_texts(facts.app, facts.typable)
    for c in facts.collections.values():
        coll, noun = c.var.name, c.noun
        if not c.var.fields or coll not in shown:
            continue
        way = on_the_way(facts, shown[coll], given)
        if way is None:
            continue
        typing, needs = way
        yield Draft("answer", f"count_{noun}",
                    _asked(f"How many {plural(noun)} are there?", typing),
                    [_answer({"count": {"collection": coll}})], dict(needs),
                    category="info_retrieval")
        for flag in (f.name for f in c.var.fields if f.kind == "flag"):
            word = nm.field_words(noun, flag)
            # a switch on each row (a settings list) is turned on or off, not checked
            said = {True: "turned on", False: "turned off"} \
                if word == "checked" and nm.item_switch(facts.app, coll, flag) \
                else {True: word, False: f"not {word}"}
            for on in (True, False):
                pin = {"count": {"collection": coll, "where": {flag: on},
                                 "equals": _flag_count(state, c, flag, on)}}
                yield Draft("answer", f"count_{noun}_{'' if on else 'not_'}{word}",
                            _asked(f"How many {plural(noun)} are {said[on]}?", typing),
                            [_answer({"count": {"collection": coll, "where": {flag: on}}}), pin],
                            dict(needs), category="info_retrieval")
            if c.id_field is not None:
                pin = {"count": {"collection": coll, "where": {flag: True},
                                 "equals": _flag_count(state, c, flag, True)}}
                look = {"lookup": {"collection": coll, "where": {c.id_field: {"param": "title"}},
                                   "field": flag}}
                yield Draft("answer", f"is_{noun}_{word}",
                            _asked(f'Is the {noun} "{{title}}" {said[True]}?', typing),
                            [_answer(look), pin],
                            {"title": {"type": "text", "from": "app_data",
                                       "source": f"{coll}.{c.id_field}"}, **needs},
                            category="info_retrieval")


def _how_much(label: str) -> str:
    """The question a number variable asks: "What is the streak?", but "How many glasses of
    water are there?" where the label counts things (its first word a plural)."""
    head = label.split()[0] if label.split() else ""
    counts = len(head) > 3 and head.endswith("s") and not head.endswith(("ss", "us", "is"))
    return f"How many {label} are there?" if counts else f"What is the {label}?"


def variable_questions(facts: AppFacts) -> Iterator[Draft]:
    app = facts.app
    given = given_texts(app, facts.typable)
    for v in app.state:
        if v.kind not in ("flag", "number"):
            continue
        attr = "checked" if v.kind == "flag" else "text"
        bound = nm.bound_widget(app, v.name, attr)
        if bound is None or bound[0] not in facts.reachable:
            continue
        way = on_the_way(facts, [bound[0]], given)
        if way is None:
            continue
        typing, needs = way
        init = facts.start.get(v.name)
        pin = {"equals": {"var": v.name, "value": init}}
        if v.kind == "flag":
            label, where = flag_label(app, v.name, bound)
            text = (f"Is {where or label} turned on?" if nm.is_switch(bound[1])
                    else f"Is {where or nm.quoted(label)} checked?")
        else:
            label = nm.number_label(app, v.name)
            if label is None or not isinstance(init, int) or isinstance(init, bool):
                continue
            text = _how_much(label)
        yield Draft("answer", nm.slug(text), _asked(text, typing),
                    [_answer({"var": v.name}), pin], dict(needs), category="info_retrieval")


def questions(facts: AppFacts) -> Iterator[Draft]:
    yield from collection_questions(facts)
    yield from variable_questions(facts)
