"""The build report (`report.json`): what was compiled and how faithful it is."""

from __future__ import annotations

from phoneworld.ir.base import Frozen


class Fidelity(Frozen):
    steps: int
    changing_steps: int
    transition_match: float | None
    transition_match_changing: float | None
    observation_match: float | None
    change_f1: float | None
    # the change F1 of a stateless mock that knows the true next screen and shows the content last
    # recorded for it: the figure a mock with state has to beat
    reference_change_f1: float | None = None
    # changing steps missed whose recorded outcome the model outvoted: their trigger (screen,
    # action, widget) went elsewhere more often and no state condition tells them apart, so no
    # rule of this model reproduces both (the recording contradicts itself, or shows too little);
    # training replay only
    outvoted: int | None = None


class FreeRunning(Frozen):
    """Free-running replay of the training episodes (`fidelity.free_run`): each episode's actions
    applied without correction, the recording's first episode from the reset app. `reproduced`:
    episodes whose screen sequence is the recorded one; `content_match`: the mean Jaccard of the
    screen content over every step (what an agent sees, errors compounding)."""

    episodes: int
    reproduced: int
    steps: int
    content_match: float | None


class FidelityReport(Frozen):
    train: Fidelity | None = None
    heldout: Fidelity | None = None
    # held-out steps on screens training saw (their own, their back stack's and the recorded next
    # one), and their share of the held-out changing steps: tells an unseen screen from wrong
    # behaviour
    heldout_covered: Fidelity | None = None
    heldout_coverage: float | None = None
    # the covered steps whose trigger (screen, action, widget) training recorded: tells an input
    # the mock never saw from wrong behaviour where it had evidence
    heldout_known_trigger: Fidelity | None = None
    free_running: FreeRunning | None = None


class StateVarSummary(Frozen):
    name: str
    kind: str


class TasksSummary(Frozen):
    """Synthesized tasks and their sanity check: how many were proposed, kept and rejected, the
    rejection reasons counted, the kept tasks by kind, the near-miss end states the kept tasks'
    verifiers were attacked with (`tried`, `rejected`: equal, or the task is not kept), the
    search for cheaper passing states (`cheaper`), the number of tasks rejected as gameable (by
    a near miss or a cheaper state), and the length of the kept tasks' solutions."""

    synthesized: int = 0
    kept: int = 0
    rejected: int = 0
    rejection_reasons: dict[str, int] = {}
    kinds: dict[str, int] = {}
    adversarial: dict[str, int] = {}
    gameable: int = 0
    # the search for passing states cheaper than the oracle's (tasks searched, states explored,
    # searches complete within the oracle's length, tasks where one passed)
    cheaper: dict[str, int] = {}
    # the kept tasks' oracle solutions: their mean length, and how many are proven shortest (found
    # by the breadth-first search; a best-first one is only cut of its detours)
    solution_steps: float | None = None
    proven_shortest: int = 0


class BuildReport(Frozen):
    app: str
    episodes: int
    steps: int
    screens: int
    transitions: int
    state_vars: tuple[StateVarSummary, ...]
    effects: dict[str, int]
    guards: int
    fidelity: FidelityReport
    diagnostics: dict[str, int]
    unexplained: tuple[str, ...] = ()  # recorded behaviour the app does not reproduce, and why
    heldout_fraction: float = 0.0
    seed: int = 0
    tasks: TasksSummary = TasksSummary()
