"""Regenerate the golden build of the bundled example (`make golden`); CI never runs this."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from phoneworld.pipeline import BuildConfig, build  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "com.example.notes"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        result = build(BuildConfig(traces=REPO / "examples" / "traces", out=Path(tmp)))
        path = result.apps[0].path
        assert path is not None
        if GOLDEN.exists():
            shutil.rmtree(GOLDEN)
        # report.html is not golden (it is checked for determinism and in a browser instead)
        shutil.copytree(path, GOLDEN, ignore=shutil.ignore_patterns("report.html"))
    print(f"wrote {GOLDEN}")


if __name__ == "__main__":
    main()
