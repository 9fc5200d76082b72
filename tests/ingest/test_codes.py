"""The diagnostic code table: unique, complete, and every code used by some importer."""

from __future__ import annotations

import re
from pathlib import Path

from phoneworld.ingest import codes

PACKAGE = Path(codes.__file__).parent


def test_codes_are_unique_and_documented() -> None:
    ids = [c.id for c in codes.ALL_CODES]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"PW1\d\d", i) for i in ids)
    assert all(c.meaning and c.hint for c in codes.ALL_CODES)
    assert codes.table().count("\n| PW1") == len(ids)


def test_every_code_is_reported_somewhere() -> None:
    source = "\n".join(p.read_text() for p in PACKAGE.glob("*.py") if p.name != "codes.py")
    names = [name for name, value in vars(codes).items() if isinstance(value, codes.Code)]
    unused = [n for n in names if f"codes.{n}" not in source]
    assert unused == []
