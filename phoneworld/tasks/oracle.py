"""The oracle: breadth-first search over (screen, state) of a compiled app for the shortest action
sequence that makes a task's verifier pass.

The search drives the real `Simulator` (snapshot / restore), so every path it returns is one the
app really takes. Actions are what an agent could do on the rendered screen: a tap on each enabled
interactive element (long and double taps where the app reacts to them), typing each of the task's
parameter values into the focused field (a task without any types `ANY_TEXT` where the app reacts to
typing into a field on the screen: a sign-in or a search the recording typed into and moved on
from, which a task that only asks for a screen past it must get through), scrolling lists longer
than the screen, `back`, and the keys the app has transitions for. States are keyed on the screen, the top of the back stack, the
focus, list offsets and the task-relevant part of the app state (`phoneworld.tasks.relevance`).

The verifier reads each state as a backend's `read_state` gives it: the app state plus `@screen`
(`Simulator.observed`), so a `screen` clause holds where the search stands on that screen.

An information-retrieval task is solved on a screen that shows what the answer reads (a screen
whose rendering reads those variables), by a final `done` with the answer the rule expects.

Breadth-first search gives the shortest solution among the paths that never break a top-level
clause of the rule that holds at the start (the pins that keep the rest of the app as it was:
undoing damage is never shorter). When that finds nothing within `OracleConfig.max_states` (tasks
with several parts, in apps with many toggles), a best-first search without that restriction
takes over, ordered by depth minus 3 x the number of top-level clauses that hold plus the screens
between here and one where a failing clause can change (`phoneworld.tasks.guide`): its solution
is cut of its detours, then a breadth-first search without that restriction (`cheaper`, at most
`max_cheaper` states) looks for a shorter path: one it finds replaces it, and when it sees every
state fewer steps away without one, the solution is proven shortest too; otherwise
`OracleResult.shortest` is False. All are bounded by the task's step budget and their state caps;
a task the oracle cannot solve says why.

The same unrestricted search, of every path shorter than a solution, is the sanity check's search
for cheaper passing states (`search_cheaper`): a state that passes with fewer of the changes the
rule reads than the solution makes means the verifier does not ask for all of them.
"""

from __future__ import annotations

import functools
import heapq
import itertools
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from phoneworld.errors import UsageError
from phoneworld.ir import trace as tr
from phoneworld.runtime.compiled import LAUNCHER
from phoneworld.runtime.sim import SimSnapshot, Simulator
from phoneworld.tasks.codegen import Verifier
from phoneworld.tasks.guide import Guide
from phoneworld.tasks.params import TaskInstance
from phoneworld.tasks.relevance import answer_reads, relevant
from phoneworld.tasks.rules import reads_answer

UNSOLVED_CAP = "search cap reached"
ANY_TEXT = "test"  # what a task without texts of its own types where typing moves the app on
UNSOLVED_BUDGET = "no solution within the step budget"
UNSOLVED_HIDDEN = "the answer is shown on no screen"
GUIDE_WEIGHT = 3  # steps one more holding clause is worth to the best-first search


@dataclass(frozen=True)
class OracleConfig:
    """How hard the oracle searches."""

    max_states: int = field(default=400, metadata={
        "help": "States the breadth-first search explores per task at most."})
    max_guided: int = field(default=3000, metadata={
        "help": "States the best-first search explores after that at most (0: none)."})
    stack_key: int = field(default=2, metadata={
        "help": "How many top entries of the back stack distinguish two states."})
    max_cheaper: int = field(default=1000, metadata={
        "help": "States the search for cheaper passing states (and for a shorter path than a "
                "best-first solution) explores per task at most (0: none)."})

    def __post_init__(self) -> None:
        if self.max_states < 1 or self.max_guided < 0 or self.max_cheaper < 0:
            raise UsageError(f"max_states must be >= 1, max_guided and max_cheaper >= 0, got "
                             f"{self.max_states}, {self.max_guided}, {self.max_cheaper}")
        if self.stack_key < 0:
            raise UsageError(f"stack_key must be >= 0, got {self.stack_key}")


@dataclass(frozen=True)
class Move:
    """One agent action: its kind, device-pixel point or text, and the element it acts on."""

    kind: str  # click, long_press, double_click, type, scroll, back, enter, menu, done
    x: int | None = None
    y: int | None = None
    text: str | None = None
    direction: str | None = None
    element: Any = field(default=None, compare=False, repr=False)  # what it acts on, for people

    @functools.cached_property
    def action(self) -> Any:
        """`trace_action()`, made once."""
        return self.trace_action()

    @property
    def target(self) -> str:
        """The text-form line of the element it acts on ("" for keys and typing)."""
        e = self.element
        if e is None or isinstance(e, str):
            return e or ""
        from phoneworld.runtime.render import element_line

        return element_line(e)

    def trace_action(self) -> Any:
        """The `phoneworld.ir.trace` action (device pixels)."""
        if self.kind in ("click", "long_press", "double_click"):
            cls = {"click": tr.Click, "long_press": tr.LongPress, "double_click": tr.DoubleClick}
            return cls[self.kind](x=self.x, y=self.y)
        if self.kind == "type":
            return tr.TypeText(text=self.text or "")
        if self.kind == "scroll":
            return tr.Scroll(direction=self.direction, x=self.x, y=self.y)  # type: ignore[arg-type]
        if self.kind == "done":
            return tr.Done(answer=self.text)
        return {"back": tr.Back, "enter": tr.Enter, "menu": tr.Menu, "home": tr.Home,
                "wait": tr.Wait}[self.kind]()

    def json_action(self, width: int, height: int) -> dict[str, Any]:
        """The paper's action format, coordinates normalized to [0, 1000]."""
        out: dict[str, Any] = {"type": self.kind}
        if self.x is not None and self.y is not None:
            out["x"], out["y"] = round(self.x * 1000 / width), round(self.y * 1000 / height)
        if self.kind == "type":
            out["text"] = self.text or ""
        if self.kind == "scroll":
            out["direction"] = self.direction
        if self.kind == "done" and self.text is not None:
            out["answer"] = self.text
        return out


@dataclass(frozen=True)
class OracleResult:
    solved: bool
    moves: tuple[Move, ...]
    explored: int
    reason: str = ""
    seconds: float = 0.0
    shortest: bool = True  # found by breadth-first search, or proven shortest after
    cheaper: Cheaper | None = None  # the search for a shorter path, when it ran


@dataclass(frozen=True)
class Cheaper:
    """The search for passing states cheaper than the oracle's: a breadth-first search of every
    path shorter than the oracle's solution, without the oracle's rule of never breaking what
    holds at the start (`max_cheaper` states at most)."""

    tried: int = 0  # states it explored
    complete: bool = False  # it saw every state fewer steps away than the oracle's solution
    shorter: tuple[Move, ...] | None = None  # the shortest passing path, if shorter than that
    fewer: tuple[Move, ...] | None = None  # a passing path making fewer of the changes the rule
    fewer_state: dict[str, Any] | None = None  # reads than the oracle's (same outcome), its end
    changes: tuple[int, int] = (0, 0)  # (the oracle's changes, the fewer path's)
    missing: tuple[str, ...] = ()  # the oracle's changes the fewer path does not make

    @property
    def found(self) -> bool:
        """Whether a passing state makes fewer of the required changes (the task is gameable)."""
        return self.fewer is not None


@dataclass
class _Node:
    snap: SimSnapshot
    parent: _Node | None
    move: Move | None
    depth: int


def answer_text(v: Any) -> str | None:
    """How the oracle says a value."""
    if v is None:
        return None
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


class _Search:
    def __init__(self, sim: Simulator, inst: TaskInstance, verifier: Verifier,
                 config: OracleConfig,
                 changes: Callable[[Mapping[str, Any]], list[str]] | None = None) -> None:
        self.sim, self.inst, self.verifier, self.config = sim, inst, verifier, config
        self.changes = changes
        spec = sim.spec
        self.keys = relevant(spec, inst.spec.rule)
        self.answering = reads_answer(inst.spec.rule)
        shows = answer_reads(spec, inst.spec.rule)
        self.evidence = {s.id for s in spec.screens
                         if shows <= set(sim.app.screens[s.id].reads)}
        self.vocab = sorted({str(v) for k, v in inst.params.items()
                             if not isinstance(v, bool) and inst.spec.params[k].type != "flag"})
        self.cache: dict[Any, list[Move]] = {}  # frame -> its moves (frames hold their content)
        self.pruned: set[Any] = set()  # states the breadth-first search ruled out

    def key(self) -> tuple[Any, ...]:
        """The search key of the simulator's current position (read live, without a copy)."""
        sim, st = self.sim, self.sim.peek()
        vals = tuple(tuple(tuple(r.items()) for r in v) if isinstance(v, list) else v
                     for v in (st.get(k) for k in self.keys))
        n = self.config.stack_key
        offsets = tuple(sorted(sim.offsets.items()))
        return (sim.screen, sim.stack[-n:] if n else (), sim.focus, offsets, vals)

    def goal(self, snap: SimSnapshot, held: tuple[bool, ...] | None = None) -> Move | None | bool:
        """For state tasks True/False; for answer tasks the final `done` move or None. `held`:
        which top-level clauses hold in `snap` (for a state task, all of them is the goal)."""
        params = self.inst.params
        if not self.answering:
            if held is not None:
                return all(held)
            return self.verifier.verify(snap.observed(), params, None).passed
        if snap.screen not in self.evidence:
            return None
        seen = snap.observed()
        for value in self.verifier.answers(seen, params):
            text = answer_text(value)
            if text is not None and self.verifier.verify(seen, params, text).passed:
                return Move("done", text=text)
        return None

    def moves(self, state: dict[str, Any]) -> list[Move]:
        """What can be done on the current screen (cached per rendered frame)."""
        frame = self.sim.frame()
        hit = self.cache.get(frame)
        if hit is None:
            hit = self.cache[frame] = self._moves(frame, state)
        return hit

    def _moves(self, frame: Any, state: dict[str, Any]) -> list[Move]:
        sim = self.sim
        trans, screen = sim.app.transitions, sim.screen
        out: list[Move] = []
        seen: set[tuple[str, int, int]] = set()
        for e in frame.elements:
            if not e.enabled:
                continue
            kinds = [k for k in ("click", "long_press", "double_click") if (screen, k, e.wid) in trans]
            if "click" not in kinds and (e.clickable or e.checkable or e.editable):
                kinds.insert(0, "click")
            for k in kinds:
                if (k, e.x, e.y) not in seen:
                    seen.add((k, e.x, e.y))
                    out.append(Move(k, e.x, e.y, element=e))
        if any(e.editable and e.enabled for e in frame.elements):
            out += [Move("type", text=v) for v in self.vocab]
            if not self.vocab and any(e.editable and e.enabled and (screen, "type", e.wid) in trans
                                      for e in frame.elements):
                out.append(Move("type", text=ANY_TEXT))
        for n in frame.nodes:
            lst = n.c.lst
            if lst is not None and len(state.get(lst.collection) or ()) > lst.max_visible:
                cx, cy = n.center
                out += [Move("scroll", cx, cy, direction=d, element=_line_of(n)) for d in ("down", "up")]
        out += [Move(k) for k in ("enter", "menu", "wait") if (screen, k, None) in trans]
        out.append(Move("back"))
        return out

    def expand(self, node: _Node, seen: set[Any], keep: tuple[int, ...] = ()
               ) -> list[tuple[_Node, Any, tuple[bool, ...]]]:
        """The unseen children of `node` (marked seen) that keep the clauses `keep`, each with its
        goal test and how many top-level clauses hold in it."""
        sim, out, held, params = self.sim, [], self.verifier.clauses_held, self.inst.params
        sim.restore(node.snap)
        dirty = False
        for move in self.moves(node.snap.state):
            if dirty:
                sim.restore(node.snap)
            dirty = sim.step(move.action).changed
            if not dirty or sim.screen == LAUNCHER:
                continue
            k = self.key()
            if k in seen or (keep and k in self.pruned):
                continue
            now = held(sim.observed(), params, None)
            if keep and not all(now[i] for i in keep):
                self.pruned.add(k)  # breaks what held at the start: not counted as explored
                continue
            seen.add(k)
            snap = sim.snapshot()
            out.append((_Node(snap, node, move, node.depth + 1), self.goal(snap, now), now))
        return out

    def bfs(self, root: _Node, budget: int) -> tuple[tuple[Move, ...] | None, bool, int]:
        """(solution, capped, states seen) of the breadth-first search."""
        start = self.verifier.clauses_held(root.snap.observed(), self.inst.params, None)
        keep = tuple(i for i, ok in enumerate(start) if ok)
        self.sim.restore(root.snap)
        seen, queue = {self.key()}, deque([root])
        while queue:
            node = queue.popleft()
            if node.depth >= budget:
                continue
            for child, goal, _ in self.expand(node, seen, keep):
                found = self._found(child, goal)
                if found is not None:
                    return found, False, len(seen)
                if len(seen) >= self.config.max_states:
                    return None, True, len(seen)
                queue.append(child)
        return None, False, len(seen)

    def guided(self, root: _Node, budget: int) -> tuple[tuple[Move, ...] | None, bool, int]:
        """(solution, capped, states seen) of the best-first search (fewest failing clauses,
        nearest to a screen where one can change)."""
        held, w = self.verifier.clauses_held, GUIDE_WEIGHT
        params, tie = self.inst.params, itertools.count()
        guide = Guide(self.sim.spec, self.inst.spec.rule,
                      self.evidence if self.answering else None)

        def score(node: _Node, now: tuple[bool, ...]) -> int:
            return node.depth - w * sum(now) + guide.steps(node.snap.screen, now)

        self.sim.restore(root.snap)
        seen = {self.key()}
        heap = [(score(root, held(root.snap.observed(), params, None)), 0, next(tie), root)]
        while heap:
            _, depth, _, node = heapq.heappop(heap)
            if depth >= budget:
                continue
            for child, goal, now in self.expand(node, seen):
                found = self._found(child, goal)
                if found is not None:
                    return found, False, len(seen)
                if len(seen) >= self.config.max_guided:
                    return None, True, len(seen)
                heapq.heappush(heap, (score(child, now), child.depth, next(tie), child))
        return None, False, len(seen)

    def run(self) -> OracleResult:
        sim, start = self.sim, time.perf_counter()
        budget = self.inst.spec.budget.train - (1 if self.answering else 0)
        sim.reset(self.inst.state)
        root = _Node(sim.snapshot(), None, None, 0)

        def result(moves: tuple[Move, ...] | None, n: int, why: str = "",
                   shortest: bool = True, proof: Cheaper | None = None) -> OracleResult:
            return OracleResult(moves is not None, moves or (), n, why,
                                time.perf_counter() - start, shortest, proof)

        found = self._found(root, self.goal(root.snap))
        if found is not None:
            return result(found, 1)
        if self.answering and not self.evidence:
            return result(None, 1, UNSOLVED_HIDDEN)
        found, capped, n = self.bfs(root, budget)
        if found is not None:
            return result(found, n)
        if self.config.max_guided:
            found, capped, m = self.guided(root, budget)
            n += m
            if found is not None:
                found = self.shorten(found)
                if not self.config.max_cheaper:
                    return result(found, n, shortest=False)
                proof = self.cheaper(found, self.changes)  # a shorter path, or none
                n += proof.tried
                if proof.shorter is not None and not proof.found:
                    return result(proof.shorter, n, proof=proof)
                return result(found, n, shortest=proof.complete and not proof.found, proof=proof)
        caps = f"{self.config.max_states}+{self.config.max_guided}"
        return result(None, n, f"{UNSOLVED_CAP} ({caps} states)" if capped else UNSOLVED_BUDGET)

    def cheaper(self, found: tuple[Move, ...],
                changes: Callable[[Mapping[str, Any]], list[str]] | None = None) -> Cheaper:
        """`search_shorter` from the instance's start on the app (with `changes`, the required
        changes a state makes, also for a cheaper passing state)."""
        self.sim.reset(self.inst.state)
        root = _Node(self.sim.snapshot(), None, None, 0)
        judge = None
        if changes is not None:
            end, answer = self._play(found)
            judge = cheaper_judge(self.verifier, self.inst.params, end, answer, changes)
        seen = {self.key()}

        def children(node: _Node) -> Iterator[tuple[_Node, tuple[Move, ...] | None]]:
            for child, goal, _ in self.expand(node, seen):
                yield child, self._found(child, goal)

        return search_shorter(root, children, lambda n: n.snap.observed(), lambda: len(seen),
                              found, self.config.max_cheaper, judge)

    def _play(self, moves: tuple[Move, ...]) -> tuple[dict[str, Any], Any]:
        self.sim.reset(self.inst.state)
        answer = None
        for m in moves:
            if m.kind == "done":
                answer = m.text
                break
            self.sim.step(m.action)
        return self.sim.observed(), answer

    def passes(self, moves: tuple[Move, ...]) -> bool:
        """Whether `moves` from the instance's start make the verifier pass."""
        end, answer = self._play(moves)
        return self.verifier.verify(end, self.inst.params, answer).passed

    def shorten(self, moves: tuple[Move, ...]) -> tuple[Move, ...]:
        """A best-first solution without its detours: while dropping one move, or two (a box
        ticked and unticked, a text typed and typed over), still passes, drop them."""
        shorter = True
        while shorter:
            shorter = False
            keep = [i for i, m in enumerate(moves) if m.kind != "done"]
            for size in (1, 2):
                for drop in itertools.combinations(keep, size):
                    fewer = tuple(m for i, m in enumerate(moves) if i not in drop)
                    if self.passes(fewer):
                        moves, shorter = fewer, True
                        break
                if shorter:
                    break
        return moves

    @staticmethod
    def _found(node: _Node, goal: Move | None | bool) -> tuple[Move, ...] | None:
        if goal is None or goal is False:
            return None
        path: list[Move] = [goal] if isinstance(goal, Move) else []
        while node.move is not None and node.parent is not None:
            path.append(node.move)
            node = node.parent
        return tuple(reversed(path))


def _line_of(n: Any) -> str:
    return n.c.cls.rsplit(".", 1)[-1] + (f" id={n.c.resource_id.split(':id/', 1)[-1]}"
                                          if n.c.resource_id else "")


Judge = Callable[[Mapping[str, Any], tuple[Move, ...]], tuple[int, int, tuple[str, ...]] | None]


def cheaper_judge(verifier: Verifier, params: Mapping[str, Any], end: Mapping[str, Any],
                  answer: Any, changes: Callable[[Mapping[str, Any]], list[str]]) -> Judge:
    """Whether a passing state (reached by a path) is cheaper than the solution's end `end`:
    (the solution's changes, its own, the solution's it does not make) when it makes fewer of
    them and takes the same `any_of` alternatives, else None."""
    wanted = changes(end)
    mine = verifier.branches(dict(end), dict(params), answer)

    def judge(state: Mapping[str, Any], path: tuple[Move, ...]
              ) -> tuple[int, int, tuple[str, ...]] | None:
        made = changes(state)
        said = path[-1].text if path and path[-1].kind == "done" else None
        if len(made) >= len(wanted) or verifier.branches(dict(state), dict(params), said) != mine:
            return None
        return len(wanted), len(made), tuple(x for x in wanted if x not in made)

    return judge


def search_shorter(root: Any,
                   children: Callable[[Any], Iterable[tuple[Any, tuple[Move, ...] | None]]],
                   state_of: Callable[[Any], Mapping[str, Any]], seen: Callable[[], int],
                   found: tuple[Move, ...], limit: int, judge: Judge | None = None) -> Cheaper:
    """Breadth-first search from `root` (nodes with a `depth`; `children(node)`: its unseen
    children, each with its passing path or None), breaking any clause on the way, of every path
    shorter than `found`: the shortest passing one, and (with `judge`) a passing state cheaper
    than `found`'s end. `seen()`: how many states were seen so far (at most `limit`)."""
    depth = sum(m.kind != "done" for m in found) - 1
    queue: deque[Any] = deque([root])
    shorter: tuple[Move, ...] | None = None
    while queue:
        node = queue.popleft()
        if node.depth >= depth:
            continue
        for child, path in children(node):
            if path is not None:
                if shorter is None and len(path) < len(found):
                    shorter = path
                    if judge is None:  # breadth-first: the first one is the shortest
                        return Cheaper(seen(), True, shorter)
                verdict = judge(state_of(child), path) if judge is not None else None
                if verdict is not None:
                    want, got, missing = verdict
                    return Cheaper(seen(), False, shorter, path, dict(state_of(child)),
                                   (want, got), missing)
            if seen() >= limit:
                # breadth-first: every state shallower than `node`'s children was seen
                return Cheaper(seen(), node.depth + 1 > depth, shorter)
            queue.append(child)
    return Cheaper(seen(), True, shorter)


def search_cheaper(sim: Simulator, inst: TaskInstance, verifier: Verifier,
                   res: OracleResult, changes: Callable[[Mapping[str, Any]], list[str]],
                   config: OracleConfig | None = None) -> Cheaper:
    """The search for passing states cheaper than the oracle's solution `res` on `sim`:
    `changes` lists the required changes a state makes (`Cheaper`). A best-first solution's
    own search (`res.cheaper`, the same one) is not run again."""
    if res.cheaper is not None:
        return res.cheaper
    if config is not None and not config.max_cheaper:
        return Cheaper()
    return _Search(sim, inst, verifier, config or OracleConfig()).cheaper(res.moves, changes)


def solve(sim: Simulator, inst: TaskInstance, verifier: Verifier,
          config: OracleConfig | None = None,
          changes: Callable[[Mapping[str, Any]], list[str]] | None = None) -> OracleResult:
    """The shortest action sequence (within the task's training budget) that makes `verifier`
    pass from the task instance's start, found on `sim` (which is left in an unspecified state).
    `changes` (the required changes a state makes, as lines) lets the search for a shorter path
    after a best-first one also look for cheaper passing states (`search_cheaper`)."""
    return _Search(sim, inst, verifier, config or OracleConfig(), changes).run()
