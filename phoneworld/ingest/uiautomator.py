"""Plain `uiautomator dump` files (ingest pass): a folder of *.xml dumps with no actions.

Decision: every dump is its own one-step episode (id: the file's path relative to the root).
Ordering the files by name into one episode would need actions between them, which plain dumps do
not have, and an action-less step in the middle of an episode is an error in our model. A dump's
screenshot is the image beside it with the same stem, if any; the device size is the root bounds,
made as tall as that screenshot when there is one (the root often excludes the system bars).
Files ending in .xml that are not dumps are skipped with a note (PW109).
"""

from __future__ import annotations

from pathlib import Path

from phoneworld.ingest import codes
from phoneworld.ingest.context import IngestContext
from phoneworld.ingest.detect import is_dump
from phoneworld.ingest.draft import DraftEpisode, DraftStep, freeze
from phoneworld.ingest.images import device_frame, image_size, sibling_image
from phoneworld.ingest.uixml import read_uixml
from phoneworld.ir.trace import Episode, Observation

UNKNOWN_APP = "unknown"


def read_uiautomator(folder: Path, ctx: IngestContext) -> list[Episode]:
    """One single-step episode per dump file directly inside `folder`."""
    episodes: list[Episode] = []
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".xml" and not p.is_dir())
    for xml in files:
        episode_id = xml.relative_to(ctx.root).as_posix()
        if not is_dump(xml):
            ctx.report(codes.NOT_A_DUMP, f"{xml.name} is not a uiautomator dump; skipped",
                       ctx.src(xml, episode=episode_id))
            continue
        screen = read_uixml(xml, ctx, episode_id, 0)
        if screen is None:
            continue
        image = sibling_image(xml, ctx.root)
        observation = Observation(root=screen.root, package=screen.package, xml_file=xml.name,
                                  screenshot=image.name if image else None,
                                  rotation=screen.rotation)
        device = device_frame(screen.root.bounds, image_size(image, ctx.root) if image else None)
        draft = DraftEpisode(id=episode_id, device=device, file=ctx.rel(xml),
                             steps=[DraftStep(observation, None, ctx.rel(xml))])
        episodes.append(freeze(draft, screen.package or UNKNOWN_APP))
    return episodes
