"""The world state read from a device: the world's APKs (`phoneworld world apk`) on one phone,
emulator or virtual device, read over adb with commands stock Android has.

- each app's state: `run-as <pkg> cat files/state.json` (what the APK writes after every action,
  including what arrived by a share, a paste or a picked file), as `"<pkg>:<variable>"`;
- `@clipboard`: Android 10+ lets only the focused app (or the IME) read the clipboard, and no
  shell command reads it. Each world APK writes `files/world.json` ({"clipboard", "package",
  "at"}) whenever it gains the window focus and after a Copy; the newest of the apps' files is
  the clipboard. A copy made outside the world's apps (another app, the notification shade) shows
  once one of them is in front again;
- `@files`: the shared files area is `Download/phoneworld/<package>/<name>.txt` on shared storage
  (the APKs' "Files" share target writes there through MediaStore.Downloads, which needs no
  permission on Android 10+): `ls -tr` and `cat` of each app's folder, in world app order (the
  order across apps is not recovered; rules over files use exists/count); files of no world
  app (the simulator's app "") are in the folder `_`;
- `@notifications`: `dumpsys notification --noredact`: the records of the world's packages (and
  those the reset posted as `com.android.shell` with the tag `phoneworld:<package>`), their
  `android.text`, newest first.

`DeviceWorld(shell, world)` takes any `shell(command) -> output` (a `DeviceLink.shell`, or a test
double); `reset` seeds every app by its debug broadcast (the clipboard with the first one's
`--es clipboard`), the shared files by writing them, and notifications with `cmd notification
post`. `verify` runs a world verifier on the state read.

- `@screen`: the window in front (`dumpsys window`): a world app's screen as its APK says it
  (`files/screen.json`), as `<package>:<screen>`; `@home` for the launcher (`cmd package
  resolve-activity` of the HOME intent); `@share`, `@picker`, `@shade` or `@recents` for the
  system's share sheet, document picker, notification shade and recents; else what has the focus
  (another app's component). A text selection's floating menu is drawn in the app's window, so
  where the simulator's world says `@menu_copy` the device says the app's screen.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Mapping
from typing import Any

from phoneworld.devices.protocol import parse_focus, reset_command, screen_command, state_command
from phoneworld.errors import DeviceError
from phoneworld.runtime.validate import SCREEN
from phoneworld.world.system import HOME, PICKER, RECENTS, SHADE, SHARE

Shell = Callable[[str], str]
SHARED_DIR = "/sdcard/Download/phoneworld"
WORLD_FILE = "files/world.json"
SHELL_PACKAGE = "com.android.shell"
TAG_PREFIX = "phoneworld:"
NO_APP = "_"  # the folder of files no world app saved (the simulator's app label "")
_RECORD = re.compile(r"NotificationRecord\(")
_PKG = re.compile(r"\bpkg=(\S+)")
_TAG = re.compile(r"\btag=(\S+)")
_TEXT = re.compile(r"^\s*android\.text=\w+ \((.*)\)\s*$", re.M)
FOCUS_COMMAND = "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'"
HOME_COMMAND = ("cmd package resolve-activity --brief -a android.intent.action.MAIN "
                "-c android.intent.category.HOME")


def system_window(focus: str) -> str | None:
    """The world's id of a system window in front (its focus as `parse_focus` gives it): the
    share sheet, the document picker, the notification shade or recents; None for others."""
    pkg, _, cls = focus.partition("/")
    if cls.endswith(("ChooserActivity", "ResolverActivity")):
        return SHARE
    if pkg.endswith("documentsui"):
        return PICKER
    if focus in ("NotificationShade", "StatusBar") or focus.startswith("NotificationShade"):
        return SHADE
    if "Recents" in cls or pkg.endswith("systemui") and "recents" in cls.lower():
        return RECENTS
    return None


def parse_notifications(dump: str, packages: Mapping[str, str]) -> list[dict[str, str]]:
    """The world's notifications in a `dumpsys notification --noredact` (newest first): records
    {app (label), package, text}. `packages`: package -> label of the world's apps."""
    out: list[dict[str, str]] = []
    blocks = _RECORD.split(dump)[1:]
    for block in blocks:
        head = block.splitlines()[0] if block else ""
        pkg_m, tag_m = _PKG.search(head), _TAG.search(head)
        pkg = pkg_m.group(1) if pkg_m else ""
        tag = tag_m.group(1) if tag_m else ""
        if pkg == SHELL_PACKAGE and tag.startswith(TAG_PREFIX):
            pkg = tag[len(TAG_PREFIX):]
        if pkg not in packages:
            continue
        text = _TEXT.search(block)
        if text is None:
            continue
        out.append({"app": packages[pkg], "package": pkg, "text": text.group(1)})
    out.reverse()  # dumpsys lists the oldest first
    return out


def _json(out: str, what: str, cmd: str) -> Any:
    try:
        return json.loads(out)
    except ValueError as exc:
        raise DeviceError(f"cannot read {what}", None, cmd, out) from exc


class DeviceWorld:
    """A world's APKs on one device, its state read over adb (see the module docstring)."""

    def __init__(self, shell: Shell, packages: Mapping[str, str],
                 initial_state: Mapping[str, Any] | None = None) -> None:
        self.shell = shell
        self.packages = dict(packages)  # package -> label, in world order
        self.initial_state = dict(initial_state or {})
        self._home: str | None = None  # the launcher's package, once asked

    @classmethod
    def of(cls, shell: Shell, world: Any) -> DeviceWorld:
        """For a `phoneworld.world.device.World` (its apps, labels and initial state)."""
        world.reset()
        return cls(shell, {p: world.labels[p] for p in world.sims}, world.state)

    # ------------------------------------------------------------------ read

    def app_state(self, pkg: str) -> dict[str, Any]:
        cmd = state_command(pkg)
        state = _json(self.shell(cmd), f"the state of {pkg}", cmd)
        if not isinstance(state, dict):
            raise DeviceError(f"the state of {pkg} is not a JSON object", None, cmd, str(state))
        return state

    def clipboard(self) -> str:
        best: tuple[int, str] | None = None
        for pkg in self.packages:
            out = self.shell(f"run-as {pkg} cat {WORLD_FILE}")
            try:
                doc = json.loads(out)
            except ValueError:
                continue  # not yet in front since its install or reset
            if isinstance(doc, dict) and isinstance(doc.get("at"), int):
                if best is None or doc["at"] > best[0]:
                    best = (doc["at"], str(doc.get("clipboard", "")))
        return best[1] if best is not None else ""

    def files(self) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []
        for pkg, label in [*self.packages.items(), (NO_APP, "")]:
            folder = f"{SHARED_DIR}/{pkg}"
            listing = self.shell(f"ls -tr {shlex.quote(folder)} 2>/dev/null")
            for name in listing.splitlines():
                name = name.strip()
                if not name.endswith(".txt"):
                    continue
                text = self.shell(f"cat {shlex.quote(folder + '/' + name)}")
                out.append({"name": name[:-4], "text": text, "app": label})
        return out

    def notifications(self) -> list[dict[str, str]]:
        return parse_notifications(self.shell("dumpsys notification --noredact"), self.packages)

    def home(self) -> str:
        """The launcher's package (what resolves the HOME intent)."""
        if self._home is None:
            out = self.shell(HOME_COMMAND)
            found = [ln.strip() for ln in out.splitlines() if "/" in ln and " " not in ln.strip()]
            self._home = found[-1].split("/", 1)[0] if found else ""
        return self._home

    def screen(self) -> str:
        """The screen in front as the simulator's world names it (see the module docstring)."""
        focus = parse_focus(self.shell(FOCUS_COMMAND)) or ""
        pkg = focus.split("/", 1)[0] if "/" in focus else ""
        if pkg in self.packages:
            cmd = screen_command(pkg)
            doc = _json(self.shell(cmd), f"the screen of {pkg}", cmd)
            if not isinstance(doc, dict) or not isinstance(doc.get("screen"), str):
                raise DeviceError(f"{pkg} does not say its screen", None, cmd, str(doc))
            return f"{pkg}:{doc['screen']}"
        if pkg and pkg == self.home():
            return HOME
        return system_window(focus) or focus

    def read_state(self) -> dict[str, Any]:
        """The world state as the simulator's `World.state` has it."""
        out: dict[str, Any] = {}
        for pkg in self.packages:
            out.update({f"{pkg}:{k}": v for k, v in self.app_state(pkg).items()})
        out["@clipboard"] = self.clipboard()
        out["@files"] = self.files()
        out["@notifications"] = self.notifications()
        out[SCREEN] = self.screen()
        return out

    def verify(self, verifier: Callable[..., Any], params: Mapping[str, Any],
               answer: Any = None) -> Any:
        """A world verifier (`verify(state, params, answer)`) on the state read from the device."""
        return verifier(self.read_state(), params, answer)

    # ------------------------------------------------------------------ reset

    def reset(self, state: Mapping[str, Any] | None = None) -> None:
        """Seed every app (its state, partial states over the initial one), the clipboard, the
        shared files and the notifications."""
        full = {**self.initial_state, **(state or {})}
        for i, pkg in enumerate(self.packages):
            app = {k.split(":", 1)[1]: v for k, v in full.items() if k.startswith(pkg + ":")}
            cmd = reset_command(pkg, app)
            if i == 0:
                cmd += " --es clipboard " + shlex.quote(str(full.get("@clipboard", "")))
            self.shell(f"am force-stop {pkg}")
            out = self.shell(cmd)
            if "result=-1" not in out:
                raise DeviceError(f"{pkg} did not take the reset broadcast", None, cmd, out)
        self.shell(f"rm -rf {SHARED_DIR}")
        labels = {v: k for k, v in self.packages.items()}
        for f in full.get("@files") or []:
            pkg = labels.get(f.get("app", ""), NO_APP)
            folder = f"{SHARED_DIR}/{pkg}"
            path = shlex.quote(f"{folder}/{f['name']}.txt")
            self.shell(f"mkdir -p {shlex.quote(folder)} && echo -n {shlex.quote(f.get('text', ''))}"
                       f" > {path}")
        for n in reversed(full.get("@notifications") or []):
            pkg = n.get("package") or labels.get(n.get("app", ""), "")
            self.shell(f"cmd notification post -t {shlex.quote(self.packages.get(pkg, pkg))} "
                       f"{shlex.quote(TAG_PREFIX + pkg)} {shlex.quote(n['text'])}")
