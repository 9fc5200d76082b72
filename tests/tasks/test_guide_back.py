"""The oracle's guide counts back as a way out of a screen: to any screen that opens it."""

from __future__ import annotations

from phoneworld.ir.app import AppSpec, Lit, ScreenSpec, Transition, Widget
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device
from phoneworld.tasks.guide import distances


def spec(*transitions: Transition) -> AppSpec:
    root = Widget(wid="root", cls="android.widget.FrameLayout",
                  bounds=Bounds(x1=0, y1=0, x2=1080, y2=1920), text=Lit(value=""))
    screens = tuple(ScreenSpec(id=s, name=s, package="com.example.tiny", root=root)
                    for s in ("home", "list", "detail", "settings"))
    return AppSpec(package="com.example.tiny", label="tiny", device=Device(width=1080, height=1920),
                   start_screen="home", screens=screens, transitions=transitions, state=(),
                   initial_state={})


def t(n: int, screen: str, target: str | None, action: str = "click",
      nav: str = "push") -> Transition:
    return Transition(id=f"t{n}", screen=screen, action=action, target=target, nav=nav)  # type: ignore[arg-type]


def test_back_leads_to_the_screens_that_open_a_screen() -> None:
    app = spec(t(0, "home", "list"), t(1, "list", "detail"), t(2, "home", "settings"),
               t(3, "detail", None, action="back", nav="pop"))
    # settings is one tap from home, and home one back from list, two from detail
    assert distances(app, {"settings"}) == {"settings": 0, "home": 1, "list": 2, "detail": 3}
