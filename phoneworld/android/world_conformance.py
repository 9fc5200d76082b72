"""Step-by-step agreement of an app's world core (`core/Wiring.kt`, on the JVM) with the world
simulator (`phoneworld.world.device.World`).

The Kotlin side is one app's state machine with the world's operations on it (what the Android
shell calls when the real clipboard, ACTION_SEND, the file picker or NotificationManager are
involved); the Python side is the whole `World`, driven only through its public actions: a long
press and a tap on the toolbar's Paste, a click on an Attach widget and on the picker's file, a
share into the app from a notification in the shade through the share sheet. After every step
both write the app's record (`phoneworld.android.conformance`) plus what the step did in the
world: null, ["share", text] (a Share widget's text), ["pick"] (the file picker opened),
["menu", text, paste] (the text toolbar: the text to copy, and whether Paste is offered) or
["notify", [text, ...]] (notifications posted).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field, replace
from typing import Any

from phoneworld.android.conformance import TEXTS, Recorder, first_difference, to_trace
from phoneworld.ir import trace as tr
from phoneworld.runtime.sim import StepResult
from phoneworld.world import system as sy

# texts shared, pasted and attached: one line each (a share from the shade shows the text in a
# notification row first, which keeps it as one line)
WORLD_TEXTS = tuple(t for t in TEXTS if "\n" not in t and "\u0085" not in t and t.strip()) + (
    "Meeting moved to 3pm", "Pick up the parcel at 5")


def _dumps(v: Any) -> str:
    return json.dumps(v, ensure_ascii=True, separators=(",", ":"))


@dataclass
class WorldSequence:
    actions: list[list[Any]]
    records: list[str] = field(default_factory=list)  # the simulator's, one per step + reset
    label: str = ""

    def job(self) -> dict[str, Any]:
        return {"actions": self.actions}


class WorldDriver:
    """Runs world actions on one app of a `World` and writes the records `WorldReplay.kt` writes."""

    def __init__(self, world: Any, package: str) -> None:
        self.world, self.pkg = world, package
        self.sim = world.sims[package]
        self.rec = Recorder()

    def record(self, r: StepResult | None, out: Any) -> str:
        return f"{self.rec.record(self.sim, r)[:-1]},{_dumps(out)}]"

    def reset(self) -> str:
        self.world.reset()
        self.world.step(tr.OpenApp(package=self.pkg))
        return self.record(None, None)

    def _set(self, **services: Any) -> None:
        self.world.services = replace(self.world.services, **services)

    def _click_system(self, wid: str, item: int | None = None) -> bool:
        n = next((n for n in self.world.frame().nodes if n.c.wid == wid and n.item == item), None)
        if n is None:
            return False
        self.world.step(tr.Click(x=n.center[0], y=n.center[1]))
        return True

    def _dismiss(self) -> None:
        while self.world.overlay is not None:
            self.world.step(tr.Back())

    def _app_result(self, r: StepResult, notes_before: int) -> str:
        notes = self.world.services.notifications
        new = [t for _, t in reversed(notes[:len(notes) - notes_before])]
        if self.world.foreground != self.pkg:
            self.world.step(tr.OpenApp(package=self.pkg))
        return self.record(r, ["notify", new] if new else None)

    def step(self, a: list[Any]) -> str:
        w, kind = self.world, a[0]
        before = len(w.services.notifications)
        if kind in ("w_click", "w_attach"):
            if kind == "w_attach":
                self._set(files=(("file", a[3], ""),))
            r = w.step(tr.Click(x=a[1], y=a[2]))
            o = w.overlay
            if o is not None and o.screen == sy.SHARE:
                self._dismiss()
                return self.record(None, ["share", o.text])
            if o is not None and o.screen == sy.PICKER:
                if kind == "w_attach" and o.field is not None:
                    self._click_system("file_item", 0)
                self._dismiss()
                return self.record(None, ["pick"])
            return self._app_result(r, before)
        if kind in ("w_long_press", "w_paste"):
            self._set(clipboard=a[3])
            r = w.step(tr.LongPress(x=a[1], y=a[2]))
            o = w.overlay
            if o is not None and o.screen in sy.MENUS.values():
                if kind == "w_paste" and o.field is not None:
                    self._click_system("menu_paste")
                self._dismiss()
                return self.record(None, ["menu", o.text, o.field is not None])
            return self._app_result(r, before)
        if kind == "w_receive":
            self._receive(a[1])
            return self.record(None, None)
        return self._app_result(w.step(to_trace(a)), before)

    def _receive(self, text: str) -> None:
        """A share into the app, as a user does it: a notification's text, long-pressed in the
        shade, Share, then the app in the share sheet."""
        w = self.world
        if self.pkg not in w.receivers:
            return
        self._set(notifications=(("phoneworld.sender", text),))
        w.step(tr.Drag(x1=w.device.width // 2, y1=10, x2=w.device.width // 2, y2=700))
        n = next(n for n in w.frame().nodes if n.c.wid == "notification_text" and n.item == 0)
        w.step(tr.LongPress(x=n.center[0], y=n.center[1]))
        self._click_system("menu_share")
        o = w.overlay
        assert o is not None and o.screen == sy.SHARE, o
        self._click_system("share_target", o.targets.index(self.pkg))
        self._set(notifications=())
        self._dismiss()


class WorldWalk:
    """Random world action sequences on one app, recorded on the simulator as they are drawn."""

    def __init__(self, world: Any, package: str, seed: int) -> None:
        self.driver = WorldDriver(world, package)
        self.rng = random.Random(seed)
        dev = world.device
        self.w, self.h = dev.width, dev.height

    def sequences(self, n: int, steps: int) -> list[WorldSequence]:
        return [self.sequence(i, steps) for i in range(n)]

    def sequence(self, i: int, steps: int) -> WorldSequence:
        seq = WorldSequence([], [self.driver.reset()], label=f"world random {i}")
        for _ in range(steps):
            a = self.action()
            seq.actions.append(a)
            seq.records.append(self.driver.step(a))
        return seq

    def _point(self) -> tuple[int, int]:
        nodes = self.driver.sim.frame().nodes
        if nodes and self.rng.random() < 0.9:
            n = self.rng.choice(nodes)
            if n.x2 > n.x1 and n.y2 > n.y1:
                y1 = max(n.y1, sy.STATUS_H)  # not on the status bar (a drag there opens the shade)
                return self.rng.randrange(n.x1, n.x2), self.rng.randrange(y1, max(n.y2, y1 + 1))
        return self.rng.randrange(self.w), self.rng.randrange(sy.STATUS_H, self.h)

    def action(self) -> list[Any]:
        r, rng = self.rng.random(), self.rng
        text = rng.choice(WORLD_TEXTS)
        if r < 0.40:
            return ["w_click", *self._point()]
        if r < 0.50:
            return ["w_long_press", *self._point(), rng.choice(("", text))]
        if r < 0.60:
            return ["w_paste", *self._point(), text]
        if r < 0.67:
            return ["w_attach", *self._point(), text]
        if r < 0.73:
            return ["w_receive", text]
        if r < 0.85:
            return ["type", rng.choice(TEXTS)]
        if r < 0.90:
            return ["scroll", rng.choice(("up", "down")), None, None]
        if r < 0.93:
            return ["double_click", *self._point()]
        return [rng.choice(("back", "back", "enter", "wait"))]


@dataclass
class WorldAgreement:
    app: str
    sequences: int = 0
    steps: int = 0
    outputs: dict[str, int] = field(default_factory=dict)  # world output kind -> steps
    mismatches: list[Any] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def agree_world(core: Any, project: Any, package: str, sequences: list[WorldSequence]
                ) -> WorldAgreement:
    """Replay `sequences` with `WorldReplay.kt` and compare every record with the simulator's."""
    from phoneworld.android.conformance import Sequence
    from phoneworld.android.jvm import _split, replay

    result = WorldAgreement(package, len(sequences), sum(len(s.actions) for s in sequences))
    got = _split(replay(core, project, {"sequences": [s.job() for s in sequences]},
                        main="WorldReplayKt"))
    for i, seq in enumerate(sequences):
        have = got[i] if i < len(got) else []
        for step, want in enumerate(seq.records):
            out = json.loads(want)[-1]
            if out is not None:
                result.outputs[out[0]] = result.outputs.get(out[0], 0) + 1
            k = have[step] if step < len(have) else "<no record>"
            if k != want:
                m = first_difference(i, Sequence(seq.actions, label=seq.label), step, want, k)
                if m.field == "formatting":  # the 9th field: what the step did in the world
                    m.field = "world output"
                    m.python, m.kotlin = json.loads(want)[-1], _last(k)
                result.mismatches.append(m)
                break
    return result


def _last(record: str) -> Any:
    try:
        return json.loads(record)[-1]
    except ValueError:
        return record
