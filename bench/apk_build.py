"""APK build time per app by the offline route (aapt2 -> kotlinc -> dx -> zipalign -> apksigner):

- cold: an empty cache, so the build also fetches the platform source package (45 MB) and dx,
  generates android.jar from api/current.txt, dexes the Kotlin runtime and makes the debug key
  (with --reuse-api, api/current.txt is copied from the user's cache: generation, no download);
- cached: android.jar, dx, the dexed runtime and the key are cached; the app's own classes are not
  (the first build of an app);
- warm: a rebuild of the unchanged project (the app's dex comes from the cache).

    .venv/bin/python bench/apk_build.py [--json out.json] [--reuse-api] [APP_DIR ...]

Without APP_DIRs it builds the bundled example and Habitica (../shared/data/real). The cache used
is a fresh temporary folder (PHONEWORLD_CACHE), so the user's cache is left alone.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from phoneworld.android.apk import build_apk  # noqa: E402
from phoneworld.android.platform import API_LEVEL  # noqa: E402
from phoneworld.android.project import context_summary  # noqa: E402
from phoneworld.android.toolchain import cache_dir  # noqa: E402
from phoneworld.ir.app import AppSpec  # noqa: E402
from phoneworld.pipeline import BuildConfig, build  # noqa: E402

log = logging.getLogger("bench.apk_build")
REAL = REPO.parent / "shared" / "data" / "real"


def default_apps(work: Path) -> list[Path]:
    sets = [REPO / "examples" / "traces"]
    if (REAL / "habitica-droidbot").exists():
        sets.append(REAL / "habitica-droidbot")
    apps = []
    for traces in sets:
        result = build(BuildConfig(traces=traces, out=work / "apps", tasks=False, html=False))
        apps += [a.path for a in result.apps if a.path is not None]
    return apps


def _cpu() -> float:
    """CPU seconds of this process and its finished children (the tools)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(app_dir: Path, work: Path, label: str) -> dict[str, Any]:
    start, cpu = time.perf_counter(), _cpu()
    r = build_apk(app_dir, work / f"{app_dir.name}-{label}.apk", route="offline")
    wall = time.perf_counter() - start
    return {"seconds": round(wall, 2), "cpu_seconds": round(_cpu() - cpu, 2), "steps": r.steps,
            "size": r.size, "dex_cached": r.dex_cached}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("apps", nargs="*", type=Path)
    ap.add_argument("--json", type=Path, help="also write the results as JSON here")
    ap.add_argument("--reuse-api", action="store_true",
                    help="copy api/current.txt from the user's cache instead of downloading it")
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    user_api = cache_dir() / "platform" / f"android-{API_LEVEL}-current.txt"
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pw-bench-apk-") as tmp:
        work = Path(tmp)
        os.environ["PHONEWORLD_CACHE"] = str(work / "cache")
        if args.reuse_api and user_api.exists():
            (work / "cache" / "platform").mkdir(parents=True)
            shutil.copyfile(user_api, work / "cache" / "platform" / user_api.name)
        apps = args.apps or default_apps(work)
        for i, app_dir in enumerate(apps):
            spec = AppSpec.model_validate_json((app_dir / "app.json").read_text())
            row: dict[str, Any] = {"app": spec.package, **context_summary(spec)}
            if i == 0:
                row["cold"] = measure(app_dir, work, "cold")
            else:  # the platform is cached now; drop only this app's dex to measure "cached"
                row["cold"] = None
            for f in (work / "cache" / "apps").glob("*.dex"):
                f.unlink()
            row["cached"] = measure(app_dir, work, "cached")
            row["warm"] = measure(app_dir, work, "warm")
            results.append(row)
    print("wall seconds (CPU seconds of the build and its tools)")
    print(f"{'app':32} {'screens':>7} {'widgets':>7} {'cold':>14} {'cached':>14} "
          f"{'warm':>12} {'APK KiB':>8}")

    def cell(m: dict[str, Any] | None, width: int) -> str:
        return f"{'-':>{width}}" if m is None else \
            f"{m['seconds']:.1f} ({m['cpu_seconds']:.1f})".rjust(width)

    for r in results:
        print(f"{r['app']:32} {r['screens']:>7} {r['widgets']:>7} {cell(r['cold'], 14)} "
              f"{cell(r['cached'], 14)} {cell(r['warm'], 12)} {r['warm']['size'] / 1024:>8.0f}")
    print("cold includes: " + ", ".join(f"{k} {v:.1f}s" for k, v in
                                        (results[0]["cold"] or {}).get("steps", {}).items()))
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
