"""The `abstract` pass: which observations are the same screen (traces -> `Abstraction`).

A screen's identity is its activity and the shape of its view tree: class, resource-id,
content-desc and layout position of every node, ignoring texts, checked flags and bounds (two
activities with one layout, say a quiz's "correct" and "wrong" pages, are two screens). Repeated siblings under a list
container collapse into one item template, so list lengths and scroll positions do not split a
screen, and so does a pool of numbered views (`letter1`, `letter2`, ...) however many it shows. Ad
slots (`shape.is_ad`: a banner an ad SDK fills, or the app's own advert in its place) are left out:
they change as ads load, whatever the user does. Observations of one shape align node for node,
which gives widget identity across visits.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from phoneworld.abstract.shape import ShapeIndex, anchor_key, learn_empty_slots
from phoneworld.abstract.templates import build_template, read_observation
from phoneworld.ir.base import SourceRef, ids_shrunk
from phoneworld.ir.screens import Abstraction, ScreenReading, ScreenTemplate
from phoneworld.ir.trace import Observation, TraceSet

__all__ = ["abstract", "read", "Reader"]


def abstract(traces: TraceSet) -> Abstraction:
    """Group the observations of one app's episodes into screens and read every step."""
    apps = traces.apps()
    if len(apps) != 1:
        raise ValueError(f"abstract expects the episodes of one app, got {apps}")
    observations = [(e, s.index, s.observation) for e, ep in enumerate(traces.episodes)
                    for s in ep.steps]
    index = ShapeIndex.learn([obs.root for _, _, obs in observations])
    index.empty = learn_empty_slots(index, [obs.root for _, _, obs in observations])
    if index.empty:  # read each observation with its hidden empty lists in place (`fill`)
        filled: dict[int, Observation] = {}
        observations = [(e, i, filled.setdefault(id(obs), index.fill(obs)))
                        for e, i, obs in observations]

    groups: dict[str, list[tuple[int, int, Observation]]] = defaultdict(list)
    order: list[str] = []
    for e, i, obs in observations:
        shape = index.screen_shape(obs)
        if shape not in groups:
            order.append(shape)
        groups[shape].append((e, i, obs))

    ids_named = not ids_shrunk(n.resource_id for _, _, obs in observations for n in obs.root.walk())
    screens: list[ScreenTemplate] = []
    by_shape: dict[str, ScreenTemplate] = {}
    used_names: Counter[str] = Counter()
    for n, shape in enumerate(order):
        members = groups[shape]
        template_root = build_template(index, [obs for _, _, obs in members], ids_named)
        first = members[0][2]
        name = _screen_name(first, used_names)
        sources = tuple(
            traces.episodes[e].steps[i].source for e, i, _ in members[:3]
        )
        screen = ScreenTemplate(
            id=f"s{n:02d}_{name}",
            name=name,
            package=first.package,
            activity=_most_common([o.activity for _, _, o in members if o.activity]),
            signature=shape,
            root=template_root,
            observations=len(members),
            sources=sources,
        )
        screens.append(screen)
        by_shape[shape] = screen

    # Importers share one Observation between steps that saw the same state: read it once.
    memo: dict[int, ScreenReading] = {}

    def read_step(e: int, i: int, obs: Observation) -> ScreenReading:
        base = memo.get(id(obs))
        if base is None:
            base = memo[id(obs)] = read_observation(
                index, by_shape[index.screen_shape(obs)], obs, e, i)
        return base.model_copy(update={"episode": e, "step": i})

    per_episode: list[list[ScreenReading]] = [[] for _ in traces.episodes]
    for e, i, obs in observations:
        per_episode[e].append(read_step(e, i, obs))
    readings = tuple(tuple(r) for r in per_episode)
    return Abstraction(app=apps[0], screens=tuple(screens), readings=readings,
                       follows=traces.follows(), **index.facts())


class Reader:
    """Reads observations that were not part of the build (held-out) through the known screens."""

    def __init__(self, abstraction: Abstraction) -> None:
        self.index = ShapeIndex.of(abstraction)
        self.screens = {s.signature: s for s in abstraction.screens}

    def read(self, observation: Observation, episode: int = -1, step: int = -1) -> ScreenReading:
        observation = self.index.fill(observation)
        screen = self.screens.get(self.index.screen_shape(observation))
        if screen is None:
            return ScreenReading(episode=episode, step=step, screen="")
        return read_observation(self.index, screen, observation, episode, step)


def read(abstraction: Abstraction, observation: Observation, episode: int = -1,
         step: int = -1) -> ScreenReading:
    """Read one observation through the known screens ("" screen when none matches)."""
    return Reader(abstraction).read(observation, episode, step)


def _screen_name(obs: Observation, used: Counter[str]) -> str:
    base = ""
    if obs.activity:
        base = obs.activity.rsplit("/", 1)[-1].rsplit(".", 1)[-1]
        base = base.removesuffix("Activity") or base
    if not base:
        base = "screen"
    slug = _slug(base)
    used[slug] += 1
    return slug if used[slug] == 1 else f"{slug}_{used[slug]}"


def _slug(text: str) -> str:
    out: list[str] = []
    prev_lower = False
    for ch in text:
        if ch.isupper() and prev_lower:
            out.append("_")
        out.append(ch.lower() if ch.isalnum() else "_")
        prev_lower = ch.islower() or ch.isdigit()
    slug = "_".join(part for part in "".join(out).split("_") if part)
    return slug[:32] or "screen"


def _most_common(values: list[str]) -> str | None:
    if not values:
        return None
    return Counter(values).most_common(1)[0][0]


_ = (SourceRef, anchor_key)
