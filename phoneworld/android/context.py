"""The template context of an app's Kotlin project: every name, order and literal, decided here.

Templates under `phoneworld/templates/kotlin/` only lay text out; this module turns the app spec
into plain dicts of already-escaped Kotlin fragments (`codegen`, `layout`) and readable names
(`names`).
"""

from __future__ import annotations

from typing import Any

from phoneworld.android.codegen import KOTLIN_TYPES, KotlinCode, StateNames, assign, kt_value
from phoneworld.android.escape import kt
from phoneworld.android.layout import DecorTable, ScreenLayout
from phoneworld.android.names import NameTable, android_package, own_resource_entry, pascal
from phoneworld.android.world_context import WorldWiring, world_context
from phoneworld.ir.app import AppSpec, ScreenSpec, StateVar, Transition, Widget
from phoneworld.runtime.compiled import LAUNCHER, LAUNCHER_ICON, compile_app, launcher_screen
from phoneworld.runtime.validate import field_default, kind_default

RECORDS_PER_FUNCTION = 100
# Python's `str.isspace` and the zeros of Unicode's decimal digit runs (Unicode 14, Python 3.11):
# the Kotlin core strips and parses numbers exactly like the simulator (see tests/android).
PY_SPACE = (0x9, 0xA, 0xB, 0xC, 0xD, 0x1C, 0x1D, 0x1E, 0x1F, 0x20, 0x85, 0xA0, 0x1680, *range(
    0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000)
PY_DIGIT_ZEROS = (
    0x30, 0x660, 0x6F0, 0x7C0, 0x966, 0x9E6, 0xA66, 0xAE6, 0xB66, 0xBE6, 0xC66, 0xCE6, 0xD66,
    0xDE6, 0xE50, 0xED0, 0xF20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0,
    0xFF10, 0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0,
    0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0,
    0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0,
)
CORE_CLASSES = frozenset({
    "App", "AppState", "Bounds", "Ctx", "Dyn", "Expr", "Flags", "Focus", "Frame", "Json",
    "JsonException", "JsonNumber", "JsonWritable", "Key", "ListSpec", "Lit", "Machine", "Nav",
    "Node", "Rec", "Ref", "Renderer", "Screen", "StateException", "StateValues", "StepResult",
    "Transition", "Values", "Widget", "ReplayKt", "MainActivity", "ResetReceiver", "Store",
    "ScreenRenderer", "MockViews", "Gestures", "Decor",
})


def kt_json(v: Any) -> str:
    """Any JSON value as a Kotlin value of the core's JSON model."""
    if isinstance(v, dict):
        items = ", ".join(f"{kt(str(k))} to {kt_json(x)}" for k, x in v.items())
        return f"linkedMapOf<String, Any?>({items})"
    if isinstance(v, list):
        return f"arrayListOf<Any?>({', '.join(kt_json(x) for x in v)})"
    return kt_value(v)


def project_context(spec: AppSpec, world: WorldWiring | None = None) -> dict[str, Any]:
    """Everything the templates need to write `spec`'s Kotlin project (`world`: its wiring in a
    cross-app world, see `phoneworld.android.world_context`)."""
    app = compile_app(spec)  # validates the spec and normalizes its initial state
    classes = NameTable(CORE_CLASSES)
    names = StateNames.of(spec, classes)
    code = KotlinCode(names)
    decor = DecorTable(code)
    screens = [_screen(s, spec, code, classes, decor)
               for s in [*spec.screens, launcher_screen(spec)]]
    kpkg = android_package(spec.package)
    return {
        "kpkg": kpkg, "package": spec.package, "label": spec.label, "start": spec.start_screen,
        "width": spec.device.width, "height": spec.device.height,
        "space_codepoints": ", ".join(f"0x{c:X}" for c in PY_SPACE),
        "digit_zeros": ", ".join(f"0x{c:X}" for c in PY_DIGIT_ZEROS),
        "vars": [_var(v, names, app.initial_state.get(v.name)) for v in spec.state],
        "collections": [_collection(v, names, app.initial_state.get(v.name, []))
                        for v in spec.state if v.kind == "collection"],
        "initial_extra": kt_json({k: x for k, x in app.initial_state.items()
                                  if k not in app.vars}),
        "screens": screens,
        "decor": decor.functions,
        "transition_count": len(spec.transitions),
        "resource_ids": _resource_ids(spec, kpkg),
        "launcher_id": LAUNCHER, "launcher_icon": LAUNCHER_ICON,
        "world": world_context(spec, world),
    }


# ----------------------------------------------------------------------------- state


def _var(v: StateVar, names: StateNames, initial: Any) -> dict[str, Any]:
    prop, kind = names.vars[v.name]
    path = kt(v.name)
    if kind == "collection":
        coll = names.collections[v.name]
        type_ = f"MutableList<{coll.cls}>"
        default = "mutableListOf()"
        read = (f"StateValues.list(m[{path}], {path}) {{ x, p -> {coll.cls}.fromValue(x, p) }}")
        init = _collection_initial(coll.cls, prop, initial or [])
        write = ""
    else:
        type_ = KOTLIN_TYPES[kind]
        default = kt_value(kind_default(kind)) if kind != "number" else "0L"
        read = f"StateValues.{kind}(m[{path}], {path})"
        init = kt_value(initial)
        write = assign(prop, kind, "v")
    return {"name": v.name, "prop": prop, "kind": kind, "type": type_, "default": default,
            "read": read, "initial": init, "assign": write, "description": v.description}


def _collection_initial(cls: str, prop: str, records: list[Any]) -> str:
    if not records:
        return "mutableListOf()"
    parts = (len(records) + RECORDS_PER_FUNCTION - 1) // RECORDS_PER_FUNCTION
    adds = "; ".join(f"addAll(initial{pascal(prop)}{i + 1}())" for i in range(parts))
    return f"mutableListOf<{cls}>().apply {{ {adds} }}"


def _collection(v: StateVar, names: StateNames, records: list[Any]) -> dict[str, Any]:
    coll = names.collections[v.name]
    fields = []
    for f in v.fields:
        fn = coll.fields[f.name]
        fields.append({"name": f.name, "prop": fn.prop, "kind": f.kind, "type": KOTLIN_TYPES[f.kind],
                       "default": kt_value(field_default(f)), "assign": assign(fn.prop, f.kind, "v")})
    parts = []
    for i in range(0, len(records), RECORDS_PER_FUNCTION):
        chunk = records[i:i + RECORDS_PER_FUNCTION]
        parts.append({"name": f"initial{pascal(coll.prop)}{i // RECORDS_PER_FUNCTION + 1}",
                      "records": [_record(coll.cls, coll.fields, r) for r in chunk]})
    return {"name": v.name, "prop": coll.prop, "cls": coll.cls, "fields": fields,
            "selections": coll.selections, "description": v.description,
            "initial_parts": parts}


def _record(cls: str, fields: dict[str, Any], rec: dict[str, Any]) -> str:
    args = [f"{fields[k].prop} = {kt_value(x)}" for k, x in rec.items() if k in fields]
    extra = {k: x for k, x in rec.items() if k not in fields}
    if extra:
        args.append(f"extra = {kt_json(extra)}")
    return f"{cls}({', '.join(args)})"


# ----------------------------------------------------------------------------- screens


def _screen(s: ScreenSpec, spec: AppSpec, code: KotlinCode, classes: NameTable,
            decor: DecorTable) -> dict[str, Any]:
    obj = classes.take(pascal(s.name, "Screen") + "Screen")
    layout = ScreenLayout(code).screen(s, decor)
    return {
        "object": obj, "file": obj + ".kt", "id": s.id, "name": s.name, "package": s.package,
        "activity": s.activity, "activity_kt": kt(s.activity) if s.activity else "null",
        "observations": s.observations, "widget_count": layout.widget_count,
        "build": layout.build, "functions": layout.functions,
        "transitions": [_transition(t, s, code, classes) for t in ordered_transitions(spec, s.id)],
    }


def ordered_transitions(spec: AppSpec, screen: str) -> list[Transition]:
    """The screen's transitions grouped by (action, widget) in spec order, guarded ones first in
    each group: the order the simulator tries them in."""
    groups: dict[tuple[str, str | None], list[Transition]] = {}
    for t in spec.transitions:
        if t.screen == screen:
            groups.setdefault((t.action, t.widget), []).append(t)
    return [t for g in groups.values() for t in sorted(g, key=lambda t: t.guard is None)]


def _transition(t: Transition, s: ScreenSpec, code: KotlinCode, classes: NameTable) -> dict[str, Any]:
    obj = classes.take(pascal(f"{s.name} {t.action} {t.widget or ''}", "Action"))
    where = f'on "{s.name}", {t.action.replace("_", " ")}' + (f" {t.widget}" if t.widget else "")
    goes = {"push": "opens", "replace": "replaces it with", "pop": "goes back to",
            "stay": "stays"}[t.nav]
    doc = f"{where[0].upper()}{where[1:]}: " + (f"{goes} {t.target}" if t.target else
                                                  ("goes back" if t.nav == "pop" else "stays"))
    return {
        "object": obj, "id": t.id, "screen": t.screen, "action": t.action, "doc": doc,
        "support": t.support, "notes": [f"Transition {t.id}."],
        "widget_kt": kt(t.widget) if t.widget is not None else "null",
        "target_kt": kt(t.target) if t.target is not None else "null",
        "nav": t.nav.upper(),
        "guard": code.guard(t.guard) if t.guard is not None else None,
        "effects": code.effects(t.effects),
    }


def _resource_ids(spec: AppSpec, kpkg: str) -> list[str]:
    found: set[str] = set()

    def walk(w: Widget) -> None:
        entry = own_resource_entry(w.resource_id, spec.package) if w.resource_id else None
        if entry is not None and kpkg == spec.package:
            found.add(entry)
        for c in w.children:
            walk(c)
        if w.list is not None:
            walk(w.list.item)
            if w.list.empty is not None:
                walk(w.list.empty)

    for s in spec.screens:
        walk(s.root)
    return sorted(found)
