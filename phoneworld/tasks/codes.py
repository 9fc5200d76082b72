"""Diagnostic codes of task specs (PW3xx); each diagnostic names the file and line of the problem."""

from __future__ import annotations

YAML = "PW301"  # the file is no valid YAML (or cannot be read)
SCHEMA = "PW302"  # a field is missing, unknown or of the wrong shape
UNKNOWN_APP = "PW303"  # `app` is not the app the specs are checked against
UNKNOWN_NAME = "PW304"  # a state variable, collection, field or screen the app does not have
TYPE_MISMATCH = "PW305"  # a value of the wrong kind for what it is compared with
UNKNOWN_PARAM = "PW306"  # the instruction or the rule uses a parameter that is not declared
NEVER_HOLDS = "PW307"  # the rule can never hold in this app
DUPLICATE = "PW308"  # two task specs share an id
BAD_STATE = "PW309"  # the initial state does not fit the app's state schema
UNUSED_PARAM = "PW310"  # a parameter the instruction never shows (warning)
