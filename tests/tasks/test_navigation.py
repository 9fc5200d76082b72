"""Navigation tasks, verified by the screen the agent ends on: the `screen` clause's verdicts and
code, the synthesis of "Open ..." tasks (names, what is skipped, the cap, the order), the
near misses that end elsewhere, the oracle, and the bundled example built end to end."""

from __future__ import annotations

import ast
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from phoneworld.ir.app import AppSpec, Lit
from phoneworld.ir.trace import Observation
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks import sanity
from phoneworld.tasks import synth_navigation as sn
from phoneworld.tasks.adversary import Writable, attack, near_misses
from phoneworld.tasks.build import build_tasks, task_files
from phoneworld.tasks.codegen import compile_verifier, load_verifier, render_verifier
from phoneworld.tasks.dump import dump_task
from phoneworld.tasks.episodes import run_task
from phoneworld.tasks.load import load_task_specs
from phoneworld.tasks.oracle import ANY_TEXT, solve
from phoneworld.tasks.params import instantiate
from phoneworld.tasks.spec import TaskSpec
from phoneworld.tasks.drafts import Draft
from phoneworld.tasks.synthesis import CAPPED, SynthConfig, combine, synthesize
from phoneworld.tasks.verdict import on_screen
from tests.compiler_support import (
    BUTTON, FRAME, LINEAR, PKG, TEXT, W, b, back, click, compile_app, episode, tap, traces, type_,
    view,
)

SWITCH = "android.widget.Switch"
IMAGE_BUTTON = "android.widget.ImageButton"
HEADING = b(40, 80, 1040, 160)


def _page(activity: str, *children: object, heading: str = "") -> Observation:
    kids = [view(TEXT, HEADING, id="title", text=heading)] if heading else []
    return Observation(root=view(FRAME, b(0, 0, W, 1920), *kids, *children),  # type: ignore[arg-type]
                       package=PKG, activity=f"{PKG}/.{activity}")


def _privacy_row(label: str) -> object:
    return view(LINEAR, b(0, 420, W, 520), view(TEXT, b(40, 440, 600, 500), text=label),
                id="privacy_row", clickable=True)


MAIN = _page("MainActivity", view(BUTTON, b(40, 300, 1040, 420), id="open_settings",
                                  text="Settings", clickable=True), heading="Inbox")
OPENERS = {
    "about": view(BUTTON, b(40, 300, 1040, 400), id="about", text="About", clickable=True),
    "privacy": _privacy_row("Privacy policy"),
    "licenses": view(IMAGE_BUTTON, b(40, 540, 200, 640), id="licenses", clickable=True),
    "help": view(BUTTON, b(40, 660, 1040, 760), id="help", text="Help", clickable=True),
    "support": view(BUTTON, b(40, 780, 1040, 880), id="support", text="Support", clickable=True),
    "sort": view(BUTTON, b(40, 900, 1040, 1000), id="sort", text="Sort order", clickable=True),
}


def _settings(dark: bool, openers: dict[str, object] = OPENERS) -> Observation:
    return _page("SettingsActivity", *openers.values(),
                 view(SWITCH, b(40, 1100, 1040, 1200), id="dark", text="Dark mode",
                      checkable=True, clickable=True, checked=dark), heading="Settings")


PAGES = {
    "about": _page("AboutActivity", view(TEXT, b(40, 300, 1040, 400), text="Version 1.0"),
                   heading="About"),
    "privacy": _page("PrivacyActivity", view(BUTTON, b(40, 300, 1040, 400), id="accept",
                                             text="Accept", clickable=True)),
    "licenses": _page("LicensesActivity", view("android.widget.ImageView", b(40, 300, 400, 600),
                                               id="logo")),
    "help": _page("HelpActivity", view(TEXT, b(40, 300, 1040, 400), text="Ask us"),
                  heading="Help"),
    "support": _page("SupportActivity", view(TEXT, b(40, 300, 1040, 400), text="Mail us"),
                     heading="Help"),
    "sort": Observation(root=view(FRAME, b(100, 700, 980, 1200), view(
        TEXT, b(140, 720, 940, 800), id="dialog_title", text="Sort by"), view(
        BUTTON, b(140, 900, 940, 1000), id="by_name", text="Name", clickable=True)),
        package=PKG, activity=f"{PKG}/.SettingsActivity"),
}


def _app(privacy: str = "Privacy policy") -> AppSpec:
    """Inbox -> Settings (a Dark mode switch) -> About (a heading), Privacy policy (no heading:
    named by the row that opens it), Licenses (no text at all: named by its activity), Help and
    Support (both headed "Help"), and a Sort dialog (a window smaller than the screen)."""
    openers = {**OPENERS, "privacy": _privacy_row(privacy)}
    steps: list[object] = [MAIN, tap(MAIN.root.children[1]), _settings(False, openers),
                           click(540, 1150), _settings(True, openers)]
    for name, page in PAGES.items():
        steps += [tap(openers[name]), page, back(), _settings(True, openers)]  # type: ignore[arg-type]
    return compile_app(traces(episode("e0", *steps))).spec  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def app() -> AppSpec:
    return _app()


def _navigate(app: AppSpec, config: SynthConfig | None = None) -> dict[str, TaskSpec]:
    """Navigate tasks by the screen they end on ("a|b" for a task any of several screens passes)."""
    out = {}
    for t in synthesize(app, config).tasks:
        if t.kind() == "navigate":
            goal = t.rule.all_of[0]  # type: ignore[union-attr]
            ends = [c.screen for c in goal.any_of] if hasattr(goal, "any_of") else [goal.screen]
            out["|".join(ends)] = t
    return out


def _spec(rule: dict[str, Any], task_id: str = "go") -> TaskSpec:
    return TaskSpec.model_validate({"id": task_id, "app": PKG, "instruction": "Go there",
                                    "category": "navigation", "rule": rule})


# ----------------------------------------------------------------------------- the clause


def test_the_screen_clause_holds_on_its_screen_and_nowhere_else() -> None:
    assert on_screen({"@screen": "s02_about"}, "s02_about", "rule").passed
    v = on_screen({"@screen": "s01_settings"}, "s02_about", "rule")
    assert not v.passed and v.reason == "the app is on screen 's01_settings', wanted 's02_about'"
    with pytest.raises(KeyError, match="read_state"):  # a caller that gave no screen
        on_screen({"dark": True}, "s02_about", "rule")


def test_a_screen_rule_round_trips_through_yaml_and_generated_code(app: AppSpec,
                                                                    tmp_path: Path) -> None:
    task = _spec({"all_of": [{"screen": "s02_about"}, {"equals": {"var": "dark", "value": True}}]})
    (tmp_path / "go.yaml").write_text(dump_task(task))
    loaded = load_task_specs([tmp_path], app)[0].spec
    assert loaded.rule == task.rule and loaded.category == "navigation"
    verify = load_verifier(render_verifier(loaded, app))
    assert verify({"dark": True, "@screen": "s02_about"}, {}).passed
    v = verify({"dark": True, "@screen": "s01_settings"}, {})
    assert not v.passed and v.clause == "rule.all_of[0]: on screen 's02_about'"


def test_a_screen_id_from_a_spec_enters_the_code_as_a_string(app: AppSpec) -> None:
    hostile = 's02"); import os; os.system("x'
    source = render_verifier(_spec({"screen": hostile}), app)
    imported = {a.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Import)
                for a in n.names}
    assert source.isascii() and "os" not in imported
    assert load_verifier(source)({"@screen": hostile}, {}).passed


def test_every_backend_state_carries_the_screen(app: AppSpec) -> None:
    sim = Simulator(app)
    sim.step(tap(MAIN.root.children[1]))
    assert sim.read_state()["@screen"] == sim.observed()["@screen"] == "s01_settings"
    sim.reset({**sim.read_state(), "@screen": "s02_about"})  # read, never written
    assert sim.screen == "s00_main" and "@screen" not in sim.state


# ----------------------------------------------------------------------------- synthesis


def test_screens_are_named_by_heading_opener_or_activity(app: AppSpec) -> None:
    tasks = _navigate(app)
    assert {sid: t.instruction for sid, t in tasks.items()} == {
        "s01_settings": 'Open the "Settings" screen',  # one tap from the start: its heading
        "s02_about": 'Open the "About" screen',  # its heading
        "s03_privacy": 'Open the "Privacy policy" screen',  # the text inside the row opening it
        "s04_licenses": "Open the licenses screen",  # no text at all: its activity
        # both headed "Help": one place to a person, so ending on either passes
        "s05_help|s06_support": 'Open the "Help" screen',
    }
    assert all(t.category == "navigation" and t.tags == ("navigate", "synthesized")
               for t in tasks.values())


def test_near_alike_screens_get_one_task_and_transient_ones_none(app: AppSpec) -> None:
    tasks = _navigate(app)
    assert "s05_help" not in tasks and "s06_support" not in tasks  # both headed "Help": one task
    assert tasks["s05_help|s06_support"].rule.all_of[0].model_dump(  # type: ignore[union-attr]
        exclude_defaults=True) == {"any_of": ({"screen": "s05_help"}, {"screen": "s06_support"})}
    assert "s07_settings_2" not in tasks  # the sort dialog: a window smaller than the screen
    assert "s01_settings" not in _navigate(app, SynthConfig(nav_min_steps=2))  # one tap away
    other = app.model_copy(update={"screens": tuple(
        s.model_copy(update={"package": "com.android.settings"}) if s.id == "s02_about" else s
        for s in app.screens)})
    assert "s02_about" not in _navigate(other)  # another app's window


@pytest.mark.parametrize("label", ["Next", "Start", "开始", "下一步", "Weiter", "Suivant !",
                                   "确定。", "Далее"])
def test_an_opener_that_names_an_action_names_no_screen(label: str) -> None:
    """A row saying "Next" or "Start" says what it does, not where it leads: the screen falls
    back to its activity (a game's "Start" opens no "Start" screen), in the languages most
    apps ship in too."""
    assert _navigate(_app(privacy=label))["s03_privacy"].instruction == "Open the privacy screen"


def test_a_settings_row_recorded_as_one_text_names_the_screen_by_its_title() -> None:
    """A row recorded as "Privacy\nOff" (its title over the value its summary shows, as
    AutoDroid joins them) opens the "Privacy" screen, not the "Privacy Off" one."""
    task = _navigate(_app(privacy="Privacy\nOff"))["s03_privacy"]
    assert task.instruction == 'Open the "Privacy" screen'


def test_an_opener_that_shows_a_choice_of_the_screen_it_opens_names_no_screen() -> None:
    """A dropdown showing "Mobile" opens the list of phone types with "Mobile" checked: no
    "Mobile" screen (were "Mobile" a button there, the row would name it)."""
    def choice(w, checkable: bool):  # type: ignore[no-untyped-def]
        kids = tuple(choice(c, checkable) for c in w.children)
        if w.wid != "accept":
            return w.model_copy(update={"children": kids})
        return w.model_copy(update={"children": kids, "checkable": checkable,
                                    "text": Lit(value="Mobile")})

    def variant(checkable: bool) -> AppSpec:
        spec = _app(privacy="Mobile")
        return spec.model_copy(update={"screens": tuple(
            s.model_copy(update={"root": choice(s.root, checkable)}) for s in spec.screens)})

    reach = set(variant(True).distances())
    assert sn.opener_label(variant(True), "s03_privacy", reach) == ""
    assert sn.opener_label(variant(False), "s03_privacy", reach) == "Mobile"


@pytest.mark.parametrize("text", ["0 CAD", "and", "of the", "\uf1d4", "A sentence, quite long.",
                                  "Mon Feb 06 2023", "10:30", "2023-02-06", "06/02/2023", "Sun 5",
                                  "Lun 6 févr. 2023", "Sobe Jiti 06 2023", "2023年2月6日 星期一",
                                  "请输入您的手机号码"],
                         ids=["value", "function-word", "function-words", "glyph", "sentence",
                              "date", "time", "iso-date", "numeric-date", "weekday",
                              "other-language-date", "made-up-words-date", "chinese-date",
                              "chinese-sentence"])
def test_values_and_pieces_of_text_are_no_names(text: str) -> None:
    assert not sn.usable(text)
    assert sn.usable("Select a Country") and sn.usable("ALL IMAGE")
    assert sn.usable("Sunday") and sn.usable("Room 101") and sn.usable("May")
    assert sn.usable("Best of 2023") and sn.usable("添加联系人") and sn.usable("新建 Note")


def test_a_mark_standing_apart_is_no_word() -> None:
    """"Log In / Sign Up" is four words and a mark: a name, as a page titled so is called; five
    words are still too many for one."""
    assert sn.usable("Log In / Sign Up") and sn.usable("Auto light / dark")
    assert not sn.usable("Log In or Sign Up now")
    assert not sn.usable("/ - /")


def test_a_few_words_that_exclaim_are_a_heading() -> None:
    """A quiz's "Wrong Answer!" page and a "Welcome to Blobit!" page are named by their
    headings; a sentence ending in a full stop or a question mark still names nothing."""
    assert sn.usable("Wrong Answer!") and sn.usable("Welcome to Blobit!")
    assert not sn.usable("You are right.") and not sn.usable("Are you sure?")
    assert not sn.usable("You lost a level, sorry!")
    # full-width sentence ends (a Chinese or Japanese sentence has no spaces to count)
    assert sn.usable("设置")
    assert not sn.usable("请输入手机号码。") and not sn.usable("确定要删除吗？")


def test_a_web_pages_text_titles_the_screen() -> None:
    """A WebView's tree holds the page's texts as plain `android.view.View` nodes: the top-most
    one titles the screen as a TextView would."""
    web = _page("WebActivity", view("android.webkit.WebView", b(0, 200, W, 1900), view(
        "android.view.View", b(40, 300, 600, 360), text="reCAPTCHA"), view(
        "android.widget.CheckBox", b(40, 400, 600, 480), text="I'm not a robot",
        checkable=True, clickable=True)))
    start = _page("MainActivity", view(BUTTON, b(40, 300, 1040, 420), id="verify",
                                       text="Verify", clickable=True), heading="Inbox")
    spec = compile_app(traces(episode("e0", start, tap(start.root.children[1]), web))).spec
    assert {t.instruction for t in _navigate(spec).values()} == {'Open the "reCAPTCHA" screen'}


@pytest.mark.parametrize(("bounds", "dialog"), [
    ((0, 0, W, 1788), False),  # an activity above on-screen navigation buttons
    ((0, 63, W, 1920), False),  # below the status bar
    ((0, 285, W, 1553), True),  # full width, but a box in the middle
    ((28, 671, 1052, 1185), True),  # an alert dialog
    ((0, 1200, W, 1920), True),  # a bottom sheet
])
def test_a_window_short_of_the_screen_only_by_its_bars_is_no_dialog(
        app: AppSpec, bounds: tuple[int, int, int, int], dialog: bool) -> None:
    about = next(s for s in app.screens if s.id == "s02_about")
    root = about.root.model_copy(update={"bounds": b(*bounds)})
    resized = about.model_copy(update={"root": root})
    assert sn.transient(app, resized) is dialog
    assert not sn.transient(app, about)


def test_data_names_no_screen_and_an_unreachable_screen_shares_no_name(app: AppSpec) -> None:
    with_records = app.model_copy(update={"initial_state": {
        **app.initial_state, "notes": [{"title": "About"}]}})
    assert "s02_about" not in _navigate(with_records)  # "About" is a record's title here
    cut = app.model_copy(update={"transitions": tuple(
        t for t in app.transitions if t.target != "s05_help")})
    assert _navigate(cut)["s06_support"].instruction == 'Open the "Help" screen'


def test_a_screen_left_by_replace_is_transient(app: AppSpec) -> None:
    moved = app.model_copy(update={"transitions": tuple(
        t.model_copy(update={"nav": "replace"}) if t.screen == "s03_privacy" else t
        for t in app.transitions)})
    assert "s03_privacy" not in _navigate(moved)


def test_a_transient_screen_sharing_its_name_with_a_lasting_one_is_that_place(
        app: AppSpec) -> None:
    """A page loading (left by replace: the loaded page takes its place) and the page loaded,
    both headed "Help", are one place: ending on either passes. Were both transient, neither
    would be one."""
    loading = app.model_copy(update={"transitions": tuple(
        t.model_copy(update={"nav": "replace"}) if t.screen == "s05_help" else t
        for t in app.transitions)})
    assert _navigate(loading)["s05_help|s06_support"].instruction == 'Open the "Help" screen'
    both = loading.model_copy(update={"transitions": tuple(
        t.model_copy(update={"nav": "replace"}) if t.screen == "s06_support" else t
        for t in loading.transitions)})
    assert not any("s05_help" in k or "s06_support" in k for k in _navigate(both))


def test_navigate_tasks_come_last_and_are_capped(app: AppSpec) -> None:
    kinds = [t.kind() for t in synthesize(app).tasks]
    assert kinds.index("navigate") > max(i for i, k in enumerate(kinds) if k != "navigate")
    capped = synthesize(app, SynthConfig(max_per_kind=2))
    assert [t.id for t in capped.tasks if t.kind() == "navigate"] == [
        "navigate_about", "navigate_privacy_policy"]  # the nearest first, then by screen
    assert capped.dropped[CAPPED] == 3  # Licenses, Help, and last the one-tap Settings
    navigate = [t.id for t in synthesize(app).tasks if t.kind() == "navigate"]
    assert navigate[-1] == "navigate_settings" and len(navigate) == 5
    assert not any("navigate" in t.tags[1:] for t in synthesize(app, pair_from={
        t.id for t in capped.tasks}).tasks)  # paired with nothing


# ----------------------------------------------------------------------------- checking


def test_the_oracle_solves_navigate_tasks_and_the_sanity_check_keeps_them(app: AppSpec) -> None:
    checks = sanity.check_tasks(app, list(_navigate(app).values()))
    for c in checks:
        assert c.kept, c.detail
        one_tap = c.task.id == "navigate_settings"
        assert c.oracle is not None and len(c.oracle.moves) == (1 if one_tap else 2)
        assert c.end is not None
        goal = c.task.rule.all_of[0]  # type: ignore[union-attr]
        ends = {x.screen for x in goal.any_of} if hasattr(goal, "any_of") else {goal.screen}
        assert c.end["@screen"] in ends
        assert c.attack is not None and c.attack.rejected == c.attack.tried


def test_an_end_on_another_screen_is_a_near_miss_the_verifier_rejects(app: AppSpec) -> None:
    task = _navigate(app)["s02_about"]
    verifier = compile_verifier(task, app)
    inst = instantiate(task, app, verify=verifier)
    res = solve(Simulator(app), inst, verifier)
    end, answer, path = sanity.walk(Simulator(app), inst, res.moves)
    start = {**inst.state, "@screen": "s00_main"}
    reads = frozenset({"@screen", "dark", "entered_settings"})
    misses = [m for m in near_misses(Writable.of(app), start, end, {}, None, reads, path)
              if m.kind == "wrong screen"]
    ends = {m.state["@screen"] for m in misses}
    assert path == ("s00_main", "s01_settings")
    assert {"s00_main", "s01_settings", "s03_privacy", "s04_licenses", "s07_settings_2"} <= ends
    assert "s02_about" not in ends
    assert attack(verifier, start, end, {}, Writable.of(app), answer, reads, path).accepted == ()
    assert not [m for m in near_misses(Writable.of(app), start, end, {}, None,
                                       reads - {"@screen"}, path) if m.kind == "wrong screen"]


def test_a_rule_that_only_says_where_not_to_end_is_gameable(app: AppSpec) -> None:
    loose = _spec({"all_of": [{"not": {"screen": "s00_main"}}, {"not": {"screen": "s01_settings"}},
                              {"equals": {"var": "dark", "value": True}}]}, "loose")
    check = sanity.check_one(Simulator(app), loose, app)
    assert not check.kept and check.reason == sanity.GAMEABLE
    assert check.attack is not None and check.attack.accepted[0].kind == "wrong screen"
    assert "screen: <its id>" in sanity.counterexample(check)[-1]


# ----------------------------------------------------------------------------- end to end


def test_the_build_keeps_navigate_tasks_and_writes_their_verifiers(app: AppSpec) -> None:
    built = build_tasks(app)
    assert built.summary.kinds.get("navigate") == 5
    index = json.loads(built.files["tasks.json"])
    assert {e["id"]: e["category"] for e in index["tasks"] if e["kind"] == "navigate"} == {
        "navigate_about": "navigation", "navigate_privacy_policy": "navigation",
        "navigate_licenses": "navigation", "navigate_help": "navigation",
        "navigate_settings": "navigation"}
    verify = load_verifier(built.files["verifiers/navigate_about.py"])
    sim = Simulator(app)
    check = next(c for c in built.checks if c.task.id == "navigate_about")
    sim.reset(check.instance.state)  # type: ignore[union-attr]
    for m in check.oracle.moves:  # type: ignore[union-attr]
        assert not verify(sim.read_state(), {}).passed
        sim.step(m.trace_action())
    assert verify(sim.read_state(), {}).passed


def test_the_bundled_example_keeps_navigate_tasks_through_the_env(notes: AppSpec,
                                                                   example_dir: Path) -> None:
    """Every screen of the example is one tap from its list: asked for two transitions at least
    it proposes none; by default its build keeps them, writes them out, and an env episode
    (whose reward reads the backend's state) solves them."""
    report = json.loads((example_dir / "report.json").read_text())
    assert report["tasks"]["kinds"]["navigate"] == 2
    assert not _navigate(notes, SynthConfig(nav_min_steps=2))
    tasks = list(_navigate(notes).values())
    checks = sanity.check_tasks(notes, tasks)
    kept = [c.task for c in checks if c.kept]
    assert {t.instruction for t in kept} == {'Open the "Settings" screen',
                                             'Open the "Edit note" screen'}
    files = task_files(notes, checks)
    assert sanity.summarize(checks).kinds == {"navigate": 2}
    for task in kept:
        source = files[f"verifiers/{task.id}.py"]
        assert load_verifier(source).source == render_verifier(task, notes)
        ep = run_task(notes, task, "oracle")
        target = task.rule.all_of[0].screen  # type: ignore[union-attr]
        assert ep.success and ep.final_screen == target, ep.reason


def _signed_in_app() -> AppSpec:
    """A sign-in page whose button opened the app only with one account, then Inbox -> Settings."""
    email = view("android.widget.EditText", b(40, 200, 1040, 320), id="email")
    sign_in = view(BUTTON, b(40, 400, 1040, 520), id="sign_in", text="Sign in", clickable=True)

    def login(text: str) -> Observation:
        return _page("LoginActivity", email.model_copy(update={"text": text}), sign_in,
                     heading="Welcome")

    return compile_app(traces(
        episode("e0", login("Email"), tap(sign_in), login("Email"), tap(email), login("Email"),
                type_("ann@x.org"), login("ann@x.org"), tap(sign_in), MAIN,
                tap(MAIN.root.children[1]), _settings(False)),
        episode("e1", login("cid@x.org"), tap(sign_in), login("cid@x.org")),
    )).spec


def _kept_behind_sign_in(kind: str, word: str) -> tuple[AppSpec, TaskSpec, Any]:
    """The signed-in app, its one synthesized `kind` task that mentions `word`, and that task's
    check: its parameter holds the one account that signs in, and the sanity check keeps it with
    the oracle typing that account once."""
    app = _signed_in_app()
    (task,) = [t for t in synthesize(app).tasks if t.kind() == kind and word in t.instruction]
    assert task.params["email"].choices == ("ann@x.org",)  # type: ignore[union-attr]
    (check,) = sanity.check_tasks(app, [task])
    assert check.kept, check.detail
    assert check.oracle is not None
    assert [m.kind for m in check.oracle.moves].count("type") == 1
    return app, task, check


def test_a_screen_behind_a_sign_in_says_what_to_type_and_the_oracle_types_it() -> None:
    app, task, check = _kept_behind_sign_in("navigate", "Settings")
    assert task.instruction == ('Open the "Settings" screen; on the way, type "{email}" into '
                                'the email field')
    assert check.end is not None and check.end["@screen"] == "s02_settings"
    assert sn.given_texts(app, {"email"})["s02_settings"] == (("email", "ann@x.org"),)
    assert sn.given_texts(app, {"email"})["s00_login"] == ()


def test_a_screen_that_typing_opens_is_reached_by_typing_anything() -> None:
    """The recording typed into a search field and the app moved on to its results: a task that
    asks only for a screen past it types a filler text there (it has none of its own), as the
    recording did; before, the oracle typed nothing and dropped every such task as unsolvable."""
    query = view("android.widget.EditText", b(40, 200, 1040, 320), id="query")

    def search(text: str) -> Observation:
        return _page("SearchActivity", query.model_copy(update={"text": text}),
                     heading="Search")

    results = _page("ResultsActivity", view(BUTTON, b(40, 300, 1040, 420), id="open_map",
                                            text="Map", clickable=True), heading="Results")
    map_page = _page("MapActivity", view(TEXT, b(40, 300, 1040, 400), text="Zoom"),
                     heading="Map view")
    app = compile_app(traces(episode(
        "e0", search("Search places"), type_("cafe"), results, tap(results.root.children[1]),
        map_page))).spec
    (task,) = [t for t in synthesize(app).tasks if t.instruction == 'Open the "Map view" screen']
    (check,) = sanity.check_tasks(app, [task])
    assert check.kept, check.detail
    assert check.oracle is not None
    assert [(m.kind, m.text) for m in check.oracle.moves][0] == ("type", ANY_TEXT)
    assert check.end is not None and check.end["@screen"] == "s02_map"


def test_a_question_about_what_a_sign_in_guards_says_what_to_type() -> None:
    """The Dark mode switch is shown only past the sign-in: the question says which account to
    type on the way, as the navigate task does, so the oracle reaches the switch and answers."""
    _, task, _ = _kept_behind_sign_in("answer", "Dark")
    assert task.instruction == ('Type "{email}" into the email field on the way, then answer: '
                                "Is Dark mode turned on?")


def test_a_setting_behind_a_sign_in_says_what_to_type() -> None:
    """A change made past the sign-in (the Dark mode switch) says which account to type on the
    way too: without it the oracle, typing only the task's own texts, never got past the
    sign-in and the task was dropped as unsolvable."""
    app, task, check = _kept_behind_sign_in("setting", "Turn on Dark")
    assert task.instruction == ('Turn on Dark mode; on the way, type "{email}" into the email '
                                'field')
    assert check.end is not None and check.end["dark"] is True
    bare = task.model_copy(update={"params": {}, "instruction": "Turn on Dark mode"})
    (unsolved,) = sanity.check_tasks(app, [bare])
    assert not unsolved.kept and unsolved.reason.startswith("oracle")


def test_a_change_that_types_into_the_sign_in_field_asks_nothing_more() -> None:
    """Typing into the account field itself is the task: no "on the way" clause names it, and
    it pairs with no task that types the account on the way (one field, two texts)."""
    app = _signed_in_app()
    tasks = synthesize(app).tasks
    fills = [t for t in tasks if t.kind() == "fill"]
    assert [t.instruction for t in fills] == ['Type "{text}" into the email field']
    assert not [t for t in tasks if t.kind() == "pair"]


def test_a_pair_behind_one_sign_in_says_the_way_once() -> None:
    on, off = (Draft("setting", f"x_{v}", f"Turn {v} X", [], targets=(f"x_{v}",)) for v in
               ("on", "off"))
    way = {"email": {"type": "text", "from": "choice", "choices": ["ann@x.org"]}}
    on, off = (replace(d, instruction=d.instruction + '; on the way, type "{email}" into the '
                       "email field", params=way, way=("email",)) for d in (on, off))
    both = combine(on, off)
    assert both is not None and both.params == way and both.way == ("email",)
    assert both.instruction == ('Turn on X; on the way, type "{email}" into the email field and '
                                "turn off X")
    assert combine(on, Draft("fill", "email", "Type", [], targets=("email",))) is None


# ----------------------------------------------------------------------------- pages of one layout


def _pages_app(privacy_title: str = "Privacy policy") -> AppSpec:
    """A start screen whose "Terms" and "Privacy" buttons open one document layout, titled by the
    document it shows ("Terms of use", "Privacy policy"): one screen whose title is a variable
    each opener sets."""
    terms = view(BUTTON, b(40, 300, 1040, 400), id="terms", text="Terms", clickable=True)
    privacy = view(BUTTON, b(40, 420, 1040, 520), id="privacy", text="Privacy", clickable=True)
    start = _page("MainActivity", terms, privacy, heading="Inbox")

    def doc(title: str, body: str) -> Observation:
        return _page("DocActivity", view(TEXT, b(40, 300, 1040, 900), id="body", text=body),
                     heading=title)

    return compile_app(traces(episode(
        "e0", start, tap(terms), doc("Terms of use", "You agree to"), back(), start,
        tap(privacy), doc(privacy_title, "We keep your data"), back(), start,
        tap(terms), doc("Terms of use", "You agree to")))).spec  # type: ignore[arg-type]


def test_each_page_a_title_the_opener_sets_names_is_a_task_that_checks_that_title() -> None:
    app = _pages_app()
    docs = [s for s in app.screens if s.activity and s.activity.endswith("DocActivity")]
    assert len(docs) == 1  # one layout: one screen, its title a variable
    var = sn.pages(app, docs[0], set(app.distances()), set())[0][1]
    tasks = {t.instruction: t for t in synthesize(app).tasks if t.kind() == "navigate"}
    assert set(tasks) == {'Open the "Terms of use" screen', 'Open the "Privacy policy" screen'}
    rule = tasks['Open the "Privacy policy" screen'].rule.model_dump(exclude_defaults=True)
    assert rule["all_of"][:2] == (
        {"screen": docs[0].id}, {"equals": {"var": var, "value": "Privacy policy"}})
    checks = sanity.check_tasks(app, list(tasks.values()))
    assert all(c.kept for c in checks), [c.detail for c in checks]
    for c in checks:  # the oracle opens the page the task names, with one tap
        assert c.end is not None and c.end[var] == c.task.instruction.split('"')[1]
        assert c.oracle is not None and len(c.oracle.moves) == 1
    verify = compile_verifier(tasks['Open the "Privacy policy" screen'], app)
    on_terms = {**app.initial_state, "@screen": docs[0].id, var: "Terms of use"}
    assert not verify(on_terms, {}).passed  # the other page of the same screen


def test_a_page_title_that_is_data_or_an_action_names_no_page() -> None:
    app = _pages_app(privacy_title="OK")
    doc = next(s for s in app.screens if s.activity and s.activity.endswith("DocActivity"))
    reachable = set(app.distances())
    assert [n for n, _ in sn.pages(app, doc, reachable, set())] == ["Terms of use"]
    assert sn.pages(app, doc, reachable, {"terms of use"}) == []  # a record's value: data
