"""The exception tree. Everything phoneworld raises on purpose derives from PhoneworldError."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from phoneworld.ir.diagnostics import Diagnostic


class PhoneworldError(Exception):
    """Root of all phoneworld errors."""

    exit_code = 1


class InputError(PhoneworldError):
    """The user's input (traces, specs, arguments) is wrong; carries every diagnostic found."""

    exit_code = 1

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.diagnostics = list(diagnostics or [])


class UsageError(PhoneworldError):
    """A command was called the wrong way."""

    exit_code = 2


class ToolchainError(PhoneworldError):
    """An external tool is missing or failed."""

    exit_code = 3


class EnvError(PhoneworldError):
    """The runtime was driven the wrong way (bad action, unknown element, step after the end)."""

    exit_code = 1


class AppSpecError(PhoneworldError):
    """An app spec file is missing, malformed or of another format version."""

    exit_code = 1
