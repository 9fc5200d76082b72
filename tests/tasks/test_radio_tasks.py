"""Tasks on a radio group: "Select "Large"" is kept and cannot be gamed, and the button checked
at the start gets no "Clear the option" task (a tap never clears a radio button). Before the
group was exclusive, a near miss ticking a button the solution never touched passed "Select"."""

from __future__ import annotations

from phoneworld.tasks import sanity
from phoneworld.tasks.synthesis import synthesize
from tests.compiler_support import compile_app, episode, traces
from tests.state.test_radio_groups import order, pick


def test_radio_tasks_select_and_are_not_gameable() -> None:
    app = compile_app(traces(episode(
        "e0", order("Small"), pick(1), order("Medium"), pick(2), order("Large")))).spec
    tasks = synthesize(app).tasks
    said = [t.instruction for t in tasks]
    assert 'Select "Large"' in said and 'Select "Medium"' in said
    assert not [s for s in said if s.startswith("Clear")]
    checks = {c.task.instruction: c for c in sanity.check_tasks(app, tasks)}
    for select in ('Select "Large"', 'Select "Medium"'):
        assert checks[select].kept, checks[select].detail
    assert not any(c.reason == sanity.GAMEABLE for c in checks.values())
