"""Compare success rates of the GPU run's models (bench/results/rl_h200.json by default): each
RL model against the SFT model it started from, per evaluation split, with a two-sided
two-proportion z-test (pooled). Prints a table; read-only.

    python bench/rl_compare.py [RESULTS.json]
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path


def z_test(s1: int, n1: int, s2: int, n2: int) -> tuple[float, float]:
    """(z, two-sided p) for H0: the two success rates are equal."""
    pooled = (s1 + s2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 0.0, 1.0
    z = (s2 / n2 - s1 / n1) / se
    return z, math.erfc(abs(z) / math.sqrt(2))


def main() -> int:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/results/rl_h200.json")
    try:
        success = json.loads(path.read_text())["success"]
    except (OSError, ValueError, KeyError) as exc:
        print(f"error: {path}: no readable 'success' table ({exc}); pass the JSON that "
              "bench/rl_gpu_run.py wrote for the full phase", file=sys.stderr)
        return 2
    base = success["after_sft"]
    print(f"{'model':20} {'split':18} {'after SFT':>16} {'after RL':>16} {'diff':>7} "
          f"{'z':>6} {'p':>6}")
    for name, res in success.items():
        if name == "after_sft":
            continue
        for split, r in res.items():
            b = base.get(split)
            if not b:
                continue
            n1, n2 = b["episodes"], r["episodes"]
            s1, s2 = round(b["success_rate"] * n1), round(r["success_rate"] * n2)
            z, p = z_test(s1, n1, s2, n2)
            print(f"{name:20} {split:18} {f'{s1}/{n1} {s1 / n1:.3f}':>16} "
                  f"{f'{s2}/{n2} {s2 / n2:.3f}':>16} {s2 / n2 - s1 / n1:+7.3f} {z:+6.2f} "
                  f"{p:6.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
