"""World runtime: launcher, recents, clipboard, share sheet, files, notifications, snapshots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phoneworld.errors import EnvError
from phoneworld.ir import trace as tr
from tests.world.driver import click, long_press, texts

NOTES, MSG = "com.example.notes", "com.example.messages"


def test_launcher_lists_every_app_and_opens_it(world) -> None:  # type: ignore[no-untyped-def]
    assert world.screen == "@home"
    assert {"Notes", "Messages"} <= set(texts(world))
    click(world, "Notes")
    assert world.screen == f"{NOTES}:s00_main"
    assert world.frame().package == NOTES


def test_home_keeps_the_app_where_it_was(world) -> None:  # type: ignore[no-untyped-def]
    click(world, "Notes")
    click(world, "Buy milk")
    assert world.screen.endswith("s02_detail")
    world.step(tr.Home())
    assert world.screen == "@home"
    click(world, "Notes")
    assert world.screen.endswith("s02_detail")  # resumed, not restarted
    world.step(tr.OpenApp(package=MSG))
    world.step(tr.OpenApp(package=NOTES))
    assert world.screen.endswith("s02_detail")


def test_back_out_of_an_app_restarts_it_next_time(world) -> None:  # type: ignore[no-untyped-def]
    click(world, "Notes")
    click(world, "Buy milk")
    world.step(tr.Back())
    world.step(tr.Back())
    assert world.screen == "@home"
    click(world, "Notes")
    assert world.screen.endswith("s00_main")


def test_recents_orders_apps_by_last_use(world) -> None:  # type: ignore[no-untyped-def]
    world.step(tr.OpenApp(package=NOTES))
    world.step(tr.OpenApp(package=MSG))
    world.step(tr.Home())
    click(world, "Recent apps")
    assert world.screen == "@recents"
    assert texts(world)[1:] == ["Messages", "Notes"]
    click(world, "Notes")
    assert world.screen == f"{NOTES}:s00_main"


def test_unknown_package_does_nothing(world) -> None:  # type: ignore[no-untyped-def]
    assert not world.step(tr.OpenApp(package="com.nope")).changed
    assert world.screen == "@home"


def _copy_title(world, title: str = "Call Alice") -> None:  # type: ignore[no-untyped-def]
    click(world, "Notes")
    click(world, title)
    long_press(world, "detail_title")
    assert world.screen == "@menu_copy"
    click(world, "Copy")


def test_copy_then_paste_across_apps(world) -> None:  # type: ignore[no-untyped-def]
    assert world.state["@clipboard"] == "Stale text"
    _copy_title(world)
    assert world.state["@clipboard"] == "Call Alice"
    assert world.screen.endswith("s02_detail")
    world.step(tr.Home())
    click(world, "Messages")
    click(world, "New message")
    long_press(world, "body_input")
    assert world.screen == "@menu_paste"
    click(world, "Paste")
    assert world.state[f"{MSG}:body_input"] == "Call Alice"


def test_paste_without_copy_pastes_stale_text(world) -> None:  # type: ignore[no-untyped-def]
    world.step(tr.OpenApp(package=MSG))
    click(world, "New message")
    long_press(world, "body_input")
    click(world, "Paste")
    assert world.state[f"{MSG}:body_input"] == "Stale text"


def test_menu_dismisses_on_back_and_outside_tap(world) -> None:  # type: ignore[no-untyped-def]
    _copy_title(world)
    long_press(world, "detail_title")
    world.step(tr.Back())
    assert world.screen.endswith("s02_detail")
    long_press(world, "detail_title")
    world.step(tr.Click(x=5, y=5))
    assert world.screen.endswith("s02_detail")


def test_share_opens_the_targets_new_item_screen_prefilled(world) -> None:  # type: ignore[no-untyped-def]
    click(world, "Notes")
    click(world, "Pay rent")
    long_press(world, "detail_title")
    click(world, "Share")
    assert world.screen == "@share"
    assert texts(world) == ["Share", "Notes", "Messages", "Files"]
    click(world, "Messages")
    assert world.screen == f"{MSG}:s01_compose"
    assert world.state[f"{MSG}:body_input"] == "Pay rent"
    world.step(tr.Back())
    world.step(tr.Back())  # out of the receiving app: back to the app that shared
    assert world.foreground == NOTES


def test_files_saved_in_one_app_are_picked_in_another(world) -> None:  # type: ignore[no-untyped-def]
    click(world, "Notes")
    click(world, "Buy milk")
    long_press(world, "detail_title")
    click(world, "Share")
    click(world, "Files")
    assert world.state["@files"] == [{"name": "Buy milk", "text": "Buy milk", "app": "Notes"}]
    world.step(tr.OpenApp(package=MSG))
    click(world, "New message")
    click(world, "attach_button")
    assert world.screen == "@picker"
    click(world, "Buy milk")
    assert world.state[f"{MSG}:body_input"] == "Buy milk"


def test_sending_posts_a_notification_the_shade_shows(world) -> None:  # type: ignore[no-untyped-def]
    world.step(tr.OpenApp(package=MSG))
    click(world, "New message")
    click(world, "to_input")
    world.step(tr.TypeText(text="Dan"))
    click(world, "body_input")
    world.step(tr.TypeText(text="Hi there"))
    click(world, "Send")
    notes = world.state["@notifications"]
    assert notes[0]["text"] == "Messages: Dan, Hi there" and len(notes) == 2
    world.step(tr.Drag(x1=500, y1=10, x2=500, y2=900))
    assert world.screen == "@shade"
    assert "Messages: Dan, Hi there" in texts(world)
    click(world, "Messages: Dan, Hi there")  # opens the app and dismisses the notification
    assert world.foreground == MSG and len(world.state["@notifications"]) == 1


def test_notification_text_can_be_copied(world) -> None:  # type: ignore[no-untyped-def]
    click(world, "Notifications")
    long_press(world, "Bob: Pick up the parcel")
    click(world, "Copy")
    assert world.state["@clipboard"] == "Bob: Pick up the parcel"
    assert world.screen == "@shade"


def test_state_is_json_and_resets_from_a_partial_state(world) -> None:  # type: ignore[no-untyped-def]
    state = world.state
    json.dumps(state)
    assert {"@clipboard", "@files", "@notifications", f"{NOTES}:note_list_items"} <= set(state)
    world.reset({"@clipboard": "x", f"{MSG}:to_input": "Zoe"})
    assert world.state["@clipboard"] == "x" and world.state[f"{MSG}:to_input"] == "Zoe"
    assert world.state[f"{NOTES}:note_list_items"] == state[f"{NOTES}:note_list_items"]
    assert dict(world.peek()) == world.state


def test_bad_state_keys_say_how_to_fix(world) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(EnvError, match="did you mean 'com.example.notes'"):
        world.reset({"com.example.note:title_input": "x"})


ACTIONS = st.one_of(
    st.builds(tr.Click, x=st.integers(0, 1079), y=st.integers(0, 1919)),
    st.builds(tr.LongPress, x=st.integers(0, 1079), y=st.integers(0, 1919)),
    st.just(tr.Back()), st.just(tr.Home()),
    st.builds(tr.TypeText, text=st.sampled_from(["a", "Hello"])),
    st.sampled_from([tr.OpenApp(package=NOTES), tr.OpenApp(package=MSG)]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=st.lists(ACTIONS, max_size=12), second=st.lists(ACTIONS, max_size=12))
def test_snapshot_restore_replays_identically(world, first, second) -> None:  # type: ignore[no-untyped-def]
    world.reset()
    for a in first:
        world.step(a)
    snap, state, xml = world.snapshot(), world.state, world.frame().xml
    for a in second:
        world.step(a)
    after = (world.state, world.frame().xml)
    world.restore(snap)
    assert world.state == state and world.frame().xml == xml
    for a in second:
        world.step(a)
    assert (world.state, world.frame().xml) == after


def test_wait_lets_the_app_in_front_leave_a_screen_by_itself(mini_world: Path) -> None:
    """A screen the app leaves by itself (a splash: a `wait` transition) goes on at `wait` when
    the app is in front; on the launcher, `wait` does nothing."""
    from dataclasses import replace

    from phoneworld.ir.app import Transition
    from phoneworld.world.device import World
    from phoneworld.world.load import load_world

    defn = load_world(mini_world)
    notes = next(a for a in defn.apps if a.spec.package == NOTES)
    splash = Transition(id="t_wait", screen=notes.spec.start_screen, action="wait",
                        target="s02_detail", nav="replace")
    spec = notes.spec.model_copy(update={"transitions": (*notes.spec.transitions, splash)})
    apps = tuple(a if a is not notes else replace(a, spec=spec) for a in defn.apps)
    world = World(replace(defn, apps=apps))
    assert not world.step(tr.Wait()).changed and world.screen == "@home"
    click(world, "Notes")
    assert world.screen == f"{NOTES}:s00_main"
    assert world.step(tr.Wait()).changed
    assert world.screen == f"{NOTES}:s02_detail"
