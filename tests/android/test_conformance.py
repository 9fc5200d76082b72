"""The Kotlin core on the JVM agrees with the Python simulator after every step: screen, back stack,
transition fired, every rendered node (text, checked, focus, bounds, list rows) and the state.

On the example: every recorded episode and 1,000 random sequences of 30 steps; on Habitica (the
real set with ~150 widgets a screen): 1,000 random sequences of 30 steps.
"""

from __future__ import annotations

import collections

import pytest

from phoneworld.android.conformance import RandomWalk, episode_sequences
from phoneworld.android.jvm import agree
from phoneworld.pipeline import check
from phoneworld.runtime.sim import Simulator
from tests.conftest import EXAMPLE

SEQUENCES, STEPS = 1000, 30


def _report(result) -> str:  # type: ignore[no-untyped-def]
    return "\n".join(str(m) for m in result.mismatches[:5])


def test_example_episodes_agree(android_apps, jvm_core) -> None:  # type: ignore[no-untyped-def]
    app = android_apps["example"]
    trace_set, _ = check(EXAMPLE)
    sequences = episode_sequences(trace_set.for_app(app.spec.package).episodes)
    assert len(sequences) >= 10
    result = agree(app.spec, jvm_core, app.project, sequences)
    assert result.ok, _report(result)
    assert result.steps == sum(len(s.actions) for s in sequences)


@pytest.mark.parametrize("name", ["example", "habitica"])
def test_random_sequences_agree(android_apps, jvm_core, name: str) -> None:  # type: ignore[no-untyped-def]
    app = android_apps[name]
    sequences = RandomWalk(app.spec, seed=20240601).sequences(SEQUENCES, STEPS)
    result = agree(app.spec, jvm_core, app.project, sequences)
    assert result.sequences == SEQUENCES and result.steps == SEQUENCES * STEPS
    assert result.ok, f"{len(result.mismatches)} sequences differ; first ones:\n" + _report(result)
    fired = result.fired
    # the walk exercises most of the app, not just its first screen
    assert len(fired) >= 0.75 * len(app.spec.transitions), (len(fired), len(app.spec.transitions))
    kinds = collections.Counter(a[0] for s in sequences for a in s.actions)
    assert {"click", "type", "scroll", "back", "drag", "home", "open_app"} <= set(kinds)


def test_a_divergence_is_reported(android_apps, jvm_core) -> None:  # type: ignore[no-untyped-def]
    """The comparison is not vacuous: a seeded state the simulator and the core read differently
    (here: the JVM is given another start screen) shows as a named mismatch."""
    app = android_apps["example"]
    seq = RandomWalk(app.spec, seed=1).sequences(1, 3)[0]
    from phoneworld.android.jvm import replay, _split
    from phoneworld.android.conformance import Recorder, expected_records, md5

    want = [md5(r) for r in expected_records(Simulator(app.spec), seq, Recorder())]
    job = seq.job()
    job["screen"] = next(s.id for s in app.spec.screens
                         if s.id != (seq.screen or app.spec.start_screen))
    got = _split(replay(jvm_core, app.project, {"sequences": [job]}))[0]
    assert got[0] != want[0]


def test_stress_app_compiles_and_agrees(stress_app, jvm_core) -> None:  # type: ignore[no-untyped-def]
    """1,100 widgets on one screen, a 30,000-character text, 250 records in a scrolling list: the
    Kotlin compiled (JVM limits held) and agrees with the simulator, also where a pop's target is
    not on the stack and a screen is below (t3), and where a bulk remove and a bulk mark change
    the list under a selection (t5, t6), and where back stays once, recording it, and then leaves
    (t9, t8), and where a list's last record goes and its empty message shows (t10), and where a
    recorded scroll fires and the list moves by the rows its recorded scrolls moved it (t11), and
    where a row's badge shows only on the records that are done (each of t2, t5, t6 changes it)."""
    sequences = RandomWalk(stress_app.spec, seed=4).sequences(60, STEPS)
    result = agree(stress_app.spec, jvm_core, stress_app.project, sequences)
    assert result.ok, _report(result)
    assert result.fired == {"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10",
                            "t11"}
