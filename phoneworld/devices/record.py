"""Recording rollouts as native traces (`phoneworld-trace/1`, DESIGN section 2), from any backend.

`RecordingBackend(inner, TraceWriter(out, app, device))` wraps a backend: each `reset` starts an
episode with the observation it returns, each trace action is written on the screen it was taken
on, followed by the screen it led to; `close` (or the next `reset`) writes `episode.json`. An
action a guard refused is not written (it never happened). Episodes go to
`<out>/<app>/ep_NNNN/` (`0000.xml`, `0000.png` when screenshots are recorded), numbered by the
first free folder, so several recorders can share one `out`. The result feeds `phoneworld build`.
`out` is a trace folder of the output folder contract (`phoneworld.outdir`): the caller claims it
before recording, and the app id becomes a folder name only if it is a package name.
"""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path
from typing import Any

from phoneworld import outdir
from phoneworld.ir.base import SourceRef
from phoneworld.ir.trace import TRACE_FORMAT, Device
from phoneworld.runtime.backend import Backend, Obs
from phoneworld.runtime.sim import StepResult

logger = logging.getLogger(__name__)


class EpisodeWriter:
    """One episode being recorded into `folder`."""

    def __init__(self, folder: Path, app: str, device: Device, instruction: str | None) -> None:
        self.folder, self.app, self.device, self.instruction = folder, app, device, instruction
        self.steps: list[dict[str, Any]] = []

    def observe(self, obs: Obs) -> None:
        n = len(self.steps)
        (self.folder / f"{n:04d}.xml").write_text(obs.xml, encoding="utf-8")
        step: dict[str, Any] = {"screen": f"{n:04d}.xml"}
        if obs.screenshot is not None:
            from PIL import Image

            buf = io.BytesIO()
            Image.fromarray(obs.screenshot).save(buf, format="PNG")
            (self.folder / f"{n:04d}.png").write_bytes(buf.getvalue())
            step["screenshot"] = f"{n:04d}.png"
        if obs.activity:
            step["activity"] = obs.activity
        step["action"] = None
        self.steps.append(step)

    def act(self, action: Any) -> None:
        """`action` (a trace action model) was taken on the last observed screen."""
        if not self.steps:
            raise ValueError("observe the first screen before acting")
        self.steps[-1]["action"] = action.model_dump(exclude_none=True)

    @property
    def actions(self) -> int:
        return sum(1 for s in self.steps if s["action"] is not None)

    def finish(self) -> Path:
        doc: dict[str, Any] = {"format": TRACE_FORMAT, "app": self.app,
                               "device": self.device.model_dump(exclude_none=True)}
        if self.instruction:
            doc["instruction"] = self.instruction
        if self.steps:
            self.steps[-1]["action"] = None  # the last step has no action by definition
        doc["steps"] = self.steps
        path = self.folder / "episode.json"
        path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        logger.info("recorded %s (%d actions)", self.folder, self.actions)
        return self.folder


class TraceWriter:
    """Makes a fresh episode folder under `<out>/<app>/` for every recorded episode."""

    def __init__(self, out: str | Path, app: str, device: Device, prefix: str = "ep") -> None:
        bad = outdir.check_name(app, "app id", SourceRef(file=f"the app on the device ({out})"),
                                package=True)
        outdir.require_names([bad] if bad else [], "app id")
        self.out = outdir.Root(Path(out), outdir.TRACES_KIND)
        self.root = Path(out) / app
        self.app, self.device, self.prefix = app, device, prefix

    def begin(self, instruction: str | None = None) -> EpisodeWriter:
        self.out.open()
        self.root.mkdir(parents=True, exist_ok=True)
        n = len(list(self.root.glob(f"{self.prefix}_*"))) + 1
        while True:
            folder = self.root / f"{self.prefix}_{n:04d}"
            try:
                folder.mkdir()  # atomic: two recorders never take the same folder
                break
            except FileExistsError:
                n += 1
        return EpisodeWriter(folder, self.app, self.device, instruction)


class RecordingBackend:
    """A backend that writes every episode it plays as a native trace."""

    def __init__(self, inner: Backend, writer: TraceWriter, instruction: str | None = None,
                 screenshots: bool = False) -> None:
        self.inner, self.writer = inner, writer
        self.instruction, self.screenshots = instruction, screenshots
        self.device, self.package = inner.device, inner.package
        self.episode: EpisodeWriter | None = None
        self.recorded: list[Path] = []

    def reset(self, state: dict[str, Any] | None = None, seed: int | None = None) -> Obs:
        self._finish()
        self.inner.reset(state, seed)
        obs = self.inner.observe(self.screenshots)
        self.episode = self.writer.begin(self.instruction)
        self.episode.observe(obs)
        return obs

    def step(self, action: Any) -> StepResult:
        result = self.inner.step(action)  # raises (and records nothing) when refused or broken
        if self.episode is not None:
            self.episode.act(action)
            self.episode.observe(self.inner.observe(self.screenshots))
        return result

    def observe(self, screenshot: bool = False) -> Obs:
        return self.inner.observe(screenshot)

    def read_state(self) -> dict[str, Any]:
        return self.inner.read_state()

    def ping(self, timeout: float = 3.0) -> bool:
        ping = getattr(self.inner, "ping", None)
        return True if ping is None else bool(ping(timeout))

    def close(self) -> None:
        self._finish()
        self.inner.close()

    def _finish(self) -> None:
        ep, self.episode = self.episode, None
        if ep is None:
            return
        if ep.actions == 0:
            logger.info("episode %s has no action; not kept", ep.folder)
            for f in ep.folder.iterdir():
                f.unlink()
            ep.folder.rmdir()
            return
        self.recorded.append(ep.finish())
