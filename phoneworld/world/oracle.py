"""The world oracle: breadth-first search over the world (snapshot / restore of every app and the
device services) for an action sequence that makes a cross-app task's verifier pass.

It reuses the single-app oracle's pieces (`Move`, `OracleResult`, the verifier's per-clause
`clauses_held`) and its ideas, with two changes a world needs:
- stages: the top-level clauses of the rule are reached in order (a handoff task lists the
  handoff first: the clipboard holds the text, the file exists), each by its own breadth-first
  search from where the previous one ended, never breaking a clause that already holds. The sum
  of short searches replaces one search over the product of every app's screens; the solution is
  valid (it is replayed) but not proven shortest.

The sanity check searches the world for cheaper passing states as it does an app
(`search_cheaper`: every path shorter than the solution, with this search's moves and keys).
- moves: taps on every enabled interactive element, long presses on the texts a handoff needs
  (those holding a parameter's value) and on editable fields, typing the parameters an agent may
  know, `back` and `home`. The agent knows the parameters whose values come from the instruction
  itself (drawn fresh) and those from the app in front; text that lives in another app must be
  carried over by the device (clipboard, share sheet, files), never typed.

States are keyed on the foreground screen, the foreground app's back-stack top and focus, the
overlay, and the state the rule reads plus every app's task-relevant part
(`phoneworld.tasks.relevance`). Background apps' positions are not keyed: two states that
differ only there are one state to this search (it may miss a solution, never return a wrong one).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from phoneworld.tasks import spec as s
from phoneworld.tasks.codegen import Verifier
from phoneworld.tasks.oracle import (
    UNSOLVED_BUDGET, UNSOLVED_CAP, Cheaper, Move, OracleConfig, OracleResult, cheaper_judge,
    search_shorter,
)
from phoneworld.tasks.params import TaskInstance
from phoneworld.tasks.relevance import relevant, rule_reads
from phoneworld.tasks.verdict import text_norm
from phoneworld.world.device import World, WorldSnapshot
from phoneworld.world.schema import WorldSchema, split_source
from phoneworld.world.system import HOME

WORLD_ORACLE = OracleConfig(max_states=4000, max_guided=0, max_cheaper=200)  # world steps cost more


@dataclass
class _Node:
    snap: WorldSnapshot
    parent: _Node | None
    move: Move | None
    depth: int


class _Search:
    def __init__(self, world: World, schema: WorldSchema, inst: TaskInstance, verifier: Verifier,
                 config: OracleConfig) -> None:
        self.world, self.inst, self.verifier, self.config = world, inst, verifier, config
        rule = inst.spec.rule
        self.reads = tuple(sorted(rule_reads(schema, rule)))  # type: ignore[arg-type]
        self.local: dict[str, tuple[str, ...]] = {}
        for pkg, sim in world.sims.items():
            own = {k.split(":", 1)[1] for k in self.reads if k.startswith(pkg + ":")}
            self.local[pkg] = tuple(sorted(set(relevant(sim.spec, rule)) | own))
        shown = set(inst.spec.placeholders())  # what the agent is told; a distractor is not
        self.values = {text_norm(v) for k, v in inst.params.items()
                       if k in shown and isinstance(v, str) and v}
        self.vocab = self._vocab(inst)
        self.cache: dict[Any, list[Move]] = {}

    @staticmethod
    def _vocab(inst: TaskInstance) -> dict[str, list[str]]:
        """Package -> the texts the agent may type there ("*": anywhere)."""
        out: dict[str, list[str]] = {}
        shown = set(inst.spec.placeholders())
        for name, p in sorted(inst.spec.params.items()):
            v = inst.params[name]
            if name not in shown or isinstance(v, bool) or p.type == "flag":
                continue
            # a service's data ("@files", "@notifications") lives in no app: typed nowhere
            where = split_source(p.source)[0].rpartition(":")[0] if isinstance(p, s.AppDataGen) \
                else "*"
            out.setdefault(where, []).append(str(v))
        return out

    def key(self) -> tuple[Any, ...]:
        w = self.world
        st = w.peek()
        fg = w.sims.get(w.foreground)
        pos = (fg.stack[-2:], fg.focus, tuple(sorted(fg.offsets.items()))) if fg is not None else ()
        apps = tuple(_freeze([sim.peek().get(k) for k in self.local[pkg]])
                     for pkg, sim in w.sims.items())
        return (w.screen, pos, w.overlay, _freeze([st.get(k) for k in self.reads]), apps)

    def moves(self) -> list[Move]:
        w = self.world
        frame = w.frame()
        hit = self.cache.get((frame, w.foreground, w.overlay is None))
        if hit is not None:
            return hit
        out: list[Move] = []
        seen: set[tuple[str, int, int]] = set()
        editable = False
        for e in frame.elements:
            if not e.enabled:
                continue
            kinds = []
            if e.clickable or e.checkable or e.editable:
                kinds.append("click")
            if e.editable or (e.text and any(v in text_norm(e.text) for v in self.values)):
                kinds.append("long_press")
            editable = editable or e.editable
            for k in kinds:
                if (k, e.x, e.y) not in seen:
                    seen.add((k, e.x, e.y))
                    out.append(Move(k, e.x, e.y, element=e))
        if editable and w.overlay is None:
            texts = self.vocab.get("*", []) + self.vocab.get(w.foreground, [])
            out += [Move("type", text=t) for t in texts]
        front = w.sims.get(w.foreground)
        if w.overlay is None and front is not None \
                and (front.screen, "wait", None) in front.app.transitions:
            out.append(Move("wait"))  # a screen the app leaves by itself (a splash)
        out.append(Move("back"))
        if w.foreground != HOME or w.overlay is not None:
            out.append(Move("home"))
        self.cache[(frame, w.foreground, w.overlay is None)] = out
        return out

    def unseen(self, node: _Node, seen: set[Any]) -> Iterator[Move]:
        """Each move from `node` that changes the world to a state not in `seen` (then added),
        with the world left in that state when it is yielded."""
        w = self.world
        w.restore(node.snap)
        dirty = False
        for move in self.moves():
            if dirty:
                w.restore(node.snap)
            dirty = w.step(move.action).changed
            if not dirty:
                continue
            k = self.key()
            if k in seen:
                continue
            seen.add(k)
            yield move

    def stage(self, root: _Node, need: int, budget: int) -> tuple[_Node | None, bool, int]:
        """BFS from `root` to a node where clauses 0..need-1 hold, keeping those holding at root."""
        w, held, params = self.world, self.verifier.clauses_held, self.inst.params
        w.restore(root.snap)
        start = held(w.peek(), params, None)
        keep = [i for i, ok in enumerate(start) if ok]
        seen, queue = {self.key()}, deque([root])
        while queue:
            node = queue.popleft()
            if node.depth >= budget:
                continue
            for move in self.unseen(node, seen):
                now = held(w.peek(), params, None)
                if not all(now[i] for i in keep):
                    continue
                child = _Node(w.snapshot(), node, move, node.depth + 1)
                if all(now[:need]):
                    return child, False, len(seen)
                if len(seen) >= self.config.max_states:
                    return None, True, len(seen)
                queue.append(child)
        return None, False, len(seen)

    def cheaper(self, found: tuple[Move, ...],
                changes: Callable[[Mapping[str, Any]], list[str]]) -> Cheaper:
        """The search for passing states cheaper than `found` (`oracle.search_shorter`: every
        path shorter than it, breaking any clause on the way) on the world."""
        w, params, verify = self.world, self.inst.params, self.verifier.verify
        w.reset(self.inst.state)
        for m in found:
            w.step(m.action)
        judge = cheaper_judge(self.verifier, params, dict(w.peek()), None, changes)
        w.reset(self.inst.state)
        root = _Node(w.snapshot(), None, None, 0)
        seen = {self.key()}

        def children(node: _Node) -> Iterator[tuple[_Node, tuple[Move, ...] | None]]:
            for move in self.unseen(node, seen):
                child = _Node(w.snapshot(), node, move, node.depth + 1)
                yield child, _path(child) if verify(w.peek(), params, None).passed else None

        def state_of(node: _Node) -> dict[str, Any]:
            # `unseen` restores its node before each next move, so moving the world here is safe
            w.restore(node.snap)
            return dict(w.peek())

        return search_shorter(root, children, state_of, lambda: len(seen), found,
                              self.config.max_cheaper, judge)

    def run(self) -> OracleResult:
        t0, w = time.perf_counter(), self.world
        w.reset(self.inst.state)
        node = _Node(w.snapshot(), None, None, 0)
        n_clauses = len(self.verifier.clauses_held(w.peek(), self.inst.params, None))
        explored = 0
        for need in range(1, n_clauses + 1):
            w.restore(node.snap)
            if all(self.verifier.clauses_held(w.peek(), self.inst.params, None)[:need]):
                continue
            got, capped, n = self.stage(node, need, self.inst.spec.budget.train)
            explored += n
            if got is None:
                why = f"{UNSOLVED_CAP} ({self.config.max_states} states)" if capped else UNSOLVED_BUDGET
                return OracleResult(False, (), explored, f"{why} at clause {need - 1}",
                                    time.perf_counter() - t0, False)
            node = got
        return OracleResult(True, _path(node), explored, "", time.perf_counter() - t0, False)


def _path(node: _Node) -> tuple[Move, ...]:
    """The moves from the root to `node`."""
    moves: list[Move] = []
    cur: _Node | None = node
    while cur is not None and cur.move is not None:
        moves.append(cur.move)
        cur = cur.parent
    return tuple(reversed(moves))


def _freeze(values: list[Any]) -> tuple[Any, ...]:
    return tuple(tuple(tuple(r.items()) for r in v) if isinstance(v, list) else v for v in values)


def search_cheaper(world: World, schema: WorldSchema, inst: TaskInstance, verifier: Verifier,
                   res: OracleResult, changes: Callable[[Mapping[str, Any]], list[str]],
                   config: OracleConfig | None = None) -> Cheaper:
    """The search for passing states cheaper than the world oracle's solution `res`."""
    cfg = config or WORLD_ORACLE
    if not cfg.max_cheaper:
        return Cheaper()
    return _Search(world, schema, inst, verifier, cfg).cheaper(res.moves, changes)


def solve(world: World, schema: WorldSchema, inst: TaskInstance, verifier: Verifier,
          config: OracleConfig | None = None) -> OracleResult:
    """A solution of a world task instance found on `world` (left in an unspecified state)."""
    return _Search(world, schema, inst, verifier, config or WORLD_ORACLE).run()
