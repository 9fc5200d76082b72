"""Whether each real set's lists grow or shrink in its recording, beside the create and delete
tasks its main app keeps: the evidence for the line "an app whose lists grow or shrink in the
recording gets create / delete tasks".

    python bench/list_changes.py [ROOT] [--only TEXT]

Default ROOT: ../shared/data/real, the sets `bench/fidelity_suite.py` builds. A list is a
RecyclerView, ListView or GridView or any scrollable container, told apart by its resource id and
the classes on its path; a row is the texts it shows (rows without text are left out). Seen again
in the same episode of the main app, with no scroll in between and no text typed while it was on
screen, a list *grew* when its rows are the rows seen before plus at least one more and it holds
more rows (children, with text or not) than before, and *shrank* when the reverse holds: a row
that only stopped showing a text (a tooltip closed) is no row deleted. A list that scrolled or
that typing filters is not compared, and one whose rows were all replaced (another folder,
another page) neither grew nor shrank: the figures undercount rather than guess. `lists` counts
the lists told apart; a set with none (AutoDroid's screens are flat, their rows the screen's own
children) says nothing either way, and its figures are "-". The tasks are those the set's main app keeps when built from its whole recording
(`phoneworld build SET`, in a temporary folder).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from fidelity_suite import find_sets  # noqa: E402

from phoneworld.ingest import ingest  # noqa: E402
from phoneworld.ir.diagnostics import Diagnostics  # noqa: E402
from phoneworld.ir.trace import Episode, ViewNode  # noqa: E402

LISTS = ("RecyclerView", "ListView", "GridView")
Rows = Counter[tuple[str, ...]]


def lists(root: ViewNode) -> dict[tuple[str, ...], tuple[Rows, int]]:
    """The rows of every list on a screen, and how many children it holds, by the list's resource
    id (or class) and path."""
    out: dict[tuple[str, ...], tuple[Rows, int]] = {}

    def texts(n: ViewNode) -> tuple[str, ...]:
        return ((n.text,) if n.text else ()) + tuple(t for c in n.children for t in texts(c))

    def visit(n: ViewNode, path: tuple[str, ...]) -> None:
        if n.cls.endswith(LISTS) or n.scrollable:
            out[(n.resource_id or n.cls, *path)] = (Counter(
                r for r in (texts(c) for c in n.children) if r), len(n.children))
        for c in n.children:
            visit(c, (*path, c.cls.rsplit(".", 1)[-1]))

    visit(root, ())
    return out


def changes(episode: Episode, keys: set[tuple[str, ...]]) -> tuple[int, int]:
    """(grew, shrank): the sightings of a list that show it grown or shrunk (module docstring);
    adds the lists seen to `keys`."""
    grew = shrank = 0
    last: dict[tuple[str, ...], tuple[Rows, int]] = {}
    for i, step in enumerate(episode.steps):
        before = episode.steps[i - 1].action if i else None
        if before is not None and before.type.startswith("scroll"):
            last.clear()
        for key, (rows, count) in lists(step.observation.root).items():
            keys.add(key)
            seen, had = last.get(key, (None, 0))
            if seen is not None and rows != seen:
                grew += not seen - rows and bool(rows - seen) and count > had
                shrank += not rows - seen and bool(seen - rows) and count < had
            last[key] = rows, count
        if step.action is not None and step.action.type == "type":
            for key in lists(step.observation.root):
                last.pop(key, None)  # typing may filter the lists on screen
    return grew, shrank


def kept_kinds(folder: Path, app: str) -> dict[str, int]:
    """The task kinds `app` keeps when `folder` is built from its whole recording."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "phoneworld.cli", "build", str(folder), "--out",
                        tmp, "--quiet"], capture_output=True, text=True, cwd=REPO, check=False)
        report = Path(tmp) / app / "report.json"
        if not report.is_file():
            return {}
        return (json.loads(report.read_text(encoding="utf-8")).get("tasks") or {}).get("kinds", {})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", type=Path, default=REPO.parent / "shared" / "data" / "real")
    ap.add_argument("--only", default="", help="only sets whose path contains this text")
    args = ap.parse_args()
    print(f"{'set':34} {'app':36} {'lists':>5} {'grew':>5} {'shrank':>6} {'create':>6} "
          f"{'delete':>6}")
    for folder in find_sets(args.root):
        name = str(folder.relative_to(args.root))
        if args.only not in name:
            continue
        traces = ingest(folder, None, Diagnostics())
        if not traces.episodes:
            continue
        app = max(traces.apps(),
                  key=lambda a: (sum(len(e.steps) for e in traces.for_app(a).episodes), a))
        grew = shrank = 0
        keys: set[tuple[str, ...]] = set()
        for ep in traces.for_app(app).episodes:
            g, s = changes(ep, keys)
            grew, shrank = grew + g, shrank + s
        seen = (f"{grew:5} {shrank:6}" if keys else f"{'-':>5} {'-':>6}")
        kinds = kept_kinds(folder, app)
        print(f"{name[:34]:34} {app[:36]:36} {len(keys):5} {seen} {kinds.get('create', 0):6} "
              f"{kinds.get('delete', 0):6}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
