"""pure-python-adb (`ppadb.client.Client(port).device(serial)`) against a served app."""

from __future__ import annotations

from typing import Any

import pytest
from ppadb.client import Client

from .conftest import Phone, Reference
from .scenario import ADD, NOTE, SAVE, TITLE, XFAIL_SHELL, app_state, assert_dump, \
    assert_note_added, assert_png, assert_screen

DUMPED = "\nUI hierchary dumped to: /dev/tty\n"


@pytest.fixture
def d(phone: Phone) -> Any:
    return Client(port=phone.adb_port).device(phone.serial)


def _dump(d: Any) -> str:
    out = d.shell("uiautomator dump /dev/tty")
    assert out.endswith(DUMPED)
    return str(out[: -len(DUMPED)])


def test_connect_and_screen_size(d: Any, phone: Phone) -> None:
    assert phone.serial in [x.serial for x in Client(port=phone.adb_port).devices()]
    size = d.wm_size()
    assert (size.width, size.height) == (1080, 1920)
    assert d.get_properties()["ro.build.version.sdk"] == "29"


@pytest.mark.xfail(strict=True, reason=XFAIL_SHELL.format(what="`cut` (wm_density runs "
                   "`wm density | cut -d ' ' -f 3`)"))
def test_density(d: Any) -> None:
    assert d.wm_density() == 2  # int(420 / 160)


@pytest.mark.xfail(strict=True, reason=XFAIL_SHELL.format(what="absolute command paths "
                   "(screencap() runs `/system/bin/screencap -p`)"))
def test_screencap(d: Any, phone: Phone, ref: Reference) -> None:
    assert_screen(assert_png(bytes(d.screencap()), phone), ref)


@pytest.mark.xfail(strict=True, reason=XFAIL_SHELL.format(what="`2>/dev/null` (list_packages "
                   "runs `pm list packages 2>/dev/null`; the parser takes `2>` for `>`)"))
def test_list_packages(d: Any, phone: Phone) -> None:
    assert phone.package in d.list_packages()


def test_hierarchy_dump(d: Any, ref: Reference) -> None:
    assert_dump(_dump(d), ref)


def test_tap_text_back(d: Any, ref: Reference) -> None:
    d.input_tap(*ref.click(**ADD))
    d.input_tap(*ref.click(**TITLE))
    d.input_text(NOTE.replace(" ", "%s"))
    ref.type(NOTE)
    assert_dump(_dump(d), ref)
    d.input_keyevent(4)
    ref.back()
    assert_dump(_dump(d), ref)


def test_app_start(d: Any, phone: Phone) -> None:
    d.input_keyevent(3)
    assert d.get_top_activity().package == "com.android.launcher3"
    d.shell(f"am start -n {phone.package}/.MainActivity")
    top = d.get_top_activity()
    assert (top.package, top.activity) == (phone.package, ".MainActivity")
    assert d.is_installed(phone.package)


def test_add_note_episode(d: Any, phone: Phone, ref: Reference) -> None:
    d.input_tap(*ref.click(**ADD))
    d.input_tap(*ref.click(**TITLE))
    d.input_text(NOTE.replace(" ", "%s"))
    ref.type(NOTE)
    d.input_tap(*ref.click(**SAVE))
    assert_note_added(_dump(d), app_state(phone, d.shell), ref)
