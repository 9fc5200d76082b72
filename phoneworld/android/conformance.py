"""Step-by-step agreement of the Kotlin core (on the JVM) with the Python simulator.

Both sides run the same action sequences from a reset and, after every step, write one *record*:
the JSON array [screen, package, activity, back stack, transition fired, left app, nodes, state],
each node [wid, item, index, x1, y1, x2, y2, text, checked, focused, class, resource-id,
content-desc], serialized like `json.dumps(ensure_ascii=True, separators=(",", ":"))`. The JVM
driver (`Replay.kt`) prints each record's MD5; sequences that differ are replayed verbosely so the
report can show the first differing field.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from phoneworld.ir import trace as tr
from phoneworld.ir.app import AppSpec
from phoneworld.runtime.sim import Simulator, StepResult

# Texts typed by random sequences: numbers in Python's and other scripts' digits, truthiness
# edge cases, whitespace Python strips, markup, quotes, templates, emoji, newlines.
TEXTS = (
    "", "a", "Buy milk", "0", "7", "-7", "+42", " 12 ", "007", "false", "FALSE", " False ", "true",
    "\u0663\u0660", "\u00a012\u2003", "\u0085 0 \u0085", "1e3", "3.5", "null", "$x ${y}",
    'say "hi" \\ bye', "line\nbreak\ttab", "<b>&amp;</b>", "emoji \U0001F600 \u200d", "\u0130",
    "x" * 300,
)
KEYS = ("back", "back", "back", "enter", "menu")


@dataclass
class Sequence:
    actions: list[list[Any]]
    state: dict[str, Any] | None = None
    screen: str | None = None
    label: str = ""

    def job(self) -> dict[str, Any]:
        return {"state": self.state, "screen": self.screen, "actions": self.actions}


def to_trace(a: list[Any]) -> Any:
    """A JSON action (as `Replay.kt` reads it) as a trace action model."""
    kind = a[0]
    if kind in ("click", "double_click", "long_press"):
        cls = {"click": tr.Click, "double_click": tr.DoubleClick, "long_press": tr.LongPress}[kind]
        return cls(x=a[1], y=a[2])
    if kind == "type":
        return tr.TypeText(text=a[1])
    if kind == "scroll":
        return tr.Scroll(direction=a[1], x=a[2], y=a[3])
    if kind == "drag":
        return tr.Drag(x1=a[1], y1=a[2], x2=a[3], y2=a[4])
    if kind == "open_app":
        return tr.OpenApp(package=a[1])
    simple = {"back": tr.Back, "enter": tr.Enter, "menu": tr.Menu, "home": tr.Home,
              "close_app": tr.CloseApp, "wait": tr.Wait, "done": tr.Done}
    return simple[kind]()


def from_trace(action: Any) -> list[Any]:
    """A trace action model as a JSON action."""
    t = action.type
    if t in ("click", "double_click", "long_press"):
        return [t, action.x, action.y]
    if t == "type":
        return [t, action.text]
    if t == "scroll":
        return [t, action.direction, action.x, action.y]
    if t == "drag":
        return [t, action.x1, action.y1, action.x2, action.y2]
    if t == "open_app":
        return [t, action.package]
    return [t]


class Recorder:
    """Builds the simulator's records; a rendered frame's nodes are serialized once."""

    def __init__(self) -> None:
        self._nodes: dict[int, tuple[Any, str]] = {}

    def nodes_json(self, frame: Any) -> str:
        hit = self._nodes.get(id(frame))
        if hit is not None and hit[0] is frame:
            return hit[1]
        text = json.dumps([
            [n.c.wid, n.item, n.idx, n.x1, n.y1, n.x2, n.y2, n.text, n.checked, n.focused, n.c.cls,
             n.c.resource_id, n.c.content_desc] for n in frame.nodes
        ], ensure_ascii=True, separators=(",", ":"))
        if len(self._nodes) > 4096:
            self._nodes.clear()
        self._nodes[id(frame)] = (frame, text)
        return text

    def record(self, sim: Simulator, r: StepResult | None) -> str:
        f = sim.frame()
        head = json.dumps([f.screen, f.package, f.activity, list(sim.stack),
                           r.transition if r else None, r.left_app if r else False],
                          ensure_ascii=True, separators=(",", ":"))
        state = json.dumps(sim.state, ensure_ascii=True, separators=(",", ":"))
        return f"{head[:-1]},{self.nodes_json(f)},{state}]"


def md5(text: str) -> str:
    return hashlib.md5(text.encode("ascii")).hexdigest()


def expected_records(sim: Simulator, seq: Sequence, rec: Recorder,
                     fired: set[str] | None = None) -> list[str]:
    """The simulator's records of `seq`: after the reset, then after every action (the
    transitions that fire are added to `fired`)."""
    sim.reset(seq.state, seq.screen)
    out = [rec.record(sim, None)]
    for a in seq.actions:
        r = sim.step(to_trace(a))
        if fired is not None and r.transition is not None:
            fired.add(r.transition)
        out.append(rec.record(sim, r))
    return out


# ----------------------------------------------------------------------------- sequences


def episode_sequences(episodes: Iterable[Any]) -> list[Sequence]:
    """Each recorded episode's actions, from the app's initial state and start screen."""
    out = []
    for ep in episodes:
        actions = [from_trace(s.action) for s in ep.steps if s.action is not None]
        out.append(Sequence(actions, label=f"episode {ep.id}"))
    return out


class RandomWalk:
    """Random action sequences that mostly hit widgets on the screen at hand."""

    def __init__(self, spec: AppSpec, seed: int) -> None:
        self.spec, self.rng = spec, random.Random(seed)
        self.sim = Simulator(spec)
        self.w, self.h = spec.device.width, spec.device.height

    def sequences(self, n: int, steps: int) -> list[Sequence]:
        return [self.sequence(i, steps) for i in range(n)]

    def sequence(self, i: int, steps: int) -> Sequence:
        state, screen = self._start() if self.rng.random() < 0.2 else (None, None)
        self.sim.reset(state, screen)
        actions = []
        for _ in range(steps):
            a = self.action()
            actions.append(a)
            self.sim.step(to_trace(a))
        return Sequence(actions, state, screen, label=f"random {i}")

    def _start(self) -> tuple[dict[str, Any], str]:
        """A seeded state (texts and flags changed, selections moved) and a random screen."""
        state = self.sim.app.initial_state
        seeded: dict[str, Any] = json.loads(json.dumps(state))
        for v in self.spec.state:
            if v.kind == "text":
                seeded[v.name] = self.rng.choice(TEXTS)
            elif v.kind == "flag":
                seeded[v.name] = self.rng.random() < 0.5
            elif v.kind == "number":
                seeded[v.name] = self.rng.randint(-3, 30)
            elif v.kind == "selection":
                seeded[v.name] = self.rng.choice([None, 0, 1, 2, 99])
            elif v.kind == "collection":
                seeded[v.name] = seeded.get(v.name, []) + [
                    self._record(v) for _ in range(self.rng.randrange(12))]
        seeded["verifier_note"] = {"kept": [1, "two", None]}
        return seeded, self.rng.choice([s.id for s in self.spec.screens])

    def _record(self, v: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in v.fields:
            if f.kind == "text":
                out[f.name] = self.rng.choice(TEXTS)
            elif f.kind == "flag":
                out[f.name] = self.rng.random() < 0.5
            else:
                out[f.name] = self.rng.randint(-3, 30)
        return out

    def action(self) -> list[Any]:
        r, rng = self.rng.random(), self.rng
        if r < 0.55:
            x, y = self._point()
            return [rng.choice(("click", "click", "click", "long_press", "double_click")), x, y]
        if r < 0.68:
            return ["type", rng.choice(TEXTS)]
        if r < 0.76:
            d = rng.choice(("up", "down", "down", "left", "right"))
            if rng.random() < 0.5:
                return ["scroll", d, None, None]
            return ["scroll", d, *self._point()]
        if r < 0.80:
            x, y = self._point()
            return ["drag", x, y, rng.randrange(self.w), rng.randrange(self.h)]
        if r < 0.94:
            return [rng.choice(KEYS)]
        if r < 0.97:
            return [rng.choice(("home", "close_app", "wait"))]
        return ["open_app", self.spec.package if rng.random() < 0.8 else "com.other.app"]

    def _point(self) -> tuple[int, int]:
        nodes = self.sim.frame().nodes
        if nodes and self.rng.random() < 0.85:
            n = self.rng.choice(nodes)
            if n.x2 > n.x1 and n.y2 > n.y1:
                return self.rng.randrange(n.x1, n.x2), self.rng.randrange(n.y1, n.y2)
        return self.rng.randrange(self.w), self.rng.randrange(self.h)


# ----------------------------------------------------------------------------- comparison


@dataclass
class Mismatch:
    sequence: int
    label: str
    step: int  # 0: after the reset
    action: list[Any] | None
    field: str
    python: Any
    kotlin: Any

    def __str__(self) -> str:
        act = json.dumps(self.action, ensure_ascii=False) if self.action else "reset"
        return (f"{self.label} (#{self.sequence}) step {self.step} after {act}: {self.field} "
                f"differs:\n  python {str(self.python)[:600]}\n  kotlin {str(self.kotlin)[:600]}")


@dataclass
class Agreement:
    app: str
    sequences: int = 0
    steps: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    fired: set[str] = field(default_factory=set)  # transitions the sequences exercised

    @property
    def ok(self) -> bool:
        return not self.mismatches


FIELDS = ("screen", "package", "activity", "stack", "transition", "left app", "nodes", "state")


def first_difference(seq_index: int, seq: Sequence, step: int, python: str,
                     kotlin: str) -> Mismatch:
    """Which field of a step's records differs (records are compared parsed)."""
    action = seq.actions[step - 1] if step > 0 else None
    try:
        p, k = json.loads(python), json.loads(kotlin)
    except ValueError:
        return Mismatch(seq_index, seq.label, step, action, "record", python, kotlin)
    for name, pv, kv in zip(FIELDS, p, k, strict=False):
        if pv != kv:
            if name == "nodes":
                for i, (pn, kn) in enumerate(zip(pv, kv, strict=False)):
                    if pn != kn:
                        return Mismatch(seq_index, seq.label, step, action, f"node {i}", pn, kn)
                return Mismatch(seq_index, seq.label, step, action, "node count", len(pv), len(kv))
            return Mismatch(seq_index, seq.label, step, action, name, pv, kv)
    return Mismatch(seq_index, seq.label, step, action, "formatting", python, kotlin)
