"""How far the oracle's best-first search is from where a task can make progress: for each
top-level clause of the rule, the screens where what it reads can change (a transition from the
screen writes it, or an editable field on the screen shows it; for a `screen` clause, the screen
it names), and every screen's distance in taps to the nearest of them on the transition graph
(guards ignored).

Counting holding clauses alone leaves a search flat until it stumbles on the screen that matters
(a field three screens deep looks no better than the start); the distance points it there. It
only orders the search: every solution is still checked by the verifier.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable

from phoneworld.ir.app import AppSpec
from phoneworld.tasks import naming as nm
from phoneworld.tasks import rules as r
from phoneworld.tasks.relevance import effect_writes, rule_reads

def top_clauses(rule: r.RuleNode) -> tuple[r.RuleNode, ...]:
    """The clauses `clauses_held` reports on, in its order."""
    return tuple(rule.all_of) if isinstance(rule, r.AllOf) else (rule,)


def writer_screens(app: AppSpec, names: set[str]) -> set[str]:
    """Screens on which one action can change one of `names`."""
    out = {t.screen for t in app.transitions
           if any(effect_writes(app, e) & names for e in t.effects)}
    for sid, w, _ in nm.widgets(app):
        if (w.editable or w.cls.endswith("EditText")) and w.text.kind == "var" \
                and w.text.name in names:
            out.add(sid)
    return out


def distances(app: AppSpec, targets: Iterable[str]) -> dict[str, int]:
    """Every screen's fewest transitions to one of `targets` (absent: none reachable). Back (a
    plain pop, or a screen's default) leads to any screen that opens it."""
    into: dict[str, set[str]] = defaultdict(set)
    for t in app.transitions:
        if t.target is not None:
            into[t.target].add(t.screen)
    for opened, openers in list(into.items()):
        for opener in openers:
            if opener != opened:
                into[opener].add(opened)
    out = {s: 0 for s in targets}
    todo = deque(out)
    while todo:
        s = todo.popleft()
        for before in into[s]:
            if before not in out:
                out[before] = out[s] + 1
                todo.append(before)
    return out


class Guide:
    """`steps(screen, held)`: the fewest screens between `screen` and one where a clause that does
    not hold (per `held`) can change (for a question: where it can be read); more than any such
    distance where none is reachable, and 0 when no failing clause has a known writer."""

    def __init__(self, app: AppSpec, rule: r.RuleNode, answer_screens: set[str] | None = None):
        self.per_clause = [distances(app, writer_screens(app, rule_reads(app, c))
                                     | r.screens_named(c)) for c in top_clauses(rule)]
        self.answer = distances(app, answer_screens) if answer_screens else None
        self.beyond = len(app.screens) + 1  # worse than any screen a writer can be reached from

    def steps(self, screen: str, held: tuple[bool, ...]) -> int:
        if self.answer is not None:  # a question is answered where it can be read
            maps = [self.answer]
        else:
            maps = [d for d, ok in zip(self.per_clause, held) if not ok and d]
        return min((d.get(screen, self.beyond) for d in maps), default=0)
