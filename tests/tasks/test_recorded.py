"""A session recorded for an instruction is a task (LlamaTouch's instruction.txt, a native
episode's `instruction`): the instruction as recorded, the goal where the session ended as the
app replays it: its last screen and what it changed.

Before: the instruction was read and dropped; trace_7 ("delete location history") had no task
saying so."""

from __future__ import annotations

from phoneworld.ir.trace import Episode, Observation
from phoneworld.state.track import Tracked
from phoneworld.tasks.build import build_tasks
from phoneworld.tasks.recorded import Goal, recorded_goals
from phoneworld.tasks.synthesis import SynthConfig, synthesize
from tests.compiler_support import (
    BUTTON, CHECKBOX, EDIT, LINEAR, TEXT, b, back, compile_app, episode, on_row, row_list, screen,
    tap, traces, type_, view,
)

SETTINGS = view(BUTTON, b(40, 300, 1040, 450), id="settings", text="Settings", clickable=True)
BOX = b(40, 300, 1040, 450)


def home() -> Observation:
    return screen(view(TEXT, b(40, 60, 800, 160), id="title", text="Home"), SETTINGS)


def settings(dark: bool) -> Observation:
    return screen(view(TEXT, b(40, 60, 800, 160), id="title", text="Settings"),
                  view(CHECKBOX, BOX, id="dark", text="Dark mode", checkable=True,
                       clickable=True, checked=dark), activity=".SettingsActivity")


def recording(instruction: str | None, first: Observation | None = None) -> Episode:
    ep = episode("e0", first or home(), tap(SETTINGS), settings(False), tap(view(CHECKBOX, BOX)),
                 settings(True), back(), home())
    return ep.model_copy(update={"instruction": instruction})


def explore() -> Episode:
    return episode("e1", home(), tap(SETTINGS), settings(False), tap(view(CHECKBOX, BOX)),
                   settings(True), tap(view(CHECKBOX, BOX)), settings(False), back(), home())


def test_a_recorded_instruction_is_a_task_solved_as_recorded() -> None:
    compiled = compile_app(traces(recording("turn on dark mode"), explore()))
    (goal,) = recorded_goals(compiled.spec, compiled.traces, compiled.abstraction)
    assert goal.instruction == "turn on dark mode"
    assert goal.screen == compiled.spec.start_screen and goal.after == {"dark": True}
    built = build_tasks(compiled.spec, goals=(goal,))
    (check,) = [c for c in built.checks if "recorded" in c.task.tags]
    assert check.task.instruction == "Turn on dark mode" and check.kept
    assert check.oracle is not None and len(check.oracle.moves) == 3  # Settings, the box, back


def test_only_sessions_with_an_instruction_from_the_start_screen_count() -> None:
    compiled = compile_app(traces(recording(None), explore()))
    assert recorded_goals(compiled.spec, compiled.traces, compiled.abstraction) == []
    midway = episode("e2", settings(False), tap(view(CHECKBOX, BOX)), settings(True))
    compiled = compile_app(traces(explore(), midway.model_copy(update={"instruction": "x"})))
    assert recorded_goals(compiled.spec, compiled.traces, compiled.abstraction) == []


def test_a_goal_walking_reaches_is_kept_only_as_what_it_asks() -> None:
    """A session that changed nothing asks for its last screen only: the sanity check keeps it
    as that (an instruction that says more than the recording shows is the recorder's)."""
    look = episode("e2", home(), tap(SETTINGS), settings(False)).model_copy(
        update={"instruction": "open the settings"})
    compiled = compile_app(traces(look, explore()))
    (goal,) = recorded_goals(compiled.spec, compiled.traces, compiled.abstraction)
    assert goal.after == {} and goal.screen != compiled.spec.start_screen
    (check,) = [c for c in build_tasks(compiled.spec, goals=(goal,)).checks
                if "recorded" in c.task.tags]
    assert check.kept and check.task.instruction == "Open the settings"
    assert check.task.rule.model_dump(exclude_none=True)["all_of"][0] == {"screen": goal.screen}


def test_a_session_that_goes_on_starts_where_the_one_before_left_the_app() -> None:
    """The second session switched Dark mode off, which the first had switched on: from the
    app's initial state (off) its goal would be met before it starts; from the state the first
    left (as training replay tracks it, `tracked`) it asks for the switch back off."""
    off = episode("e1", home(), tap(SETTINGS), settings(True), tap(view(CHECKBOX, BOX)),
                  settings(False), back(), home())
    compiled = compile_app(traces(recording("turn on dark mode"),
                                  off.model_copy(update={"instruction": "Turn Dark Mode off"})))
    goals = recorded_goals(compiled.spec, compiled.traces, compiled.abstraction,
                           tracked=[[], [Tracked(state={"dark": True}, stack=())]])
    assert [(g.before, g.after) for g in goals] == [({"dark": False}, {"dark": True}),
                                                    ({"dark": True}, {"dark": False})]
    checks = [c for c in build_tasks(compiled.spec, goals=tuple(goals)).checks
              if "recorded" in c.task.tags]
    assert [(c.task.instruction, c.task.initial_state.get("dark"), c.kept) for c in checks] == [
        ("Turn on dark mode", None, True), ("Turn Dark Mode off", True, True)]


def test_a_session_cut_in_two_gives_no_task() -> None:
    """The held-out split keeps a session's tail for the fidelity figures ("... and add a note":
    the head ends in the editor, before Save): the head is no whole session, and asks for
    nothing (without the tail it would give one)."""
    head = episode("e0", home(), tap(SETTINGS), settings(False), tap(view(CHECKBOX, BOX)),
                   settings(True)).model_copy(update={"instruction": "turn on dark mode"})
    tail = episode("e0#heldout", settings(True), back(), home()).model_copy(
        update={"instruction": "turn on dark mode", "follows": "e0"})
    compiled = compile_app(traces(head, explore()))
    assert recorded_goals(compiled.spec, compiled.traces, compiled.abstraction,
                          others=traces(tail)) == []
    assert len(recorded_goals(compiled.spec, compiled.traces, compiled.abstraction)) == 1


FIELD = b(40, 200, 800, 300)
GO = view(BUTTON, b(820, 200, 1040, 300), id="go", text="Search", clickable=True)


def search(typed: str = "", focused: bool = False) -> Observation:
    return screen(view(TEXT, b(40, 60, 800, 160), id="title", text="Home"),
                  view(EDIT, FIELD, id="query", text=typed, clickable=True, focusable=True,
                       focused=focused), GO, SETTINGS)


def results() -> Observation:
    return screen(view(TEXT, b(40, 60, 800, 160), id="title", text="Results"),
                  activity=".ResultsActivity")


def test_a_text_the_instruction_says_in_another_case_is_asked_for_as_said() -> None:
    """LlamaTouch's instructions are often lower case ("search for hotels in paris") where the
    text was typed "Hotels in Paris": the goal asks for the text as the instruction says it
    (the verifier compares texts in any case), so the oracle types what an agent reading the
    instruction would. Before: the text counted as not said, and any search passed."""
    ep = episode("e0", search(), tap(view(EDIT, FIELD)), search(focused=True),
                 type_("Hotels  in Paris"), search("Hotels  in Paris", focused=True), tap(GO),
                 results()).model_copy(update={"instruction": "search for hotels in paris"})
    other = episode("e1", search(), tap(view(EDIT, FIELD)), search(focused=True),
                    type_("museums"), search("museums", focused=True), tap(GO), results(),
                    back(), search("museums"))
    compiled = compile_app(traces(ep, other))
    (goal,) = recorded_goals(compiled.spec, compiled.traces, compiled.abstraction)
    (check,) = [c for c in build_tasks(compiled.spec, goals=(goal,)).checks
                if "recorded" in c.task.tags]
    assert check.task.instruction == "Search for {text1}"
    assert check.task.params["text1"].model_dump()["choices"] == ("hotels in paris",)
    clauses = check.task.rule.model_dump(exclude_none=True)["all_of"]
    assert list(clauses[:2]) == [{"screen": goal.screen},
                                 {"equals": {"var": "query", "answer": False,
                                             "value": {"param": "text1"}}}]
    assert check.kept and check.oracle is not None
    assert ("type", "hotels in paris") in [(m.kind, m.text) for m in check.oracle.moves]


TODO = ("Book flights to Lisbon", "Renew passport", "Water the garden")


def todos(*done: bool) -> Observation:
    return screen(view(TEXT, b(40, 60, 800, 160), id="heading", text="To do"),
                  row_list(*TODO, checked=done))


def test_an_instruction_naming_a_record_by_a_word_only_it_has_names_it() -> None:
    """"Flights are done" says only part of "Book flights to Lisbon", the one record with the
    word "flights": the goal names it, so ticking another record fails. Before: the record was
    unnamed, the list pinned by its counts only, and ticking any record passed (rejected as
    gameable)."""
    ep = episode("e0", todos(False, False, False), on_row(0, 970),
                 todos(True, False, False)).model_copy(update={"instruction": "Flights are done"})
    other = episode("e1", todos(True, False, False), on_row(1, 970), todos(True, True, False),
                    on_row(2, 970), todos(True, True, True), on_row(1, 970),
                    todos(True, False, True), on_row(0, 970), todos(False, False, True),
                    on_row(2, 970), todos(False, False, False))
    compiled = compile_app(traces(ep, other))
    (goal,) = recorded_goals(compiled.spec, compiled.traces, compiled.abstraction)
    (check,) = [c for c in build_tasks(compiled.spec, goals=(goal,)).checks
                if "recorded" in c.task.tags]
    rule = str(check.task.rule.model_dump(exclude_none=True))
    assert "'title': 'Book flights to Lisbon', 'done': True" in rule
    assert check.kept, check.reason


def test_a_session_the_app_replays_astray_on_the_way_gives_no_task() -> None:
    """The app learned that Settings opens the settings (two sessions against one); the session
    recorded for the instruction saw a sign-in screen there instead, and went back home. Its
    replay ends on the recorded last screen, but on the way it was elsewhere: its goal would be
    another session's. Before: only the last screen was compared, and it gave a task."""
    sign_in = screen(view(TEXT, b(40, 60, 800, 160), id="title", text="Sign in"),
                     activity=".SignInActivity")
    odd = episode("e0", home(), tap(SETTINGS), sign_in, back(), home()).model_copy(
        update={"instruction": "look at the sign-in screen"})
    usual = [episode(f"e{k}", home(), tap(SETTINGS), settings(False), back(), home())
             for k in (1, 2)]
    compiled = compile_app(traces(odd, *usual))
    assert recorded_goals(compiled.spec, compiled.traces, compiled.abstraction) == []


def test_every_recorded_instruction_is_proposed_past_the_per_kind_cap() -> None:
    """The per-kind cap keeps synthesized kinds varied; a recorded instruction is what the user
    asked for (a dataset may hold dozens for one app), so none is dropped by it. Before: past
    `max_per_kind` recorded sessions were "over the per-kind cap"."""
    compiled = compile_app(traces(recording("turn on dark mode"), explore()))
    (goal,) = recorded_goals(compiled.spec, compiled.traces, compiled.abstraction)
    look = Goal("open the settings", compiled.spec.transitions[0].target or "")
    assert look.screen and look.screen != compiled.spec.start_screen
    made = synthesize(compiled.spec, SynthConfig(max_per_kind=1), goals=(goal, look))
    assert [t.instruction for t in made.tasks if "recorded" in t.tags] == [
        "Turn on dark mode", "Open the settings"]


def menu(y: int) -> Observation:
    """A popup with Rename and Delete, drawn at `y` (under the row whose menu opened it)."""
    return screen(view(LINEAR, b(600, y, 1040, y + 240),
                       view(BUTTON, b(600, y, 1040, y + 120), id="rename", text="Rename",
                            clickable=True),
                       view(BUTTON, b(600, y + 120, 1040, y + 240), id="delete", text="Delete",
                            clickable=True), id="popup"), activity=None)


def renamer() -> Observation:
    return screen(view(TEXT, b(40, 60, 800, 160), id="title", text="Rename"),
                  activity=".RenameActivity")


def test_a_recorded_tap_lands_where_the_app_draws_its_widget() -> None:
    """A popup opens under the control that opened it: the app draws it where it first saw it
    (y 300), while the session opened it lower (y 900) and tapped Rename there. The replay taps
    Rename where the app draws it, as the fidelity replay does. Before: the tap at y 960 hit
    nothing in the app's popup, the replay went astray, and the session gave no task."""
    MORE = view(BUTTON, b(900, 200, 1040, 280), id="more", desc="More", clickable=True)
    LOWER = view(BUTTON, b(900, 800, 1040, 880), id="more", desc="More", clickable=True)

    def home2(lower: bool = False) -> Observation:
        return screen(view(TEXT, b(40, 60, 800, 160), id="title", text="Home"),
                      LOWER if lower else MORE)

    seen = episode("e1", home2(), tap(MORE), menu(300),
                   tap(view(BUTTON, b(600, 300, 1040, 420))), renamer(), back(), home2(),
                   tap(MORE), menu(300),
                   tap(view(BUTTON, b(600, 420, 1040, 540))), home2())
    asked = episode("e0", home2(lower=True), tap(LOWER), menu(900),
                    tap(view(BUTTON, b(600, 900, 1040, 1020))), renamer()).model_copy(
        update={"instruction": "start renaming"})
    compiled = compile_app(traces(seen, asked))
    steps = compiled.graph.steps
    assert recorded_goals(compiled.spec, compiled.traces, compiled.abstraction) == []
    (goal,) = recorded_goals(compiled.spec, compiled.traces, compiled.abstraction, steps=steps)
    assert goal.screen == next(s.id for s in compiled.spec.screens
                               if "Rename" in (s.activity or ""))


def test_a_session_whose_change_the_replay_does_not_show_gives_no_task() -> None:
    """The instruction's session turned "Not synced yet" into "Synced"; in the two others the
    same tap changed nothing, and the app learned that. Its replay ends on the right screen
    having changed nothing the recording shows changed: the goal would ask for none of what
    the session did. Before: the end screen alone made the goal (the screen, nothing else)."""
    SYNC = view(BUTTON, b(40, 300, 1040, 450), id="sync", text="Sync", clickable=True)

    def page(note: str = "Not synced yet") -> Observation:
        return screen(view(TEXT, b(40, 60, 800, 160), id="title", text="Home"), SYNC,
                      view(TEXT, b(40, 500, 800, 600), id="note", text=note))

    asked = episode("e0", page(), tap(SYNC), page("Synced")).model_copy(
        update={"instruction": "sync the data"})
    others = [episode(f"e{k}", page(), tap(SYNC), page(), tap(SYNC), page()) for k in (1, 2)]
    compiled = compile_app(traces(asked, *others))
    assert [t.effects for t in compiled.spec.transitions] == [()]  # the tap changes nothing
    assert recorded_goals(compiled.spec, compiled.traces, compiled.abstraction) == []
