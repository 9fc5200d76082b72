"""The ingest pass's diagnostic codes (PW1xx), in one table: code, severity, meaning, fix hint.

Every problem ingest finds is reported through `report` with one of these codes, so a code always
means the same thing and carries a default hint. Groups:

- PW100, PW101, PW108, PW109  the input tree and format detection
- PW102-PW107  uiautomator XML (shared by every format that reads `uiautomator dump` files)
- PW110-PW126  the native `phoneworld-trace/1` format (episode.json, steps, actions)
- PW127        an imported point clipped to the screen (DroidBot)
- PW128-PW139  DroidBot output folders
- PW140-PW142  episodes that cross apps (split per app)
- PW150-PW156  AutoDroid `utg.yaml`
- PW160-PW163  LlamaTouch traces
- PW170-PW172  any file of any format: unreadable, nested too deep, a number out of range
- PW190, PW191 apps with screens but no recorded action (plain dumps): nothing to compile

Errors are unrecoverable problems (the caller raises `InputError`); warnings are messy but real
data that ingest handled, and each says what it did; notes record a decision worth knowing.
"""

from __future__ import annotations

from dataclasses import dataclass

from phoneworld.ir.base import SourceRef
from phoneworld.ir.diagnostics import Diagnostics, Severity


@dataclass(frozen=True)
class Code:
    """One diagnostic code of the table."""

    id: str
    severity: Severity
    meaning: str
    hint: str


def _c(id_: str, severity: Severity, meaning: str, hint: str) -> Code:
    return Code(id_, severity, meaning, hint)


# ----------------------------------------------------------------------------- tree, detection
ROOT_MISSING = _c("PW100", "error", "the trace root is missing or not a folder",
                  "pass the folder that holds the traces (episodes may be nested at any depth)")
NO_EPISODES = _c("PW101", "error", "no episode of a known format was found under the root",
                 "an episode is a folder with episode.json (native), states/+events/ (DroidBot), "
                 "utg.yaml (AutoDroid), eventStructs.txt (LlamaTouch) or uiautomator *.xml dumps")
NOT_A_DUMP = _c("PW109", "note", "an .xml file that is not a uiautomator dump was skipped",
                "none needed; move unrelated files out of the trace folders to silence this")
AMBIGUOUS_FORMAT = _c("PW108", "warning", "a folder matches several formats; one was chosen",
                      "keep one trace format per folder, or pass the format explicitly")

# ----------------------------------------------------------------------------- uiautomator XML
XML_SYNTAX = _c("PW102", "error", "the XML file is not well-formed",
                "re-run `uiautomator dump`; the file may be truncated or hand-edited")
XML_STRUCTURE = _c("PW103", "error", "the XML has no <hierarchy> root with a <node> inside",
                   "a uiautomator dump is <hierarchy rotation=\"0\"><node .../></hierarchy>")
BAD_BOUNDS = _c("PW104", "error", "a bounds attribute is not \"[x1,y1][x2,y2]\"",
                "write bounds as uiautomator does, e.g. bounds=\"[0,0][1080,1920]\"")
NEGATIVE_BOUNDS = _c("PW105", "warning", "bounds with negative width or height were normalised",
                     "none needed: such views (x2<x1 or y2<y1) are off-screen; they were collapsed "
                     "to zero size at (x1, y1) so that nothing can hit them")
MANY_WINDOWS = _c("PW106", "warning", "the hierarchy has several top-level nodes",
                  "none needed: they were wrapped in one synthetic FrameLayout root")
BAD_ATTRIBUTE = _c("PW107", "warning", "an attribute value is not of the expected kind",
                   "booleans are \"true\"/\"false\" and index is an integer; the default was used")

# ----------------------------------------------------------------------------- native format
BAD_JSON = _c("PW110", "error", "the JSON file does not parse", "fix the JSON syntax at that line")
BAD_VERSION = _c("PW111", "error", "the trace format version is not supported",
                 "set \"format\": \"phoneworld-trace/1\" (the only supported version)")
SCHEMA = _c("PW112", "error", "a required field is missing or has the wrong type",
            "see DESIGN section 2 for the fields of episode.json")
UNKNOWN_FIELD = _c("PW113", "warning", "an unknown field was ignored",
                   "remove the field, or fix its name if it is a typo")
EMPTY_EPISODE = _c("PW114", "error", "the episode has no steps",
                   "record at least one step: {\"screen\": \"0000.xml\", \"action\": null}")
SCREEN_MISSING = _c("PW115", "error", "the screen file of a step is missing",
                    "put the uiautomator XML next to episode.json or fix the \"screen\" path")
SCREENSHOT_MISSING = _c("PW116", "error", "the screenshot file of a step is missing",
                        "add the image next to episode.json, fix the path, or drop \"screenshot\"")
OTHER_PACKAGE = _c("PW117", "warning", "a step's screen belongs to another app than the episode",
                   "none needed if the episode really left the app; the step was kept")
UNKNOWN_ACTION = _c("PW120", "error", "the action type is unknown",
                    "use one of: click, double_click, long_press, type, scroll, drag, back, home, "
                    "menu, enter, open_app, close_app, wait, done")
ACTION_MISSING_FIELD = _c("PW121", "error", "an action lacks a required argument",
                          "click/double_click/long_press need x, y; type needs text; drag needs "
                          "x1, y1, x2, y2; scroll needs direction; open_app needs package")
ACTION_BAD_VALUE = _c("PW122", "error", "an action argument has an invalid value",
                      "scroll direction is up/down/left/right; coordinates are numbers; "
                      "text and package are strings")
POINT_OFF_SCREEN = _c("PW123", "error", "an action's point lies outside the screen",
                      "coordinates are device pixels within 0 <= x < width, 0 <= y < height "
                      "(or [0,1000] with \"coords\": \"normalized\")")
NORMALIZED_RANGE = _c("PW124", "error", "a normalized coordinate is outside [0, 1000]",
                      "with \"coords\": \"normalized\" every coordinate is in [0, 1000]")
LAST_ACTION_SET = _c("PW125", "error", "the last step has an action",
                     "the last step only shows the final screen: set its action to null, or add "
                     "the screen that the action led to as a new last step")
ACTION_MISSING = _c("PW126", "error", "a step before the last has no action",
                    "give every step except the last the action taken on its screen "
                    "(use {\"type\": \"wait\"} when nothing was done)")
POINT_CLIPPED = _c("PW127", "warning", "an imported point was off the screen and was clipped",
                   "none needed; the point was moved to the nearest on-screen pixel")

# ----------------------------------------------------------------------------- DroidBot
HALF_DROIDBOT = _c("PW129", "warning", "a folder holds part of a DroidBot output and was not read",
                   "copy the whole output folder: DroidBot writes each screen to states/ and each "
                   "event to events/, and both are needed (utg.js keeps neither in full)")
TEXT_QUOTED = _c("PW128", "note", "the field shows typed text in the quotes of DroidBot's command",
                 "none needed; the type action types what the field shows, quotes included")
EMPTY_FILE = _c("PW130", "warning", "an empty file was skipped",
                "none needed; DroidBot sometimes leaves an empty event file when it is stopped")
UNREADABLE_RECORD = _c("PW131", "error", "a state or event file does not parse or lacks fields",
                       "the file is damaged; re-record it or delete it (the chain is split there)")
STATE_MISSING = _c("PW132", "warning", "an event refers to a state file that is not there",
                   "none needed; the episode was ended or started at the nearest known state")
CHAIN_BREAK = _c("PW133", "warning", "an event does not start where the previous one stopped",
                 "none needed; a new episode was started at that event")
DEGENERATE_TARGET = _c("PW134", "warning", "an event's target view had degenerate bounds",
                       "none needed; the click is at the target's centre clipped to the screen")
SCREENSHOT_SCALE = _c("PW135", "warning", "screenshots are not at the scale of the view bounds",
                      "multiply view bounds by the given factor before drawing them on the image")
UNSUPPORTED_EVENT = _c("PW136", "warning", "an event type has no equivalent action",
                       "none needed; the episode was split there")
FIELD_NOT_FOCUSED = _c("PW137", "warning", "text was set on a field that was not focused",
                       "none needed; a click on the field was inserted before the type action")
INVISIBLE_DROPPED = _c("PW138", "note", "invisible views were left out of the view trees",
                       "none needed; uiautomator dumps do not contain invisible views either")
EMPTY_STATE = _c("PW139", "warning", "a state file has an empty \"views\" list and was dropped",
                 "none needed: DroidBot writes a state with no views when it cannot read the "
                 "screen (often on the launcher); only that state and its events are lost")

# ----------------------------------------------------------------------------- cross-app
SPLIT_BY_APP = _c("PW140", "note", "an episode crossing apps was split into one part per app",
                  "none needed; the parts carry a Handoff with the origin episode and the apps")
SHORT_LAUNCHER_PART = _c("PW141", "note", "a launcher part shorter than 2 steps was dropped",
                         "none needed; a single launcher screen carries no transition")
LEAVING_ACTION = _c("PW142", "note", "the action that left an app was dropped from its part",
                    "none needed; the next part starts on the screen that action led to")

# ----------------------------------------------------------------------------- AutoDroid
BAD_YAML = _c("PW150", "error", "the YAML file does not parse or lacks `records`",
              "fix the YAML syntax; an AutoDroid UTG is {records: [{State, Choice, Input, ...}]}")
BAD_RECORD = _c("PW151", "error", "a record lacks a field or has a wrong value",
                "each record needs State (HTML), Choice (element id or -1) and Input")
SYNTH_BOUNDS = _c("PW152", "warning", "the format has no bounds; a layout was synthesised",
                  "none needed; elements are stacked in rows on a 1080x1920 screen")
UNLINKED_HASHES = _c("PW153", "warning", "new_state_str never matches a state_str of the file",
                     "none needed; records were chained in file order (the two hashes differ)")
NO_NEXT_STATE = _c("PW154", "warning", "a record's action leads to a state that was not recorded",
                   "none needed; the episode ends at the last recorded screen")
BAD_CHOICE = _c("PW155", "warning", "a record's Choice names no element of its State",
                "none needed; the episode ends at that record")
APP_ID = _c("PW156", "note", "the app package was derived, not read from the file",
            "put the real package in a package.txt beside utg.yaml to override it")

# ----------------------------------------------------------------------------- LlamaTouch
BAD_EVENT_LINE = _c("PW160", "error", "a line of eventStructs.txt does not parse",
                    "lines look like `[Click] Screen Resolution (w, h), Click Position (x, y)`, "
                    "`[Swipe] ...`, `[Type] text`, `[Back]`, `[Home]`, `[Enter]`")
FRAME_RESCALED = _c("PW161", "warning", "action coordinates were rescaled to the device frame",
                    "none needed; the recorder's click frame differs from the screen's pixels")
COUNT_MISMATCH = _c("PW162", "warning", "the number of actions does not fit the number of screens",
                    "none needed; surplus actions or screens were dropped")
SCREEN_GAP = _c("PW163", "error", "the numbered screens have a gap or an unreadable file",
                "screens are 0.xml, 1.xml, ... without gaps")

# ----------------------------------------------------------------------------- any format
UNREADABLE_FILE = _c("PW170", "error", "a file cannot be read: not a regular file, a symlink "
                     "out of the trace folder or a loop, too large, a bad name or not UTF-8",
                     "replace it by a regular UTF-8 file inside the trace folder")
TOO_DEEP = _c("PW171", "error", "a document is nested deeper than phoneworld reads",
              "real dumps, states and records nest far less: the file is damaged or generated; "
              "re-record it")
OUT_OF_RANGE = _c("PW172", "error", "a number is not finite or outside the range phoneworld "
                  "accepts", "coordinates and sizes are device pixels (at most 1,000,000 in "
                  "absolute value), ids and steps are small integers; NaN and Infinity are "
                  "not numbers")


# ----------------------------------------------------------------------------- recorded actions
RECORD_HINT = ("a mock app is compiled from what actions did to screens, and these files hold "
               "screens only: record sessions on the phone with `phoneworld record --serial S "
               "--app PKG --policy stdin` (native traces), or write each session as an "
               "episode.json (`phoneworld-trace/1`: its screens and the action taken on each; "
               "see the README's \"Input formats\")")
APP_WITHOUT_ACTIONS = _c("PW190", "warning", "an app has screens but no recorded action; it is "
                         "not built (the other apps are)", RECORD_HINT)
NO_ACTIONS = _c("PW191", "error", "no app has a recorded action (plain uiautomator dumps, say): "
                "there is nothing to compile", RECORD_HINT)

ALL_CODES: tuple[Code, ...] = tuple(v for v in globals().values() if isinstance(v, Code))


def report(
    diagnostics: Diagnostics, code: Code, message: str, source: SourceRef, hint: str | None = None
) -> None:
    """Add one diagnostic with the code's severity and, unless a specific one is given, its hint."""
    diagnostics.add(code.severity, code.id, message, source, hint or code.hint)


def table() -> str:
    """The code table as Markdown, for docs and `phoneworld codes`."""
    rows = ["| code | severity | meaning | hint |", "|---|---|---|---|"]
    for code in sorted(ALL_CODES, key=lambda c: c.id):
        rows.append(f"| {code.id} | {code.severity} | {code.meaning} | {code.hint} |")
    return "\n".join(rows)
