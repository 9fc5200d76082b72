"""The world part of an app's Kotlin project: its wiring (`phoneworld.world.wiring.AppWiring`) as
template values, so the generated `core/Wiring.kt` and the Android shell do what the world
simulator does (`phoneworld.world.device`).

`WorldWiring` is the plain-data form the templates need (no dependency on `phoneworld.world`,
which is imported only by `from_app_wiring`): the world's name, where a share lands, which widgets
share or attach, and which transitions post a notification (with the collections they append to).
An app built without a world gets none of it (the world-only templates render to nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from phoneworld.android.escape import kt
from phoneworld.ir.app import AppSpec


@dataclass(frozen=True)
class WorldWiring:
    name: str
    receive_path: tuple[str, ...] = ()
    receive_field: str | None = None
    share: tuple[tuple[str, str, str | None], ...] = ()  # (screen, widget, text_from)
    pick: tuple[tuple[str, str, str], ...] = ()  # (screen, widget, field)
    notify: tuple[str, ...] = ()  # transition ids
    apps: tuple[tuple[str, str], ...] = field(default=())  # (package, label) of the whole world

    @property
    def receiver(self) -> bool:
        return self.receive_field is not None


def from_app_wiring(world_name: str, wiring: Any, apps: tuple[tuple[str, str], ...] = ()
                    ) -> WorldWiring:
    """A `phoneworld.world.wiring.AppWiring` as `WorldWiring` (canonical order: byte-stable)."""
    r = wiring.receive
    return WorldWiring(
        name=world_name,
        receive_path=tuple(r.path) if r is not None else (),
        receive_field=r.field if r is not None else None,
        share=tuple(sorted((s, w, t) for (s, w), t in wiring.share.items())),
        pick=tuple(sorted((s, w, f) for (s, w), f in wiring.pick.items())),
        notify=tuple(sorted(wiring.notify)),
        apps=apps,
    )


def world_context(spec: AppSpec, w: WorldWiring | None) -> dict[str, Any] | None:
    """The `world` value of the template context (None: an app outside any world)."""
    if w is None:
        return None
    by_id = {t.id: t for t in spec.transitions}
    notify = []
    for tid in w.notify:
        t = by_id.get(tid)
        if t is None:
            continue
        appends = [{"collection": e.collection, "start": "true" if e.position == "start" else "false"}
                   for e in t.effects if e.kind == "append"]
        notify.append({"id": tid, "appends": appends})
    return {
        "name": w.name,
        "receiver": w.receiver,
        "receive_path": list(w.receive_path),
        "receive_field": kt(w.receive_field) if w.receive_field is not None else "null",
        "share": [{"screen": s, "widget": wd, "text_from": kt(t) if t is not None else "null"}
                  for s, wd, t in w.share],
        "pick": [{"screen": s, "widget": wd, "field": f} for s, wd, f in w.pick],
        "notify": notify,
        "channel": "phoneworld_world",
    }
