"""Episodes under construction (ingest pass): mutable drafts the importers fill, then freeze.

Importers collect steps as drafts because an episode's id and step numbering are only final after
a cross-app episode was split (see `split.py`); `freeze` then builds the frozen IR models.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from phoneworld.ir.base import SourceRef
from phoneworld.ir.trace import Action, Device, Episode, Handoff, Observation, Step, TypeText


@dataclass
class DraftStep:
    """An observation, the action taken on it, and where the step came from."""

    observation: Observation
    action: Action | None
    file: str
    line: int | None = None


@dataclass
class DraftEpisode:
    """An episode before its id and step numbers are final."""

    id: str
    device: Device
    file: str
    steps: list[DraftStep] = field(default_factory=list)
    instruction: str | None = None
    # the recording went on from the previous draft of the same run without restarting the app
    continues: bool = False
    # ... and the app got from where that draft ended to this one's first screen by itself
    moved_by_itself: bool = False

    def source(self, step: int | None = None) -> SourceRef:
        """Where step `step` of this draft came from (for diagnostics before freezing)."""
        if step is None or not 0 <= step < len(self.steps):
            return SourceRef(file=self.file, episode=self.id, step=step)
        item = self.steps[step]
        return SourceRef(file=item.file, line=item.line, episode=self.id, step=step)


def freeze(draft: DraftEpisode, app: str, steps: list[DraftStep] | None = None,
           episode_id: str | None = None, handoff: Handoff | None = None) -> Episode:
    """The frozen episode of `steps` (default: all of the draft's); the last action must be None."""
    chosen = draft.steps if steps is None else steps
    ep_id = episode_id or draft.id
    if not chosen or chosen[-1].action is not None:
        raise ValueError(f"episode {ep_id}: the last step must exist and have no action")
    frozen = tuple(
        Step(index=i, observation=s.observation,
             action=received(s.action, chosen[i + 1].observation if i + 1 < len(chosen) else None),
             source=SourceRef(file=s.file, line=s.line, episode=ep_id, step=i))
        for i, s in enumerate(chosen)
    )
    return Episode(id=ep_id, app=app, device=draft.device, instruction=draft.instruction,
                   steps=frozen, source=SourceRef(file=draft.file, episode=ep_id), handoff=handoff)


def received(action: Action | None, after: Observation | None) -> Action | None:
    """A typed text as the app received it: a recorder that hands `input text` its text in quotes
    a shell does not strip types the quotes too, and the field shows `"text"`. Where a field of the
    next screen shows the typed text in quotes and none shows it bare, the step typed the quotes."""
    if not isinstance(action, TypeText) or after is None or not action.text:
        return action
    shown = {n.text for n in after.root.walk() if n.editable}
    if action.text in shown:
        return action
    for q in ('"', "'"):
        if q + action.text + q in shown:
            return TypeText(text=q + action.text + q)
    return action


def clip(x: int, y: int, device: Device) -> tuple[int, int]:
    """The nearest on-screen pixel to (x, y)."""
    return min(max(x, 0), device.width - 1), min(max(y, 0), device.height - 1)
