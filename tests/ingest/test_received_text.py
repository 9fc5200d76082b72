"""A typed text is recorded as the app received it: a field that shows it in quotes (a recorder's
quoting that the device's shell did not strip) means the quotes were typed too."""

from __future__ import annotations

from phoneworld.ingest.draft import received
from phoneworld.ir.trace import Click, Observation, TypeText
from tests.compiler_support import EDIT, TEXT, W, b, screen, view


def field(text: str) -> Observation:
    return screen(view(TEXT, b(0, 0, W, 150), text="Sign in"),
                  view(EDIT, b(0, 200, W, 320), id="email", text=text, focusable=True))


def test_a_field_showing_the_text_in_quotes_means_the_quotes_were_typed() -> None:
    assert received(TypeText(text="HelloWorld"), field('"HelloWorld"')) == \
        TypeText(text='"HelloWorld"')


def test_a_field_showing_the_text_bare_keeps_it() -> None:
    action = TypeText(text="HelloWorld")
    assert received(action, field("HelloWorld")) is action
    # appended to what the field held, or not shown at all: as recorded
    assert received(action, field("abcHelloWorld")) is action
    assert received(action, None) is action


def test_only_typing_is_touched_and_only_fields_count() -> None:
    click = Click(x=1, y=2)
    assert received(click, field('"x"')) is click
    label = screen(view(TEXT, b(0, 0, W, 150), text='"HelloWorld"'))
    assert received(TypeText(text="HelloWorld"), label) == TypeText(text="HelloWorld")
