"""Escaping filters and generated names: properties over arbitrary (hostile) input."""

from __future__ import annotations

import re
import sys
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from phoneworld.android.context import PY_DIGIT_ZEROS, PY_SPACE
from phoneworld.android.escape import CHUNK_UNITS, kt, kt_comment, res_string, xml
from phoneworld.android.names import JAVA_KEYWORDS, KOTLIN_KEYWORDS, NameTable, android_package, camel, pascal

ANY_TEXT = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF))


def _kotlin_unescape(lit: str) -> str:
    """A reference reader of the string literals `kt` writes."""
    assert lit.startswith('"') and lit.endswith('"')
    body, out, i = lit[1:-1], [], 0
    simple = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "\\": "\\", '"': '"', "$": "$"}
    while i < len(body):
        ch = body[i]
        assert ch != '"' and ch != "$" and ch not in "\n\r", body
        if ch == "\\":
            if body[i + 1] == "u":
                out.append(chr(int(body[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append(simple[body[i + 1]])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")


@given(ANY_TEXT)
def test_kotlin_literal_round_trips(text: str) -> None:
    lit = kt(text)
    if lit.startswith("listOf("):
        parts = re.findall(r'"(?:[^"\\]|\\.)*"', lit)
        assert "".join(_kotlin_unescape(p) for p in parts) == text
    else:
        assert _kotlin_unescape(lit) == text


def test_long_text_is_split_into_class_file_sized_chunks() -> None:
    text = "\U0001F600" * (CHUNK_UNITS * 2)
    lit = kt(text)
    assert lit.startswith("listOf(") and lit.endswith('.joinToString("")')
    for part in re.findall(r'"(?:[^"\\]|\\.)*"', lit):
        assert len(part) * 3 < 65535 * 2  # a chunk's modified UTF-8 stays far below 64 KiB


@given(ANY_TEXT)
def test_comment_text_cannot_close_or_open_a_comment(text: str) -> None:
    c = kt_comment(text)
    assert "*/" not in c and "/*" not in c and "\n" not in c and "\r" not in c


@given(ANY_TEXT)
def test_xml_values_are_well_formed(text: str) -> None:
    from lxml import etree

    doc = f'<a b="{xml(text)}">{xml(text)}</a>'
    el = etree.fromstring(doc.encode("utf-8"))
    assert el.get("b") == el.text or (el.text is None and el.get("b") == "")


def _android_string(value: str) -> str:
    """A reference reader of a quoted `<string>` value (after XML parsing), as aapt2 reads it."""
    assert value.startswith('"') and value.endswith('"')
    body, out, i = value[1:-1], [], 0
    while i < len(body):
        ch = body[i]
        assert ch != '"', value  # an unescaped quote would end the quoted value early
        if ch == "\\":
            out.append({"n": "\n", "t": "\t"}.get(body[i + 1], body[i + 1]))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


@given(ANY_TEXT)
def test_resource_strings_round_trip(text: str) -> None:
    from lxml import etree

    el = etree.fromstring(f"<string>{res_string(text)}</string>".encode("utf-8"))
    want = re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]", "\ufffd", text)
    assert _android_string(el.text) == want


@given(ANY_TEXT)
def test_android_package_is_valid(text: str) -> None:
    pkg = android_package(text)
    segs = pkg.split(".")
    assert len(segs) >= 2
    for seg in segs:
        assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", seg), pkg
        assert seg not in JAVA_KEYWORDS and seg not in KOTLIN_KEYWORDS


def test_valid_packages_are_kept() -> None:
    assert android_package("com.habitrpg.android.habitica") == "com.habitrpg.android.habitica"
    assert android_package("com.example.in") == "com.example.in_"


@given(st.lists(ANY_TEXT, max_size=30))
def test_names_are_identifiers_and_unique(texts: list[str]) -> None:
    table = NameTable({"build"})
    names = [table.take(camel(t)) for t in texts] + [table.take(pascal(t)) for t in texts]
    assert len({n.lower() for n in names}) == len(names)
    for n in names:
        assert re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", n) and n not in KOTLIN_KEYWORDS
        assert n != "build"


@pytest.mark.skipif(unicodedata.unidata_version != "14.0.0",
                    reason=f"tables are Unicode 14 (Python 3.11); this Python has "
                           f"{unicodedata.unidata_version} ({sys.version.split()[0]})")
def test_kotlin_tables_match_python() -> None:
    """The core strips and parses numbers with Python's whitespace and decimal digits."""
    assert list(PY_SPACE) == [c for c in range(0x110000) if chr(c).isspace()]
    zeros = [c for c in range(0x110000) if chr(c).isdecimal() and unicodedata.decimal(chr(c)) == 0]
    assert list(PY_DIGIT_ZEROS) == zeros
    for z in zeros:
        assert all(unicodedata.decimal(chr(z + k)) == k for k in range(10))
