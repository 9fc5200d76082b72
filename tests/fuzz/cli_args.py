"""Random command lines of the cheap, local commands (no device, no toolchain, no network):
right and wrong commands, options, paths and values. Step and episode counts stay small, since
a huge count is a legitimate request for a long run, not bad input."""

from __future__ import annotations

import random
from pathlib import Path

from tests.fuzz.seeds import REPO

NUMBERS = ["-1", "0", "1", "3", "x", "nan", "inf", "1e400", "-0", "", "9" * 30, "0x10", "1.5"]
SMALL = ["-1", "0", "1", "2", "x", "nan", "", "1.5"]
FRACTIONS = ["0", "0.2", "1", "1.5", "-0.1", "nan", "inf", "x", ""]
FORMATS = ["native", "droidbot", "autodroid", "llamatouch", "uiautomator", "droidbott", "", "x"]
POLICIES = ["random", "oracle", "none", "", "Random"]
JUNK = ["--nope", "-x", "--", "--help=1", "\u00e9", "-" * 3, "--out"]


def _paths(apps: Path) -> list[str]:
    notes = apps / "com.example.notes"
    return [str(notes), str(apps), "{dir}/nothing", "/dev/null", "/proc/self", "",
            str(notes / "app.json"), str(REPO / "examples" / "world.yaml"), "{dir}", "\u00b2"]


def command_line(rng: random.Random, apps: Path) -> list[str]:
    notes = str(apps / "com.example.notes")
    world = str(apps / "world.yaml")
    path = rng.choice(_paths(apps))
    pick = rng.choice
    options = {
        "run": lambda: ["run", pick([notes, path]), "--steps", pick(SMALL), "--seed",
                        pick(NUMBERS), "--policy", pick(POLICIES)]
        + pick([[], ["--json"], ["--task", pick(["create_note", "nope", ""])]]),
        "check": lambda: ["check", pick([path, "{dir}/nothing"])]
        + pick([[], ["--from", pick(FORMATS)]]),
        "build": lambda: ["build", pick(["{dir}/nothing", path]), "--out", "{out}",
                          "--heldout", pick(FRACTIONS), "--from", pick(FORMATS)],
        "tasks list": lambda: ["tasks", "list", pick([notes, path])],
        "tasks show": lambda: ["tasks", "show", pick([notes, path]),
                               pick(["create_note", "delete_note", "nope", "", "../x"]),
                               "--seed", pick(NUMBERS)],
        "tasks eval": lambda: ["tasks", "eval", pick([notes, path]), "--episodes", pick(SMALL),
                               "--steps", pick(SMALL), "--policy", pick(POLICIES),
                               "--task", pick(["create_note", "nope"])],
        "world check": lambda: ["world", "check", pick([world, path])],
        "world tasks": lambda: ["world", "tasks", pick([world, path])],
        "world run": lambda: ["world", "run", pick([world, path]), "--policy",
                              pick(["random", "oracle", "x"]), "--steps", pick(SMALL),
                              "--seed", pick(NUMBERS)],
        "junk": lambda: [pick(["", "bulid", "tasks", "world", "--version"]), pick(JUNK)],
    }
    args = options[pick(sorted(options))]()
    if rng.random() < 0.2:
        args.insert(rng.randrange(len(args) + 1), pick(JUNK))
    return args
