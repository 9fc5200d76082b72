"""Text hygiene for uiautomator XML: what a real `uiautomator dump` does to attribute values.

`sanitize` mirrors uiautomator's `stripInvalidXMLChars` (each invalid character becomes "."; we also
catch NUL, lone surrogates and U+FFFE/U+FFFF, which Python strings can hold). `escape_attr` mirrors
the KXmlSerializer escaping of attribute values (`&<>"` as entities, tab/newline/CR as `&#N;`).
Texts come from untrusted traces, so everything written into XML goes through both.
"""

from __future__ import annotations

import re


def _invalid_codepoints() -> list[int]:
    ranges = [
        (0x0, 0x8), (0xB, 0xC), (0xE, 0x1F), (0x7F, 0x84), (0x86, 0x9F),
        (0xD800, 0xDFFF), (0xFDD0, 0xFDDF), (0xFFFE, 0xFFFF),
    ]
    return [cp for lo, hi in ranges for cp in range(lo, hi + 1)]


_SANITIZE = {cp: "." for cp in _invalid_codepoints()}
_ESCAPE = {
    ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;", ord('"'): "&quot;",
    ord("\n"): "&#10;", ord("\r"): "&#13;", ord("\t"): "&#9;",
}
_NEEDS_ESCAPE = re.compile(r'[&<>"\n\r\t]')
# Characters that never appear in what the runtime emits (they are sanitized away).
NOT_EMITTED = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufdd0-\ufddf\ufffe\uffff]"
)


def sanitize(text: str) -> str:
    """Replace characters a uiautomator dump cannot carry by "." (as uiautomator does)."""
    if text.isprintable():  # every character to replace is in a non-printable category
        return text
    return text.translate(_SANITIZE)


def escape_attr(text: str) -> str:
    """Escape a sanitized value for a double-quoted XML attribute."""
    if _NEEDS_ESCAPE.search(text) is None:
        return text
    return text.translate(_ESCAPE)
