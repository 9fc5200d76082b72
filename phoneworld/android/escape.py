"""Escaping filters: every string that came from a trace enters generated files through one of these.

- `kt`: a Kotlin string literal. `\\`, `"` and `$` are escaped, control, format and other
  non-printable characters (and lone surrogates) become `\\uXXXX`; texts too long for one class-file
  constant are joined at run time from chunks.
- `kt_comment`: text safe inside a `/** ... */` comment (Kotlin comments nest, so `/*` and `*/`
  are both broken up; no newlines).
- `xml`: an XML attribute or text value (`&<>"'` as entities, tab, CR and LF as character
  references; characters XML 1.0 forbids become U+FFFD).
- `res_string`: the content of an Android `<string>` resource (aapt2's own escapes, then `xml`).
"""

from __future__ import annotations

import re

# A Kotlin string constant becomes one class-file constant (at most 65535 bytes of modified UTF-8,
# up to 3 bytes a UTF-16 unit): longer literals are split and joined when the code runs.
CHUNK_UNITS = 8000
_SHORT = {"\\": "\\\\", '"': '\\"', "$": "\\$", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b"}
_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _units(ch: str) -> list[int]:
    """The UTF-16 code units of one character (a lone surrogate is one unit)."""
    cp = ord(ch)
    if cp < 0x10000:
        return [cp]
    cp -= 0x10000
    return [0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF)]


def _kt_char(ch: str) -> str:
    if ch in _SHORT:
        return _SHORT[ch]
    if ch.isprintable() and not 0xD800 <= ord(ch) <= 0xDFFF:
        return ch
    return "".join(f"\\u{u:04X}" for u in _units(ch))


def _chunks(text: str) -> list[str]:
    out, cur, size = [], [], 0
    for ch in text:
        n = len(_units(ch))
        if size + n > CHUNK_UNITS:
            out.append("".join(cur))
            cur, size = [], 0
        cur.append(ch)
        size += n
    out.append("".join(cur))
    return out


def kt(text: str) -> str:
    """`text` as a Kotlin String expression."""
    if not isinstance(text, str):
        raise TypeError(f"kt() takes a str, got {type(text).__name__}")
    parts = _chunks(text)
    lits = ['"' + "".join(_kt_char(ch) for ch in part) + '"' for part in parts]
    if len(lits) == 1:
        return lits[0]
    return "listOf(" + ", ".join(lits) + ').joinToString("")'


def kt_comment(text: object, limit: int = 120) -> str:
    """`text` made safe and short for a comment."""
    s = "".join(ch if ch.isprintable() else " " for ch in str(text))
    s = s.replace("*/", "* /").replace("/*", "/ *")
    if len(s) > limit:
        s = s[: limit - 1] + "\u2026"
    return s.replace("*/", "* /").replace("/*", "/ *")


def xml(text: str) -> str:
    """`text` for an XML attribute or element value."""
    s = _XML_BAD.sub("\ufffd", text)
    s = (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
         .replace('"', "&quot;").replace("'", "&apos;"))
    # as character references, so that attribute-value normalization keeps them
    return s.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")


def res_string(text: str) -> str:
    """`text` as the content of a `<string>` resource, spaces kept (the value is quoted)."""
    s = (text.replace("\\", "\\\\").replace('"', '\\"').replace("'", "\\'")
         .replace("\n", "\\n").replace("\t", "\\t"))
    return xml('"' + s + '"')


FILTERS = {"kt": kt, "kt_comment": kt_comment, "xml": xml, "res_string": res_string}
