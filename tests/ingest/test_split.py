"""Splitting episodes that cross apps: where the cuts go and what is kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from phoneworld.ingest.context import IngestContext
from phoneworld.ingest.draft import DraftEpisode, DraftStep
from phoneworld.ingest.split import is_launcher, split_by_app, step_apps
from phoneworld.ir.base import Bounds
from phoneworld.ir.diagnostics import Diagnostics
from phoneworld.ir.trace import Action, Device, Home, Observation, ViewNode, Wait

ROOT = ViewNode(cls="android.widget.FrameLayout", bounds=Bounds(x1=0, y1=0, x2=10, y2=10))


def draft(*steps: tuple[str, Action | None]) -> DraftEpisode:
    items = [DraftStep(Observation(root=ROOT, package=p), a, "t/ep.json", i)
             for i, (p, a) in enumerate(steps)]
    return DraftEpisode(id="ep", device=Device(width=10, height=10), file="t", steps=items)


def split(d: DraftEpisode) -> tuple[list[tuple[str, str, int]], list[str]]:
    diagnostics = Diagnostics()
    episodes = split_by_app(d, IngestContext(root=Path("/t"), diagnostics=diagnostics))
    return [(e.id, e.app, len(e.steps)) for e in episodes], [x.code for x in diagnostics.items]


W = Wait()


@pytest.mark.parametrize(
    ("package", "expected"),
    [("com.teslacoilsw.launcher", True), ("com.google.android.apps.nexuslauncher", True),
     ("com.miui.home", True), ("com.example.mylauncherapp", True), ("com.example.notes", False)],
    ids=["nova", "pixel", "miui", "name", "app"],
)
def test_is_launcher(package: str, expected: bool) -> None:
    assert is_launcher(package) is expected


def test_single_app_is_not_split() -> None:
    assert split(draft(("a", W), ("a", None))) == ([("ep", "a", 2)], [])


def test_single_launcher_screen_is_dropped() -> None:
    assert split(draft(("com.android.launcher3", None))) == ([], ["PW141"])


def test_overlays_stay_with_the_app() -> None:
    d = draft(("a", W), ("com.android.systemui", W), ("com.google.android.permissioncontroller", W),
              ("a", None))
    assert step_apps(d.steps) == ["a"] * 4
    assert split(d)[0] == [("ep", "a", 4)]


def test_leading_overlay_joins_the_first_app() -> None:
    assert step_apps(draft(("android", W), ("a", None)).steps) == ["a", "a"]


def test_app_launcher_app() -> None:
    d = draft(("a", W), ("a", Home()), ("com.android.launcher3", W), ("b", W), ("b", None))
    parts, found = split(d)
    assert parts == [("ep.p0", "a", 2), ("ep.p2", "b", 2)]
    assert found == ["PW140", "PW142", "PW142", "PW141"]


def test_package_reached_by_home_counts_as_launcher() -> None:
    d = draft(("a", Home()), ("com.vendor.desk", W), ("b", None))
    parts, found = split(d)
    assert [p[1] for p in parts] == ["a", "b"] and "PW141" in found


def test_handoffs_and_dropped_leaving_action() -> None:
    diagnostics = Diagnostics()
    d = draft(("a", W), ("a", Home()), ("b", W), ("b", None))
    a, b = split_by_app(d, IngestContext(root=Path("/t"), diagnostics=diagnostics))
    assert a.steps[-1].action is None and a.steps[0].action == W
    assert (a.handoff.part, a.handoff.previous_app, a.handoff.next_app) == (0, None, "b")  # type: ignore[union-attr]
    assert (b.handoff.part, b.handoff.previous_app, b.handoff.next_app) == (1, "a", None)  # type: ignore[union-attr]
    assert [s.index for s in b.steps] == [0, 1] and b.steps[0].source.episode == "ep.p1"


def test_the_widgets_package_names_the_app_when_the_activity_does_not() -> None:
    """An emulator that reports the launcher as the foreground activity of every screen: the views
    carry the app's package, and that is the app."""
    def obs(package: str, activity: str) -> Observation:
        kids = tuple(ViewNode(cls="android.widget.TextView", package=package,
                              bounds=Bounds(x1=0, y1=k, x2=10, y2=k + 1)) for k in range(3))
        root = ViewNode(cls="android.widget.FrameLayout", package=package, children=kids,
                        bounds=Bounds(x1=0, y1=0, x2=10, y2=10))
        return Observation(root=root, package=activity.split("/")[0], activity=activity)

    launcher = "com.android.launcher/com.android.launcher2.Launcher"
    steps = [DraftStep(obs("org.game", launcher), W, "t/ep.json", 0),
             DraftStep(obs("org.game", launcher), None, "t/ep.json", 1)]
    d = DraftEpisode(id="ep", device=Device(width=10, height=10), file="t", steps=steps)
    [episode] = split_by_app(d, IngestContext(root=Path("/t"), diagnostics=Diagnostics()))
    assert episode.app == "org.game"
    assert all(s.observation.package == "org.game" and s.observation.activity is None
               for s in episode.steps)
    # the app's own activity is kept
    own = obs("org.game", "org.game/.MainActivity")
    steps = [DraftStep(own, W, "t/ep.json", 0), DraftStep(own, None, "t/ep.json", 1)]
    d = DraftEpisode(id="ep", device=Device(width=10, height=10), file="t", steps=steps)
    [episode] = split_by_app(d, IngestContext(root=Path("/t"), diagnostics=Diagnostics()))
    assert episode.steps[0].observation.activity == "org.game/.MainActivity"


def test_a_home_screen_hosting_another_apps_widget_stays_the_launcher() -> None:
    from phoneworld.ingest.split import own_package

    def node(package: str, y: int) -> ViewNode:
        return ViewNode(cls="android.widget.TextView", package=package,
                        bounds=Bounds(x1=0, y1=y, x2=10, y2=y + 1))

    kids = (node("com.teslacoilsw.launcher", 0),) + tuple(node("com.anydo", k) for k in range(1, 5))
    root = ViewNode(cls="android.widget.FrameLayout", package="com.anydo", children=kids,
                    bounds=Bounds(x1=0, y1=0, x2=10, y2=10))
    home = Observation(root=root, package="com.teslacoilsw.launcher",
                       activity="com.teslacoilsw.launcher/.NovaLauncher")
    assert own_package(home) == home


def test_a_run_links_each_episode_to_the_one_of_its_app_before_it() -> None:
    from phoneworld.ingest.split import split_run

    def run_draft(name: str, packages: list[str], continues: bool) -> DraftEpisode:
        items = [DraftStep(Observation(root=ROOT, package=p), W if i < len(packages) - 1 else None,
                           "t/ep.json", i) for i, p in enumerate(packages)]
        return DraftEpisode(id=name, device=Device(width=10, height=10), file="t", steps=items,
                            continues=continues)

    drafts = [run_draft("r#0", ["com.app"] * 3, False),
              # the app opens a browser and comes back: the second app part follows the first
              run_draft("r#1", ["com.app", "com.app", "com.browser", "com.browser", "com.app",
                                "com.app"], True),
              run_draft("r#2", ["com.app"] * 2, False)]  # after a restart: follows nothing
    episodes = split_run(drafts, IngestContext(root=Path("/t"), diagnostics=Diagnostics()))
    assert [(e.id, e.follows) for e in episodes] == [
        ("r#0", None), ("r#1.p0", "r#0"), ("r#1.p1", None), ("r#1.p2", "r#1.p0"), ("r#2", None)]


@pytest.mark.parametrize(("event", "restarts"), [
    ({"event_type": "kill_app"}, True),
    ({"event_type": "intent", "intent": "am force-stop com.app"}, True),
    ({"event_type": "intent", "intent": "am start com.app/.Main"}, False),
    ({"event_type": "key", "name": "HOME"}, False),
], ids=["kill_app", "force-stop", "start", "home"])
def test_which_droidbot_events_restart_the_app(event: dict, restarts: bool) -> None:
    from phoneworld.ingest.droidbot_events import restarts_app

    assert restarts_app(event) is restarts
