"""Diagnostic codes of world specs (PW4xx); each diagnostic names the file and line of the problem.

Each code carries the hint its diagnostics get where the reporting site has no more specific one.
"""

from __future__ import annotations

from phoneworld.ir.diagnostics import Code

YAML = Code("PW401", "fix the YAML at that line (a world spec is one YAML mapping: name, apps, "
            "...); see examples/world.yaml")
SCHEMA = Code("PW402", "see the fields in phoneworld/world/spec.py or examples/world.yaml")
APP_MISSING = Code("PW403", "give `dir:` a folder built by `phoneworld build`, or `traces:` a "
                   "trace folder (then run `phoneworld world build`)")
UNKNOWN_NAME = Code("PW404", "use a screen id of the app's app.json (`screens[].id`) and a widget "
                    "id (`wid`) of that screen")
DUPLICATE = Code("PW405", "list each app once, each in its own `dir:`")
