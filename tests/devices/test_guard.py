"""The guard in front of real apps: what it recognises as sensitive, the allow-list, and, on a
virtual device serving an app with "Send" and "Pay" buttons, that a policy tapping them is stopped
before the tap reaches the device."""

from __future__ import annotations

import json
from typing import Any

import pytest

from phoneworld.devices.guard import Guard, label, touch_targets
from phoneworld.errors import ActionBlocked, EnvError
from phoneworld.ir import trace as tr
from phoneworld.ir.app import AddEffect, AppSpec, Lit, StateVar, Transition, Var, VarRef, Widget
from phoneworld.runtime.env import PhoneEnv
from phoneworld.runtime.sim import Simulator

from ..runtime.notes_app import B, button, mini_app
from .conftest import serve

PKG = "com.example.mini"


def pay_app() -> AppSpec:
    row = Widget(wid="row_share", cls="android.widget.LinearLayout", clickable=True,
                 bounds=B(0, 900, 1080, 1040), children=(
                     Widget(wid="txt_share", cls="android.widget.TextView",
                            text=Lit(value="Share my location"), bounds=B(40, 920, 800, 1020)),))
    return mini_app(
        {"s00_chat": [
            Widget(wid="edit_msg", cls="android.widget.EditText", editable=True, clickable=True,
                   resource_id=f"{PKG}:id/message", bounds=B(40, 100, 1040, 220)),
            button("btn_send", B(40, 300, 500, 420), "Send", resource_id=f"{PKG}:id/btn_send"),
            Widget(wid="btn_pay", cls="android.widget.ImageButton", content_desc="Pay now",
                   clickable=True, bounds=B(560, 300, 1040, 420)),
            button("btn_refresh", B(40, 500, 500, 620), "Refresh"),
            Widget(wid="txt_count", cls="android.widget.TextView",
                   text=Var(name="refreshes", fmt="{} refreshes"), bounds=B(40, 700, 1040, 800)),
            row,
        ]},
        [Transition(id="t_refresh", screen="s00_chat", action="click", widget="btn_refresh",
                    effects=(AddEffect(ref=VarRef(name="refreshes"), delta=1),), nav="stay")],
        state=(StateVar(name="refreshes", kind="number"),), initial={"refreshes": 0},
    )


@pytest.fixture(scope="module")
def root() -> Any:
    return Simulator(pay_app()).view()


def test_labels() -> None:
    assert label("com.x:id/btn_sendMessage") == "btn send message"
    assert label("Pay now") == "pay now"


@pytest.mark.parametrize(("x", "y", "rule"), [
    (200, 350, "send"),  # text "Send" (and id btn_send)
    (800, 350, "pay"),  # content-desc "Pay now"
    (900, 950, "share"),  # a clickable row whose child says "Share my location"
    (300, 960, "share"),  # the label itself, inside the row
    (200, 550, None),  # "Refresh"
], ids=["send", "pay", "row", "label-in-row", "refresh"])
def test_taps(root: Any, x: int, y: int, rule: str | None) -> None:
    reason = Guard(allow_apps=frozenset({PKG})).check(tr.Click(x=x, y=y), root, PKG)
    assert (reason is None) if rule is None else (f"deny rule {rule!r}" in (reason or ""))


def test_targets_are_topmost_first(root: Any) -> None:
    assert [n.cls.rsplit(".", 1)[1] for n in touch_targets(root, 300, 960)] == [
        "TextView", "LinearLayout", "TextView"]


def test_allow_list_and_typing(root: Any) -> None:
    g = Guard(allow_apps=frozenset({PKG}))
    assert "allow-list" in (g.check(tr.OpenApp(package="com.bank"), root, PKG) or "")
    assert g.check(tr.OpenApp(package=PKG), root, PKG) is None
    assert g.check(tr.Back(), root, "com.bank") is None  # backing out of it is fine
    assert "allow-list" in (g.check(tr.Click(x=1, y=1), root, "com.bank") or "")
    assert g.check(tr.Click(x=1, y=1), root, "com.android.launcher3") is None
    assert g.check(tr.TypeText(text="hello"), root, PKG) is None
    custom = Guard(allow_apps=frozenset({PKG}), deny={"msg": r"\bmessage\b"})
    assert "msg" in (custom.check(tr.TypeText(text="hi"), root, PKG) or "")
    assert custom.check(tr.Click(x=200, y=350), root, PKG) is None  # "Send" is allowed there


def test_guard_stops_taps_before_they_reach_the_device(adb_server: Any) -> None:
    from phoneworld.devices.real_backend import RealAppBackend, real_app_spec

    with serve(pay_app(), adb_server) as served:
        dev = served.devices[0]
        backend = RealAppBackend(served.serials[0], PKG, adb=adb_server.client(), settle=0.0,
                                 timeout=10.0)
        env = PhoneEnv(real_app_spec(backend), backend=backend)
        obs, info = env.reset()
        assert info["state"] == {} and obs["screen"].startswith(PKG)
        refresh = next(e.id for e in env.elements if e.text == "Refresh")
        obs, *_ = env.step(json.dumps({"type": "click", "element": refresh}))
        assert "1 refreshes" in obs["text"]
        taps = list(dev.input_log)
        for target in ("Send", "Pay now"):
            env.reset()
            el = next(e for e in env.elements if target in (e.text, e.content_desc))
            _, _, terminated, _, info = env.step({"type": "click", "element": el.id})
            assert terminated and "deny rule" in info["blocked"]
            assert backend.trajectory[-1]["blocked"] == info["blocked"]
        assert dev.input_log == taps  # nothing reached the device after the Refresh tap
        with pytest.raises(ActionBlocked):
            backend.step(tr.Click(x=200, y=350))
        assert backend.judge_episode("send hi") is None  # no judge: unscorable
        backend.judge = lambda instruction, steps: float(not any("blocked" in s for s in steps))
        assert backend.judge_episode("send hi") == 0.0
        with pytest.raises(EnvError, match="no state access"):
            backend.reset({"refreshes": 3})
        with pytest.raises(EnvError, match="allow-list"):
            RealAppBackend(served.serials[0], PKG, adb=adb_server.client(),
                           guard=Guard(allow_apps=frozenset({"com.other"})))
