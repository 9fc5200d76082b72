"""The device side of a world over Debian's adb: a virtual device serving the whole CI world
(notes + messages) answers the adb commands the world APKs answer on a phone (run-as state and
clipboard files, the shared Download folder, `dumpsys notification`), and `DeviceWorld` reads
from it, through the real adb client, the same world state as the simulator after every phase of
a scripted cross-app episode: copy and paste, share to Files, attach, a notification, a share
into another app. A world verifier run on the state read from the device passes after the
oracle's episode and fails before it. The screen in front is read too (`@screen`), so a rule
that says where the episode ends is checked on the device as in the simulator."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from phoneworld.ir import trace as tr
from tests.conftest import build_mini_world

@pytest.fixture(scope="module")
def world_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_mini_world(tmp_path_factory.mktemp("device_world"))


@pytest.fixture()
def served(world_dir: Path, adb_server: Any) -> Iterator[tuple[Any, Any]]:
    from phoneworld.devices.virtual import DeviceServer
    from phoneworld.devices.virtual.world_device import WorldVirtualDevice
    from phoneworld.devices.world_backend import DeviceWorld
    from phoneworld.world.device import World
    from phoneworld.world.load import load_world

    world = World(load_world(world_dir))
    dev = WorldVirtualDevice(world)
    server = DeviceServer([dev]).start()
    serial = server.serials[0]
    adb_server.connect(serial)
    try:
        yield dev, DeviceWorld.of(adb_server.link(serial).shell, world)
    finally:
        adb_server.disconnect(serial)
        server.stop()


def _center(world: Any, wid: str, item: int | None = None) -> tuple[int, int]:
    n = next(n for n in world.frame().nodes if n.c.wid == wid and n.item == item)
    return n.center


def _tap(dev: Any, wid: str, item: int | None = None, long: bool = False) -> None:
    x, y = _center(dev.world, wid, item)
    dev.step(tr.LongPress(x=x, y=y) if long else tr.Click(x=x, y=y))


def _same(device_state: dict[str, Any], world: Any) -> None:
    want = dict(world.state)
    if want["@screen"].startswith("@menu"):  # a text selection menu is in the app's window
        want["@screen"] = f"{world.foreground}:{world.sims[world.foreground].screen}"
    got = dict(device_state)
    # the order of files across apps is not recovered on a device (see world_backend)
    key = (lambda f: (f["app"], f["name"]))
    want["@files"], got["@files"] = sorted(want["@files"], key=key), sorted(got["@files"], key=key)
    assert got == want


def test_device_world_state_follows_a_cross_app_episode(served) -> None:  # type: ignore[no-untyped-def]
    dev, dw = served
    w = dev.world
    _same(dw.read_state(), w)
    assert dw.read_state()["@notifications"][0]["text"] == "Bob: Pick up the parcel"

    # copy a note's title, paste it into a new message
    dev.step(tr.OpenApp(package="com.example.notes"))
    title = next(n for n in w.frame().nodes if n.item == 0 and n.text).c.wid
    _tap(dev, title, 0, long=True)
    _tap(dev, "menu_copy")
    copied = w.services.clipboard
    assert copied and copied != "Stale text"
    dev.step(tr.OpenApp(package="com.example.messages"))
    _tap(dev, "new_message")
    _tap(dev, "body_input", long=True)
    _tap(dev, "menu_paste")
    state = dw.read_state()
    _same(state, w)
    assert state["@clipboard"] == copied
    assert state["com.example.messages:body_input"] == copied

    # share the notification's text to Files, attach that file to the message, send it
    dev.step(tr.Drag(x1=500, y1=10, x2=500, y2=800))
    _tap(dev, "notification_text", 0, long=True)
    _tap(dev, "menu_share")
    _tap(dev, "share_target", len(w.overlay.targets) - 1)  # "Files"
    state = dw.read_state()
    _same(state, w)
    assert [f["text"] for f in state["@files"]] == ["Bob: Pick up the parcel"]
    dev.step(tr.Back())  # the shade
    _tap(dev, "attach_button")
    _tap(dev, "file_item", 0)
    assert w.sims["com.example.messages"].state["body_input"] == "Bob: Pick up the parcel"
    _tap(dev, "send_button")
    state = dw.read_state()
    _same(state, w)
    assert len(state["@notifications"]) == 2  # the message sent posted one

    # share the newest notification into Notes: its editor opens with the text
    dev.step(tr.Drag(x1=500, y1=10, x2=500, y2=800))
    _tap(dev, "notification_text", 0, long=True)
    _tap(dev, "menu_share")
    _tap(dev, "share_target", w.overlay.targets.index("com.example.notes"))
    state = dw.read_state()
    _same(state, w)
    assert w.screen == "com.example.notes:s01_editor"
    assert state["com.example.notes:title_input"].startswith("Messages: ")


def test_a_world_verifier_reads_the_device_state(served) -> None:  # type: ignore[no-untyped-def]
    from phoneworld.tasks.codegen import compile_verifier
    from phoneworld.world.oracle import solve
    from phoneworld.world.schema import instantiate, schema_of
    from phoneworld.world.synth import handoff_tasks

    dev, dw = served
    w = dev.world
    schema = schema_of(w)
    spec = next(t for t in handoff_tasks(w, schema) if "@clipboard" in str(t.rule))
    verifier = compile_verifier(spec, schema)  # type: ignore[arg-type]
    inst = instantiate(spec, schema, seed=0, verify=verifier)
    res = solve(w, schema, inst, verifier)
    assert res.moves, "the oracle solves the task in the simulator"
    dev.reset_world(inst.state)
    assert not dw.verify(verifier, inst.params).passed
    for m in res.moves:
        dev.step(m.action)
    assert dw.verify(verifier, inst.params).passed


def test_the_screen_in_front_reads_as_the_simulator_names_it(served) -> None:  # type: ignore[no-untyped-def]
    dev, dw = served
    w = dev.world
    seen = [dw.screen()]
    dev.step(tr.OpenApp(package="com.example.notes"))
    seen.append(dw.screen())
    assert seen[-1] == w.screen and seen[-1].startswith("com.example.notes:")
    dev.step(tr.Drag(x1=500, y1=10, x2=500, y2=800))  # the notification shade
    seen.append(dw.screen())
    dev.step(tr.Back())
    dev.step(tr.Home())
    seen.append(dw.screen())
    assert seen == ["@home", f"com.example.notes:{w.sims['com.example.notes'].screen}",
                    "@shade", "@home"]


def test_system_windows_map_to_the_world_overlays() -> None:
    from phoneworld.devices.world_backend import system_window

    assert system_window("android/com.android.internal.app.ChooserActivity") == "@share"
    picker = "com.google.android.documentsui/com.android.documentsui.picker.PickActivity"
    assert system_window(picker) == "@picker"
    assert system_window("NotificationShade") == "@shade"
    recents = "com.android.launcher3/com.android.quickstep.RecentsActivity"
    assert system_window(recents) == "@recents"
    assert system_window("com.android.chrome/com.google.android.apps.chrome.Main") is None
