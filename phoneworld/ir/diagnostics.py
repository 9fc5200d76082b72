"""Diagnostics: problems found in the input, collected as values so one run reports all of them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import model_validator

from phoneworld.ir.base import Frozen, SourceRef

Severity = Literal["error", "warning", "note"]


class Code(str):
    """A diagnostic code (`"PW301"`) that carries the hint a diagnostic of it gets by default,
    so every diagnostic has a fix to show even where the reporting site gives no specific one."""

    hint: str

    def __new__(cls, code: str, hint: str) -> Code:
        self = super().__new__(cls, code)
        self.hint = hint
        return self


class Diagnostic(Frozen):
    """One problem, compiler style: `file:line: error[PW104]: message` plus a hint."""

    severity: Severity
    code: str
    message: str
    source: SourceRef
    hint: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _default_hint(cls, data: Any) -> Any:
        code = data.get("code") if isinstance(data, dict) else None
        if isinstance(code, Code):
            data = {**data, "code": str(code), "hint": data.get("hint") or code.hint}
        return data

    def render(self) -> str:
        text = f"{self.source.render()}: {self.severity}[{self.code}]: {self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class Diagnostics:
    """A mutable collector handed to the passes that read user input."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def add(
        self,
        severity: Severity,
        code: str,
        message: str,
        source: SourceRef,
        hint: str | None = None,
    ) -> None:
        self.items.append(
            Diagnostic(severity=severity, code=code, message=message, source=source, hint=hint)
        )

    def error(self, code: str, message: str, source: SourceRef, hint: str | None = None) -> None:
        self.add("error", code, message, source, hint)

    def warning(self, code: str, message: str, source: SourceRef, hint: str | None = None) -> None:
        self.add("warning", code, message, source, hint)

    def extend(self, other: list[Diagnostic]) -> None:
        self.items.extend(other)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.items)

    def counts(self) -> dict[str, int]:
        out = {"error": 0, "warning": 0, "note": 0}
        for d in self.items:
            out[d.severity] += 1
        return out
