"""Diagnostic codes of task specs (PW3xx); each diagnostic names the file and line of the problem.

Each code carries the hint its diagnostics get where the reporting site has no more specific one.
"""

from __future__ import annotations

from phoneworld.ir.diagnostics import Code

YAML = Code("PW301", "fix the YAML at that line (a task spec is one YAML mapping: id, app, "
            "instruction, rule, ...); see task_specs/ for examples")
SCHEMA = Code("PW302", "see the fields of a task spec in phoneworld/tasks/spec.py, or start from "
              "a spec under task_specs/")
UNKNOWN_APP = Code("PW303", "set `app:` to the package of the app the specs are checked against")
UNKNOWN_NAME = Code("PW304", "use a name of the app's state schema: APP_DIR/app.json lists its "
                    "state variables (`state`) and screens (`screens`)")
TYPE_MISMATCH = Code("PW305", "compare values of one kind: text with text, numbers with numbers, "
                     "flags with true/false, dates with YYYY-MM-DD dates")
UNKNOWN_PARAM = Code("PW306", "declare the parameter under `params:`, or fix its name")
NEVER_HOLDS = Code("PW307", "change the rule so some reachable state of the app satisfies it")
DUPLICATE = Code("PW308", "give every task spec its own id")
BAD_STATE = Code("PW309", "make the initial state fit the app's state schema (`state` in "
                 "APP_DIR/app.json)")
UNUSED_PARAM = Code("PW310", "show the parameter in the instruction as {name}, or remove it")

