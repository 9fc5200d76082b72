"""The corpus fidelity suite: every real trace set under ROOT, built as a user builds it, one table.

    python bench/fidelity_suite.py [ROOT] [--heldout 0.2] [--jobs 2] [--json PATH] [--only TEXT]
                                   [--parts K] [--variant NAME] [--compare PATH]

Default ROOT: ../shared/data/real. Every trace folder the importers recognise under ROOT is one set
(each DroidBot run, each AutoDroid app, each LlamaTouch trace, each native or plain-dump folder). Each
set is built by the real command, `phoneworld build SET --heldout F --out TMP`, in its own process;
the row is the set's main app (the one with the most recorded steps), read from its `report.json`:

- exit: the build's exit status (a traceback on stderr is counted as a failure too);
- scr: the main app's screens;
- chg: training changing steps; train match / F1: training `transition_match_changing` and
  `change_f1`; outv: the training changing steps missed whose recorded outcome the model outvoted
  (their screen, action and widget went elsewhere more often and no state condition tells them
  apart: the recording contradicts itself there, or shows too little to tell); ref F1: the
  change F1 of a stateless mock that knows the true next screen and shows its last recorded
  content (computed by the build from the recording itself);
- held: the held-out figures over all held-out steps, cov: the share of held-out changing steps on
  screens training saw (the step's own, its back stack's and its recorded next screen), and the
  held-out figures over those covered steps;
- known: the share of the covered changing steps whose trigger (screen, action, widget) training
  recorded, and known match: their `transition_match_changing` (a miss there is wrong behaviour,
  a covered miss outside it an input the mock never saw);
- tasks: tasks kept by the sanity check; full: the same when the set is built from its whole
  recording, as `phoneworld build SET` does (the app a user gets; left out with --heldout 0); near / rej: the near-miss end states their verifiers were
  attacked with and rejected (equal: a task whose verifier accepts one is not kept); cheap: tasks
  searched for a cheaper passing state (every path shorter than the oracle's) and found: those
  where one passed (such a task is not kept); proven: kept tasks whose solution is proven
  shortest; game: tasks rejected as gameable (a near miss or a cheaper state passes);
- free: free-running replay of the training episodes (actions applied without correction, the
  first episode from the reset app): the mean screen-content Jaccard over their steps.

A closing line gives the means of each column over sets, and one more the held-out match on
covered changing steps pooled over all sets (each set weighed by its covered steps). Then the
corpus bars (`BARS`: issue 14's must-show lines), each with the sets that miss it. The table is
also written as JSON (default bench/results/fidelity_suite.json). Exit status: 0 when every set
built with exit 0, else 1.

`--parts K` builds every DroidBot run cut into K consecutive runs of its events (each with all
of the run's state files), as K recordings the compiler has not seen as such: shorter runs that
start mid-app, end anywhere and hold fewer of each screen's visits. Other sets are built whole.

`--variant NAME` rewrites every DroidBot run before it is built, into a recording of the same
app that the compiler's rules must read the same way (other sets are built as they are):
`720p` (a 720x1280 screen: every bound, size and coordinate times 2/3), `1440p` (a 1440x2560
screen: times 4/3), `kea` (the layout Kea, a DroidBot fork, writes: the same state files in
`all_states/`, numbered from 1 in time order, tags from 0), `words` (every word of
every text and description replaced by a made-up word, the same word always by the same one),
`cjk` (every word replaced by Chinese characters, with no spaces between them), `noids` (no view
has a resource id, as in most Compose, Flutter and React Native apps) and `gaps` (one state file
in ten lost, chosen by a hash of its name, as runs that crashed or were copied in part lose
them). A figure that moves under a variant is a rule that depends on the screen's size, on
English, on resource ids or on every state file being there.

`--compare PATH` closes with every figure of a set that differs from the table in PATH (a JSON
this script wrote, say for the sets as recorded): `set: column before -> now`. Without `--json`,
a run with `--parts` or `--variant` writes its own table (`fidelity_suite_parts3_cjk.json`), never
the one of the sets as recorded.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from phoneworld.ingest.detect import find_sources  # noqa: E402

COLUMNS = (  # (key, heading, width)
    ("screens", "scr", 4), ("chg", "chg", 5), ("train_match", "train match", 11),
    ("train_f1", "train F1", 8), ("outvoted", "outv", 4),
    ("ref_f1", "ref F1", 6), ("held_match", "held match", 10), ("held_f1", "held F1", 7),
    ("coverage", "cov", 5), ("covered_match", "cov match", 9), ("covered_f1", "cov F1", 6),
    ("known", "known", 5), ("known_match", "known match", 11),
    ("tasks", "tasks", 5), ("tasks_full", "full", 4), ("adv_tried", "near", 5),
    ("adv_rejected", "rej", 5), ("cheap_tried", "cheap", 5), ("cheap_found", "found", 5),
    ("proven", "proven", 6),
    ("gameable", "game", 4), ("free", "free", 5), ("seconds", "s", 6),
)


MIN_CHANGING, MIN_SCREENS = 20, 3


def _outvoted(row: dict[str, Any]) -> str | None:
    """How many of a set's missed training changing steps the model outvoted."""
    if row.get("outvoted") is None or not row.get("chg"):
        return None
    missed = round((1 - row["train_match"]) * row["chg"])
    return f"{row['outvoted']} of its {missed} missed steps outvoted"


BARS = (  # (what, holds(row) or None where it does not apply, why(row) a set misses it or None);
    # the covered mean is checked apart
    (f"training match >= 0.95 (>= {MIN_CHANGING} changing steps)",
     lambda r: r["train_match"] >= 0.95 if (r.get("chg") or 0) >= MIN_CHANGING else None,
     _outvoted),
    (f"training change F1 >= 0.80 and above the stateless mock's, or both 1 (>= {MIN_CHANGING} "
     "changing steps)", lambda r: r["train_f1"] >= 0.80
     and (r["train_f1"] > r["ref_f1"] or r["train_f1"] == 1.0)
     if (r.get("chg") or 0) >= MIN_CHANGING else None, None),
    (f">= 5 tasks kept (>= {MIN_SCREENS} screens)",
     lambda r: r["tasks"] >= 5 if (r.get("screens") or 0) >= MIN_SCREENS else None, None),
)


def find_sets(root: Path) -> list[Path]:
    """Every trace folder under `root`, in a stable order."""
    return [folder for folder, _, _ in find_sources(root)]


def cut_run(run: Path, parts: int, out: Path) -> list[Path]:
    """A DroidBot run as `parts` runs of consecutive events under `out` (`<run>.1` ...), each with
    the run's state files (JSON only: the figures need no screenshots)."""
    events = sorted((run / "events").glob("event_*.json"))
    size = -(-len(events) // parts)
    states = sorted((run / "states").glob("state_*.json"))
    folders = []
    for k in range(parts):
        chunk = events[k * size:(k + 1) * size]
        if not chunk:
            break
        folder = out / f"{run.name}.{k + 1}"
        (folder / "events").mkdir(parents=True)
        (folder / "states").mkdir()
        for path in chunk:
            shutil.copyfile(path, folder / "events" / path.name)
        for path in states:
            shutil.copyfile(path, folder / "states" / path.name)
        folders.append(folder)
    return folders


VARIANTS = ("720p", "1440p", "kea", "words", "cjk", "noids", "gaps")
SCALES = {"720p": (2 / 3, (720, 1280)), "1440p": (4 / 3, (1440, 2560))}
_CONSONANTS, _VOWELS = "bcdfghjklmnprstvwz", "aeiou"
_WORD = re.compile(r"[^\W\d_]+")
_CJK_GAP = re.compile(r"(?<=[\u4e00-\u9fff]) +(?=[\u4e00-\u9fff])")


def _made_up(word: str, variant: str) -> str:
    """The word `variant` writes for `word`: the same for every spelling of it, by a hash."""
    size = min(4, 1 + len(word) // 4) if variant == "cjk" else max(2, -(-len(word) // 2))
    digest = hashlib.shake_256(word.lower().encode("utf-8")).digest(2 * size)
    if variant == "cjk":
        return "".join(chr(0x4E00 + int.from_bytes(digest[2 * k:2 * k + 2], "big") % 20000)
                       for k in range(size))
    out = "".join(_CONSONANTS[digest[2 * k] % len(_CONSONANTS)] + _VOWELS[digest[2 * k + 1] % 5]
                  for k in range(size))
    if word.isupper() and len(word) > 1:
        return out.upper()
    return out.capitalize() if word[0].isupper() else out


def _lost(name: str) -> bool:
    """Whether the `gaps` variant loses this state file: one in ten, by a hash of its name."""
    return hashlib.sha1(name.encode("utf-8")).digest()[0] % 10 == 0


def _rewrite_text(text: Any, variant: str) -> Any:
    if not isinstance(text, str) or variant not in ("words", "cjk"):
        return text
    out = _WORD.sub(lambda m: _made_up(m.group(), variant), text)
    return _CJK_GAP.sub("", out) if variant == "cjk" else out


def _rewrite_view(view: dict[str, Any], variant: str) -> None:
    if variant in SCALES:
        scale = SCALES[variant][0]
        if isinstance(view.get("bounds"), list):
            view["bounds"] = [[round(c * scale) for c in point] for point in view["bounds"]]
            (x0, y0), (x1, y1) = view["bounds"]
            view["size"] = f"{x1 - x0}*{y1 - y0}"
    elif variant == "noids":
        view["resource_id"] = None
    elif variant in ("words", "cjk"):
        for key in ("text", "content_description"):
            view[key] = _rewrite_text(view.get(key), variant)


def rewrite_run(run: Path, variant: str, out: Path) -> Path:
    """A DroidBot run rewritten as `variant` (see `--variant`) under `out / run.name`: states and
    events (JSON only; a file that does not parse is copied as it is)."""
    folder = out / run.name
    for sub in ("events", "states"):
        into = folder / ("all_states" if variant == "kea" and sub == "states" else sub)
        into.mkdir(parents=True)
        for n, path in enumerate(sorted((run / sub).glob("*.json")), start=1):
            if variant == "gaps" and sub == "states" and _lost(path.name):
                continue
            name = f"state_{n}.json" if into.name == "all_states" else path.name
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError):
                shutil.copyfile(path, into / name)
                continue
            if sub == "states":
                for view in data.get("views") or []:
                    _rewrite_view(view, variant)
                if variant in SCALES and data.get("width"):
                    data["width"], data["height"] = SCALES[variant][1]
                if variant == "kea":
                    data["tag"] = n - 1
            else:
                event = data.get("event") or {}
                if isinstance(event.get("view"), dict):
                    _rewrite_view(event["view"], variant)
                event["text"] = _rewrite_text(event.get("text"), variant)
                for key in ("x", "y"):
                    if variant in SCALES and isinstance(event.get(key), (int, float)):
                        event[key] = round(event[key] * SCALES[variant][0])
            (into / name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return folder


def check_bars(rows: list[dict[str, Any]]) -> list[str]:
    """One line per bar: how many sets it applies to hold it, and the sets that miss it."""
    lines = []
    for what, holds, why in BARS:
        built = [r for r in rows if r.get("app") and r["exit"] == 0]
        applies = [(r, ok) for r, ok in ((r, holds(r)) for r in built) if ok is not None]
        missed = [r["set"] + (f" ({note})" if why and (note := why(r)) else "")
                  for r, ok in applies if not ok]
        lines.append(f"{what}: {len(applies) - len(missed)} of {len(applies)} sets"
                     + (f"; missed by {', '.join(missed)}" if missed else ""))
    covered = [r["covered_match"] for r in rows if isinstance(r.get("covered_match"), float)]
    if covered:
        mean = sum(covered) / len(covered)
        lines.append(f"held-out match on covered changing steps >= 0.85 on average: "
                     f"{mean:.3f} over {len(covered)} sets" + ("" if mean >= 0.85 else "; missed"))
    return lines


def build_set(folder: Path, heldout: float, out: Path, timeout: float) -> dict[str, Any]:
    """Build one set with the real CLI and read its main app's figures."""
    cmd = [sys.executable, "-m", "phoneworld.cli", "build", str(folder), "--out", str(out),
           "--heldout", str(heldout), "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                              cwd=REPO)
        code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        code, stdout, stderr = -1, exc.stdout or "", f"timed out after {timeout:.0f} s"
        stdout = stdout.decode() if isinstance(stdout, bytes) else stdout
    seconds = time.perf_counter() - start
    reports = []
    for line in stdout.splitlines():
        report = Path(line.strip()) / "report.json"
        if line.strip() and report.is_file():
            reports.append(json.loads(report.read_text(encoding="utf-8")))
    row: dict[str, Any] = {"exit": code, "traceback": "Traceback (most recent call last)" in stderr,
                           "apps": len(reports), "seconds": round(seconds, 1)}
    if code != 0 or row["traceback"]:
        row["error"] = stderr.strip().splitlines()[-1][:200] if stderr.strip() else ""
    if reports:
        main = max(reports, key=lambda r: (r["steps"], r["app"]))
        row.update(figures(main))
    return row


def figures(report: dict[str, Any]) -> dict[str, Any]:
    fid = report["fidelity"]
    train, held, cov = fid.get("train") or {}, fid.get("heldout") or {}, fid.get("heldout_covered") or {}
    known = fid.get("heldout_known_trigger") or {}
    return {
        "app": report["app"], "steps": report["steps"], "screens": report["screens"],
        "chg": train.get("changing_steps"),
        "train_match": train.get("transition_match_changing"), "train_f1": train.get("change_f1"),
        "outvoted": train.get("outvoted"),
        "ref_f1": train.get("reference_change_f1"),
        "held_match": held.get("transition_match_changing"), "held_f1": held.get("change_f1"),
        "coverage": fid.get("heldout_coverage"),
        "covered_match": cov.get("transition_match_changing"), "covered_f1": cov.get("change_f1"),
        # of the covered changing steps, the share with a trigger training recorded, and their match
        "known": (round(known["changing_steps"] / cov["changing_steps"], 4)
                  if known.get("changing_steps") is not None and cov.get("changing_steps") else None),
        "known_match": known.get("transition_match_changing"),
        "covered_chg": cov.get("changing_steps"),
        "tasks": (report.get("tasks") or {}).get("kept"),
        "adv_tried": ((report.get("tasks") or {}).get("adversarial") or {}).get("tried"),
        "adv_rejected": ((report.get("tasks") or {}).get("adversarial") or {}).get("rejected"),
        "cheap_tried": ((report.get("tasks") or {}).get("cheaper") or {}).get("tried"),
        "cheap_found": ((report.get("tasks") or {}).get("cheaper") or {}).get("found"),
        "proven": (report.get("tasks") or {}).get("proven_shortest"),
        "gameable": (report.get("tasks") or {}).get("gameable"),
        "free": (fid.get("free_running") or {}).get("content_match"),
    }


COUNTS = {"screens", "chg", "outvoted", "tasks", "tasks_full", "adv_tried", "adv_rejected",
          "cheap_tried", "cheap_found", "proven", "gameable", "seconds"}  # columns that are not fractions


def cell(key: str, value: Any, width: int) -> str:
    if value is None:
        return f"{'-':>{width}}"
    if key in COUNTS:
        return f"{value:>{width}.1f}" if isinstance(value, float) else f"{value:>{width}}"
    return f"{value:>{width}.3f}"


def print_table(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    # 26 characters of a set's path, more where that would cut a `--parts` piece's number off
    sw = 26 if all("." not in r["set"][26:] for r in rows) else 30
    head = f"{'set':<{sw}} {'app':<36} {'exit':>4} " + " ".join(
        f"{h:>{w}}" for _, h, w in COLUMNS)
    print(head)
    print("-" * len(head))
    for r in rows:
        exit_cell = str(r["exit"]) + ("!" if r["traceback"] else "")
        print(f"{r['set'][:sw]:<{sw}} {str(r.get('app', '-'))[:36]:<36} {exit_cell:>4} "
              + " ".join(cell(k, r.get(k), w) for k, _, w in COLUMNS))
    means: dict[str, float | None] = {}
    for key, _, _ in COLUMNS:
        vals = [r[key] for r in rows if isinstance(r.get(key), (int, float))]
        means[key] = round(sum(vals) / len(vals), 4) if vals else None
    ok = sum(r["exit"] == 0 and not r["traceback"] for r in rows)
    print("-" * len(head))
    print(f"{'mean':<{sw}} {f'{ok}/{len(rows)} sets exit 0':<36} {'':>4} "
          + " ".join(cell(k, means[k], w) for k, _, w in COLUMNS))
    pooled = pooled_covered(rows)
    if pooled is not None:
        means["covered_match_pooled"] = round(pooled[0] / pooled[1], 4)
        print(f"held-out match on covered changing steps, pooled over all sets: {pooled[0]} of "
              f"{pooled[1]} = {pooled[0] / pooled[1]:.3f} (the mean row averages over sets)")
    for r in rows:
        if "error" in r:
            print(f"  {r['set']}: exit {r['exit']}: {r['error']}")
    for line in check_bars(rows):
        print(line)
    return means


def load_table(path: Path) -> dict[str, dict[str, Any]]:
    """The rows of a table this script wrote (`--json`), by set."""
    table = json.loads(path.read_text(encoding="utf-8"))
    rows = table.get("rows") if isinstance(table, dict) else None
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "set" in r for r in rows):
        raise ValueError("it holds no rows of sets")
    return {r["set"]: r for r in rows}


def compare(rows: list[dict[str, Any]], before: dict[str, dict[str, Any]]) -> list[str]:
    """Each figure of a set in `rows` that differs from the same set's in `before`
    (`load_table`), as the table prints them."""
    lines = []
    for r in rows:
        old = before.get(r["set"])
        if old is None:
            lines.append(f"{r['set']}: not in the table compared with")
            continue
        pairs = [(h, cell(k, old.get(k), 0).strip(), cell(k, r.get(k), 0).strip())
                 for k, h, _ in COLUMNS if k != "seconds"]
        moved = [f"{h} {a} -> {b}" for h, a, b in pairs if a != b]
        if moved:
            lines.append(f"{r['set']}: " + ", ".join(moved))
    return lines


def pooled_covered(rows: list[dict[str, Any]]) -> tuple[int, int] | None:
    """(matched, covered) changing held-out steps over all sets, or None when none is covered."""
    counted = [(r["covered_match"], r["covered_chg"]) for r in rows
               if isinstance(r.get("covered_match"), (int, float)) and r.get("covered_chg")]
    total = sum(n for _, n in counted)
    return (round(sum(m * n for m, n in counted)), total) if total else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default=str(REPO.parent / "shared" / "data" / "real"))
    parser.add_argument("--heldout", type=float, default=0.2)
    parser.add_argument("--jobs", type=int, default=2, help="sets built at once")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per set")
    parser.add_argument("--only", default="", help="only sets whose path contains this text")
    parser.add_argument("--parts", type=int, default=1,
                        help="build each DroidBot run cut into this many runs of its events")
    parser.add_argument("--variant", choices=VARIANTS,
                        help="rewrite every DroidBot run as this variant before it is built")
    parser.add_argument("--compare", help="a table this script wrote: name the figures that "
                                          "differ from it")
    parser.add_argument("--json", dest="json_path", help="where the table is written as JSON "
                        "(default: bench/results/fidelity_suite[_partsK][_VARIANT].json)")
    args = parser.parse_args()
    root = Path(args.root).resolve()
    if not root.is_dir():
        print(f"error: {root}: no such folder; pass the folder holding the real trace sets",
              file=sys.stderr)
        return 2
    if args.parts < 1:
        print(f"error: --parts {args.parts}: give 1 (whole runs) or more", file=sys.stderr)
        return 2
    before = None
    if args.compare:
        try:
            before = load_table(Path(args.compare))
        except (OSError, ValueError) as exc:
            print(f"error: --compare {args.compare}: {exc}; pass a table this script wrote "
                  "(--json)", file=sys.stderr)
            return 2
    found = [(s, fmt) for s, fmt, _ in find_sources(root) if args.only in str(s)]
    if not found:
        print(f"error: no trace sets under {root}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="fidelity_suite.") as tmp:
        sets, names = [], {}
        for folder, fmt in found:
            name = str(folder.relative_to(root)) if folder != root else folder.name
            if args.variant and fmt == "droidbot":
                folder = rewrite_run(folder, args.variant, Path(tmp) / "variant" / name)
            pieces = (cut_run(folder, args.parts, Path(tmp) / "parts" / name)
                      if args.parts > 1 and fmt == "droidbot" else [folder])
            for piece in pieces:
                sets.append(piece)
                names[piece] = name + piece.name[len(folder.name):]

        def one(n_folder: tuple[int, Path]) -> dict[str, Any]:
            n, folder = n_folder
            row = build_set(folder, args.heldout, Path(tmp) / f"set{n}", args.timeout)
            if args.heldout > 0 and row.get("app"):
                # the app a user gets: `phoneworld build SET`, nothing held out
                full = build_set(folder, 0.0, Path(tmp) / f"set{n}.full", args.timeout)
                row["tasks_full"] = full.get("tasks") if full.get("app") == row["app"] else None
            name = names[folder]
            print(f"[{n + 1}/{len(sets)}] {name}: exit {row['exit']}, {row['seconds']} s",
                  file=sys.stderr, flush=True)
            return {"set": name, **row}

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            rows = list(pool.map(one, enumerate(sets)))
    means = print_table(rows)
    if before is not None:
        moved = compare(rows, before)
        print(f"against {args.compare}: {len(moved)} of {len(rows)} sets differ"
              + ("" if moved else ", none"))
        for line in moved:
            print(f"  {line}")
    out = Path(args.json_path) if args.json_path else REPO / "bench" / "results" / (
        "fidelity_suite" + (f"_parts{args.parts}" if args.parts > 1 else "")
        + (f"_{args.variant}" if args.variant else "") + ".json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"root": str(root), "heldout": args.heldout,
                               "parts": args.parts, "variant": args.variant, "rows": rows,
                               "means": means}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {out}", file=sys.stderr)
    return 0 if all(r["exit"] == 0 and not r["traceback"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
