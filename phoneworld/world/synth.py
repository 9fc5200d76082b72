"""Synthesis of cross-app (handoff) tasks: from what a world allows, tasks that move a text from
one app (or the notification shade) into another, each needing at least one handoff.

- sources: texts an agent can copy: the text fields of records listed on a reachable screen
  ("the note", "the message"), texts bound to a variable (a contact's name on a detail screen),
  and the notifications in the shade;
- sinks: where the text must end up: a new record of an app whose share sheet entry opens its
  "new item" screen (`phoneworld.world.wiring`), checked as `exists` in that app's collection
  plus a count pin (exactly one record more); or, in apps without one, an editable field,
  checked as `equals` on its variable;
- mechanisms, for a source and a sink in different apps:
  copy   "Copy the note "{text}" from Notes and paste it into a new message ..." (the rule also
         wants the text on the clipboard: it was copied, not retyped); the clipboard starts empty
  stale  the same, with the clipboard starting with another text of the same source (the
         stale-clipboard distractor: pasting without copying first pastes the wrong text)
  share  "Share the note "{text}" from Notes to Messages ..." (sinks the share sheet reaches)
  file   "Save ... as a file, then attach it ..." (sinks with a file picker; the rule wants the
         file in `@files`)
The handoff clause comes first in the rule: the oracle reaches the clauses in order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from phoneworld.ir.app import AppSpec
from phoneworld.tasks import naming as nm
from phoneworld.tasks.drafts import app_facts, reachable_screens
from phoneworld.tasks.spec import TaskSpec
from phoneworld.world.device import CLIPBOARD, FILES, NOTIFICATIONS, World
from phoneworld.world.schema import WorldSchema
from phoneworld.world.wiring import screen_widgets

Raw = dict[str, Any]
NAMES = ("Carol", "Dan", "Erin", "Frank", "Grace", "Heidi")
MAX_VAR_SOURCES = 3
MAX_FIELD_SINKS = 2
MAX_TEXT = 40


@dataclass(frozen=True)
class Source:
    app: str  # package; "" for the notification shade
    label: str
    source: str  # parameter source
    what: str  # "the note", "the notification"
    values: tuple[str, ...]
    slug: str


@dataclass(frozen=True)
class Sink:
    app: str
    label: str
    slug: str
    phrase: str  # how the instruction says where the text goes ("into a new note in Notes")
    clauses: Callable[[str], list[Raw]]
    params: dict[str, Raw] = field(default_factory=dict)
    receive: bool = False
    pick: bool = False


def _usable(v: Any) -> bool:
    return isinstance(v, str) and 0 < len(v) <= MAX_TEXT and "\n" not in v and v.strip() == v


def sources(world: World) -> Iterator[Source]:
    for pkg, sim in world.sims.items():
        app, label = sim.spec, sim.spec.label
        reach = reachable_screens(app)
        state = app.initial_state
        seen: set[tuple[str, str]] = set()
        n_vars = 0
        for s in app.screens:
            if s.id not in reach:
                continue
            for w, in_list in screen_widgets(s.root):
                if w.list is not None:
                    coll = w.list.collection
                    noun = nm.list_noun(app, coll)
                    for iw, _ in screen_widgets(w.list.item):
                        if iw.text.kind != "item" or (coll, iw.text.field) in seen:
                            continue
                        seen.add((coll, iw.text.field))
                        vals = tuple(dict.fromkeys(
                            r.get(iw.text.field) for r in state.get(coll) or []
                            if _usable(r.get(iw.text.field))))
                        if vals:
                            fw = nm.field_words(noun, iw.text.field)
                            plain = fw in ("title", "name", "text", noun)
                            what = f"the {noun}" if plain else f"the {noun} {fw}"
                            yield Source(pkg, label, f"{pkg}:{coll}.{iw.text.field}", what, vals,
                                         nm.slug(f"{noun} {fw}", 3))
                elif (not in_list and w.text.kind == "var" and not w.editable
                      and not w.cls.endswith("EditText") and n_vars < MAX_VAR_SOURCES):
                    v = state.get(w.text.name)
                    if _usable(v) and ("var", str(v)) not in seen:
                        seen.add(("var", str(v)))
                        n_vars += 1
                        yield Source(pkg, label, f"{pkg}:{w.text.name}", "the text", (str(v),),
                                     nm.slug(w.text.name, 3))
    notes = tuple(t for _, t in world.initial_services.notifications if _usable(t))
    if notes:
        yield Source("", "the notification shade", f"{NOTIFICATIONS}.text", "the notification",
                     notes, "notification")


def _button_verb(app: AppSpec, screen: str, wid: str | None) -> str:
    for w, _ in screen_widgets(app.screen(screen).root):
        if w.wid == wid:
            text = w.text.value if w.text.kind == "lit" and isinstance(w.text.value, str) else ""
            label = (text or w.content_desc).strip()
            if label:
                return f"tap {nm.quoted(label)}"
    return "save it"


def _append_sink(world: World, pkg: str) -> Sink | None:
    sim, wiring = world.sims[pkg], world.wiring[pkg]
    app, rec = sim.spec, wiring.receive
    if rec is None:
        return None
    for t in app.transitions:
        for e in t.effects:
            if e.kind != "append":
                continue
            var = next((w.text.name for w, _ in screen_widgets(app.screen(t.screen).root)
                        if w.wid == rec.field and w.text.kind == "var"), None)
            fields = {f: x.name for f, x in e.record.items() if x.kind == "var"}
            target = next((f for f, v in fields.items() if v == var), None)
            if target is None:
                continue
            coll, noun = f"{pkg}:{e.collection}", nm.list_noun(app, e.collection)
            n = len(app.initial_state.get(e.collection) or [])
            extra = {f: v for f, v in fields.items() if f != target}
            params = {f"to_{i}": {"type": "text", "from": "choice", "choices": list(NAMES)}
                      for i, _ in enumerate(extra)}
            words = [(f'to "{{to_{i}}}"' if nm.field_words(noun, f) in ("to", "recipient")
                      else f'{nm.field_words(noun, f)} "{{to_{i}}}"') for i, f in enumerate(extra)]
            where_extra = {f: {"param": f"to_{i}"} for i, f in enumerate(extra)}
            phrase = f"into a new {noun} in {app.label}"
            if words:
                phrase += " " + " and ".join(w if w.startswith("to ") else f"with {w}"
                                             for w in words)
            phrase += f", then {_button_verb(app, t.screen, t.widget)}"

            def clauses(p: str, coll: str = coll, target: str = target,
                        extra: Raw = where_extra, n: int = n) -> list[Raw]:
                return [{"exists": {"collection": coll, "where": {target: {"param": p}, **extra}}},
                        {"count": {"collection": coll, "equals": n + 1}}]

            return Sink(pkg, app.label, nm.slug(noun, 2), phrase, clauses, params, True,
                        bool(wiring.pick))
    return None


def _field_sinks(world: World, pkg: str) -> Iterator[Sink]:
    sim, wiring = world.sims[pkg], world.wiring[pkg]
    app = sim.spec
    reach = reachable_screens(app)
    out: list[tuple[int, Sink]] = []
    seen: set[str] = set()
    for s in app.screens:
        if s.id not in reach:
            continue
        for w, in_list in screen_widgets(s.root):
            editable = w.editable or w.cls.endswith("EditText")
            if in_list or not editable or w.text.kind != "var" or w.text.name in seen:
                continue
            seen.add(w.text.name)
            hint = app.initial_state.get(w.text.name)
            name = hint if _usable(hint) and not str(hint)[:1].isdigit() else nm.humanize(w.wid)
            var = f"{pkg}:{w.text.name}"
            received = wiring.receive is not None and wiring.receive.field == w.wid and \
                s.id == _receive_screen(world, pkg)
            rank = 0 if received else (2 if str(name).lower() == "search" else 1)
            out.append((rank, Sink(
                pkg, app.label, nm.slug(f"{w.text.name}", 3),
                f"into the {nm.quoted(str(name))} field of {app.label}",
                lambda p, var=var: [{"equals": {"var": var, "value": {"param": p}}}],
                receive=received, pick=any(f == w.wid for f in wiring.pick.values()))))
    for _, sink in sorted(out, key=lambda x: x[0])[:MAX_FIELD_SINKS]:
        yield sink


def _receive_screen(world: World, pkg: str) -> str | None:
    """The screen a share into `pkg` lands on."""
    sim, rec = world.sims[pkg], world.wiring[pkg].receive
    if rec is None:
        return None
    screen = sim.spec.start_screen
    for wid in rec.path:
        t = next((t for t in sim.spec.transitions if t.screen == screen and t.widget == wid
                  and t.action == "click" and t.target), None)
        if t is None:
            return None
        screen = t.target
    return screen


def sinks(world: World) -> Iterator[Sink]:
    for pkg in world.sims:
        sink = _append_sink(world, pkg)
        if sink is not None:
            yield sink
        else:
            yield from _field_sinks(world, pkg)


def pins(world: World, skip: str, made: Raw | None = None) -> list[Raw]:
    """Clauses that keep every app as it was apart from the sink's collection `skip`: the record
    count and set-flag count of each collection a user can change, its records `unchanged` (in
    `skip`, but for the record the task makes, matching `made`), and each settings switch. A
    verifier refuses collateral damage, and the oracle never explores it."""
    out: list[Raw] = []
    for pkg, sim in world.sims.items():
        facts = app_facts(sim.spec)
        state = sim.spec.initial_state
        for c in facts.changeable():
            name = f"{pkg}:{c.var.name}"
            recs = [r for r in state.get(c.var.name) or [] if isinstance(r, dict)]
            if name != skip:
                out.append({"count": {"collection": name, "equals": len(recs)}})
                out.append({"unchanged": {"collection": name, "except": []}})
            elif made is not None:
                out.append({"unchanged": {"collection": name, "except": [made]}})
            for flag in c.flags:
                k = sum(1 for r in recs if r.get(flag) is True)
                out.append({"count": {"collection": name, "where": {flag: True}, "equals": k}})
        for var in facts.switches:
            out.append({"equals": {"var": f"{pkg}:{var}", "value": bool(state.get(var))}})
        for var in facts.counters:
            if isinstance(state.get(var), int) and not isinstance(state.get(var), bool):
                out.append({"equals": {"var": f"{pkg}:{var}", "value": state[var]}})
    return out


def _task(schema: WorldSchema, tid: str, kind: str, instruction: str, clauses: list[Raw],
          params: dict[str, Raw], initial: Raw) -> TaskSpec:
    return TaskSpec.model_validate({
        "id": tid, "app": schema.package, "category": "cross_app", "instruction": instruction,
        "params": params, "initial_state": initial, "tags": (kind, "handoff", "synthesized"),
        "rule": {"all_of": clauses},
    })


def handoff_tasks(world: World, schema: WorldSchema) -> list[TaskSpec]:
    """Every handoff task the world allows (not yet sanity-checked), in a stable order."""
    out: list[TaskSpec] = []
    used: set[str] = set()
    all_sinks = list(sinks(world))
    for src in sources(world):
        text: Raw = {"type": "text", "from": "app_data", "source": src.source}
        for sink in all_sinks:
            if sink.app == src.app:
                continue

            def add(kind: str, instruction: str, clauses: list[Raw], params: Raw,
                    initial: Raw, src: Source = src, sink: Sink = sink) -> None:
                tid = re.sub(r"[^a-z0-9_]+", "_", f"{kind}_{src.slug}_to_{sink.slug}_{sink.app}")
                tid = re.sub(r"_+", "_", tid).strip("_")[:70]
                base, n = tid, 2
                while tid in used:
                    tid, n = f"{base}_{n}", n + 1
                used.add(tid)
                out.append(_task(schema, tid, kind, instruction, clauses + kept,
                                 {**params, **sink.params}, initial))

            target = sink.clauses("text")
            made = target[0].get("exists", {}).get("where")
            kept = [p for p in pins(world, target[-1].get("count", {}).get("collection", ""),
                                    made) if p not in target]
            what = f'{src.what} "{{text}}" from {src.label}'
            copied = [{"equals": {"var": CLIPBOARD, "value": {"param": "text"}}}, *target]
            add("copy", f"Copy {what} and paste it {sink.phrase}", copied, {"text": text},
                {CLIPBOARD: ""})
            if len(src.values) > 1:
                apart = {**text, "distinct_from": ["stale"]}
                add("stale_clipboard", f"Copy {what} and paste it {sink.phrase}", copied,
                    {"text": apart, "stale": text}, {CLIPBOARD: {"param": "stale"}})
            else:
                add("stale_clipboard", f"Copy {what} and paste it {sink.phrase}", copied,
                    {"text": text}, {CLIPBOARD: "Meeting moved to 3pm"})
            if sink.receive:
                add("share", f"Share {what} to {sink.label} and put it {sink.phrase}", target,
                    {"text": text}, {})
            if sink.pick:
                saved = [{"exists": {"collection": FILES, "where": {"text": {"param": "text"}}}},
                         *target]
                add("file", f"Save {what} as a file, then attach it {sink.phrase}", saved,
                    {"text": text}, {})
    return out
