"""Gymnasium spaces for the env's text observations and actions.

`spaces.Text` keeps its charset as a frozenset plus an index dict; covering every character a
trace can carry (all of Unicode that XML allows, ~1.1M code points) that way costs ~100 MB per
space. `UnicodeText` is a `spaces.Text` whose membership test accepts any character the runtime can
emit (everything but the ones `xmltext.sanitize` replaces), while sampling draws from a small
printable charset, so `check_env` and samplers work as usual.
"""

from __future__ import annotations

import string
from typing import Any

from gymnasium import spaces

from phoneworld.runtime.xmltext import NOT_EMITTED

SAMPLE_CHARSET = string.ascii_letters + string.digits + string.punctuation + " \n\u00e9\u4e2d\u2022"

_PROTO = spaces.Text(1, min_length=0, charset=SAMPLE_CHARSET)
_SHARED = ("_char_set", "_char_list", "_char_index", "_char_str")


class UnicodeText(spaces.Text):
    """Text of printable Unicode (as emitted by the runtime) between min and max length."""

    def __init__(self, max_length: int, *, min_length: int = 0, seed: Any = None) -> None:
        if not all(hasattr(_PROTO, a) for a in _SHARED) or not 0 <= min_length <= max_length:
            super().__init__(max_length, min_length=min_length, charset=SAMPLE_CHARSET, seed=seed)
            return
        # Share the (immutable) charset tables: building them costs ~30 KB per space, and a
        # thousand envs hold four spaces each.
        self.min_length, self.max_length = int(min_length), int(max_length)
        for attr in _SHARED:
            setattr(self, attr, getattr(_PROTO, attr))
        spaces.Space.__init__(self, dtype=str, seed=seed)

    def contains(self, x: Any) -> bool:
        return (
            isinstance(x, str)
            and self.min_length <= len(x) <= self.max_length
            and NOT_EMITTED.search(x) is None
        )

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, UnicodeText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )

    def __hash__(self) -> int:
        return hash((UnicodeText, self.min_length, self.max_length))
