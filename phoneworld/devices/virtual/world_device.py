"""A virtual device serving a whole world (`phoneworld.world.device.World`): what the world's
APKs on a phone show to the adb commands `phoneworld.devices.world_backend` reads.

- `run-as <pkg> cat files/state.json`: that app's state; `run-as <pkg> cat files/world.json`:
  the clipboard as the app last saw it (written, as the APK does, whenever the app is in front
  after an action; absent before the app was ever in front);
- `ls -tr /sdcard/Download/phoneworld/<pkg>` and `cat` of its files: the world's shared files
  of that app (`<name>.txt`, the text);
- `dumpsys notification --noredact`: the world's notifications in Android 10's format, oldest
  first, as `NotificationRecord(... pkg=<pkg> ... tag=null ...)` with `android.title` and
  `android.text` extras;
- `run-as <pkg> cat files/screen.json`: that app's screen and back stack; the window focus
  (`dumpsys window`) is the world's foreground: an app's activity, the launcher, or the system
  window of an overlay (the share sheet's ChooserActivity, the document picker, the notification
  shade, the launcher's recents; a text selection menu is in the app's window).

Every other line goes to the single-app virtual device of the world's first app (getprop, echo,
...). Actions are applied in-process with `step` (the world's own actions); this device is for
reading, which is what the device-side world backend does over adb.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from phoneworld.devices.protocol import SCREEN_FILE
from phoneworld.devices.virtual.device import (
    LAUNCHER_COMPONENT, ShellResult, VirtualDevice, component, screen_doc,
)
from phoneworld.devices.world_backend import NO_APP, SHARED_DIR, WORLD_FILE
from phoneworld.runtime.compiled import LAUNCHER_PACKAGE
from phoneworld.world import system as sy

_FILE = re.compile(re.escape(SHARED_DIR) + r"/([^/]+)/(.+)\.txt")
# the window Android focuses for each overlay of the world (`world_backend.system_window` reads
# them back)
_SYSTEM_WINDOWS = {
    sy.SHARE: "android/com.android.internal.app.ChooserActivity",
    sy.PICKER: "com.android.documentsui/com.android.documentsui.picker.PickActivity",
    sy.SHADE: "NotificationShade",
    sy.RECENTS: f"{LAUNCHER_PACKAGE}/com.android.quickstep.RecentsActivity",
}


class WorldVirtualDevice(VirtualDevice):
    """One virtual phone with every app of `world` installed (see the module docstring)."""

    def __init__(self, world: Any) -> None:
        self.world = world
        first = next(iter(world.sims.values()))
        super().__init__(first.spec)
        self.exposed: dict[str, tuple[int, str]] = {}  # package -> (at, clipboard)
        self._clock = 1_700_000_000_000
        self.reset_world(None)

    def reset_world(self, state: dict[str, Any] | None) -> None:
        """The world reset as `DeviceWorld.reset` does it: the apps' reset broadcasts, the first
        of which seeds the clipboard (and writes it to its `files/world.json`)."""
        with self.lock:
            self.world.reset(state)
            self._clock += 1
            self.exposed = {next(iter(self.world.sims)): (self._clock, self.world.services.clipboard)}

    def step(self, action: Any) -> Any:
        with self.lock:
            r = self.world.step(action)
            self.expose()
            return r

    def expose(self) -> None:
        """The app in front writes what the clipboard holds (as the APK on a focus change)."""
        w = self.world
        if w.overlay is None and w.foreground in w.sims:
            self._clock += 1
            self.exposed[w.foreground] = (self._clock, w.services.clipboard)

    def fast_shell(self, line: str) -> ShellResult | None:
        """The world's own lines (above), then the fast path of the single-app device; every
        other line runs in the device's real shell."""
        with self.lock:
            try:
                words = shlex.split(line)
            except ValueError:
                words = []
            got = self._world_command(words)
        return got if got is not None else super().fast_shell(line)

    def _world_command(self, words: list[str]) -> ShellResult | None:
        w = self.world
        if words[:1] == ["run-as"] and len(words) == 4 and words[2] == "cat" and words[1] in w.sims:
            pkg, path = words[1], words[3]
            if path == "files/state.json":
                return ShellResult(json.dumps(w.sims[pkg].state, ensure_ascii=False).encode() + b"\n")
            if path == SCREEN_FILE:
                return ShellResult(json.dumps(screen_doc(w.sims[pkg])).encode() + b"\n")
            if path == WORLD_FILE and pkg in self.exposed:
                at, clip = self.exposed[pkg]
                doc = {"clipboard": clip, "package": pkg, "at": at}
                return ShellResult(json.dumps(doc, ensure_ascii=False).encode())
            return ShellResult(f"cat: {path}: No such file or directory\n".encode(), 1)
        if words[:2] == ["ls", "-tr"] and len(words) >= 3 and words[2].startswith(SHARED_DIR + "/"):
            pkg = words[2][len(SHARED_DIR) + 1:]
            label = "" if pkg == NO_APP else w.labels.get(pkg)
            names = [f"{n}.txt" for n, _, app in w.services.files if label is not None and app == label]
            if not names:
                return ShellResult(b"", 1)
            return ShellResult("".join(f"{n}\n" for n in names).encode())
        if words[:1] == ["cat"] and len(words) == 2:
            m = _FILE.fullmatch(words[1])
            if m is not None:
                label = "" if m.group(1) == NO_APP else w.labels.get(m.group(1))
                text = next((t for n, t, app in w.services.files
                             if n == m.group(2) and app == label), None)
                if text is not None:
                    return ShellResult(text.encode())
                return ShellResult(f"cat: {words[1]}: No such file or directory\n".encode(), 1)
        if words[:2] == ["dumpsys", "notification"]:
            return ShellResult(self._notification_dump().encode())
        return None

    def focus(self) -> str:
        """What has the window focus: the world's foreground (see the module docstring)."""
        w = self.world
        shown = w.overlay.screen if w.overlay is not None else None
        if shown in _SYSTEM_WINDOWS:
            return _SYSTEM_WINDOWS[shown]
        if w.foreground == sy.HOME:
            return LAUNCHER_COMPONENT
        sim = w.sims[w.foreground]
        screen = sim.app.screens.get(sim.screen)
        return component(screen.activity if screen is not None else None, w.foreground)

    def _notification_dump(self) -> str:
        w = self.world
        lines = ["Current Notification Manager state:", "  Notification List:"]
        notes = list(reversed(w.services.notifications))  # oldest first, as dumpsys lists them
        for i, (pkg, text) in enumerate(notes):
            label = w.labels.get(pkg, pkg)
            lines += [
                f"    NotificationRecord(0x0{i:07x}: pkg={pkg} user=UserHandle{{0}} id={i + 1} "
                f"tag=null importance=3 key=0|{pkg}|{i + 1}|null|10{i:03d}: Notification("
                "channel=phoneworld_world pri=0 contentView=null vibrate=null sound=null "
                "defaults=0x0 flags=0x10 color=0x00000000 vis=PRIVATE))",
                f"      uid=10{i:03d} userId=0",
                "      extras={",
                f"        android.title=String ({label})",
                f"        android.text=String ({text})",
                "      }",
            ]
        return "\n".join(lines) + "\n"
