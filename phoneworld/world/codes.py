"""Diagnostic codes of world specs (PW4xx); each diagnostic names the file and line of the problem."""

from __future__ import annotations

YAML = "PW401"  # the file is no valid YAML (or cannot be read)
SCHEMA = "PW402"  # a field is missing, unknown or of the wrong shape
APP_MISSING = "PW403"  # an app folder or trace folder does not exist, or holds no app
UNKNOWN_NAME = "PW404"  # a wiring names a screen, widget or app the world does not have
DUPLICATE = "PW405"  # two apps of the world share a package
