"""`World`: several compiled apps on one simulated device, with the device services they share.

One `Simulator` per app, plus the system screens of `phoneworld.world.system`. The foreground is
the launcher (`@home`), an app, or an overlay over either (recents, notification shade, text
toolbar, share sheet, file picker). What an action does:

- `home`: back to the launcher; the app keeps its place (screen, back stack) as on a phone.
  `open_app PKG`, a launcher icon or a recents entry brings the app back where it was (or to its
  start screen the first time). `close_app` ends the foreground app (next time it starts over).
  `back` at the bottom of an app's stack leaves it to the launcher (or to the app that shared
  into it), and the app starts over next time.
- a `long_press` on text the app does not handle itself opens the text toolbar: Copy and Share for
  text, Paste for an editable field when the clipboard holds text. Copy puts the widget's text on
  the clipboard; Paste sets the field's text to the clipboard's (as `type` sets it); Share opens
  the share sheet with the text.
- a click on a Share widget (`phoneworld.world.wiring`) opens the share sheet with that screen's
  text. The sheet lists the apps that can receive (and "Files"): picking an app opens its "new
  item" screen with the text in its field; "Files" saves the text as a file.
- a click on an Attach widget opens the file picker; the picked file's text goes into the app's
  field. A transition that posts a notification adds it to the shade (the launcher's status bar,
  or a drag down from the top edge, opens it); tapping one opens its app and dismisses it.
- in an overlay, a tap outside its panel or `back` dismisses it; nothing else is typed or scrolled.

World state (`state`, JSON): every app variable as `"<package>:<variable>"`, plus `@clipboard`
(text), `@files` (records name, text, app) and `@notifications` (records app, text), and, read
only, `@screen`: the foreground's screen as `screen` names it (`<package>:<screen>`, `@home` or
an overlay's id); `reset` ignores it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from difflib import get_close_matches
from typing import Any

from phoneworld.errors import EnvError
from phoneworld.ir.app import AppSpec
from phoneworld.runtime.compiled import LAUNCHER
from phoneworld.runtime.frame import Frame, RNode, dispatch
from phoneworld.runtime.sim import SimSnapshot, Simulator, StepResult
from phoneworld.runtime.validate import SCREEN
from phoneworld.world import system as sy
from phoneworld.world.load import WorldDef
from phoneworld.world.wiring import AppWiring, wire

CLIPBOARD, FILES, NOTIFICATIONS = "@clipboard", "@files", "@notifications"
SERVICES = (CLIPBOARD, FILES, NOTIFICATIONS)
FILES_TARGET = "@files"
EDGE = 100  # px from the top edge where a drag down opens the shade
NOTHING = StepResult(False)


@dataclass(frozen=True)
class Overlay:
    """A modal system screen over the foreground: what it is and what it acts on."""

    screen: str
    text: str = ""  # toolbar: the long-pressed text; share sheet: what is shared
    field: tuple[str, int, int] | None = None  # (package, x, y) of the field to paste / pick into
    source: str = ""  # share sheet: package that shares ("" from the shade)
    targets: tuple[str, ...] = ()  # share sheet: packages, then FILES_TARGET
    under: Overlay | None = None


@dataclass(frozen=True)
class Services:
    """The device services' state; replaced, never modified, so snapshots can share it."""

    clipboard: str = ""
    files: tuple[tuple[str, str, str], ...] = ()  # (name, text, app label)
    notifications: tuple[tuple[str, str], ...] = ()  # (package, text), newest first


@dataclass(frozen=True)
class WorldSnapshot:
    apps: tuple[SimSnapshot, ...]
    services: Services
    foreground: str
    overlay: Overlay | None
    recents: tuple[str, ...]
    back_to: tuple[tuple[str, str], ...]


class WorldState(Mapping[str, Any]):
    """The live world state as a read-only mapping (no copy): what verifiers read in a search."""

    def __init__(self, world: World) -> None:
        self._w = world

    def __getitem__(self, key: str) -> Any:
        w = self._w
        if key in SERVICES:
            return w.service_value(key)
        if key == SCREEN:
            return w.screen
        pkg, _, name = key.rpartition(":")
        sim = w.sims.get(pkg)
        if sim is None or name not in sim.app.vars:
            raise KeyError(key)
        return sim.peek()[name]

    def __iter__(self) -> Iterator[str]:
        for pkg, sim in self._w.sims.items():
            for name in sim.app.vars:
                yield f"{pkg}:{name}"
        yield from SERVICES
        yield SCREEN

    def __len__(self) -> int:
        return sum(len(s.app.vars) for s in self._w.sims.values()) + len(SERVICES) + 1


class World:
    """The device of a world (see the module docstring)."""

    def __init__(self, world: WorldDef) -> None:
        self.defn = world
        self.sims = {a.spec.package: Simulator(a.spec) for a in world.apps}
        self.wiring: dict[str, AppWiring] = {a.spec.package: wire(a.spec, a.entry) for a in world.apps}
        self.labels = {a.spec.package: a.spec.label for a in world.apps}
        self.device = world.apps[0].spec.device
        self.system_spec: AppSpec = sy.system_spec(list(self.labels.values()), self.device)
        self.system = Simulator(self.system_spec)
        self.receivers = tuple(p for p, w in self.wiring.items() if w.receive is not None)
        self._state_cache: dict[str, tuple[int, dict[str, Any]]] = {}
        s = world.spec
        self.initial_services = Services(
            s.clipboard, tuple((f.name, f.text, f.app) for f in s.files),
            tuple((n.app, n.text) for n in s.notifications))
        self.reset()

    # ------------------------------------------------------------------ state

    def reset(self, state: Mapping[str, Any] | None = None) -> None:
        """Every app at its start screen in `state` (None: the initial state; a partial state
        overrides the initial one per variable), the launcher in front, no recents."""
        per_app: dict[str, dict[str, Any]] = {p: {} for p in self.sims}
        services = self.initial_services
        for key, value in (state or {}).items():
            if key == SCREEN:
                continue  # where the world was: every app starts at its start screen
            if key in SERVICES:
                services = _set_service(services, key, value)
                continue
            pkg, _, name = key.rpartition(":")
            if pkg not in per_app:
                near = get_close_matches(pkg, list(per_app), n=1)
                hint = f"; did you mean {near[0]!r}?" if near else ""
                raise EnvError(f"world state key {key!r}: no app {pkg!r} in this world{hint} "
                               "(keys are '<package>:<variable>' or @clipboard/@files/@notifications)")
            per_app[pkg][name] = value
        for pkg, sim in self.sims.items():
            sim.reset({**sim.app.initial_state, **per_app[pkg]} if per_app[pkg] else None)
        self.services = services
        self.foreground, self.overlay = sy.HOME, None
        self.recents: tuple[str, ...] = ()
        self.back_to: dict[str, str] = {}
        self._sys_shown: tuple[Any, ...] | None = None

    def service_value(self, key: str) -> Any:
        s = self.services
        if key == CLIPBOARD:
            return s.clipboard
        if key == FILES:
            return [{"name": n, "text": t, "app": a} for n, t, a in s.files]
        return [{"app": self.labels.get(p, p), "package": p, "text": t} for p, t in s.notifications]

    @property
    def state(self) -> dict[str, Any]:
        """The world state, JSON-able: a fresh dict whose values are copied when their app changed
        since the last call and shared with the previous result otherwise (read it, do not modify
        it; a step would otherwise copy every app's state, not only the one in front)."""
        out: dict[str, Any] = {}
        for pkg, sim in self.sims.items():
            hit = self._state_cache.get(pkg)
            if hit is None or hit[0] != sim.version:
                hit = (sim.version, {f"{pkg}:{k}": v for k, v in sim.state.items()})
                self._state_cache[pkg] = hit
            out.update(hit[1])
        out.update({k: self.service_value(k) for k in SERVICES})
        out[SCREEN] = self.screen
        return out

    def peek(self) -> WorldState:
        return WorldState(self)

    def observed(self) -> WorldState:
        """The state as a verifier reads it (`peek`: it holds `@screen` already)."""
        return WorldState(self)

    def snapshot(self) -> WorldSnapshot:
        return WorldSnapshot(tuple(s.snapshot() for s in self.sims.values()), self.services,
                             self.foreground, self.overlay, self.recents,
                             tuple(sorted(self.back_to.items())))

    def restore(self, snap: WorldSnapshot) -> None:
        for sim, s in zip(self.sims.values(), snap.apps, strict=True):
            sim.restore(s)
        self.services, self.foreground, self.overlay = snap.services, snap.foreground, snap.overlay
        self.recents, self.back_to = snap.recents, dict(snap.back_to)

    def fork(self) -> World:
        """An independent world in this one's state that shares its compiled apps, wiring and
        system screens (nothing is compiled again)."""
        twin = copy.copy(self)
        twin.sims = {p: Simulator(sim.app) for p, sim in self.sims.items()}
        twin.system = Simulator(self.system.app)
        twin._state_cache, twin._sys_shown = {}, None
        twin.restore(self.snapshot())
        return twin

    # ------------------------------------------------------------------ observation

    @property
    def screen(self) -> str:
        """The foreground's screen id: an overlay's or the launcher's, else `<package>:<screen>`."""
        if self.overlay is not None:
            return self.overlay.screen
        if self.foreground == sy.HOME:
            return sy.HOME
        return f"{self.foreground}:{self.sims[self.foreground].screen}"

    def frame(self) -> Frame:
        if self.overlay is None and self.foreground != sy.HOME:
            return self.sims[self.foreground].frame()
        screen = self.overlay.screen if self.overlay is not None else sy.HOME
        key = (screen, self.services, self.recents, self.overlay)
        if key != self._sys_shown:
            self.system.set_position(screen, self._system_state())
            self._sys_shown = key
        return self.system.frame()

    def _system_state(self) -> dict[str, Any]:
        o, s = self.overlay, self.services
        return {
            "recents": [{"label": self.labels[p]} for p in self.recents],
            "notifications": [{"app": self.labels.get(p, p), "text": t} for p, t in s.notifications],
            "targets": [{"label": "Files" if p == FILES_TARGET else self.labels[p]}
                        for p in (o.targets if o is not None else ())],
            "files": [{"name": n} for n, _, _ in s.files],
        }

    # ------------------------------------------------------------------ actions

    def step(self, action: Any) -> StepResult:
        """Apply one `phoneworld.ir.trace` action (device pixels)."""
        t = action.type
        if t == "done" or (t == "wait" and (self.overlay is not None
                                            or self.foreground not in self.sims)):
            return NOTHING
        if t == "home":
            changed = self.foreground != sy.HOME or self.overlay is not None
            self.foreground, self.overlay = sy.HOME, None
            return StepResult(changed, left_app=changed)
        if t == "open_app":
            return self._open(action.package) if action.package in self.sims else NOTHING
        if t == "drag" and action.y1 < EDGE and action.y2 - action.y1 > 200:
            return self._show(Overlay(sy.SHADE, under=self.overlay))
        if self.overlay is not None:
            return self._overlay_step(action)
        if self.foreground == sy.HOME:
            return self._home_step(action)
        return self._app_step(self.foreground, action)

    def _show(self, overlay: Overlay | None) -> StepResult:
        self.overlay = overlay
        return StepResult(True)

    def _open(self, pkg: str, via: str | None = None) -> StepResult:
        before = (self.foreground, self.overlay)
        self.foreground, self.overlay = pkg, None
        self.recents = (pkg, *(p for p in self.recents if p != pkg))
        if via is not None and via != pkg:
            self.back_to[pkg] = via
        return StepResult(before != (pkg, None), left_app=before[0] != pkg)

    def _system_hit(self, x: float, y: float, long: bool = False) -> RNode | None:
        ok = (lambda n: n.c.long_clickable) if long else (lambda n: n.c.clickable)
        return dispatch(self.frame().root, x, y, ok)

    def _home_step(self, a: Any) -> StepResult:
        if a.type != "click":
            return NOTHING
        n = self._system_hit(a.x, a.y)
        if n is None:
            return NOTHING
        wid = n.c.wid
        if wid == "status_bar":
            return self._show(Overlay(sy.SHADE))
        if wid == "recents_button":
            return self._show(Overlay(sy.RECENTS))
        if wid.startswith("icon_"):
            return self._open(list(self.sims)[int(wid[5:])])
        return NOTHING

    # ------------------------------------------------------------------ overlays

    def _overlay_step(self, a: Any) -> StepResult:
        o = self.overlay
        assert o is not None
        if a.type == "back":
            return self._show(o.under)
        if a.type == "long_press" and o.screen == sy.SHADE:
            n = self._system_hit(a.x, a.y, long=True)
            if n is not None and n.text:
                return self._show(Overlay(sy.MENUS[(True, False)], n.text, under=o))
        if a.type != "click":
            return NOTHING
        n = self._system_hit(a.x, a.y)
        if n is None or n.c.wid == "scrim":
            return self._show(o.under)
        wid, item = n.c.wid, n.item
        if wid == "menu_copy":
            self.services = replace(self.services, clipboard=o.text)
            return self._show(o.under)
        if wid == "menu_paste" and o.field is not None:
            self.overlay = o.under
            return self._fill(o.field, self.services.clipboard)
        if wid == "menu_share":
            return self._share(o.text, o.source, o.under)
        if wid == "share_target" and item is not None:
            return self._deliver(o, o.targets[item])
        if wid == "file_item" and item is not None and o.field is not None:
            self.overlay = o.under
            return self._fill(o.field, self.services.files[item][1])
        if wid == "recent_item" and item is not None:
            return self._open(self.recents[item])
        if wid == "notification_item" and item is not None:
            pkg = self.services.notifications[item][0]
            rest = self.services.notifications[:item] + self.services.notifications[item + 1:]
            self.services = replace(self.services, notifications=rest)
            return self._open(pkg) if pkg in self.sims else self._show(None)
        if wid == "clear_all":
            self.services = replace(self.services, notifications=())
            return StepResult(True)
        return NOTHING

    def _share(self, text: str, source: str, under: Overlay | None) -> StepResult:
        targets = (*self.receivers, FILES_TARGET)
        return self._show(Overlay(sy.SHARE, text, source=source, targets=targets, under=under))

    def _deliver(self, o: Overlay, target: str) -> StepResult:
        if target == FILES_TARGET:
            name = (o.text.splitlines() or [""])[0][:40] or "Untitled"
            label = self.labels.get(o.source, "")
            self.services = replace(self.services, files=(*self.services.files, (name, o.text, label)))
            return self._show(o.under)
        sim, receive = self.sims[target], self.wiring[target].receive
        assert receive is not None
        sim.set_position(sim.app.start, sim.state)
        for wid in receive.path:
            n = _node(sim, wid)
            if n is not None:
                sim.tap(*n.center)
        self._open(target, via=o.source or None)
        n = _node(sim, receive.field)
        if n is not None:
            self._fill((target, *n.center), o.text)
        return StepResult(True)

    def _fill(self, where: tuple[str, int, int], text: str) -> StepResult:
        """Focus the field at (x, y) of an app and set its text (paste, a picked file, a share)."""
        pkg, x, y = where
        sim = self.sims[pkg]
        sim.tap(x, y)
        sim.type_text(text)
        return StepResult(True)

    # ------------------------------------------------------------------ apps

    def _app_step(self, pkg: str, a: Any) -> StepResult:
        sim, wiring = self.sims[pkg], self.wiring[pkg]
        if a.type == "long_press":
            got = self._long_press(pkg, sim, a.x, a.y)
            if got is not None:
                return got
        elif a.type == "click" and (wiring.share or wiring.pick):
            got = self._wired_click(pkg, sim, wiring, a.x, a.y)
            if got is not None:
                return got
        if a.type == "close_app":
            sim.set_position(sim.app.start, sim.state)
            self.recents = tuple(p for p in self.recents if p != pkg)
            self.foreground = sy.HOME
            return StepResult(True, left_app=True)
        r = sim.step(a)
        if r.transition is not None and r.transition in wiring.notify:
            self._notify(pkg, sim, r.transition)
        if sim.screen == LAUNCHER:  # backed out of its last screen: the activity is finished
            sim.set_position(sim.app.start, sim.state)
            self.foreground = self.back_to.pop(pkg, sy.HOME)
            return StepResult(True, r.transition, True, r.widget)
        return r

    def _long_press(self, pkg: str, sim: Simulator, x: float, y: float) -> StepResult | None:
        root, sid, trans = sim.frame().root, sim.screen, sim.app.transitions
        if dispatch(root, x, y, lambda n: (sid, "long_press", n.c.wid) in trans) is not None:
            return None  # the app handles it
        n = dispatch(root, x, y, lambda n: n.c.editable or bool(n.text))
        if n is None:
            return None
        text = "" if n.c.password else n.text
        paste = n.c.editable and n.c.enabled and bool(self.services.clipboard)
        if not text and not paste:
            return None
        field = (pkg, *n.center) if paste else None
        return self._show(Overlay(sy.MENUS[(bool(text), paste)], text, field, pkg))

    def _wired_click(self, pkg: str, sim: Simulator, wiring: AppWiring, x: float,
                     y: float) -> StepResult | None:
        sid = sim.screen
        n = dispatch(sim.frame().root, x, y,
                     lambda n: (sid, n.c.wid) in wiring.share or (sid, n.c.wid) in wiring.pick)
        if n is None:
            return None
        key = (sid, n.c.wid)
        if key in wiring.pick:
            f = _node(sim, wiring.pick[key])
            return self._show(Overlay(sy.PICKER, field=(pkg, *f.center) if f else None, source=pkg))
        return self._share(_share_text(sim, wiring.share[key], n.c.wid), pkg, None)

    def _notify(self, pkg: str, sim: Simulator, transition: str) -> None:
        app = sim.app
        t = next(t for t in app.spec.transitions if t.id == transition)
        for e in t.effects:
            if e.kind == "append":
                recs = sim.peek().get(e.collection) or []
                rec = recs[0 if e.position == "start" else -1] if recs else {}
                words = [str(v) for v in rec.values() if isinstance(v, str) and v]
                text = f"{app.label}: {', '.join(reversed(words))}"
                self.services = replace(self.services,
                                        notifications=((pkg, text), *self.services.notifications))


def _node(sim: Simulator, wid: str) -> RNode | None:
    return next((n for n in sim.frame().nodes if n.c.wid == wid and n.item is None), None)


def _share_text(sim: Simulator, text_from: str | None, button: str) -> str:
    if text_from is not None:
        n = _node(sim, text_from)
        return n.text if n is not None else ""
    nodes = [n for n in sim.frame().nodes if n.text and n.c.wid != button and not n.c.editable]
    bound = [n for n in nodes if n.c.static_text is None]
    return (bound or nodes or [None])[0].text if (bound or nodes) else ""  # type: ignore[union-attr]


def _set_service(s: Services, key: str, value: Any) -> Services:
    try:
        if key == CLIPBOARD:
            return replace(s, clipboard="" if value is None else str(value))
        if key == FILES:
            return replace(s, files=tuple((str(r["name"]), str(r.get("text", "")), str(r.get("app", "")))
                                          for r in value or ()))
        return replace(s, notifications=tuple((str(r.get("package", r.get("app", ""))), str(r["text"]))
                                              for r in value or ()))
    except (TypeError, KeyError, AttributeError) as exc:
        raise EnvError(f"world state {key}: expected records ({exc!r}); files have name, text, "
                       "app; notifications have package (or app) and text") from exc
