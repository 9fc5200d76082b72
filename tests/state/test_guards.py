"""`state`: guards, conditions on the state before a step that tell its recorded outcomes apart."""

from __future__ import annotations

from phoneworld.ir.app import (
    AppendEffect, Guard, ItemField, Lit, RecordRef, SetEffect, ToggleEffect, Var, VarRef,
)
from phoneworld.ir.trace import Observation
from phoneworld.runtime.sim import Simulator
from tests.compiler_support import (
    BUTTON, CHECKBOX, EDIT, TEXT, W, b, back, compile_app, episode, on_row, row_list, screen, tap,
    traces, type_, view,
)
from tests.state.notes import ADD, SAVE, editor, home, rules_for


def test_save_acts_only_when_the_title_is_not_empty() -> None:
    model = compile_app(traces(episode(
        "e0", home("a"), tap(ADD), editor(), tap(SAVE), editor(), type_("b"), editor("b"),
        tap(SAVE), home("a", "b"),
    ))).model
    guarded, otherwise = rules_for(model, "s01_editor", "click", "save")
    assert guarded.guard == Guard(op="nonempty", left=Var(name="title_input"))
    assert guarded.effects == (
        AppendEffect(collection="notes", record={"title": Var(name="title_input")}),)
    assert (guarded.target, guarded.nav) == ("s00_main", "pop")
    assert (otherwise.guard, otherwise.effects, otherwise.target, otherwise.nav) == (
        None, (), None, "stay")
    assert model.dropped == ()


ADDED = "s00_main:click:add"
OPENED = "s00_main:click:row"


def test_save_appends_after_add_and_renames_after_edit() -> None:
    model = compile_app(traces(
        episode("e0", home("a"), tap(ADD), editor(), type_("b"), editor("b"), tap(SAVE),
                home("a", "b")),
        episode("e1", home("a", "b"), on_row(0), editor("a"), type_("z"), editor("z"),
                tap(SAVE), home("z", "b")),
    )).model
    entered = next(v for v in model.variables if v.name == "entered_editor")
    assert entered.kind == "text"
    # Entering the editor records how.
    for widget, label in (("add", ADDED), ("row", OPENED)):
        (rule,) = rules_for(model, "s00_main", "click", widget)
        assert SetEffect(ref=VarRef(name="entered_editor"), value=Lit(value=label)) in rule.effects
    after_add, after_edit = rules_for(model, "s01_editor", "click", "save")
    assert after_add.guard == Guard(op="eq", left=Var(name="entered_editor"),
                                    right=Lit(value=ADDED))
    assert after_add.effects == (
        AppendEffect(collection="notes", record={"title": Var(name="title_input")}),)
    assert after_edit.guard is None
    assert after_edit.effects == (SetEffect(
        ref=RecordRef(collection="notes", target="selected", field="title"),
        value=Var(name="title_input")),)
    assert {(r.target, r.nav) for r in (after_add, after_edit)} == {("s00_main", "pop")}


def test_one_screen_entered_one_way_needs_no_entry_variable() -> None:
    model = compile_app(traces(episode(
        "e0", home("a"), tap(ADD), editor(), type_("b"), editor("b"), tap(SAVE), home("a", "b"),
    ))).model
    assert not any(v.name.startswith("entered_") for v in model.variables)
    (save,) = rules_for(model, "s01_editor", "click", "save")
    assert save.guard is None


def test_a_flag_guards_a_button_that_acts_only_when_it_is_on() -> None:
    go = view(BUTTON, b(40, 400, 520, 520), id="go", text="Count", clickable=True)

    def panel(on: bool, taps: int) -> Observation:
        return screen(view(CHECKBOX, b(40, 200, 1040, 320), id="armed", checkable=True,
                           clickable=True, checked=on),
                      go.model_copy(update={"text": f"{taps} taps"}))

    model = compile_app(traces(episode(
        "e0", panel(False, 0), tap(go), panel(False, 0), tap(go), panel(False, 0),
        tap(panel(False, 0).root.children[0]), panel(True, 0), tap(go), panel(True, 1),
        tap(go), panel(True, 2),
    ))).model
    assert rules_for(model, "s00_main", "click", "armed")[0].effects == (
        ToggleEffect(ref=VarRef(name="armed")),)
    on, off = rules_for(model, "s00_main", "click", "go")
    assert on.guard == Guard(op="true", left=Var(name="armed"))
    assert [e.kind for e in on.effects] == ["add"]
    assert (off.guard, off.effects) == (None, ())


SYNC = view(BUTTON, b(40, 400, 520, 520), id="sync", text="Sync", clickable=True)
GEAR = view(BUTTON, b(560, 400, 1040, 520), id="gear", text="Settings", clickable=True)
TEST = view(BUTTON, b(40, 400, 520, 520), id="test", text="Test", clickable=True)


def test_a_guard_never_reads_what_the_step_itself_records() -> None:
    home = screen(view(TEXT, b(0, 0, W, 150), id="header", text="Home"), SYNC, GEAR)
    error = screen(view(TEXT, b(0, 0, W, 150), id="msg", text="Offline"),
                   activity=".ErrorActivity")
    settings = screen(view(TEXT, b(0, 0, W, 150), id="version", text="v1"), TEST,
                      activity=".SettingsActivity")
    model = compile_app(traces(
        episode("e0", home, tap(SYNC), home, tap(SYNC), error),  # Sync fails once in three
        episode("e1", home, tap(SYNC), home, tap(GEAR), settings, tap(TEST), error),
    )).model
    syncs = rules_for(model, "s00_main", "click", "sync")
    assert [r.guard for r in syncs] == [None]
    assert len(model.dropped) == 1


def test_a_guard_that_tells_apart_only_some_steps_keeps_every_step_the_majority_gets_right(
) -> None:
    go = view(BUTTON, b(40, 400, 520, 520), id="go", text="Go", clickable=True)

    def panel(on: bool) -> Observation:
        return screen(view(CHECKBOX, b(40, 200, 1040, 320), id="armed", checkable=True,
                           clickable=True, checked=on), go)

    error = screen(view(TEXT, b(0, 0, W, 150), id="msg", text="Offline"),
                   activity=".ErrorActivity")
    # Go fails whenever armed, and once in four when not: nothing tells that one apart.
    model = compile_app(traces(
        episode("e0", panel(False), tap(go), panel(False), tap(go), panel(False), tap(go),
                panel(False), tap(go), error),
        episode("e1", panel(False), tap(panel(False).root.children[0]), panel(True), tap(go),
                error),
    )).model
    armed, otherwise = rules_for(model, "s00_main", "click", "go")
    assert (armed.guard, armed.target, armed.support) == (
        Guard(op="true", left=Var(name="armed")), "s01_error", 1)
    assert (otherwise.guard, otherwise.target, otherwise.nav, otherwise.support) == (
        None, None, "stay", 3)
    assert len(model.dropped) == 1


def test_which_entry_of_a_menu_was_tapped_decides_where_it_leads() -> None:
    menu = screen(row_list("Edit", "Delete", "Share", list_id="menu"), activity=".MenuActivity")
    share = screen(view(TEXT, b(0, 0, W, 150), id="chooser", text="Share with"),
                   activity=".ShareActivity")
    compiled = compile_app(traces(
        episode("e0", home("a"), tap(ADD), menu, on_row(0), editor()),
        episode("e1", home("a"), tap(ADD), menu, on_row(1), home()),
        episode("e2", home("a"), tap(ADD), menu, on_row(0), editor()),
        episode("e3", home("a"), tap(ADD), menu, on_row(2), share),
    ))
    ids = {s.activity.rsplit(".", 1)[-1]: s.id for s in compiled.spec.screens}
    rows = rules_for(compiled.model, ids["MenuActivity"], "click", "row")
    assert all(r.guard is None or r.guard.left == ItemField(field="title") for r in rows)
    assert len(rows) == 3 and compiled.model.dropped == ()
    for k, where in enumerate(("EditorActivity", "MainActivity", "ShareActivity")):
        sim = Simulator(compiled.spec)
        sim.reset()
        sim.step(tap(ADD))
        sim.step(on_row(k))
        assert sim.screen == ids[where]


def test_a_tap_recorded_as_changing_nothing_does_not_hide_which_entry_decides() -> None:
    """DroidBot reads some screens before the app drew the change: a tap on "Delete" then reads
    as staying on the menu, nothing changed. Those steps are set aside (outvoted) when a
    condition on the tapped entry tells every step that did something apart; before, the entry
    decided nothing and every tap on the menu opened the editor."""
    menu = screen(row_list("Edit", "Delete", list_id="menu"), activity=".MenuActivity")
    compiled = compile_app(traces(
        episode("e0", home("a"), tap(ADD), menu, on_row(0), editor()),
        episode("e1", home("a"), tap(ADD), menu, on_row(1), home()),
        episode("e2", home("a"), tap(ADD), menu, on_row(0), editor()),
        episode("e3", home("a"), tap(ADD), menu, on_row(1), menu),  # read too early
        episode("e4", home("a"), tap(ADD), menu, on_row(1), home()),
        episode("e5", home("a"), tap(ADD), menu, on_row(0), menu),  # read too early
        episode("e6", home("a"), tap(ADD), menu, on_row(0), editor()),
    ))
    ids = {s.activity.rsplit(".", 1)[-1]: s.id for s in compiled.spec.screens}
    rows = rules_for(compiled.model, ids["MenuActivity"], "click", "row")
    assert {r.target for r in rows} == {ids["EditorActivity"], ids["MainActivity"]}
    assert all(r.guard is None or r.guard.left == ItemField(field="title") for r in rows)
    assert sorted(compiled.model.outvoted) == [(3, 1), (5, 1)]
    for k, where in enumerate(("EditorActivity", "MainActivity")):
        sim = Simulator(compiled.spec)
        sim.reset()
        sim.step(tap(ADD))
        sim.step(on_row(k))
        assert sim.screen == ids[where]
    # a stay that outnumbers the steps that did something is no lag: nothing is set aside
    stays = compile_app(traces(
        episode("e0", home("a"), tap(ADD), menu, on_row(1), home()),
        episode("e1", home("a"), tap(ADD), menu, on_row(1), menu),
        episode("e2", home("a"), tap(ADD), menu, on_row(1), menu),
        episode("e3", home("a"), tap(ADD), menu, on_row(0), editor()),
    ))
    assert not any(r.guard is not None and r.target == ids["MainActivity"]
                   for r in rules_for(stays.model, ids["MenuActivity"], "click", "row"))


def test_what_a_field_held_decides_but_for_steps_that_changed_nothing() -> None:
    """The field shows its hint "Title" while empty (as older Android reports it), so only what
    it held tells a Save that adds a note (any title) from one that does nothing (the hint). One
    Save with a title typed read as staying put (read too early): the stays then outnumbered the
    saves and no note was ever added in the mock. A field's text that tells one outcome from all
    others but for steps that changed nothing decides."""
    def add(k: int, title: str, then: Observation):  # type: ignore[no-untyped-def]
        return episode(f"e{k}", home("a"), tap(ADD), editor("Title"), type_(title),
                       editor(title), tap(SAVE), then)

    compiled = compile_app(traces(
        add(0, "b", home("a", "b")), add(1, "c", home("a", "c")), add(2, "d", home("a", "d")),
        add(3, "e", editor("e")),  # read too early
        *(episode(f"h{k}", home("a"), tap(ADD), editor("Title"), tap(SAVE), editor("Title"))
          for k in range(3)),
    ))
    saves = rules_for(compiled.model, "s01_editor", "click", "save")
    assert saves[0].guard == Guard(op="ne", left=Var(name="title_input"), right=Lit(value="Title"))
    assert (saves[0].target, [e.kind for e in saves[0].effects]) == ("s00_main", ["append"])
    sim = Simulator(compiled.spec)
    sim.reset()
    sim.step(tap(ADD))
    sim.step(tap(SAVE))
    assert sim.screen == "s01_editor"
    sim.step(type_("z"))
    sim.step(tap(SAVE))
    assert sim.screen == "s00_main"
    assert [r["title"] for r in sim.state["notes"]] == ["a", "z"]


EMAIL = view(EDIT, b(40, 200, 1040, 320), id="email")
SIGN_IN = view(BUTTON, b(40, 400, 520, 520), id="sign_in", text="Sign in", clickable=True)
CLOSE = view(BUTTON, b(560, 400, 1040, 520), id="close", text="Close", clickable=True)


def _form(email: str) -> Observation:
    return screen(EMAIL.model_copy(update={"text": email}), SIGN_IN, CLOSE,
                  activity=".LoginActivity")


def test_a_sign_in_that_worked_with_one_account_is_guarded_by_that_account() -> None:
    inbox = screen(view(TEXT, b(0, 0, W, 150), id="title", text="Inbox"),
                   activity=".InboxActivity")
    model = compile_app(traces(
        episode("e0", _form("bob@x.org"), tap(SIGN_IN), _form("bob@x.org"), tap(EMAIL),
                _form("bob@x.org"), type_("ann@x.org"), _form("ann@x.org"), tap(SIGN_IN), inbox),
        episode("e1", _form("cid@x.org"), tap(SIGN_IN), _form("cid@x.org")),
    )).model
    signed, otherwise = rules_for(model, "s00_login", "click", "sign_in")
    assert signed.guard == Guard(op="eq", left=Var(name="email"), right=Lit(value="ann@x.org"))
    assert (signed.target, otherwise.guard, otherwise.target) == ("s01_inbox", None, None)
    assert model.dropped == ()


def test_an_outcome_no_one_text_tells_apart_is_not_learned_text_by_text() -> None:
    """Close went back with two texts and stayed with two others: a guard per text would only
    memorise the recording, so the minority outcome is dropped as before."""
    inbox = screen(view(TEXT, b(0, 0, W, 150), id="title", text="Inbox"),
                   activity=".InboxActivity")
    steps = []
    for k, (text, leaves) in enumerate((("a@x.org", True), ("b@x.org", False),
                                        ("c@x.org", True), ("d@x.org", False),
                                        ("e@x.org", False))):
        steps.append(episode(f"e{k}", _form(text), tap(CLOSE), inbox if leaves else _form(text)))
    model = compile_app(traces(*steps)).model
    (close,) = rules_for(model, "s00_login", "click", "close")
    assert close.guard is None
    assert len(model.dropped) == 1


def test_no_guard_reads_a_text_no_screen_had_shown_yet() -> None:
    # "Go" went to the first page once and to the second after the profile page had shown a
    # name (each time from the home screen as entered back from help): before the profile was
    # first shown the tracked name is its default, not what the app held, so "the name is empty"
    # tells nothing (with it the reset app, which has the name as first shown, would take the
    # second branch at once)
    go = view(BUTTON, b(0, 300, W, 480), id="go", text="Go", clickable=True)
    profile = view(BUTTON, b(0, 500, W, 680), id="profile", text="Profile", clickable=True)
    help_ = view(BUTTON, b(0, 700, W, 880), id="help", text="Help", clickable=True)
    home = screen(go, profile, help_)
    helped = (tap(help_), screen(view(TEXT, b(0, 0, W, 150), id="title", text="Help"),
                                 activity=".HelpActivity"), back(), home)

    def name(text: str) -> Observation:
        return screen(view(TEXT, b(0, 0, W, 150), id="name", text=text),
                      activity=".ProfileActivity")

    def page(n: int) -> Observation:
        return screen(view(TEXT, b(0, 0, W, 150), id="title", text=f"Page {n}"),
                      activity=f".Page{n}Activity")

    c = compile_app(traces(episode(
        "e0", home, *helped, tap(go), page(1), back(), home, tap(profile), name("Bob"), back(),
        home, *helped, tap(go), page(2), back(), home, tap(profile), name("Ann"), back(), home,
        *helped, tap(go), page(2),
    )))
    gos = [t for t in c.spec.transitions if t.widget == "go"]
    assert [t.guard for t in gos] == [None], [t.guard for t in gos]
    assert any("no state condition tells them apart" in d for d in c.model.dropped)
