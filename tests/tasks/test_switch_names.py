"""Names of switches as Android reports them: a framework Switch's text carries its state word
("... (07:00) OFF": the accessibility text uiautomator and DroidBot read), a settings switch's own
text is often its summary with the short title beside it, and a sign toggle shows "+" or "−".

Before (a Kea run of MyExpenses): "Turn on Backup database daily at the specified time (only if
data has changed). (07:00) OFF" for the switch titled "Auto-backup", and "Turn on +".
"""

from __future__ import annotations

from phoneworld.tasks.synthesis import synthesize
from tests.compiler_support import (
    BUTTON, LINEAR, TEXT, b, click, compile_app, episode, screen, traces, view,
)

SWITCH = "android.widget.Switch"
SUMMARY = "Backup database daily at the specified time (only if data has changed). (07:00)"


def settings() -> object:
    """An onboarding page whose switches the recording never tapped (as Kea's run shows it):
    their texts are literal, state word and sign included."""
    return screen(view(LINEAR, b(0, 200, 1080, 700),
                       view(TEXT, b(100, 220, 980, 260), text="Auto-backup"),
                       view(SWITCH, b(100, 280, 980, 400), id="auto_backup",
                            text=f"{SUMMARY} OFF", checkable=True, clickable=True),
                       view(SWITCH, b(100, 450, 230, 560), id="sign", text="+",
                            desc="Opening balance", checkable=True, clickable=True,
                            checked=True)),
                  view(BUTTON, b(100, 1500, 980, 1600), id="next", text="Next", clickable=True))


def done() -> object:
    return screen(view(TEXT, b(100, 220, 980, 260), text="All set"), activity=".DoneActivity")


def test_a_switch_is_named_by_its_title_not_its_summary_state_or_sign() -> None:
    spec = compile_app(traces(episode("e0", settings(), click(540, 1550), done()),
                              episode("e1", settings(), click(540, 1550), done()))).spec
    said = [t.instruction for t in synthesize(spec, None).tasks]
    assert "Turn on Auto-backup" in said and "Is Auto-backup turned on?" in said
    assert "Turn off Opening balance" in said
    assert not [s for s in said if "OFF" in s or "(07:00)" in s or s.endswith(("+", "−"))]
