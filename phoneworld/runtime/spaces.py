"""Gymnasium spaces for the env's text observations and actions.

`spaces.Text` keeps its charset as a frozenset plus an index dict; covering every character a
trace can carry (all of Unicode that XML allows, ~1.1M code points) that way costs ~100 MB per
space. `UnicodeText` is a `spaces.Text` whose membership test accepts any character the runtime can
emit (everything but the ones `xmltext.sanitize` replaces), while sampling draws from a small
printable charset, so `check_env` and samplers work as usual.

Shared memory (gymnasium's `AsyncVectorEnv(shared_memory=True)`, its default): gymnasium lays a
`Text` out as `max_length` int32 charset indices per env, writes all of them every step, drops
every character outside the charset, and reads the buffer once, at construction, into a tuple of
strings that never changes again. `UnicodeText` registers its own layout instead: per env a slot of
`4 * max_length` bytes (the UTF-8 worst case) and a byte count; a step writes only the bytes of
its text, and the parent reads through `SharedTexts`, a live view that decodes on access (and
deep-copies to a tuple of strings, which is what `AsyncVectorEnv(copy=True)` hands out).
"""

from __future__ import annotations

import copy
import multiprocessing as mp
import string
from collections.abc import Sequence
from types import ModuleType
from typing import Any, overload

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import shared_memory as gym_shm

from phoneworld.errors import EnvError
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

    def __deepcopy__(self, memo: dict[int, Any]) -> UnicodeText:
        # batching n envs deep-copies the space n times: keep sharing the immutable tables
        twin = UnicodeText(self.max_length, min_length=self.min_length)
        twin._np_random = copy.deepcopy(self._np_random, memo)
        return twin


# ----------------------------------------------------------------------------- shared memory

UTF8_MAX = 4  # bytes per character, at most


class TextSlots:
    """The shared memory of one text space for n envs: a slot of UTF-8 bytes per env and the byte
    count of each (multiprocessing arrays), with numpy views made once per process."""

    def __init__(self, data: Any, lengths: Any, slot: int) -> None:
        self.data, self.lengths, self.slot = data, lengths, slot
        self._views: tuple[np.ndarray, np.ndarray] | None = None

    def views(self) -> tuple[np.ndarray, np.ndarray]:
        if self._views is None:
            self._views = (np.frombuffer(self.data.get_obj(), dtype=np.uint8),
                           np.frombuffer(self.lengths.get_obj(), dtype=np.int64))
        return self._views

    def __getstate__(self) -> dict[str, Any]:  # a spawned worker makes its own views
        return {**self.__dict__, "_views": None}


class SharedTexts(Sequence[str]):
    """The texts of n envs in shared memory, decoded when read (see the module docstring)."""

    def __init__(self, slots: TextSlots, n: int) -> None:
        self._slots, self._n = slots, n

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[str, ...]: ...

    def __getitem__(self, i: int | slice) -> str | tuple[str, ...]:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(self._n)))
        if not -self._n <= i < self._n:
            raise IndexError(i)
        i %= self._n
        data, lengths = self._slots.views()
        start = i * self._slots.slot
        return data[start:start + int(lengths[i])].tobytes().decode("utf-8")

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return f"SharedTexts({list(self)!r})"


@gym_shm.create_shared_memory.register(UnicodeText)
def _create(space: UnicodeText, n: int = 1, ctx: ModuleType = mp) -> TextSlots:
    slot = UTF8_MAX * space.max_length
    return TextSlots(ctx.Array("B", n * slot), ctx.Array("q", n), slot)


@gym_shm.read_from_shared_memory.register(UnicodeText)
def _read(space: UnicodeText, shared: TextSlots, n: int = 1) -> SharedTexts:
    return SharedTexts(shared, n)


@gym_shm.write_to_shared_memory.register(UnicodeText)
def _write(space: UnicodeText, index: int, value: str, shared: TextSlots) -> None:
    if not isinstance(value, str) or len(value) > space.max_length:
        got = f"{len(value):,} characters" if isinstance(value, str) else type(value).__name__
        raise EnvError(f"an observation text of {got} does not fit {space!r}; pass "
                       "shared_memory=False to AsyncVectorEnv for texts this long")
    raw = value.encode("utf-8")
    data, lengths = shared.views()
    start = index * shared.slot
    data[start:start + len(raw)] = np.frombuffer(raw, dtype=np.uint8)
    lengths[index] = len(raw)
