"""A tiny scripted driver for worlds in tests: tap elements by text, id or description."""

from __future__ import annotations

from typing import Any

from phoneworld.ir import trace as tr


def find(world: Any, name: str) -> Any:
    for e in world.frame().elements:
        if name in (e.text, e.content_desc, e.resource_id.split("/")[-1]):
            return e
    raise AssertionError(f"no element {name!r} on {world.screen}:\n{world.frame().text}")


def click(world: Any, name: str) -> Any:
    e = find(world, name)
    return world.step(tr.Click(x=e.x, y=e.y))


def long_press(world: Any, name: str) -> Any:
    e = find(world, name)
    return world.step(tr.LongPress(x=e.x, y=e.y))


def texts(world: Any) -> list[str]:
    return [e.text for e in world.frame().elements if e.text]
