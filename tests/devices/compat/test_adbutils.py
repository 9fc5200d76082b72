"""adbutils (`AdbClient(port).device(serial)`) against a served app: every call of the suite."""

from __future__ import annotations

import time
from typing import Any

import adbutils
import pytest

from phoneworld.devices.virtual.server import RESTART_DELAY

from .conftest import Phone, Reference
from .scenario import ADD, NOTE, SAVE, TITLE, app_state, assert_dump, assert_note_added, \
    assert_png, assert_screen


@pytest.fixture
def d(phone: Phone) -> Any:
    return adbutils.AdbClient(port=phone.adb_port).device(phone.serial)


def test_connect_and_screen_size(d: Any, phone: Phone) -> None:
    assert phone.serial in [x.serial for x in adbutils.AdbClient(port=phone.adb_port).device_list()]
    assert d.getprop("ro.build.version.sdk") == "29"
    assert tuple(d.window_size()) == (1080, 1920)
    assert d.rotation() == 0
    assert d.is_screen_on()
    assert d.wlan_ip() == "10.0.2.15"


def test_screenshot_and_framebuffer(d: Any, phone: Phone, ref: Reference) -> None:
    png = d.shell("screencap -p", encoding=None)
    assert_screen(assert_png(png, phone), ref)
    assert_screen(d.screenshot(), ref)
    fb = d.framebuffer()
    assert fb.size == (1080, 1920)
    assert_screen(fb, ref)


def test_hierarchy_dump(d: Any, ref: Reference) -> None:
    assert_dump(d.dump_hierarchy(), ref)


def test_tap_text_back(d: Any, ref: Reference) -> None:
    d.click(*ref.click(**ADD))
    d.click(*ref.click(**TITLE))
    d.send_keys(NOTE)
    ref.type(NOTE)
    assert_dump(d.dump_hierarchy(), ref)
    d.keyevent("BACK")
    ref.back()
    assert_dump(d.dump_hierarchy(), ref)


def test_percent_click_and_swipe_tap(d: Any, ref: Reference) -> None:
    x, y = ref.click(**ADD)
    d.click(x / 1080, y / 1920)  # adbutils turns fractions into pixels with window_size()
    assert_dump(d.dump_hierarchy(), ref)
    d.keyevent("BACK")
    ref.back()
    d.swipe(x, y, x, y, 0.2)  # a swipe that does not move is a tap, as on Android
    ref.click(**ADD)
    assert_dump(d.dump_hierarchy(), ref)


def test_app_start_and_current(d: Any, phone: Phone) -> None:
    d.keyevent("HOME")
    assert d.app_current().package == "com.android.launcher3"
    d.app_start(phone.package)
    cur = d.app_current()
    assert cur.package == phone.package and cur.activity.endswith(".MainActivity")
    assert phone.package in d.list_packages()
    d.app_stop(phone.package)
    assert d.app_current().package == "com.android.launcher3"


def _restarted(phone: Phone) -> None:
    """Wait for adbd's restart after `root`/`unroot`: the connection drops, adb reconnects."""
    time.sleep(RESTART_DELAY + 0.3)
    phone.adb.run("-s", phone.serial, "wait-for-device", timeout=15)


def test_forward_reverse_root(d: Any, phone: Phone) -> None:
    d.reverse("tcp:12345", "tcp:23456")
    assert [(r.remote, r.local) for r in d.reverse_list()] == [("tcp:12345", "tcp:23456")]
    d.reverse_remove_all()
    assert d.reverse_list() == []
    with pytest.raises(adbutils.AdbError):  # nothing listens on that device port
        d.create_connection(adbutils.Network.TCP, 9999)
    assert d.root() == "restarting adbd as root\n"
    _restarted(phone)
    assert d.root() == "adbd is already running as root\n"
    phone.shell("true")
    assert "restarting" in phone.adb.run("-s", phone.serial, "unroot")
    _restarted(phone)


def test_add_note_episode(d: Any, phone: Phone, ref: Reference) -> None:
    d.click(*ref.click(**ADD))
    d.click(*ref.click(**TITLE))
    d.send_keys(NOTE)
    ref.type(NOTE)
    d.click(*ref.click(**SAVE))
    state = app_state(phone, d.shell)
    assert_note_added(d.dump_hierarchy(), state, ref)
