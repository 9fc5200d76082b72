"""How well the rules for untried widgets (`phoneworld.state.untried`) predict what the app does,
on every real trace set: each set's main app is compiled from all of its recording, and each
tried widget the rule would cover is left out in turn and predicted from the rest.

    python bench/untried.py [ROOT]

Default ROOT: ../shared/data/real. Per set and in total:

- shared: a widget shown on several screens, tried on one of them; the outcome the other screens
  where it was tried agree on (at least `MIN_TRIED` of them) is compared with the recorded one:
  right, wrong, or none (they disagree, or agree on a stay: no rule); where they disagree, the
  outcome on the one of them most like the left-out screen (`_nearest`): near right or wrong;
- dismiss: a tried click on a dismiss button (`is_dismiss`: labelled as one, an icon font's back
  arrow or cross, or with a framework id that has that role), against the plain
  pop the rule gives: below (it went to the screen under it on the back stack: right), deeper
  (further down the stack), stay, or elsewhere;
- rows: a tried row of a run of labelled siblings (`runs`, a contact list as AutoDroid records
  it) left out, against the one screen the other tried rows opened (at least `MIN_TRIED`);
- labels: a tried click on a button whose label heads exactly one other screen
  (`label_targets`), against the push to that screen the rule gives: right or wrong;
- menus: a screen the overflow button (`OVERFLOW`) opened, which the rule makes transient, against
  what the recording shows of it on its own (`transient_screens` without the rule): agrees (back
  from a screen it opened skipped it), contradicts (such a back returned to it), or no evidence.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from phoneworld.abstract import abstract  # noqa: E402
from phoneworld.graph import graph  # noqa: E402
from phoneworld.ingest.detect import find_sources  # noqa: E402
from phoneworld.pipeline import check  # noqa: E402
from phoneworld.state import infer_state, prepare  # noqa: E402
from phoneworld.state.track import below, track, transient_screens  # noqa: E402
from phoneworld.state.untried import (  # noqa: E402
    MIN_TRIED, _content, _nearest, _outcome, _shared_widgets, dismiss_widgets, label_targets,
    overflow_widgets, runs,
)


def tried_outcomes(model) -> dict:  # type: ignore[no-untyped-def]
    """(screen, widget) -> the outcomes of its observed clicks."""
    out: dict = defaultdict(set)
    for r in model.rules:
        if r.support > 0 and r.action == "click" and r.widget is not None:
            out[(r.screen, r.widget)].add(_outcome(r))
    return out


def shared_loo(ab, model) -> Counter[str]:  # type: ignore[no-untyped-def]
    """right / wrong / none of the agreed outcome, and near_right / near_wrong of the nearest
    screen's where the others disagree."""
    shown = _shared_widgets(ab)
    content = {s.id: _content(s.root) for s in ab.screens}
    per: dict = defaultdict(lambda: defaultdict(set))
    for (screen, wid), outcomes in tried_outcomes(model).items():
        if (screen, wid) in shown:
            per[shown[(screen, wid)]][screen] |= outcomes
    out: Counter[str] = Counter()
    for screens in per.values():
        for screen, outcome in screens.items():
            others = {s: o for s, o in screens.items() if s != screen}
            if len(others) < MIN_TRIED or len(outcome) != 1:
                continue
            agreed = set().union(*others.values())
            near = _nearest(content, screen, others) if len(agreed) != 1 else []
            if near and len(others[near[0]]) == 1 and others[near[0]] != {""}:
                out["near_right" if outcome == others[near[0]] else "near_wrong"] += 1
            elif len(agreed) != 1 or agreed == {""}:
                out["none"] += 1
            else:
                out["right" if outcome == agreed else "wrong"] += 1
    return out


def rows_loo(ab, model) -> Counter[str]:  # type: ignore[no-untyped-def]
    """right / wrong of each tried row of a run (`runs`) left out and predicted from the others."""
    outcomes = tried_outcomes(model)
    out: Counter[str] = Counter()
    for screen in ab.screens:
        for run in runs(screen.root):
            tried = {c.wid: outcomes[(screen.id, c.wid)] for c in run
                     if (screen.id, c.wid) in outcomes}
            for wid, outcome in tried.items():
                others = [o for w, o in tried.items() if w != wid]
                agreed = set().union(*others) if others else set()
                if len(others) < MIN_TRIED or len(outcome) != 1 or len(agreed) != 1 \
                        or agreed & {"", None, screen.id}:
                    continue
                out["right" if outcome == agreed else "wrong"] += 1
    return out


def labels_loo(ab, model) -> Counter[str]:  # type: ignore[no-untyped-def]
    """right / wrong of each tried click on a button whose label heads one other screen."""
    named = label_targets(ab)
    out: Counter[str] = Counter()
    for key, outcomes in tried_outcomes(model).items():
        if key in named:
            out["right" if outcomes == {named[key]} else "wrong"] += 1
    return out


def dismiss_outcomes(ab, tr) -> Counter[str]:  # type: ignore[no-untyped-def]
    _, tracked = prepare(ab, tr)
    dismissing = dismiss_widgets(ab)
    out: Counter[str] = Counter()
    for step in tr.steps:
        if step.action != "click" or not step.next_screen \
                or (step.screen, step.widget or "") not in dismissing:
            continue
        stack = tracked[step.episode][step.step].stack
        under = below(stack, step.screen)
        if under and step.next_screen == under[-1]:
            out["below"] += 1
        elif step.next_screen == step.screen:
            out["stay"] += 1
        elif step.next_screen in under:
            out["deeper"] += 1
        else:
            out["elsewhere"] += 1
    return out


def menu_evidence(ab, tr) -> Counter[str]:  # type: ignore[no-untyped-def]
    schema, _ = prepare(ab, tr)
    opened = {s.next_screen for s in tr.steps if s.action == "click"
              and (s.screen, s.widget or "") in overflow_widgets(ab)
              and s.next_screen not in ("", s.screen)}
    schema.transient = frozenset()
    tracked = track(schema, ab, tr)
    evidence = transient_screens(tr, tracked, schema.dismissing)
    returned = {s.next_screen for s in tr.steps if s.action == "back" and s.screen
                and below(tracked[s.episode][s.step].stack, s.screen)[-1:] == (s.next_screen,)}
    return Counter("agrees" if m in evidence else "contradicts" if m in returned else "none"
                   for m in opened)


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO.parent / "shared" / "data" / "real"
    total_s: Counter[str] = Counter()
    total_d: Counter[str] = Counter()
    total_m: Counter[str] = Counter()
    total_r: Counter[str] = Counter()
    total_l: Counter[str] = Counter()
    print(f"{'set':<32} {'shared right/wrong/none':>24} {'dismiss below/deeper/stay/else':>31} "
          f"{'menus agree/contra/none':>24}")
    for folder, _, _ in find_sources(root):
        traces, _ = check(folder)
        if not traces.episodes:
            continue
        app = max(traces.apps(), key=lambda a: sum(len(e.steps) - 1
                                                    for e in traces.for_app(a).episodes))
        ts = traces.for_app(app)
        ab = abstract(ts)
        tr = graph(ts, ab)
        model = infer_state(ab, tr)
        s, d = shared_loo(ab, model), dismiss_outcomes(ab, tr)
        total_r.update(rows_loo(ab, model))
        total_l.update(labels_loo(ab, model))
        m = menu_evidence(ab, tr)
        total_s.update(s)
        total_d.update(d)
        total_m.update(m)
        name = str(folder.relative_to(root))[:32]
        print(f"{name:<32} {s['right']:>10}/{s['wrong']}/{s['none']:<8} "
              f"{d['below']:>14}/{d['deeper']}/{d['stay']}/{d['elsewhere']:<10} "
              f"{m['agrees']:>13}/{m['contradicts']}/{m['none']}")
    print(f"{'total':<32} {total_s['right']:>10}/{total_s['wrong']}/{total_s['none']:<8} "
          f"{total_d['below']:>14}/{total_d['deeper']}/{total_d['stay']}/{total_d['elsewhere']:<10} "
          f"{total_m['agrees']:>13}/{total_m['contradicts']}/{total_m['none']}")
    tried = sum(total_s[k] for k in ("right", "wrong"))
    nearest = total_s["near_right"] + total_s["near_wrong"]
    print(f"nearest screen (where the others disagree): {total_s['near_right']} right, "
          f"{total_s['near_wrong']} wrong" if nearest else "nearest screen: no predictions")
    clicks = sum(total_d.values())
    print(f"shared precision: {total_s['right'] / tried:.3f} of {tried} predictions" if tried
          else "shared: no predictions")
    print(f"rows (a run of labelled siblings, one left out): {total_r['right']} right, "
          f"{total_r['wrong']} wrong")
    print(f"labels (a button labelled as one other screen's heading): {total_l['right']} right, "
          f"{total_l['wrong']} wrong")
    print(f"dismiss precision: {total_d['below'] / clicks:.3f} of {clicks} clicks" if clicks
          else "dismiss: no clicks")
    judged = total_m["agrees"] + total_m["contradicts"]
    print(f"menus: the recording agrees on {total_m['agrees']} of {judged} with evidence"
          if judged else "menus: none with evidence")
    return 0


if __name__ == "__main__":
    sys.exit(main())
