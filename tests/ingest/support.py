"""Helpers of the ingest tests: fixture folders, the real data sets, running ingest, tiny dumps."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from phoneworld.ingest import ingest
from phoneworld.ir.diagnostics import Diagnostic, Diagnostics
from phoneworld.ir.trace import TraceSet

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"
REAL = REPO / ".." / "shared" / "data" / "real"


@dataclass
class Run:
    """The result of one ingest call."""

    traces: TraceSet
    diagnostics: Diagnostics

    def codes(self, severity: str | None = None) -> list[str]:
        return [d.code for d in self.diagnostics.items if severity in (None, d.severity)]

    def with_code(self, code: str) -> list[Diagnostic]:
        return [d for d in self.diagnostics.items if d.code == code]


def run_ingest(root: Path, fmt: str | None = None) -> Run:
    diagnostics = Diagnostics()
    return Run(ingest(root, fmt=fmt, diagnostics=diagnostics), diagnostics)


def real_folder(name: str) -> Path:
    path = REAL / name
    if not path.is_dir():
        pytest.skip(f"real data set {name} is absent (expected at {path.resolve()})")
    return path


NODE = ('<node index="{index}" text="{text}" resource-id="{rid}" class="{cls}" package="{pkg}" '
        'content-desc="" checkable="false" checked="false" clickable="{clickable}" enabled="true" '
        'focusable="false" focused="false" scrollable="false" long-clickable="false" '
        'password="false" selected="false" bounds="{bounds}"{close}')


def node(cls: str = "android.widget.FrameLayout", bounds: str = "[0,0][1080,1920]",
         children: str = "", *, index: int = 0, text: str = "", rid: str = "",
         pkg: str = "com.example.app", clickable: bool = False) -> str:
    close = f">{children}</node>" if children else " />"
    return NODE.format(index=index, text=text, rid=rid, cls=cls, pkg=pkg, bounds=bounds,
                       clickable="true" if clickable else "false", close=close)


def dump(*nodes: str, rotation: int = 0) -> str:
    body = "\n".join(nodes)
    return (f"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n"
            f'<hierarchy rotation="{rotation}">\n{body}\n</hierarchy>\n')


def simple_screen(pkg: str = "com.example.app", text: str = "OK") -> str:
    button = node("android.widget.Button", "[40,450][1040,580]", text=text, pkg=pkg,
                  rid=f"{pkg}:id/ok", clickable=True)
    return dump(node(bounds="[0,0][1080,1920]", children=button, pkg=pkg))
