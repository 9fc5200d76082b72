"""The exception tree. Everything phoneworld raises on purpose derives from PhoneworldError."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from phoneworld.ir.diagnostics import Diagnostic


class PhoneworldError(Exception):
    """Root of all phoneworld errors."""

    exit_code = 1
    diagnostics: list[Diagnostic] = []  # the problems found, rendered before the message


class InputError(PhoneworldError):
    """The user's input (traces, specs, arguments) is wrong; carries every diagnostic found."""

    exit_code = 1

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.diagnostics = list(diagnostics or [])


class UsageError(PhoneworldError):
    """A command was called the wrong way."""

    exit_code = 2


class OutputError(UsageError):
    """An output path breaks the output folder contract (`phoneworld.outdir`): refused, exit 2."""

    def __init__(self, message: str, diagnostics: list[Diagnostic] | None = None) -> None:
        super().__init__(message)
        self.diagnostics = list(diagnostics or [])


class ToolchainError(PhoneworldError):
    """An external tool is missing or failed."""

    exit_code = 3


class EnvError(PhoneworldError):
    """The runtime was driven the wrong way (bad action, unknown element, step after the end)."""

    exit_code = 1


class AppSpecError(PhoneworldError):
    """An app spec file is missing, malformed or of another format version."""

    exit_code = 1


# ----------------------------------------------------------------------------- devices (adb)
# Raised by `phoneworld.devices`; every adb or socket failure is wrapped once, at the adb boundary
# (`phoneworld.devices.link`), with the device serial, the command and the tail of its output.


class DeviceError(EnvError):
    """A device (emulator, phone or virtual device) failed to do what was asked."""

    def __init__(self, message: str, serial: str | None = None, command: str | None = None,
                 output: str | None = None) -> None:
        parts = [message]
        if serial:
            parts.append(f"device {serial}")
        if command:
            parts.append(f"command {command[:200]!r}")
        if output:
            parts.append(f"output {output[-300:]!r}")
        super().__init__("; ".join(parts))
        self.serial, self.command, self.output = serial, command, output


class DeviceLostError(DeviceError):
    """The device vanished: disconnected, offline, or its adb transport closed."""


class DeviceTimeoutError(DeviceError):
    """A command got no answer within its timeout (the device may be hung)."""


class DumpError(DeviceError):
    """`uiautomator dump` failed or returned something that is not a view hierarchy, after retries."""


class AppCrashedError(DeviceError):
    """The app under test died (its process is gone or an error dialog is in front)."""


class InstallError(DeviceError):
    """The APK could not be installed, or the app is not on the device."""


class ActionBlocked(EnvError):
    """A guard refused an action before it reached the device; the episode ends. `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
