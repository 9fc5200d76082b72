"""The in-process simulator: the state machine of a compiled app (DESIGN section 5, backend `sim`).

`Simulator(spec)` holds the app state (a JSON-able dict keyed by state variable) and the UI state
apart from it: the current screen, the back stack, the focused editable widget and the list scroll
offsets. `step(action)` takes a trace action in device pixels.

Semantics beyond `phoneworld.ir.app` (the Kotlin core must mirror them):
- Touch dispatch (`frame.dispatch`): children topmost-first, depth-first; the first node under the
  point that *handles* the action wins, else it bubbles up. A node handles an action when it has a
  transition for (screen, action kind, wid), is editable, is (for `click`) checkable with a bound
  `checked`, or is disabled and clickable/checkable/editable (it swallows the touch, nothing
  happens). A plain clickable node without a transition does not handle
  it, so a tap on a row's label reaches the row's transition. A node that handles it only through
  its transition, unable to take it (a recorded tap that landed where nothing could, as the graph
  pass hit-tests), gives way to the first node under the point that can take it and has a
  transition for it, unless that one is its ancestor: an overlay that cannot take a tap never
  shadows the views below it, as on Android.
  A scroll goes to the scrollable under the point when that has a transition for it, else to the
  first node that is scrollable, a list, or has a transition for it. A scroll up or down that
  leaves the app on its screen (with no transition, or one that stays) also shifts the list
  under the point (or the screen's first list) by the records its recorded scrolls moved it by
  (`ListSpec.scroll`; else max(1, max_visible - 1)), clamped.
- A transition's effects run, then navigation: `push` (to the current screen: stays), `replace`,
  `pop` (with a target: pop down to it if on the stack, else pop one and show the target in place
  of the screen below), `stay`; `target=None`: stay (or, for `pop`, pop one). Popping the bottom
  of the stack leaves the app.
- Defaults when no transition fires: a point action on an editable widget focuses it; `click` on a
  checkable widget toggles what its `checked` reads (Var / item field / selected field); `type`
  sets what the focused field's text reads (with no focused field, the first enabled editable on
  screen takes the focus first); `back` pops; `home`/`close_app`/`open_app` of
  another package leave the app to a launcher screen (`@launcher`, one icon that reopens the app);
  `open_app` of the own package (or a tap on the icon) from the launcher restarts at the start
  screen keeping state, and while the app is in front does nothing (Android brings the running task
  to the front; 275 of the corpus's 278 recorded cases stay where they were);
  `drag` is a scroll at its start point (finger up = scroll down); `wait` takes the screen's
  `wait` transition (a screen the app leaves by itself: a splash), if it has one; everything
  else does nothing.
- Navigating to a screen clears the focus; `push`/`replace` reset the target's list offsets, `pop`
  keeps them. The stack holds at most 64 screens (the oldest are dropped).

What a verifier reads (`observed()`, and every backend's `read_state`) is the app state plus the
reserved key `@screen` (`validate.SCREEN`): the current screen's id (`@launcher` once the app
was left), so that a rule can ask where the agent ended (`screen: ID`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Any

from phoneworld.errors import EnvError
from phoneworld.ir.app import AppSpec
from phoneworld.ir.trace import ViewNode
from phoneworld.runtime import semantics as sem
from phoneworld.runtime.compiled import (
    FRAME_CACHE_SIZE, LAUNCHER, LAUNCHER_ICON, CompiledApp, compile_app,
)
from phoneworld.runtime.frame import (
    Focus, Frame, RNode, build_frame, dispatch, effective_offsets, first_list,
)
from phoneworld.runtime.validate import SCREEN, copy_app_state, normalize_state

MAX_STACK = 64
_MISSING = object()


@dataclass(frozen=True, slots=True)
class StepResult:
    """What one action did: whether anything observable changed, the transition that fired (if
    any), the widget that handled it, and whether the app was left."""

    changed: bool
    transition: str | None = None
    left_app: bool = False
    widget: str | None = None


@dataclass(frozen=True)
class SimSnapshot:
    """Everything needed to put a simulator back where it was (see `Simulator.restore`)."""

    screen: str
    stack: tuple[str, ...]
    focus: Focus | None
    offsets: tuple[tuple[tuple[str, str], int], ...]
    state: dict[str, Any]

    def observed(self) -> dict[str, Any]:
        """The snapshot's state as a verifier reads it: `state` plus `@screen` (values shared)."""
        return {**self.state, SCREEN: self.screen}


class Simulator:
    """The state machine of one compiled app; cheap to create (the compiled spec is shared)."""

    def __init__(self, spec: AppSpec | CompiledApp) -> None:
        self.app = spec if isinstance(spec, CompiledApp) else compile_app(spec)
        self.spec = self.app.spec
        self.reset()

    # ------------------------------------------------------------------ position and state

    def reset(self, state: dict[str, Any] | None = None, screen: str | None = None) -> None:
        """Start over at `screen` (default: the start screen) in a copy of `state` (default: the
        spec's initial state), with an empty stack, no focus and lists at the top."""
        self.set_position(screen or self.app.start, state)

    def set_position(
        self, screen: str, state: dict[str, Any] | None, stack: list[str] | None = None,
        focus: str | Focus | None = None, offsets: dict[tuple[str, str], int] | None = None,
    ) -> None:
        """Put the app on `screen` in `state` (copied; None: the initial state) with the given
        back stack (bottom first), focus (an editable widget's wid, or (wid, record index) for
        one inside a list item) and lists' scroll `offsets` ((screen, list wid) -> records
        scrolled past; default: all at the top). For teacher-forced replay."""
        for s in [screen, *(stack or [])]:
            self._check_screen(s)
        app = self.app
        self._state = (
            copy_app_state(app.initial_state, app.vars) if state is None
            else normalize_state(app, state)
        )
        self._screen = screen
        self._stack = list(stack or [])
        self._focus: Focus | None = (focus, None) if isinstance(focus, str) else focus
        self._offsets: dict[tuple[str, str], int] = dict(offsets or {})
        self._ckeys: dict[str, Any] = {}
        self._touch()

    def _check_screen(self, screen: str) -> None:
        if screen not in self.app.screens:
            near = get_close_matches(screen, list(self.app.screens), n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise EnvError(f"app {self.app.package} has no screen {screen!r}{hint}")

    def snapshot(self) -> SimSnapshot:
        return SimSnapshot(
            self._screen, tuple(self._stack), self._focus, tuple(sorted(self._offsets.items())),
            copy_app_state(self._state, self.app.vars),
        )

    def restore(self, snap: SimSnapshot) -> None:
        self._screen, self._stack, self._focus = snap.screen, list(snap.stack), snap.focus
        self._offsets = dict(snap.offsets)
        self._state = copy_app_state(snap.state, self.app.vars)
        self._ckeys = {}
        self._touch()

    @property
    def state(self) -> dict[str, Any]:
        """A copy of the app state (JSON-able)."""
        return copy_app_state(self._state, self.app.vars)

    def peek(self) -> Mapping[str, Any]:
        """The live app state, without a copy, for readers that must not pay one per step (the
        task oracle's search). Read it before the next action; never modify it."""
        return self._state

    def observed(self) -> dict[str, Any]:
        """The state as a verifier reads it: the live app state plus `@screen`, the current
        screen (a new dict, its values shared with the live state: read it before the next
        action, never modify it)."""
        return {**self._state, SCREEN: self._screen}

    def read_state(self) -> dict[str, Any]:
        """What a backend's `read_state` gives: a copy of the app state plus `@screen`."""
        return {**self.state, SCREEN: self._screen}

    @property
    def screen(self) -> str:
        return self._screen

    @property
    def stack(self) -> tuple[str, ...]:
        return tuple(self._stack)

    @property
    def focus(self) -> Focus | None:
        return self._focus

    @property
    def offsets(self) -> dict[tuple[str, str], int]:
        return dict(self._offsets)

    @property
    def version(self) -> int:
        """A counter that moves whenever anything observable may have changed (screen, stack,
        focus, offsets, state): equal versions of one simulator mean an unchanged app."""
        return self._version

    @property
    def in_app(self) -> bool:
        return self._screen != LAUNCHER

    def _touch(self) -> None:
        self._frame: Frame | None = None
        self._version = getattr(self, "_version", 0) + 1

    def _wrote(self, names: Any, before: list[Any]) -> None:
        """Variables `names` may have been written: forget their content keys, and count a change
        when any of them now differs from `before` (their keys before the write)."""
        for n in names:
            self._ckeys.pop(n, None)
        if [self._ckey(n) for n in names] != before:
            self._touch()

    # ------------------------------------------------------------------ rendering

    def _ckey(self, name: str) -> Any:
        k = self._ckeys.get(name, _MISSING)
        if k is _MISSING:
            v = self._state.get(name)
            k = tuple(tuple(r.items()) for r in v) if isinstance(v, list) else v
            self._ckeys[name] = k
        return k

    def frame(self) -> Frame:
        """The current screen rendered in the current state (cached by content across simulators)."""
        f = self._frame
        if f is None:
            cs = self.app.screens[self._screen]
            offs = effective_offsets(cs, self._state, self._offsets) if cs.lists else ()
            key = (cs.id, tuple(self._ckey(n) for n in cs.reads), offs, self._focus)
            cache = self.app.frames
            f = cache.get(key)
            if f is None:
                f = build_frame(self.app, cs, self._state, offs, self._focus)
                if len(cache) >= FRAME_CACHE_SIZE:
                    # another thread may evict concurrently
                    with contextlib.suppress(KeyError, RuntimeError, StopIteration):
                        del cache[next(iter(cache))]
                cache[key] = f
            self._frame = f
        return f

    def xml(self) -> str:
        return self.frame().xml

    def text(self) -> str:
        return self.frame().text

    def view(self) -> ViewNode:
        return self.frame().view

    # ------------------------------------------------------------------ actions

    def step(self, action: Any) -> StepResult:
        """Apply one `phoneworld.ir.trace` action (device pixels)."""
        t = action.type
        if t in ("click", "double_click", "long_press"):
            return self.tap(action.x, action.y, t)
        if t == "type":
            return self.type_text(action.text)
        if t == "scroll":
            return self.scroll(action.direction, action.x, action.y)
        if t == "drag":
            return self._drag(action.x1, action.y1, action.x2, action.y2)
        if t in ("back", "enter", "menu", "wait"):
            return self.press(t)
        if t in ("home", "close_app"):
            return self._leave()
        if t == "open_app":
            return self.open_app(action.package)
        if t == "done":
            return StepResult(False)
        raise EnvError(f"unknown action type {t!r}")

    def _accepts(self, kind: str) -> Any:
        trans, sid = self.app.transitions, self._screen

        def accept(n: RNode) -> bool:
            c = n.c
            return (
                (sid, kind, c.wid) in trans or c.editable
                or (kind == "click" and c.checkable and sem.binding_ref(c.checked, n.coll) is not None)
                or (not c.enabled and (c.clickable or c.checkable))
            )

        return accept

    def _hit(self, x: float, y: float, kind: str) -> RNode | None:
        """The node a tap lands on (see the module docstring): one that handles it only through
        its transition, unable to take the tap, gives way to a taker with a transition in a
        branch below it (an overlay never shadows what is under it)."""
        root = self.frame().root
        n = dispatch(root, x, y, self._accepts(kind))
        if n is None or sem.takes(n.c, kind):
            return n
        trans, sid = self.app.transitions, self._screen
        m = dispatch(root, x, y, lambda r: sem.takes(r.c, kind) and (sid, kind, r.c.wid) in trans)
        return n if m is None or _holds(m, n) else m

    def tap(self, x: float, y: float, kind: str = "click") -> StepResult:
        """A click, double_click or long_press at device pixel (x, y)."""
        if self._screen == LAUNCHER:
            return self._launcher_tap(x, y)
        n = self._hit(x, y, kind)
        if n is None:
            return StepResult(False)
        c, v0 = n.c, self._version
        if not c.enabled:
            return StepResult(False, widget=c.wid)
        screen = self._screen
        fired, left = self._fire(kind, c.wid, n, "")
        if fired is None and kind == "click" and c.checkable and not c.editable:
            ref = sem.binding_ref(c.checked, n.coll)
            if ref is not None:
                self._write(ref, not n.checked, n)
        if c.editable and self._screen == screen and self._focus != (c.wid, n.item):
            self._focus = (c.wid, n.item)
            self._touch()
        return StepResult(self._version != v0, fired, left, c.wid)

    def type_text(self, text: str) -> StepResult:
        """Set the focused field's text (see the module docstring for the defaults)."""
        if self._screen == LAUNCHER:
            return StepResult(False)
        v0, f = self._version, self.frame()
        n = next((m for m in f.nodes if m.focused), None)
        if n is None:
            n = next((m for m in f.nodes if m.c.editable and m.c.enabled), None)
            if n is None:
                return StepResult(False)
            self._focus = (n.c.wid, n.item)
            self._touch()
        fired, left = self._fire("type", n.c.wid, n, text)
        if fired is None:
            ref = sem.binding_ref(n.c.text, n.coll)
            if ref is not None:
                self._write(ref, text, n)
        return StepResult(self._version != v0, fired, left, n.c.wid)

    def scroll(self, direction: str, x: float | None = None, y: float | None = None) -> StepResult:
        """Scroll the list under (x, y), or the screen's first scrollable, towards `direction`."""
        if self._screen == LAUNCHER:
            return StepResult(False)
        kind, f, v0 = f"scroll_{direction}", self.frame(), self._version
        trans, sid = self.app.transitions, self._screen
        if x is None or y is None:
            n = next((m for m in f.nodes if m.c.scrollable or m.c.lst is not None), None)
        else:
            # the scrollable under the point takes a scroll, as the graph pass hit-tests recorded
            # ones; else a list under it shifts its records
            n = dispatch(f.root, x, y, lambda m: sem.takes(m.c, kind))
            if n is None or (sid, kind, n.c.wid) not in trans:
                n = dispatch(f.root, x, y, lambda m: m.c.scrollable or m.c.lst is not None
                             or (sid, kind, m.c.wid) in trans)
        wid = n.c.wid if n is not None else None
        fired, left = self._fire(kind, wid, n, "")
        if fired is None and wid is not None:
            fired, left = self._fire(kind, None, n, "")
        if n is not None and direction in ("up", "down") and self._screen == sid:
            self._shift_list(n, direction)
        return StepResult(self._version != v0, fired, left, wid)

    def press(self, key: str) -> StepResult:
        """A `back`, `enter` or `menu` key, or `wait` (time passing)."""
        if self._screen == LAUNCHER:
            return StepResult(False)
        v0 = self._version
        fired, left = self._fire(key, None, None, "")
        if fired is None and key == "back":
            left = self._pop()
        return StepResult(self._version != v0, fired, left)

    def open_app(self, package: str) -> StepResult:
        if package != self.app.package:
            return self._leave()
        if self._screen != LAUNCHER:
            return StepResult(False)
        before = (self._screen, len(self._stack), self._focus)
        self._stack.clear()
        self._goto(self.app.start)
        return StepResult(before != (self._screen, 0, None))

    def _leave(self) -> StepResult:
        if self._screen == LAUNCHER:
            return StepResult(False)
        self._stack.clear()
        self._goto(LAUNCHER)
        return StepResult(True, left_app=True)

    def _launcher_tap(self, x: float, y: float) -> StepResult:
        n = dispatch(self.frame().root, x, y, lambda m: m.c.wid == LAUNCHER_ICON)
        return self.open_app(self.app.package) if n is not None else StepResult(False)

    def _drag(self, x1: int, y1: int, x2: int, y2: int) -> StepResult:
        dx, dy = x2 - x1, y2 - y1
        if max(abs(dx), abs(dy)) < 10:
            return StepResult(False)
        if abs(dy) >= abs(dx):
            return self.scroll("down" if dy < 0 else "up", x1, y1)
        return self.scroll("right" if dx < 0 else "left", x1, y1)

    # ------------------------------------------------------------------ transitions and writes

    def _fire(
        self, kind: str, wid: str | None, n: RNode | None, inp: str
    ) -> tuple[str | None, bool]:
        """Fire the first transition of (screen, kind, wid) whose guard holds: (its id, left app)."""
        ts = self.app.transitions.get((self._screen, kind, wid))
        if not ts:
            return None, False
        hit = (n.coll, n.item) if n is not None and n.item is not None and n.coll else None
        for t in ts:
            if sem.guard_holds(self.app, self._state, t, hit, inp):
                if t.effects:
                    names = self.app.writes[t.id]
                    before = [self._ckey(name) for name in names]
                    sem.apply_effects(self.app, self._state, t, hit, inp)
                    self._wrote(names, before)
                return t.id, self._navigate(t)
        return None, False

    def _write(self, ref: tuple[Any, ...], value: Any, n: RNode) -> None:
        hit = (n.coll, n.item) if n.item is not None and n.coll else None
        before = [self._ckey(ref[1])]
        sem.write(self.app, self._state, ref, value, hit)
        self._wrote((ref[1],), before)

    def _shift_list(self, n: RNode, direction: str) -> None:
        target = n if n.c.lst is not None else first_list(n)
        if target is None:
            return
        lst = target.c.lst
        assert lst is not None
        recs = self._state.get(lst.collection)
        count = len(recs) if isinstance(recs, list) else 0
        key = (self._screen, target.c.wid)
        cur = self._offsets.get(key, 0)
        eff = max(0, min(cur, count - lst.max_visible))
        step = (lst.scroll or max(1, lst.max_visible - 1)) * (1 if direction == "down" else -1)
        new = max(0, min(eff + step, count - lst.max_visible))
        if new != cur:
            self._offsets[key] = new
            if new != eff:
                self._touch()

    # ------------------------------------------------------------------ navigation

    def _navigate(self, t: sem.CTransition) -> bool:
        """Apply a fired transition's navigation; True when it left the app."""
        nav, target = t.nav, t.target
        if nav == "pop":
            if target is None:
                return self._pop()
            if target in self._stack:
                while self._stack[-1] != target:
                    self._stack.pop()
                self._stack.pop()
                self._goto(target, fresh=False)
            else:
                if self._stack:
                    self._stack.pop()
                self._goto(target)
        elif target is None or nav == "stay" or (nav == "push" and target == self._screen):
            return False
        elif nav == "push":
            self._stack.append(self._screen)
            if len(self._stack) > MAX_STACK:
                del self._stack[0]
            self._goto(target)
        else:
            self._goto(target)
        return False

    def _pop(self) -> bool:
        if not self._stack:
            self._goto(LAUNCHER)
            return True
        self._goto(self._stack.pop(), fresh=False)
        return False

    def _goto(self, screen: str, fresh: bool = True) -> None:
        if fresh and self._offsets:
            for key in [k for k in self._offsets if k[0] == screen]:
                del self._offsets[key]
        self._screen = screen
        self._focus = None
        self._touch()


def _holds(ancestor: RNode, node: RNode) -> bool:
    """Whether `node` is in `ancestor`'s subtree."""
    return ancestor is node or any(_holds(c, node) for c in ancestor.children)
