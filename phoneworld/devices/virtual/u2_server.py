"""uiautomator2's on-device server, answered by the virtual device: what `u2.connect(serial)`
talks to over `tcp:9008` after starting `app_process / com.wetest.uia2.Main -p 9008`.

HTTP: `GET /ping` -> `pong`; `POST /jsonrpc/0` with `{"jsonrpc": "2.0", "id", "method",
"params"}` -> `{"jsonrpc": "2.0", "id", "result"}` or `{"error": {"code", "message", "data"}}`,
the methods of uiautomator2's `AutomatorService` that the Python client calls:
`deviceInfo`, `dumpWindowHierarchy`, `takeScreenshot` (base64 JPEG), `click` (a point, a point
and a hold in ms, or a selector), `longClick`, `swipe`/`swipePoints`/`drag` (5 ms a step, as
UiAutomator throttles them), `injectInputEvent` (down/move/up), `pressKey`/`pressKeyCode`,
`exist`, `count`, `waitForExists`/`waitUntilGone` (the screen changes only on input, so they
answer at once), `objInfo`/`objInfoOfAllInstances`, `getText`/`setText`/`clearTextField`,
`setClipboard`/`getClipboard`/`pasteClipboard`/`clearInputText`, and no-ops for toasts, rotation
and screen power. Selectors (`Selector` of the client: mask fields, `instance`, child/sibling
chains) are matched against the same XML `uiautomator dump` gives, so what the client finds is
what the dump shows. Input goes through the device's input path (`virtual.input`), like
`adb shell input`.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import logging
import re
from typing import TYPE_CHECKING, Any

from lxml import etree

from phoneworld.devices.protocol import keycode
from phoneworld.devices.virtual.input import Event
from phoneworld.devices.virtual.ports import Request, Stream, http_serve

if TYPE_CHECKING:
    from phoneworld.devices.virtual.device import VirtualDevice

logger = logging.getLogger(__name__)

STEP_MS = 5
NOT_FOUND = -32002
_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_KEYS = {"home": "HOME", "back": "BACK", "left": "DPAD_LEFT", "right": "DPAD_RIGHT",
         "up": "DPAD_UP", "down": "DPAD_DOWN", "center": "DPAD_CENTER", "menu": "MENU",
         "search": "SEARCH", "enter": "ENTER", "delete": "DEL", "del": "DEL",
         "recent": "APP_SWITCH", "volume_up": "VOLUME_UP", "volume_down": "VOLUME_DOWN",
         "volume_mute": "VOLUME_MUTE", "camera": "CAMERA", "power": "POWER"}
# selector field -> (XML attribute, how it matches)
_FIELDS: dict[str, tuple[str, str]] = {
    "text": ("text", "eq"), "textContains": ("text", "in"), "textMatches": ("text", "re"),
    "textStartsWith": ("text", "start"), "className": ("class", "eq"),
    "classNameMatches": ("class", "re"), "description": ("content-desc", "eq"),
    "descriptionContains": ("content-desc", "in"), "descriptionMatches": ("content-desc", "re"),
    "descriptionStartsWith": ("content-desc", "start"), "checkable": ("checkable", "bool"),
    "checked": ("checked", "bool"), "clickable": ("clickable", "bool"),
    "longClickable": ("long-clickable", "bool"), "scrollable": ("scrollable", "bool"),
    "enabled": ("enabled", "bool"), "focusable": ("focusable", "bool"),
    "focused": ("focused", "bool"), "selected": ("selected", "bool"),
    "packageName": ("package", "eq"), "packageNameMatches": ("package", "re"),
    "resourceId": ("resource-id", "eq"), "resourceIdMatches": ("resource-id", "re"),
    "index": ("index", "int"),
}


_NO_OPS: dict[str, Any] = {
    "wakeUp": None, "sleep": None, "makeToast": True, "getLastToast": None, "clearLastToast": None,
    "freezeRotation": None, "setOrientation": None, "openNotification": False,
    "openQuickSettings": False, "getLastTraversedText": None, "clearLastTraversedText": None,
}


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: str = "") -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def _matches(node: Any, sel: dict[str, Any]) -> bool:
    for key, (attr, how) in _FIELDS.items():
        if key not in sel:
            continue
        want, got = sel[key], node.get(attr, "")
        if how == "eq" and got != want or how == "in" and str(want) not in got or \
                how == "start" and not got.startswith(str(want)) or \
                how == "re" and re.fullmatch(str(want), got, re.DOTALL) is None or \
                how == "bool" and (got == "true") != bool(want) or \
                how == "int" and got != str(want):
            return False
    return True


def _find(root: Any, sel: dict[str, Any]) -> list[Any]:
    """The nodes `sel` (a client `Selector`) picks, in document order."""
    nodes = [n for n in root.iter("node") if _matches(n, sel)]
    for how, sub in zip(sel.get("childOrSibling", []), sel.get("childOrSiblingSelector", [])):
        pool: list[Any] = []
        for n in nodes:
            cands = n.iterdescendants("node") if how == "child" else \
                (s for s in n.getparent() if s is not n) if n.getparent() is not None else ()
            pool += [c for c in cands if _matches(c, sub) and c not in pool]
        nodes = _instance(pool, sub)
    return _instance(nodes, sel)


def _instance(nodes: list[Any], sel: dict[str, Any]) -> list[Any]:
    if "instance" in sel:
        i = int(sel["instance"])
        return nodes[i:i + 1]
    return nodes


def _bounds(node: Any) -> dict[str, int]:
    m = _BOUNDS.fullmatch(node.get("bounds", ""))
    x1, y1, x2, y2 = (int(v) for v in m.groups()) if m else (0, 0, 0, 0)
    return {"bottom": y2, "left": x1, "right": x2, "top": y1}


def _info(node: Any) -> dict[str, Any]:
    flag = lambda a: node.get(a) == "true"  # noqa: E731
    b = _bounds(node)
    return {"bounds": b, "checkable": flag("checkable"), "checked": flag("checked"),
            "childCount": len(node.findall("node")), "className": node.get("class", ""),
            "clickable": flag("clickable"), "contentDescription": node.get("content-desc", ""),
            "enabled": flag("enabled"), "focusable": flag("focusable"), "focused": flag("focused"),
            "longClickable": flag("long-clickable"), "packageName": node.get("package", ""),
            "resourceName": node.get("resource-id") or None, "scrollable": flag("scrollable"),
            "selected": flag("selected"), "text": node.get("text", ""), "visibleBounds": b}


def _center(node: Any) -> tuple[int, int]:
    b = _bounds(node)
    return (b["left"] + b["right"]) // 2, (b["top"] + b["bottom"]) // 2


class U2Server:
    """One running uiautomator2 server on `dev` (the `app_process` that started it owns it)."""

    def __init__(self, dev: VirtualDevice) -> None:
        self.dev = dev
        self.down: tuple[int, int] | None = None  # injectInputEvent ACTION_DOWN point

    async def serve(self, stream: Stream) -> None:
        await http_serve(stream, self.route)

    async def route(self, req: Request) -> tuple[int, str, bytes]:
        if req.path == "/ping":
            return 200, "text/plain", b"pong"
        if req.path.startswith("/jsonrpc/0") and req.method == "POST":
            try:
                call = req.json()
            except ValueError:
                return 400, "text/plain", b"not JSON"
            loop = asyncio.get_running_loop()
            doc = await loop.run_in_executor(None, self.answer, call)
            return 200, "application/json", json.dumps(doc, ensure_ascii=False).encode()
        return 404, "text/plain", f"{req.method} {req.path} is not served".encode()

    def answer(self, call: Any) -> dict[str, Any]:
        rid = call.get("id") if isinstance(call, dict) else None
        if not isinstance(call, dict) or not isinstance(call.get("method"), str):
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32600,
                                                           "message": "Invalid Request"}}
        params = call.get("params") or []
        params = params if isinstance(params, list) else [params]
        try:
            with self.dev.lock:
                result = self.call(call["method"], params)
        except RpcError as exc:
            return {"jsonrpc": "2.0", "id": rid, "error": {"code": exc.code, "message":
                                                           exc.message, "data": exc.data}}
        except (TypeError, ValueError, IndexError, KeyError) as exc:
            return {"jsonrpc": "2.0", "id": rid, "error": {
                "code": -32602, "message": f"Invalid params for {call['method']}: {exc}"}}
        return {"jsonrpc": "2.0", "id": rid, "result": result}

    # ------------------------------------------------------------------ the methods

    def call(self, method: str, p: list[Any]) -> Any:
        dev = self.dev
        simple = {
            "deviceInfo": self.device_info, "dumpWindowHierarchy": dev.dump_xml,
            "getClipboard": lambda: dev.clipboard,
        }
        if method in simple:
            dev.flush_input()
            return simple[method]()
        if method in _NO_OPS:  # toasts, rotation, screen power: nothing to do on this device
            return _NO_OPS[method]
        handler = getattr(self, "rpc_" + method, None)
        if handler is None:
            raise RpcError(-32601, f"Method not found: {method}")
        return handler(*p)

    def device_info(self) -> dict[str, Any]:
        dev = self.dev
        focus = dev.focus()
        dp = lambda px: round(px * 160 / dev.density)  # noqa: E731
        return {"currentPackageName": focus.split("/")[0].split(": ")[-1],
                "displayHeight": dev.height, "displayWidth": dev.width, "displayRotation": 0,
                "displaySizeDpX": dp(dev.width), "displaySizeDpY": dp(dev.height),
                "naturalOrientation": True, "productName": dev.props["ro.product.name"],
                "screenOn": True, "sdkInt": int(dev.props["ro.build.version.sdk"])}

    def _root(self) -> Any:
        self.dev.flush_input()
        return etree.fromstring(self.dev.dump_xml().encode())

    def _one(self, sel: dict[str, Any]) -> Any:
        found = _find(self._root(), sel)
        if not found:
            shown = {k: v for k, v in sel.items() if k in _FIELDS or k == "instance"}
            raise RpcError(NOT_FOUND, "androidx.test.uiautomator.UiObjectNotFoundException: "
                           f"UiSelector{shown}", json.dumps(sel))
        return found[0]

    def _input(self, *events: Event) -> bool:
        for e in events:
            self.dev.queue_input(e)
        self.dev.flush_input()
        return True

    def _tap(self, x: float, y: float, ms: int = 0) -> bool:
        pt = self.dev.to_app(x, y)
        if ms > 0:
            return self._input(Event("swipe", (*pt, *pt, ms)))
        return self._input(Event("tap", pt))

    def _swipe(self, x1: float, y1: float, x2: float, y2: float, steps: int) -> bool:
        a, b = self.dev.to_app(x1, y1), self.dev.to_app(x2, y2)
        return self._input(Event("swipe", (*a, *b, max(1, int(steps)) * STEP_MS)))

    def rpc_click(self, *p: Any) -> bool:
        if p and isinstance(p[0], dict):
            return self._tap(*_center(self._one(p[0])))
        return self._tap(float(p[0]), float(p[1]), int(p[2]) if len(p) > 2 else 0)

    def rpc_longClick(self, *p: Any) -> bool:
        if p and isinstance(p[0], dict):
            return self._tap(*_center(self._one(p[0])), 600)
        return self._tap(float(p[0]), float(p[1]), int(p[2]) if len(p) > 2 else 600)

    def rpc_swipe(self, x1: float, y1: float, x2: float, y2: float, steps: int = 10) -> bool:
        return self._swipe(x1, y1, x2, y2, steps)

    def rpc_drag(self, x1: float, y1: float, x2: float, y2: float, steps: int = 10) -> bool:
        return self._swipe(x1, y1, x2, y2, steps)

    def rpc_swipePoints(self, points: list[int], steps: int = 10) -> bool:
        if len(points) < 4:
            return self._tap(points[0], points[1]) if len(points) >= 2 else False
        return self._swipe(points[0], points[1], points[-2], points[-1], steps)

    def rpc_injectInputEvent(self, action: int, x: float, y: float, meta: int = 0) -> bool:
        """ACTION_DOWN (0) remembers the point; ACTION_UP (1) ends the gesture there: a tap if it
        did not move, a swipe if it did (the hold time is not kept across calls)."""
        pt = (round(x), round(y))
        if action == 0:
            self.down = pt
        elif action == 1 and self.down is not None:
            start, self.down = self.down, None
            if start == pt:
                return self._tap(*pt)
            return self._swipe(*start, *pt, 60)
        return True

    def _key(self, name: str) -> bool:
        code = keycode(name)
        if code is None:
            return False
        return self._input(Event("key", (code,)))

    def rpc_pressKey(self, key: str) -> bool:
        return self._key(_KEYS.get(key.lower(), key.upper()))

    def rpc_pressKeyCode(self, code: int, meta: int = 0) -> bool:
        return self._key(str(int(code)))

    def rpc_exist(self, sel: dict[str, Any]) -> bool:
        return bool(_find(self._root(), sel))

    def rpc_count(self, sel: dict[str, Any]) -> int:
        sel = {k: v for k, v in sel.items() if k != "instance"}
        return len(_find(self._root(), sel))

    def rpc_waitForExists(self, sel: dict[str, Any], timeout: int = 0) -> bool:
        return self.rpc_exist(sel)

    def rpc_waitUntilGone(self, sel: dict[str, Any], timeout: int = 0) -> bool:
        return not self.rpc_exist(sel)

    def rpc_objInfo(self, sel: dict[str, Any]) -> dict[str, Any]:
        return _info(self._one(sel))

    def rpc_objInfoOfAllInstances(self, sel: dict[str, Any]) -> list[dict[str, Any]]:
        return [_info(n) for n in _find(self._root(), sel)]

    def rpc_getText(self, sel: dict[str, Any]) -> str:
        return str(self._one(sel).get("text", ""))

    def rpc_setText(self, sel: dict[str, Any], text: str) -> bool:
        """Focus the field (a tap on it) and replace its text, as UiObject.setText does."""
        from phoneworld.ir import trace as tr

        self._tap(*_center(self._one(sel)))
        self.dev.sim.step(tr.TypeText(text=str(text)))
        return True

    def rpc_clearTextField(self, sel: dict[str, Any]) -> bool:
        return self.rpc_setText(sel, "")

    def rpc_setClipboard(self, label: Any, text: str) -> None:
        self.dev.clipboard = str(text)

    def rpc_pasteClipboard(self) -> bool:
        """Paste into the focused field (at its end), as a long-press Paste does."""
        return self._input(Event("text", (self.dev.clipboard,)))

    def rpc_clearInputText(self) -> bool:
        from phoneworld.ir import trace as tr

        self.dev.flush_input()
        self.dev.sim.step(tr.TypeText(text=""))
        return True

    def rpc_takeScreenshot(self, scale: float = 1, quality: int = 80) -> str:
        from phoneworld.devices.virtual.screen_cmds import screen_image

        img = screen_image(self.dev)
        if scale and float(scale) != 1:
            img = img.resize((max(1, round(img.width * float(scale))),
                              max(1, round(img.height * float(scale)))))
        buf = io.BytesIO()
        img.save(buf, format="JPEG", quality=int(quality))
        return base64.b64encode(buf.getvalue()).decode()
