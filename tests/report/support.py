"""Trace sets the report tests make: the example with a hostile text in place of a note title."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import EXAMPLE

# Markup that would fetch from the network or run script if a page let it through unescaped.
HOSTILE = '</script><img src="https://evil.example/x.png" onerror="alert(1)">"); Runtime.exec('


def hostile_traces(work: Path) -> Path:
    """A copy of the example traces where the note "Buy milk" is titled HOSTILE."""
    root = work / "traces"
    shutil.copytree(EXAMPLE, root)
    escaped = (HOSTILE.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
               .replace('"', "&quot;"))
    for xml in root.rglob("*.xml"):
        text = xml.read_text(encoding="utf-8")
        if "Buy milk" in text:
            xml.write_text(text.replace("Buy milk", escaped), encoding="utf-8")
    return root
