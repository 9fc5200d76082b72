"""Pausing Python's cyclic garbage collector around work that builds large acyclic structures.

Reference counting still frees everything acyclic while the collector is paused; what it stops is
the collector rescanning every long-lived object on each full collection. A build holds the
traces and the IR of every pass (some 20 tracked objects per view node), and full collections
happen each time the heap grows by a quarter, so the collector took about half of the CPU time
of a build with a few 100,000-node screens and of a rollout step (`bench/build_time.py`,
`bench/rollout_cpu.py`). Nestable and thread-safe: the collector comes back, if it was on, when
the last paused block ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_LOCK = threading.Lock()
_PAUSES = [0, True]  # blocks running with the collector paused; whether it was enabled


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (see the module docstring)."""
    with _LOCK:
        if _PAUSES[0] == 0:
            _PAUSES[1] = gc.isenabled()
            gc.disable()
        _PAUSES[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _PAUSES[0] -= 1
            if _PAUSES[0] == 0 and _PAUSES[1]:
                gc.enable()
