"""uiautomator2 against a served app: the device answers u2's own server protocol (JSON-RPC over
`tcp:9008`, `virtual.u2_server`), so the usual script runs unmodified."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import adbutils
import numpy as np
import pytest
import uiautomator2 as u2
from PIL import Image
from uiautomator2.utils import with_package_resource

from .conftest import Phone, Reference
from .scenario import ADD, NOTE, SAVE, TITLE, XFAIL_SHELL, app_state, assert_dump, \
    assert_note_added, assert_png, assert_screen

U2_PORT = 9008
LAUNCH = f"app_process / com.wetest.uia2.Main -p {U2_PORT}"  # u2's launch line, less CLASSPATH=


def _adb_device(phone: Phone) -> Any:
    return adbutils.AdbClient(port=phone.adb_port).device(phone.serial)


def _alive(dev: Any) -> bool:
    from uiautomator2.core import _http_request
    from uiautomator2.exceptions import HTTPError

    try:
        return _http_request(dev, U2_PORT, "GET", "/ping").content == b"pong"
    except (HTTPError, ConnectionError):
        return False


@pytest.fixture
def d(phone: Phone) -> Iterator[Any]:
    """`u2.connect` of the device, its server started as u2 starts it: its jar pushed, then
    `app_process` on a shell stream that lives as long as the server."""
    dev = _adb_device(phone)
    with with_package_resource("assets/u2.jar") as jar:
        dev.sync.push(jar, "/data/local/tmp/u2.jar")
    proc = dev.shell(LAUNCH, stream=True)
    try:
        client = u2.connect(dev)
        yield client
    finally:
        proc.close()  # the server process "dies" with its stream, as `stop_uiautomator` does
    for _ in range(50):
        if not _alive(dev):
            break
    assert not _alive(dev), "the u2 server outlived its app_process stream"


@pytest.mark.xfail(strict=True, reason=XFAIL_SHELL.format(what="`VAR=x cmd` (u2 launches "
                   "`CLASSPATH=/data/local/tmp/u2.jar app_process ...`)"))
def test_connect_launches_its_server(phone: Phone) -> None:
    client = u2.connect(_adb_device(phone))
    try:
        assert client.info["sdkInt"] == 29
    finally:
        client.stop_uiautomator()


def test_connect_and_screen_size(d: Any, phone: Phone) -> None:
    info = d.info
    assert (info["displayWidth"], info["displayHeight"], info["sdkInt"]) == (1080, 1920, 29)
    assert info["currentPackageName"] == phone.package
    assert d.window_size() == (1080, 1920)


def test_screenshot(d: Any, phone: Phone, ref: Reference, tmp_path: Path) -> None:
    d.screenshot(str(tmp_path / "s.png"))  # the server's JPEG, saved as PNG by the client
    img = assert_png((tmp_path / "s.png").read_bytes(), phone)
    from phoneworld.runtime.screenshot import render_image

    want = np.asarray(render_image(ref.sim.frame(), 1080, 1920, 1.0), dtype=np.int16)
    assert np.abs(np.asarray(img.convert("RGB"), dtype=np.int16) - want).mean() < 2.0  # JPEG
    assert_screen(d.screenshot(display_id=0), ref)  # screencap through adb, exact


def test_hierarchy_dump(d: Any, ref: Reference) -> None:
    assert_dump(d.dump_hierarchy(), ref)
    assert d(text="Buy milk").exists and not d(text="Buy bread").exists
    assert d(resourceId="com.example.notes:id/note_title").count == 3
    assert d(resourceId="com.example.notes:id/note_title", instance=1).get_text() == "Call Alice"


def test_tap_text_back(d: Any, ref: Reference) -> None:
    d.click(*ref.click(**ADD))
    d(resourceId=TITLE["resource_id"]).set_text(NOTE)
    ref.click(**TITLE)
    ref.type(NOTE)
    assert_dump(d.dump_hierarchy(), ref)
    d.press("back")
    ref.back()
    assert_dump(d.dump_hierarchy(), ref)


def test_app_start(d: Any, phone: Phone) -> None:
    d.press("home")
    assert d.app_current()["package"] == "com.android.launcher3"
    d.app_start(phone.package)
    assert d.app_current()["package"] == phone.package
    assert d(description="Add note").exists
    d.app_stop(phone.package)
    assert d.app_current()["package"] == "com.android.launcher3"


def test_add_note_episode(d: Any, phone: Phone, ref: Reference) -> None:
    """The usual script: find by selector, click, send_keys, dump."""
    d(description="Add note").click()
    ref.click(**ADD)
    d.send_keys(NOTE)  # setClipboard + pasteClipboard into the field in front
    ref.type(NOTE)
    d(text="Save").click()
    ref.click(**SAVE)
    xml = d.dump_hierarchy()
    assert d(text=NOTE).exists
    assert_note_added(xml, app_state(phone, lambda line: d.shell(line).output), ref)


def test_missing_view_is_ui_object_not_found(d: Any) -> None:
    d.settings["wait_timeout"] = 0.1
    with pytest.raises(u2.UiObjectNotFoundError):
        d(text="No such view").click()
