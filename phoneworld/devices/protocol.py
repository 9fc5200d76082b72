"""The shell commands phoneworld sends to a device, in one place (DESIGN section 4).

Both sides use these: `AdbBackend` builds its command lines here, and the virtual device
(`phoneworld.devices.virtual`) parses the same commands. The generated APK's debug hooks are

- reset or seed the state: `am broadcast -a <pkg>.phoneworld.RESET -p <pkg> --es state '<json>'`
  (`-p` makes the broadcast explicit, which Android 8+ needs to reach a manifest receiver;
  `--include-stopped-packages` delivers it after `am force-stop`); the receiver answers
  `result=-1` (RESULT_OK), or `result=0` with the error as its data;
- read the state: `run-as <pkg> cat files/state.json`, and the screen the app's state machine is
  on (the simulator's screen id, `@launcher` once left) and its back stack:
  `run-as <pkg> cat files/screen.json` (`{"screen": ..., "stack": [...]}`);
- the app has one activity, `<pkg>/.MainActivity`, its launcher activity;
- the APK (offline route) carries the app spec as the asset `assets/phoneworld/app.json`: inert on
  a phone, it is what a virtual device serves once `pm install` got the APK.

Everything else is stock Android: `input`, `am`, `pm`, `uiautomator dump`, `screencap`, `wm size`,
`dumpsys window`, `pidof`.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

RESET_SUFFIX = ".phoneworld.RESET"
STATE_EXTRA = "state"
STATE_FILE = "files/state.json"
SCREEN_FILE = "files/screen.json"
SPEC_ASSET = "assets/phoneworld/app.json"
APP_ACTIVITY = ".MainActivity"
RESET_OK = "result=-1"
DUMP_PATH = "/sdcard/window_dump.xml"
LAUNCHER_CATEGORY = "android.intent.category.LAUNCHER"

KEYCODES: dict[str, int] = {
    "HOME": 3, "BACK": 4, "CALL": 5, "ENDCALL": 6, "DPAD_UP": 19, "DPAD_DOWN": 20, "POWER": 26,
    "TAB": 61, "SPACE": 62, "ENTER": 66, "DEL": 67, "MENU": 82, "SEARCH": 84, "FORWARD_DEL": 112,
    "MOVE_HOME": 122, "MOVE_END": 123, "APP_SWITCH": 187, "WAKEUP": 224,
}
ACTION_KEYS = {"back": "BACK", "home": "HOME", "enter": "ENTER", "menu": "MENU"}

_FOCUS_RE = re.compile(r"mCurrentFocus=Window\{[^}]*?\s(?P<what>[^\s}]+(?: [^\s}]+)*)\}")
_COMPONENT_RE = re.compile(r"^(?P<pkg>[\w.]+)/(?P<act>[\w.$]+)$")


def reset_action(package: str) -> str:
    return package + RESET_SUFFIX


def reset_command(package: str, state: dict[str, Any]) -> str:
    """The broadcast that seeds `state` into the app (JSON is ASCII-escaped: safe for `am`)."""
    payload = json.dumps(state, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
    return (f"am broadcast -a {reset_action(package)} -p {package} --include-stopped-packages "
            f"--es {STATE_EXTRA} {shlex.quote(payload)}")


def state_command(package: str) -> str:
    return f"run-as {package} cat {STATE_FILE}"


def screen_command(package: str) -> str:
    return f"run-as {package} cat {SCREEN_FILE}"


def app_component(package: str) -> str:
    """The launch activity of a generated APK."""
    return f"{package}/{APP_ACTIVITY}"


def start_command(component: str | None, package: str, restart: bool = False) -> str:
    """Open the app at its launch activity (`-W` waits for it; `restart`: stop it first, `-S`);
    without a component, `monkey` finds the launcher activity."""
    if component:
        return f"am start -W {'-S ' if restart else ''}-n {component}"
    return f"monkey -p {package} -c {LAUNCHER_CATEGORY} 1"


def keycode(name_or_code: str) -> int | None:
    """`KEYCODE_BACK`, `BACK` or `4` as a number (None when unknown)."""
    s = name_or_code.upper().removeprefix("KEYCODE_")
    if s.isdigit():
        return int(s)
    return KEYCODES.get(s)


def input_text_arg(text: str) -> str:
    """`text` for `input text`: spaces as `%s` (as `input` wants), quoted for the device shell."""
    return shlex.quote(text.replace(" ", "%s"))


def short_component(component: str) -> str:
    """`pkg/pkg.ui.Main` as `pkg/.ui.Main`, the form traces and app specs use."""
    m = _COMPONENT_RE.match(component.strip())
    if m is None:
        return component.strip()
    pkg, act = m.group("pkg"), m.group("act")
    if act.startswith(pkg + "."):
        act = act[len(pkg):]
    return f"{pkg}/{act}"


def parse_focus(dumpsys: str) -> str | None:
    """What `dumpsys window` says has the focus: a component (`pkg/.Act`), a window title such as
    `Application Error: pkg`, or None when nothing is focused."""
    m = _FOCUS_RE.search(dumpsys)
    if m is None:
        return None
    what = m.group("what")
    parts = what.split(" ", 1)  # "u0 pkg/Act" on most versions
    if len(parts) == 2 and re.fullmatch(r"u\d+", parts[0]):
        what = parts[1]
    return short_component(what) if "/" in what and " " not in what else what


def crash_window(focus: str | None, package: str) -> str | None:
    """The error dialog in front when the app crashed or hangs (`Application Error: pkg`,
    `Application Not Responding: pkg`), else None."""
    if focus and package in focus and ("Application Error" in focus
                                       or "Not Responding" in focus):
        return focus
    return None
