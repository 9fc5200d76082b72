"""Crafted regression cases: one per class of hostile input of issue 15, each with the exit code
and the diagnostic code it must give. Static ones are files under tests/fixtures/hostile/<case>/
(written by `write_fixtures`, regenerated explicitly, never by CI); those that git cannot hold (a
FIFO, a symlink out of the folder, multi-megabyte nesting) are made when the case runs.

`{apps}` in a world case is the folder holding the two bundled apps, built once per session;
`{app}` in a task case is the golden notes app (tests/golden/com.example.notes).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.fuzz import seeds
from tests.fuzz.harness import Case, Entry, Fifo, Link

REPO = seeds.REPO
FIXTURES = REPO / "tests" / "fixtures" / "hostile"
GOLDEN_APP = REPO / "tests" / "golden" / "com.example.notes"
EP = "ep/episode.json"

BOMB = "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]\n" for i in range(1, 10))
BOMB = "l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + BOMB


def _episode(**change: object) -> dict[str, object]:
    data = json.loads(seeds.native()[EP])
    for key, value in change.items():
        data[key] = value
    return data


def _native_with(text: str) -> dict[str, Entry]:
    files: dict[str, Entry] = dict(seeds.native())
    files[EP] = text.encode()
    return files


def _native_action(raw: str) -> dict[str, Entry]:
    text = seeds.native()[EP].decode()
    return _native_with(text.replace('"x": 975', f'"x": {raw}', 1))


def _native_screen(name: str) -> dict[str, Entry]:
    text = seeds.native()[EP].decode()
    return _native_with(text.replace('"screen": "0001.xml"', f'"screen": {json.dumps(name)}', 1))


def _xml(nodes: bytes) -> dict[str, Entry]:
    return {"dumps/home.xml": nodes}


def _deep_xml(levels: int) -> bytes:
    node = '<node class="android.widget.FrameLayout" bounds="[0,0][10,10]">'
    return (b"<hierarchy rotation=\"0\">" + node.encode() * levels + b"</node>" * levels
            + b"</hierarchy>")


def _utg(change: Callable[[str], str]) -> dict[str, Entry]:
    files: dict[str, Entry] = dict(seeds.autodroid())
    files["Notes/utg.yaml"] = change(seeds.autodroid()["Notes/utg.yaml"].decode()).encode()
    return files


def _llama(**files: Entry) -> dict[str, Entry]:
    out: dict[str, Entry] = dict(seeds.llamatouch())
    out.update({f"trace_1/{k.replace('__', '.')}": v for k, v in files.items()})
    return out


def _droid(change: Callable[[dict[str, object]], None]) -> dict[str, Entry]:
    files: dict[str, Entry] = dict(seeds.droidbot())
    state = json.loads(files["run/states/state_t0.json"])
    change(state)
    files["run/states/state_t0.json"] = json.dumps(state).encode()
    return files


def trace(name: str, files: dict[str, Entry], code: str | None, exits: tuple[int, ...] = (1,)
          ) -> Case:
    return Case(name, files, ["check", "{dir}"], exits, code)


def _set_children(state: dict[str, object]) -> None:
    state["views"][0]["children"] = 5  # type: ignore[index]


def _set_bounds(value: object) -> Callable[[dict[str, object]], None]:
    def change(state: dict[str, object]) -> None:
        state["views"][1]["bounds"] = value  # type: ignore[index]
    return change


def _views_not_objects(state: dict[str, object]) -> None:
    state["views"] = [1, 2]


def trace_cases() -> list[Case]:
    deep_json = "[" * 5000 + "]" * 5000
    digits = "9" * 5000
    return [
        # numbers: NaN, Infinity, overflow, thousands of digits, far outside any screen
        trace("native_nan", _native_action("NaN"), "PW172"),
        trace("native_infinity", _native_action("-Infinity"), "PW172"),
        trace("native_1e400", _native_action("1e400"), "PW172"),
        trace("native_5000_digits", _native_action(digits), "PW172"),
        trace("native_device_too_wide", _native_with(seeds.native()[EP].decode().replace(
            '"width": 1080', '"width": 1080000000', 1)), "PW112"),
        trace("native_deep_json", _native_with(f'{{"format": "phoneworld-trace/1", "steps": '
                                               f'{deep_json}}}'), "PW171"),
        trace("native_deep_json_100", _native_with('{"steps": ' + "[" * 150 + "]" * 150 + "}"),
              "PW171"),
        trace("xml_bounds_5000_digits", _xml(seeds.dump(seeds.button(
            "x", bounds=f"[0,0][{digits},400]"))), "PW172"),
        trace("xml_bounds_far", _xml(seeds.dump(seeds.button("x", bounds="[0,0][1040,99999999]"))),
              "PW172"),
        # read (a rejected dump would stop check before PW191), but dumps alone build nothing
        trace("xml_index_5000_digits", _xml(seeds.dump(seeds.button("x").replace(
            'index="0"', f'index="{digits}"'))), "PW191"),
        trace("droidbot_bounds_1e400", _droid(_set_bounds([[0, 0], [1e400, 10]])), "PW172"),
        trace("droidbot_bounds_far", _droid(_set_bounds([[0, 0], [10**15, 10]])), "PW172"),
        trace("droidbot_children_5", _droid(_set_children), None, (0,)),
        trace("droidbot_views_not_objects", _droid(_views_not_objects), "PW131"),
        trace("autodroid_choice_5000_digits", _utg(lambda t: t.replace("Choice: 0",
                                                                      f"Choice: {digits}", 1)),
              "PW172"),
        trace("autodroid_id_5000_digits", _utg(lambda t: t.replace("id=0", f"id={digits}", 1)),
              "PW172"),
        trace("llamatouch_coordinate_5000_digits", _llama(eventStructs__txt=(
            f"[Click] Screen Resolution (1080, 1920), Click Position ({digits}, 3)\n[Back]\n"
        ).encode()), "PW160"),
        # depth
        trace("xml_deep_300", _xml(_deep_xml(300)), "PW171"),
        trace("xml_deep_5000", _xml(_deep_xml(5000)), "PW171"),
        # libyaml has a nesting bound of its own (PW150); the pure loader's is ours (PW171)
        trace("autodroid_deep_yaml", _utg(lambda t: t + "deep: " + "[" * 5000 + "]" * 5000 + "\n"),
              None),
        # YAML aliases and reader errors
        trace("autodroid_billion_laughs", _utg(lambda t: BOMB + t.replace(
            "state_str: a", "state_str: *l9", 1)), "PW150"),
        trace("autodroid_recursive_alias", _utg(lambda t: t + "loop: &loop [*loop]\n"), "PW150"),
        trace("autodroid_control_character", _utg(lambda t: t.replace("milk", "mi\x07lk")),
              "PW150"),
        trace("autodroid_bad_date", _utg(lambda t: t + "when: 2024-02-30\n"), "PW172"),
        # only regular files, only inside the input folder
        trace("native_episode_fifo", {**seeds.native(), EP: Fifo()}, "PW170"),
        trace("llamatouch_screen_fifo", _llama(**{"1__xml": Fifo()}), "PW170"),
        # plain dumps alone have no recorded action: nothing to build (PW191, exit 1)
        trace("uiautomator_dump_fifo", {"dumps/home.xml": Fifo(),
                                        "dumps/other.xml": seeds.dump()}, "PW191"),
        trace("native_episode_link_outside", {**seeds.native(),
                                              EP: Link(str(seeds.NATIVE_EP / "episode.json"))},
              "PW170"),
        trace("native_screen_link_outside", {**seeds.native(), "ep/0001.xml": Link(
            str(seeds.NATIVE_EP / "0001.xml"))}, "PW115"),
        trace("native_screen_link_loop", {**_native_screen("loop.xml"),
                                          "ep/loop.xml": Link("loop.xml")}, "PW170"),
        trace("autodroid_utg_link_loop", {"Notes/utg.yaml": Link("utg.yaml")}, "PW170"),
        trace("droidbot_png_fifo", {**seeds.droidbot(), "run/states/screen_t0.png": Fifo()},
              None, (0,)),
        trace("llamatouch_png_bomb", _llama(**{"0__png": seeds.png(100_000, 100_000)}), None,
              (0,)),
        trace("uiautomator_png_bomb", {**seeds.uiautomator(),
                                       "dumps/home.png": seeds.png(60_000, 60_000)}, "PW191"),
        # names
        trace("native_screen_nul", _native_screen("00\x0001.xml"), "PW170"),
        trace("native_screen_5000_chars", _native_screen("a" * 5000 + ".xml"), "PW170"),
        # text that is not UTF-8
        trace("autodroid_package_latin1", {**seeds.autodroid(),
                                           "Notes/package.txt": b"com.caf\xe9\n"}, "PW170"),
        trace("autodroid_tasks_csv_latin1", {"Notes/utg.yaml": seeds.autodroid()["Notes/utg.yaml"],
                                             "tasks.csv": b"Notes,apks/com.caf\xe9_1.apk\n"},
              "PW170"),
        trace("llamatouch_activity_latin1", _llama(**{"1__activity": b"com.caf\xe9/.Main"}),
              "PW170"),
        trace("llamatouch_instruction_latin1", _llama(instruction__txt=b"1\nOuvrir le caf\xe9\n"),
              "PW170"),
        # step numbering
        trace("llamatouch_99999999_xml", _llama(**{"99999999__xml": seeds.dump()}), "PW163"),
        trace("llamatouch_superscript_step", _llama(**{"\u00b2__xml": seeds.dump()}), None, (0,)),
        trace("llamatouch_empty_events", _llama(eventStructs__txt=b""), "PW160"),
    ]


def spec_case(name: str, text: bytes | Entry, code: str | None, exits: tuple[int, ...] = (1,)
              ) -> Case:
    return Case(name, {"spec.yaml": text}, ["tasks", "check", str(GOLDEN_APP), "--specs",
                                            "{dir}/spec.yaml", "--only-specs"], exits, code)


def _spec(old: str, new: str) -> bytes:
    text = seeds.TASK_SPEC.decode()
    assert old in text
    return text.replace(old, new, 1).encode()


def task_cases() -> list[Case]:
    return [
        spec_case("task_billion_laughs", (BOMB + seeds.TASK_SPEC.decode()).encode(), "PW301"),
        spec_case("task_billion_laughs_unused_key", (seeds.TASK_SPEC.decode() + "x: " + BOMB
                                                     .replace("\n", "\n  ")).encode(), "PW301"),
        spec_case("task_recursive_alias", seeds.TASK_SPEC + b"x: &x [*x]\n", "PW301"),
        spec_case("task_control_character", _spec("Add a note", "Add\x01 a note"), "PW301"),
        spec_case("task_deep_yaml", seeds.TASK_SPEC + b"x: " + b"[" * 3000 + b"]" * 3000,
                  "PW301"),
        spec_case("task_empty", b"", "PW301"),
        spec_case("task_comment_only", b"# nothing here yet\n", "PW301"),
        spec_case("task_not_utf8", seeds.TASK_SPEC.replace(b"Add a note", b"Add a caf\xe9"),
                  "PW301"),
        spec_case("task_fifo", Fifo(), "PW301"),
        spec_case("task_all_of_empty", _spec("rule:\n  all_of:", "rule:\n  all_of: []\n  x_of:"),
                  "PW302"),
        spec_case("task_any_of_empty", _spec("rule:\n  all_of:", "rule:\n  any_of: []\n  x_of:"),
                  "PW302"),
        spec_case("task_date_not_a_date", _spec("title: {type: text, from: phrase}",
                                                "title: {type: date, from: dates, start: "
                                                "not-a-date}"), "PW302"),
        spec_case("task_impossible_date", _spec("title: {type: text, from: phrase}",
                                                "title: {type: date, from: dates, start: "
                                                "2024-02-30}"), "PW301"),
        spec_case("task_range_reversed", _spec("title: {type: text, from: phrase}",
                                               "title: {type: number, from: range, min: 9, "
                                               "max: 1}"), "PW302"),
        spec_case("task_nan", _spec("equals: 4", "equals: .nan"), "PW301"),
        spec_case("task_5000_digits", _spec("equals: 4", "equals: " + "9" * 5000), "PW301"),
    ]


def world_case(name: str, text: bytes | Entry, code: str | None, apps: Path,
               exits: tuple[int, ...] = (1,)) -> Case:
    body = text.replace(b"{apps}", str(apps).encode()) if isinstance(text, bytes) else text
    return Case(name, {"world.yaml": body}, ["world", "check", "{dir}/world.yaml"], exits, code)


def world_cases(apps: Path) -> list[Case]:
    spec = seeds.WORLD_SPEC
    return [
        world_case("world_billion_laughs", BOMB.encode() + spec, "PW401", apps),
        world_case("world_empty", b"", "PW401", apps),
        world_case("world_comment_only", b"# a world, later\n", "PW401", apps),
        world_case("world_control_character", spec.replace(b"Stale", b"St\x02ale"), "PW401", apps),
        world_case("world_bad_value", spec.replace(b"name: fuzzworld", b"name: 'bad name!'"),
                   "PW402", apps),
        world_case("world_bad_notification", spec.replace(b"text: \"Bob", b"txt: \"Bob"),
                   "PW402", apps),
        world_case("world_receive_unknown_widget", spec.replace(
            b"com.example.messages\n", b"com.example.messages\n    receive: {path: [nosuch], "
            b"field: nofield}\n", 1), "PW404", apps),
        world_case("world_share_unknown_widget", spec.replace(
            b"com.example.messages\n", b"com.example.messages\n    share: [{screen: nosuch, "
            b"widget: nowidget}]\n", 1), "PW404", apps),
        world_case("world_fifo", Fifo(), "PW401", apps),
        world_case("world_unknown_format", spec.replace(b"com.example.notes\n", b"com.example.notes"
                   b"\n  - traces: .\n    from: droidbott\n", 1), "PW402", apps),
        world_case("world_missing_traces", spec.replace(b"com.example.notes\n", b"com.example.notes"
                   b"\n  - traces: /nonexistent\n", 1), "PW403", apps),
    ]


def cli_cases(apps: Path) -> list[Case]:
    notes = str(apps / "com.example.notes")
    return [
        Case("run_seed_negative", {}, ["run", notes, "--seed", "-1", "--steps", "3"], (0, 2)),
        Case("run_steps_negative", {}, ["run", notes, "--steps", "-5"], (0, 2)),
        Case("build_heldout_nan", {}, ["build", notes, "--heldout", "nan", "--out", "{out}"],
             (1, 2)),
        Case("check_missing", {}, ["check", "{dir}/nothing"], (1, 2)),
        Case("tasks_show_unknown", {}, ["tasks", "show", notes, "no_such_task"], (1, 2)),
    ]


def all_cases(apps: Path) -> list[Case]:
    return [*trace_cases(), *task_cases(), *world_cases(apps), *cli_cases(apps)]


# ----------------------------------------------------------------------------- the fixture folder
def _portable(text: str, apps: Path) -> str:
    return text.replace(str(GOLDEN_APP), "{golden}").replace(str(REPO), "{repo}").replace(
        str(apps), "{apps}")


def save_case(case: Case, folder: Path, apps: Path) -> None:
    """`case` as folder/{case.json, files/...}, with local paths made portable placeholders."""
    special: dict[str, object] = {}
    for rel, entry in case.files.items():
        if isinstance(entry, Fifo):
            special[rel] = "fifo"
        elif isinstance(entry, Link):
            special[rel] = {"link": _portable(entry.target, apps)}
        else:
            path = folder / "files" / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(entry.replace(str(apps).encode(), b"{apps}"))
    meta = {"args": [_portable(a, apps) for a in case.args], "exits": list(case.exits),
            "code": case.code, "special": special}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "case.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


def write_fixtures(root: Path = FIXTURES) -> list[str]:
    """Write every case as root/<name>/{case.json, files/...}: regenerating is explicit
    (`python -m tests.fuzz.crafted`), like `make golden`."""
    import shutil

    apps = Path("/nonexistent/apps")
    if root.exists():
        shutil.rmtree(root)
    for case in all_cases(apps):
        save_case(case, root / case.name, apps)
    return [case.name for case in all_cases(apps)]


def load_fixture(folder: Path, apps: Path) -> Case:
    """The case stored in `folder`, with {golden}, {repo} and {apps} filled in."""
    meta = json.loads((folder / "case.json").read_text(encoding="utf-8"))

    def fill(text: str) -> str:
        return text.replace("{golden}", str(GOLDEN_APP)).replace("{repo}", str(REPO)).replace(
            "{apps}", str(apps))

    files: dict[str, Entry] = {}
    base = folder / "files"
    if base.is_dir():
        for path in sorted(base.rglob("*")):
            if path.is_file():
                files[path.relative_to(base).as_posix()] = path.read_bytes().replace(
                    b"{apps}", str(apps).encode())
    for rel, what in meta["special"].items():
        files[rel] = Fifo() if what == "fifo" else Link(fill(what["link"]))
    return Case(folder.name, files, [fill(a) for a in meta["args"]], tuple(meta["exits"]),
                meta["code"])


if __name__ == "__main__":
    print(f"wrote {len(write_fixtures())} cases under {FIXTURES}")
