"""Task kinds on small hand-made apps: a checkbox's way back, lists that grow or shrink with
nothing typed, fields whose text another screen copies, fields that read alike on one screen,
bulk clears and unticks."""

from __future__ import annotations

from phoneworld.ir.app import AppSpec, RemoveEffect
from phoneworld.ir.trace import Observation
from phoneworld.runtime.sim import Simulator
from phoneworld.tasks import naming as nm
from phoneworld.tasks import params
from phoneworld.tasks import sanity
from phoneworld.tasks.spec import TaskSpec
from phoneworld.tasks.synthesis import synthesize
from tests.compiler_support import (
    BUTTON, CHECKBOX, EDIT, LINEAR, RECYCLER, TEXT, W, b, click, compile_app, episode, on_row,
    row_list, screen, tap, traces, type_, view,
)

IMAGE = "android.widget.ImageView"


def _kept(app: AppSpec) -> dict[str, TaskSpec]:
    checks = sanity.check_tasks(app, synthesize(app).tasks)
    return {c.task.id: c.task for c in checks if c.kept}


def _fill_instructions(app: AppSpec) -> list[str]:
    return sorted(t.instruction for t in _kept(app).values() if t.kind() == "fill")


def _checkbox_app() -> AppSpec:
    def settings(on: bool) -> Observation:
        return screen(view(CHECKBOX, b(40, 200, 1040, 320), id="wifi", text="Wi-Fi only",
                           checkable=True, clickable=True, checked=on),
                      activity=".SettingsActivity")

    return compile_app(traces(episode(
        "e0", settings(False), click(500, 250), settings(True), click(500, 250), settings(False),
    ))).spec


def test_a_checkbox_is_checked_and_also_cleared_from_a_seeded_start() -> None:
    kept = _kept(_checkbox_app())
    on, off = kept["setting_wi_fi_only_on"], kept["setting_wi_fi_only_off"]
    assert (on.instruction, on.initial_state) == ('Check "Wi-Fi only"', {})
    assert (off.instruction, off.initial_state) == ('Uncheck "Wi-Fi only"', {"wifi": True})


def test_a_radio_button_is_not_cleared() -> None:
    raw = _checkbox_app().model_dump_json().replace("android.widget.CheckBox",
                                                    "android.widget.RadioButton")
    ids = {t.id for t in synthesize(AppSpec.model_validate_json(raw)).tasks}
    assert "setting_wi_fi_only_on" in ids and "setting_wi_fi_only_off" not in ids


def _storage_app(eject: bool = True) -> AppSpec:
    """Two storage boxes: "Switch storage" swaps them, "Eject" (recorded unless `eject` is
    False) clears "Internal" alone, and each box can also be ticked on its own."""
    def storage(internal: bool, sd: bool) -> Observation:
        return screen(
            view(CHECKBOX, b(40, 200, 1040, 320), id="internal", text="Internal",
                 checkable=True, clickable=True, checked=internal),
            view(CHECKBOX, b(40, 400, 1040, 520), id="sd", text="SD Card", checkable=True,
                 clickable=True, checked=sd),
            view(BUTTON, b(40, 1500, 1040, 1620), id="eject", text="Eject", clickable=True),
            view(BUTTON, b(40, 1700, 1040, 1820), id="swap", text="Switch storage",
                 clickable=True), activity=".StorageActivity")

    ejects = (storage(True, False), click(500, 1560), storage(False, False), click(500, 1560))
    return compile_app(traces(episode(
        "e0", *(ejects if eject else ()), storage(True, False), click(500, 1750),
        storage(False, True), click(500, 1750), storage(True, False),
    ))).spec


def _rule(task: TaskSpec) -> list[dict[str, object]]:
    clauses = getattr(task.rule, "all_of", (task.rule,))
    return [c.model_dump(exclude_none=True, exclude_defaults=True) for c in clauses]


def test_a_flag_swapped_with_a_neighbour_pins_the_neighbour_where_the_swap_leaves_it() -> None:
    app = _storage_app()
    checks = {c.task.id: c for c in sanity.check_tasks(app, synthesize(app).tasks)}
    on = checks["setting_sd_card_on"]
    # ticking "SD Card" alone and then ejecting "Internal" is a state the rule must decide: the
    # swap leaves "Internal" cleared, so the rule asks for that, and no near miss passes
    assert on.kept, on.detail
    assert {"equals": {"var": "internal", "value": False}} in _rule(on.task)
    assert not any(c.reason == sanity.GAMEABLE for c in checks.values())


def test_a_neighbour_only_ever_moved_with_the_flag_stays_unpinned() -> None:
    on = next(t for t in synthesize(_storage_app(eject=False)).tasks
              if t.id == "setting_sd_card_on")
    assert not any("internal" in str(c) for c in _rule(on))


ADD = view(BUTTON, b(40, 1700, 1040, 1820), id="add", text="Add photo", clickable=True)


def gallery(n: int) -> Observation:
    """A title and a list of `n` image rows (nothing in a row has text), each with a remove
    button, and an "Add photo" button."""
    rows = []
    for k in range(n):
        y = 300 + k * 200
        rows.append(view(LINEAR, b(0, y, W, y + 200),
                         view(IMAGE, b(40, y + 20, 600, y + 180), id="thumb"),
                         view(BUTTON, b(700, y + 40, 860, y + 160), id="remove", desc="Remove",
                              clickable=True), id="row"))
    return screen(view(TEXT, b(40, 100, 1040, 200), id="title", text="Photos"),
                  view(RECYCLER, b(0, 300, W, 1600), *rows, id="photos", scrollable=True), ADD)


def test_a_list_that_grows_and_shrinks_with_nothing_typed_gets_create_and_delete() -> None:
    app = compile_app(traces(episode(
        "e0", gallery(2), tap(ADD), gallery(3), tap(ADD), gallery(4), click(780, 400),
        gallery(3), click(780, 600), gallery(2),
    ))).spec
    # The state pass does not tell which of several field-less records went; say it here.
    remove = RemoveEffect(collection="photos", target="item")
    app = app.model_copy(update={"transitions": tuple(
        t.model_copy(update={"effects": (remove,)}) if t.widget == "remove" else t
        for t in app.transitions)})
    kept = _kept(app)
    create, delete = kept["create_photo_added"], kept["delete_photo_removed"]
    assert create.instruction == 'Add a new photo to the list on the "Photos" screen'
    assert delete.instruction == 'Delete one photo from the list on the "Photos" screen'
    assert create.rule.model_dump(exclude_none=True) == {
        "count": {"collection": "photos", "where": {}, "equals": 3}}
    assert delete.rule.model_dump(exclude_none=True) == {
        "count": {"collection": "photos", "where": {}, "equals": 1}}


NAME = view(EDIT, b(40, 300, 1040, 420), id="name")
NEXT = view(BUTTON, b(40, 1700, 1040, 1820), id="next", text="Next", clickable=True)


def test_a_field_whose_text_the_next_screen_shows_gets_a_fill_task() -> None:
    def form(typed: str) -> Observation:
        return screen(view(TEXT, b(40, 100, 1040, 200), text="Sign up"),
                      NAME.model_copy(update={"text": typed}), NEXT)

    def welcome(name: str) -> Observation:
        return screen(view(TEXT, b(40, 300, 1040, 420), id="hello", text=name),
                      activity=".WelcomeActivity")

    app = compile_app(traces(
        episode("e0", form(""), type_("Ada"), form("Ada"), tap(NEXT), welcome("Ada")),
        episode("e1", form(""), type_("Bob"), form("Bob"), tap(NEXT), welcome("Bob")),
    )).spec
    copies = [e for t in app.transitions for e in t.effects
              if e.kind == "set" and e.value.kind == "var" and e.value.name == "name"]
    assert copies, "the welcome text is a copy of the typed name"
    fill = _kept(app)["fill_name"]
    assert fill.instruction == 'Type "{text}" into the name field'


def test_fields_that_read_alike_on_one_screen_are_told_apart_by_place() -> None:
    top, low = (view(EDIT, b(40, y, 1040, y + 120)) for y in (300, 500))

    def form(a: str, c: str) -> Observation:
        return screen(view(TEXT, b(40, 100, 1040, 200), text="Address"),
                      top.model_copy(update={"text": a}), low.model_copy(update={"text": c}))

    app = compile_app(traces(episode(
        "e0", form("", ""), tap(top), form("", ""), type_("Main St"), form("Main St", ""),
        tap(low), form("Main St", ""), type_("Springfield"), form("Main St", "Springfield"),
    ))).spec
    assert _fill_instructions(app) == ['Type "{text}" into the first Address field',
                                       'Type "{text}" into the second Address field']


def test_a_text_with_no_letter_or_digit_names_no_screen() -> None:
    app = compile_app(traces(episode("e0", screen(
        view(TEXT, b(40, 20, 200, 90), text='""'), view(TEXT, b(40, 100, 1040, 200), text="Login"),
        view(EDIT, b(40, 300, 1040, 420), id="user_edit_text"),
    ), type_("ada"), screen(
        view(TEXT, b(40, 20, 200, 90), text='""'), view(TEXT, b(40, 100, 1040, 200), text="Login"),
        view(EDIT, b(40, 300, 1040, 420), id="user_edit_text", text="ada"),
    )))).spec
    assert nm.screen_title(app, app.start_screen) == "Login"


def test_pairs_combine_only_the_single_tasks_given(notes: AppSpec) -> None:
    def pair_ids(pair_from: set[str] | None = None) -> list[str]:
        return [t.id for t in synthesize(notes, pair_from=pair_from).tasks if t.kind() == "pair"]

    singles = {t.id for t in synthesize(notes).tasks if t.kind() != "pair"}
    with_create = [i for i in pair_ids() if i.startswith("pair_note_and_")]  # "Add a note ..."
    without = pair_ids(singles - {"create_note"})
    assert with_create and without
    assert not any(i.startswith("pair_note_and_") for i in without)


def test_a_fill_task_types_what_the_field_asks_for() -> None:
    # A sign-in form: an email field (its placeholder shows an address), a password field and
    # a code field; a note field gets a phrase.
    email = view(EDIT, b(40, 300, 1040, 420))
    password = view(EDIT, b(40, 500, 1040, 620), id="password", password=True)
    code = view(EDIT, b(40, 700, 1040, 820), id="otp_input")
    note = view(EDIT, b(40, 900, 1040, 1020), id="note")

    def form(*typed: str) -> Observation:
        return screen(view(TEXT, b(40, 100, 1040, 200), text="Sign in"),
                      *(f.model_copy(update={"text": t})
                        for f, t in zip((email, password, code, note), typed)))

    app = compile_app(traces(episode(
        "e0", form("abc@xyz.com", "", "", ""), tap(email), form("abc@xyz.com", "", "", ""),
        type_("ada@mail.com"), form("ada@mail.com", "", "", ""), tap(password),
        form("ada@mail.com", "", "", ""), type_("secret"),
        form("ada@mail.com", "••••••", "", ""),
        tap(code), form("ada@mail.com", "••••••", "", ""), type_("1234"),
        form("ada@mail.com", "••••••", "1234", ""), tap(note),
        form("ada@mail.com", "••••••", "1234", ""), type_("hi"),
        form("ada@mail.com", "••••••", "1234", "hi"),
    ))).spec
    fills = {t.id: t for t in _kept(app).values() if t.kind() == "fill"}
    draws = {k: set(p.choices) for k, t in fills.items() for p in t.params.values()
             if getattr(p, "choices", None)}
    by_field = {k: v for k, v in draws.items()}
    assert any(all("@" in c for c in v) for v in by_field.values()), draws
    assert any(all(c.isdigit() for c in v) for v in by_field.values()), draws
    assert any(all(any(ch.isdigit() for ch in c) and any(not ch.isalnum() for ch in c)
                   for c in v) for v in by_field.values()), draws
    phrased = [k for k, t in fills.items()
               if all(getattr(p, "from_", "") == "phrase" for p in t.params.values())]
    assert phrased == ["fill_note"], fills.keys()


def test_a_fill_task_types_what_a_field_asks_for_in_another_language() -> None:
    # The same form in a Chinese app: the fields' hints say phone, code and password; a note
    # field ("备注") gets a phrase.
    hints = ("请输入手机号码", "验证码", "密码", "备注")
    fields = [view(EDIT, b(40, 300 + 200 * k, 1040, 420 + 200 * k)) for k in range(4)]

    def form(*typed: str) -> Observation:
        return screen(view(TEXT, b(40, 100, 1040, 200), text="登录"),
                      *(f.model_copy(update={"text": t or h})
                        for f, t, h in zip(fields, typed, hints)))

    steps: list = [form("", "", "", "")]  # type: ignore[type-arg]
    typed = ["", "", "", ""]
    for k, text in enumerate(("13800138000", "4821", "abc", "hi")):
        steps += [tap(fields[k]), form(*typed), type_(text)]
        typed[k] = text
        steps.append(form(*typed))
    app = compile_app(traces(episode("e0", *steps))).spec
    fills = {t.id: t for t in _kept(app).values() if t.kind() == "fill"}
    draws = [set(p.choices) for t in fills.values() for p in t.params.values()
             if getattr(p, "choices", None)]
    assert set(params.PHONES) in draws and set(params.NUMBERS) in draws, fills.keys()
    assert set(params.PASSWORDS) in draws, fills.keys()
    assert sum(all(getattr(p, "from_", "") == "phrase" for p in t.params.values())
               for t in fills.values()) == 1


def test_a_field_in_a_flat_page_is_named_by_what_it_shows() -> None:
    # A page whose views are all the root's children (as AutoDroid records them): the first label
    # among them is the page's title, not the search box's; the box shows "Search".
    search = view(EDIT, b(40, 300, 1040, 420))

    def page(typed: str) -> Observation:
        return screen(search.model_copy(update={"text": typed}),
                      *(view(BUTTON, b(40, 500 + 150 * k, 1040, 620 + 150 * k), text=name,
                             clickable=True) for k, name in enumerate(("Alice", "Bob", "Jack"))),
                      view(TEXT, b(40, 100, 1040, 200), text="Contacts"))

    app = compile_app(traces(episode("e0", page("Search"), tap(search), page("Search"),
                                     type_("Bo"), page("Bo")))).spec
    assert _fill_instructions(app) == ['Type "{text}" into the text field showing "Search"']


def test_fields_of_two_screens_that_read_alike_are_told_apart_by_the_screen() -> None:
    def dialog(title: str, typed: str) -> Observation:
        return screen(view(TEXT, b(40, 100, 1040, 200), text=title),
                      view(EDIT, b(40, 300, 1040, 420), text=typed),
                      view(BUTTON, b(40, 500, 1040, 620), text="OK", clickable=True),
                      view(BUTTON, b(40, 700, 1040, 820), text="Cancel", clickable=True),
                      view(TEXT, b(40, 900, 1040, 1000), text="Name"),
                      activity=f".{title.replace(' ', '')}Activity")

    field = view(EDIT, b(40, 300, 1040, 420))
    ok = view(BUTTON, b(40, 500, 1040, 620), text="OK", clickable=True)
    app = compile_app(traces(episode(
        "e0", dialog("Rename", "pic3"), tap(field), dialog("Rename", "pic3"), type_("a"),
        dialog("Rename", "a"), tap(ok), dialog("Save as", "pic3"), tap(field),
        dialog("Save as", "pic3"), type_("b"), dialog("Save as", "b"),
    ))).spec
    assert _fill_instructions(app) == [
        'Type "{text}" into the text field showing "pic3" on the "Rename" screen',
        'Type "{text}" into the text field showing "pic3" on the "Save as" screen']


def test_a_value_at_the_top_of_a_screen_is_not_its_title() -> None:
    app = compile_app(traces(episode("e0", screen(
        view(TEXT, b(40, 20, 1040, 90), text="0 CAD"),
        view(TEXT, b(40, 100, 1040, 200), text="Wallet"), view(EDIT, b(40, 300, 1040, 420)),
    )))).spec
    assert nm.screen_title(app, app.start_screen) == "Wallet"


def test_a_list_only_another_package_shows_gets_no_question(notes: AppSpec) -> None:
    """The notes list asked about on the app's screen; the same list on a share sheet (a screen of
    the system's package) is no data of the app's to ask about."""
    def counts(app: AppSpec) -> list[str]:
        return [t.instruction for t in synthesize(app).tasks
                if t.instruction.startswith("How many")]

    assert "How many notes are there?" in counts(notes)
    lists = {sid for sid, w, _ in nm.widgets(notes) if w.list is not None}
    shared = notes.model_copy(update={"screens": tuple(
        s.model_copy(update={"package": "android"}) if s.id in lists else s
        for s in notes.screens)})
    assert counts(shared) == []


def test_a_field_is_named_by_the_label_row_before_its_own_container() -> None:
    """A React Native form: each label in a row of its own, then the field in a container with
    its show-password button. The row before the field's container names it; a text that starts
    with no letter (the number a code was sent to) names nothing."""
    group = "android.view.ViewGroup"
    email = view(EDIT, b(40, 300, 1040, 400))
    password = view(EDIT, b(40, 600, 900, 700), password=True)

    def form(mail: str, secret: str, sent_to: str = "Sent to") -> Observation:
        return screen(view(group, b(0, 100, W, 1000),
                           view(group, b(40, 200, 1040, 280), view(TEXT, b(40, 200, 400, 280),
                                                                 text="EMAIL")),
                           view(group, b(40, 300, 1040, 400),
                                email.model_copy(update={"text": mail})),
                           view(group, b(40, 500, 1040, 580), view(TEXT, b(40, 500, 400, 580),
                                                                 text=sent_to)),
                           view(group, b(40, 600, 1040, 700),
                                password.model_copy(update={"text": secret}),
                                view(group, b(900, 600, 1040, 700), clickable=True))))

    def fills(sent_to: str) -> list[str]:
        app = compile_app(traces(episode(
            "e0", form("", "", sent_to), tap(email), form("", "", sent_to), type_("a@b.c"),
            form("a@b.c", "", sent_to), tap(password), form("a@b.c", "", sent_to), type_("pw"),
            form("a@b.c", "••", sent_to)))).spec
        return _fill_instructions(app)

    assert fills("PASSWORD") == ['Type "{text}" into the EMAIL field',
                                 'Type "{text}" into the PASSWORD field']
    assert 'Type "{text}" into the +1 555 0100 field' not in fills("+1 555 0100")


def test_a_field_that_shows_a_currency_takes_an_amount() -> None:
    amount = view(EDIT, b(40, 300, 1040, 420))

    def page(typed: str) -> Observation:
        return screen(view(TEXT, b(40, 100, 1040, 200), text="Send money"),
                      amount.model_copy(update={"text": typed}))

    app = compile_app(traces(episode("e0", page("INR(D)"), tap(amount), page("INR(D)"),
                                     type_("250"), page("250")))).spec
    (fill,) = [t for t in _kept(app).values() if t.kind() == "fill"]
    assert all(str(c).isdigit() for c in fill.params["text"].choices)  # type: ignore[union-attr]


def _bulk_app() -> AppSpec:
    """A checklist with a "Clear done" button (drops the ticked rows) and an "Uncheck all" one."""
    clear = view(BUTTON, b(40, 1700, 520, 1800), id="clear_done", text="Clear done",
                 clickable=True)
    uncheck = view(BUTTON, b(560, 1700, 1040, 1800), id="uncheck_all", text="Uncheck all",
                   clickable=True)

    def rows(*rows: tuple[str, bool]) -> Observation:
        return screen(row_list(*(t for t, _ in rows), checked=tuple(f for _, f in rows),
                               list_id="notes"), clear, uncheck)

    return compile_app(traces(episode(
        "e0", rows(("a", True), ("b", False), ("c", True)), tap(clear), rows(("b", False)),
        on_row(0, x=970), rows(("b", True)), tap(uncheck), rows(("b", False)),
    ), episode(
        "e1", rows(("d", False), ("e", True)), tap(clear), rows(("d", False)),
    ))).spec


def test_a_bulk_clear_and_a_bulk_untick_are_tasks_their_verifiers_hold_to_the_rule() -> None:
    checks = {c.task.id: c for c in sanity.check_tasks(_bulk_app(), synthesize(_bulk_app()).tasks)}
    clear, untick = checks["delete_every_note_done"], checks["toggle_every_note_not_done"]
    assert clear.task.instruction == "Delete every note that is done"
    assert untick.task.instruction == "Mark every note as not done"
    for c in (clear, untick):
        assert c.kept, (c.task.id, c.reason, c.detail)
        assert c.oracle is not None and c.oracle.solved and len(c.oracle.moves) == 1
        assert c.attack is not None and c.attack.tried > 0 and not c.attack.accepted
        assert c.verifier is not None and c.end is not None
        start = c.task.initial_state["notes"]
        # the start holds ticked and unticked rows; the end is every row as asked, none else lost
        assert {r["done"] for r in start} == {True, False}
        wrong = {**c.end, "notes": []}  # all deleted: fails either rule
        assert not c.verifier(wrong, c.instance.params if c.instance else {}).passed


def test_a_pages_heading_above_a_form_is_not_its_fields_label() -> None:
    """A sign-in page without ids: its heading "Log In / Sign Up" stands just before the phone
    field's container, as a label row would. The field shows "Mobile Number" (its hint) at the
    start: that names it, and asks for a phone number. An example value ("abc@xyz.com") names
    nothing, and the label before the container stays (the EMAIL field of a page headed by it)."""
    group = "android.view.ViewGroup"
    phone = view(EDIT, b(40, 300, 1040, 400))

    def page(heading: str, typed: str) -> Observation:
        return screen(view(group, b(0, 100, W, 1000),
                           view(group, b(40, 200, 1040, 280), view(TEXT, b(40, 200, 600, 280),
                                                                 text=heading)),
                           view(group, b(40, 300, 1040, 400),
                                phone.model_copy(update={"text": typed}),
                                view(group, b(900, 300, 1040, 400), clickable=True))))

    def fills(heading: str, hint: str) -> dict[str, object]:
        app = compile_app(traces(episode("e0", page(heading, hint), tap(phone),
                                         page(heading, hint), type_("5550100"),
                                         page(heading, "5550100")))).spec
        return {t.instruction: t for t in _kept(app).values() if t.kind() == "fill"}

    (said, task), = fills("Log In / Sign Up", "Mobile Number").items()
    assert said == 'Type "{text}" into the text field showing "Mobile Number"'
    assert all(c.lstrip("+").replace(" ", "").replace("-", "").isdigit()
               for p in task.params.values() for c in p.choices)
    assert list(fills("EMAIL", "abc@xyz.com")) == ['Type "{text}" into the EMAIL field']
