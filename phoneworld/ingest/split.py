"""Cross-app episodes (ingest pass): split an imported episode into one part per app package.

A mock app is compiled per package, so an imported episode that visits several apps (launcher ->
app, app A -> app B) is cut where the foreground package changes. Each part gets a `Handoff`
(origin episode, part number, previous and next app) so cross-app worlds can join them again.

Decisions:
- The action that leaves an app (HOME, an `am start`, a tap on a launcher icon) cannot stay in the
  part, since the last step of an episode has no action: it is dropped and reported (PW142); the
  next part starts on the screen it led to.
- System surfaces that float over an app (systemui, permission dialogs, the `android` package's
  choosers, Play services sign-in) do not start a new part: they belong to the surrounding app.
- A launcher is a known launcher package, a package with "launcher" in its name or ending in
  ".home", or any package reached by a HOME action. A launcher part is kept as its own episode only
  with at least 2 steps (otherwise it holds no transition) and dropped with a note (PW141).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from itertools import pairwise

from phoneworld.ingest import codes
from phoneworld.ingest.context import IngestContext
from phoneworld.ingest.draft import DraftEpisode, DraftStep, freeze
from phoneworld.ir.trace import Action, Episode, Handoff, Observation

KNOWN_LAUNCHERS = frozenset({
    "com.android.launcher", "com.android.launcher2", "com.android.launcher3",
    "com.google.android.apps.nexuslauncher", "com.google.android.launcher",
    "com.teslacoilsw.launcher", "com.sec.android.app.launcher", "com.miui.home",
    "com.huawei.android.launcher", "com.oppo.launcher", "com.bbk.launcher2",
    "com.microsoft.launcher", "app.lawnchair", "net.oneplus.launcher", "com.motorola.launcher3",
})
SYSTEM_OVERLAYS = frozenset({
    "", "android", "com.android.systemui", "com.android.permissioncontroller",
    "com.google.android.permissioncontroller", "com.android.packageinstaller",
    "com.google.android.packageinstaller", "com.google.android.gms",
    "com.google.android.inputmethod.latin", "com.android.inputmethod.latin",
})
MIN_LAUNCHER_STEPS = 2


def is_launcher(package: str, reached_by_home: frozenset[str] = frozenset()) -> bool:
    low = package.lower()
    return (package in KNOWN_LAUNCHERS or package in reached_by_home or "launcher" in low
            or low.endswith(".home"))


def is_system_overlay(package: str) -> bool:
    return package in SYSTEM_OVERLAYS


@dataclass(frozen=True)
class _Run:
    app: str
    start: int
    end: int  # exclusive


def describe(action: Action | None) -> str:
    if action is None:
        return "no action"
    args = action.model_dump(exclude={"type"}, exclude_none=True)
    return f"{action.type}({', '.join(f'{k}={v!r}' for k, v in args.items())})"


def split_run(drafts: list[DraftEpisode], ctx: IngestContext) -> list[Episode]:
    """The drafts of one recording, in recording order, split per app, each episode linked
    (`Episode.follows`) to the episode of its app that ended just before it: across a visit to
    another app, and across drafts that `continues` (nothing restarted the app in between)."""
    last: dict[str, str] = {}
    out: list[Episode] = []
    ended = ""  # the id of the previous draft's last episode
    for draft in drafts:
        if not draft.continues:
            last.clear()
        parts = split_by_app(draft, ctx)
        for k, ep in enumerate(parts):
            if ep.app in last:
                # the app moved by itself only from where the draft just before ended (a chain
                # break), not from an episode before a visit to another app
                moved = draft.moved_by_itself and k == 0 and last[ep.app] == ended
                ep = ep.model_copy(update={"follows": last[ep.app], "moved_by_itself": moved})
            last[ep.app] = ep.id
            out.append(ep)
        ended = parts[-1].id if parts else ""
    return out


def split_by_app(draft: DraftEpisode, ctx: IngestContext) -> list[Episode]:
    """The draft as one episode per app visited (see the module docstring for the rules)."""
    draft.steps = [replace(s, observation=own_package(s.observation)) for s in draft.steps]
    apps = step_apps(draft.steps)
    runs = _runs(apps)
    home = _reached_by_home(draft.steps)
    if len(runs) == 1:
        if is_launcher(runs[0].app, home) and len(draft.steps) < MIN_LAUNCHER_STEPS:
            ctx.report(codes.SHORT_LAUNCHER_PART, f"episode {draft.id} is a single launcher "
                       f"screen ({runs[0].app}); dropped", draft.source(0))
            return []
        return [freeze(draft, runs[0].app)]
    path = " -> ".join(f"{r.app} ({r.end - r.start} steps)" for r in runs)
    ctx.report(codes.SPLIT_BY_APP, f"episode {draft.id} crosses apps: {path}; split into "
               f"{len(runs)} parts {draft.id}.p0..p{len(runs) - 1}", draft.source(0))
    out: list[Episode] = []
    for k, run in enumerate(runs):
        steps = list(draft.steps[run.start:run.end])
        exit_action = steps[-1].action if k < len(runs) - 1 else None
        if k < len(runs) - 1:
            steps[-1] = _drop_leaving_action(draft, run, runs[k + 1].app, ctx)
        if is_launcher(run.app, home) and len(steps) < MIN_LAUNCHER_STEPS:
            ctx.report(codes.SHORT_LAUNCHER_PART, f"part {k} of episode {draft.id} is "
                       f"{len(steps)} launcher screen(s) ({run.app}); dropped",
                       draft.source(run.start))
            continue
        handoff = Handoff(origin_episode=draft.id, part=k,
                          previous_app=runs[k - 1].app if k else None,
                          next_app=runs[k + 1].app if k < len(runs) - 1 else None,
                          exit_action=exit_action)
        out.append(freeze(draft, run.app, steps, f"{draft.id}.p{k}", handoff))
    return out


def _drop_leaving_action(draft: DraftEpisode, run: _Run, next_app: str,
                         ctx: IngestContext) -> DraftStep:
    last = draft.steps[run.end - 1]
    ctx.report(codes.LEAVING_ACTION, f"{describe(last.action)} leaves {run.app} for {next_app}; "
               "kept as the part's handoff exit_action", draft.source(run.end - 1))
    return replace(last, action=None)


def own_package(obs: Observation) -> Observation:
    """The observation as its widgets say: the package most of its views carry, where no view at
    all carries the reported one (some emulators report the launcher as the foreground activity
    for every screen). A screen that shows views of the reported package stays its own (a home
    screen hosting another app's widget is still the launcher). An activity of another package
    than the widgets' is dropped as untrustworthy."""
    nodes = list(obs.root.walk())
    if any(n.package == obs.package for n in nodes):
        return obs
    counts = Counter(n.package for n in nodes if n.package and n.bounds.area > 0)
    if not counts:
        return obs
    package, n = counts.most_common(1)[0]
    if package == obs.package or 2 * n <= sum(counts.values()):
        return obs
    activity = obs.activity if obs.activity and obs.activity.split("/", 1)[0] == package else None
    return obs.model_copy(update={"package": package, "activity": activity})


def step_apps(steps: list[DraftStep]) -> list[str]:
    """The app each step belongs to: its package, or for system overlays the surrounding app."""
    packages = [s.observation.package for s in steps]
    apps: list[str | None] = [None if is_system_overlay(p) else p for p in packages]
    current: str | None = next((a for a in apps if a is not None), None)
    out: list[str] = []
    for package, app in zip(packages, apps, strict=True):
        if app is not None:
            current = app
        out.append(current if current is not None else package)
    return out


def _runs(apps: list[str]) -> list[_Run]:
    runs: list[_Run] = []
    start = 0
    for i in range(1, len(apps) + 1):
        if i == len(apps) or apps[i] != apps[start]:
            runs.append(_Run(apps[start], start, i))
            start = i
    return runs


def _reached_by_home(steps: list[DraftStep]) -> frozenset[str]:
    """Packages shown right after a HOME action that changed the foreground package."""
    out: set[str] = set()
    for before, after in pairwise(steps):
        action = before.action
        package = after.observation.package
        if action is not None and action.type == "home" and package != before.observation.package:
            out.add(package)
    return frozenset(out)
