"""Hand-made episodes for the pass-level compiler tests (tests/abstract, graph, state, lower, fidelity).

Views are built in code as `ir.trace.ViewNode`s on a 1080x1920 device, so each test shows the few
nodes its decision depends on. `episode(...)` numbers the steps and gives every step a source;
`compile_app(...)` runs the passes up to the app spec, for tests of a later pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from phoneworld.abstract import abstract
from phoneworld.graph import graph
from phoneworld.ir.app import AppSpec
from phoneworld.ir.base import Bounds, SourceRef
from phoneworld.ir.graph import TransitionGraph
from phoneworld.ir.model import StateModel
from phoneworld.ir.screens import Abstraction
from phoneworld.ir.trace import (
    Action, Back, Click, Device, Episode, Handoff, Observation, Step, TraceSet, TypeText,
    ViewNode,
)
from phoneworld.lower import lower
from phoneworld.state import infer_state, prepare
from phoneworld.state.schema import Schema

PKG = "com.example.tiny"
W, H = 1080, 1920
DEVICE = Device(width=W, height=H)

FRAME = "android.widget.FrameLayout"
LINEAR = "android.widget.LinearLayout"
TEXT = "android.widget.TextView"
BUTTON = "android.widget.Button"
EDIT = "android.widget.EditText"
CHECKBOX = "android.widget.CheckBox"
RECYCLER = "androidx.recyclerview.widget.RecyclerView"

__all__ = [
    "BUTTON", "CHECKBOX", "DEVICE", "EDIT", "FRAME", "H", "LINEAR", "PKG", "RECYCLER", "TEXT", "W",
    "ROW_PITCH", "ROW_TOP", "Compiled", "b", "back", "click", "compile_app", "episode", "on_row",
    "rid", "root", "row_list", "screen", "tap", "traces", "type_", "view",
]


def b(x1: int, y1: int, x2: int, y2: int) -> Bounds:
    return Bounds(x1=x1, y1=y1, x2=x2, y2=y2)


def rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def view(cls: str, bounds: Bounds, *children: ViewNode, id: str = "", text: str = "",
         desc: str = "", **flags: bool) -> ViewNode:
    """A node; `id` is the short resource-id ("save" -> "com.example.tiny:id/save"); `flags` are
    ViewNode booleans (clickable=True, checkable=True, checked=True, scrollable=True, ...)."""
    return ViewNode(cls=cls, bounds=bounds, resource_id=rid(id) if id else "", text=text,
                    content_desc=desc, package=PKG, children=children, **flags)


def root(*children: ViewNode) -> ViewNode:
    """The full-screen FrameLayout every screen here hangs from."""
    return view(FRAME, b(0, 0, W, H), *children)


def screen(*children: ViewNode, activity: str | None = ".MainActivity") -> Observation:
    return Observation(root=root(*children), package=PKG,
                       activity=f"{PKG}/{activity}" if activity else None)


ROW_TOP, ROW_PITCH = 200, 200


def row_list(*titles: str, checked: tuple[bool, ...] = (), removable: bool = False,
             list_id: str = "list") -> ViewNode:
    """A RecyclerView of rows, one every ROW_PITCH pixels from ROW_TOP: a clickable LinearLayout
    holding a title TextView (x 40..600), a "Remove" button (x 700..860) when `removable`, and a
    CheckBox (x 900..1040) when `checked` gives the rows' flags."""
    rows = []
    for k, title in enumerate(titles):
        y = ROW_TOP + k * ROW_PITCH
        kids = [view(TEXT, b(40, y + 20, 600, y + 180), id="title", text=title)]
        if removable:
            kids.append(view(BUTTON, b(700, y + 40, 860, y + 160), id="remove", desc="Remove",
                             clickable=True))
        if checked:
            kids.append(view(CHECKBOX, b(900, y + 40, 1040, y + 160), id="done",
                             checkable=True, clickable=True, checked=checked[k]))
        rows.append(view(LINEAR, b(0, y, W, y + ROW_PITCH), *kids, id="row", clickable=True))
    return view(RECYCLER, b(0, ROW_TOP, W, 1600), *rows, id=list_id, scrollable=True)


def on_row(k: int, x: int = 300) -> Click:
    """A click on row `k` of a `row_list` (x 300: its title; 780: Remove; 970: the CheckBox)."""
    return Click(x=x, y=ROW_TOP + k * ROW_PITCH + ROW_PITCH // 2)


def click(x: int, y: int) -> Click:
    return Click(x=x, y=y)


def tap(node: ViewNode) -> Click:
    """A click at the centre of `node`."""
    x, y = node.bounds.center
    return Click(x=x, y=y)


def type_(text: str) -> TypeText:
    return TypeText(text=text)


def back() -> Back:
    return Back()


def episode(ep_id: str, *steps: Observation | Action, app: str = PKG) -> Episode:
    """An episode from alternating observations and actions: obs, action, obs, ..., obs."""
    observations = steps[0::2]
    actions = steps[1::2]
    assert all(isinstance(o, Observation) for o in observations), "observations at even places"
    assert len(observations) == len(actions) + 1, "an episode ends on an observation"
    out = []
    for i, obs in enumerate(observations):
        action = actions[i] if i < len(actions) else None
        source = SourceRef(file=f"{ep_id}/{i:04d}.xml", episode=ep_id, step=i)
        out.append(Step(index=i, observation=obs, action=action, source=source))  # type: ignore[arg-type]
    return Episode(id=ep_id, app=app, device=DEVICE, steps=tuple(out),
                   source=SourceRef(file=f"{ep_id}/trace.json", episode=ep_id))


def follows(ep: Episode, before: str, moved: bool = False, back_from: str | None = None
            ) -> Episode:
    """`ep` as the session after episode `before` of the same recording: the app moved to its
    first screen by itself (`moved`), or it returned from app `back_from`, or (neither) it went on
    after a gap in the recording."""
    handoff = Handoff(origin_episode=ep.id, part=1, previous_app=back_from) if back_from else None
    return ep.model_copy(update={"follows": before, "moved_by_itself": moved, "handoff": handoff})


def traces(*episodes: Episode) -> TraceSet:
    return TraceSet(episodes=tuple(episodes))


@dataclass(frozen=True)
class Compiled:
    """Every pass's output for one hand-made trace set."""

    traces: TraceSet
    abstraction: Abstraction
    graph: TransitionGraph
    model: StateModel
    schema: Schema
    spec: AppSpec


def compile_app(trace_set: TraceSet) -> Compiled:
    abstraction = abstract(trace_set)
    transitions = graph(trace_set, abstraction)
    model = infer_state(abstraction, transitions)
    schema, _ = prepare(abstraction, transitions)
    spec = lower(trace_set, abstraction, transitions, model)
    return Compiled(trace_set, abstraction, transitions, model, schema, spec)
