"""An edit the app writes to the record from a page that shows what the editor saved (a contact's
page, its name set from the editor's field on Save, written to the list's record on the way
back) is an edit task: "Rename the contact ...". Before, only a record set straight from what
was typed counted, and a DroidBot exploration of such an app gave no edit task."""

from __future__ import annotations

from phoneworld.ir.app import (
    AppSpec, FieldSpec, Input, ItemField, ListSpec, Lit, RecordRef, ScreenSpec, SelectEffect,
    SetEffect, StateVar, Transition, Var, VarRef, Widget,
)
from phoneworld.ir.base import Bounds
from phoneworld.ir.trace import Device
from phoneworld.tasks.drafts import app_facts
from phoneworld.tasks.synth import edits

PKG = "com.example.contacts"


def _b(y1: int, y2: int) -> Bounds:
    return Bounds(x1=0, y1=y1, x2=1080, y2=y2)


def _screen(sid: str, *kids: Widget) -> ScreenSpec:
    root = Widget(wid="root", cls="android.widget.FrameLayout", bounds=_b(0, 1920), children=kids)
    return ScreenSpec(id=sid, name=sid, package=PKG, root=root)


def contacts_app(save_to_page: bool) -> AppSpec:
    row = Widget(wid="contact_name", cls="android.widget.TextView", bounds=_b(200, 300),
                 clickable=True, text=ItemField(field="contact_name"))
    listing = _screen("s00_contacts", Widget(
        wid="contacts", cls="androidx.recyclerview.widget.RecyclerView", bounds=_b(200, 1600),
        resource_id=f"{PKG}:id/contacts",
        list=ListSpec(collection="contacts", item=row, pitch=100, max_visible=10)))
    page = _screen("s01_page",
                   Widget(wid="page_name", cls="android.widget.TextView", bounds=_b(200, 300),
                          text=Var(name="page_name")),
                   Widget(wid="edit", cls="android.widget.Button", bounds=_b(400, 500),
                          clickable=True, text=Lit(value="Edit")))
    editor = _screen("s02_editor",
                     Widget(wid="name_input", cls="android.widget.EditText", bounds=_b(200, 300),
                            clickable=True, text=Var(name="name_input")),
                     Widget(wid="save", cls="android.widget.Button", bounds=_b(400, 500),
                            clickable=True, text=Lit(value="Save")))
    saved = Var(name="name_input") if save_to_page else Lit(value="Saved")
    transitions = (
        Transition(id="t0", screen="s00_contacts", action="click", widget="contact_name",
                   target="s01_page", effects=(
                       SelectEffect(collection="contacts"),
                       SetEffect(ref=VarRef(name="page_name"),
                                 value=ItemField(field="contact_name")))),
        Transition(id="t1", screen="s01_page", action="click", widget="edit", target="s02_editor",
                   effects=(SetEffect(ref=VarRef(name="name_input"), value=Var(name="page_name")),)),
        Transition(id="t2", screen="s02_editor", action="type", widget="name_input", nav="stay",
                   effects=(SetEffect(ref=VarRef(name="name_input"), value=Input()),)),
        Transition(id="t3", screen="s02_editor", action="click", widget="save", target="s01_page",
                   nav="pop", effects=(SetEffect(ref=VarRef(name="page_name"), value=saved),)),
        Transition(id="t4", screen="s01_page", action="back", nav="pop", effects=(
            SetEffect(ref=RecordRef(collection="contacts", target="selected",
                                    field="contact_name"), value=Var(name="page_name")),)),
    )
    return AppSpec(
        package=PKG, label="Contacts", device=Device(width=1080, height=1920),
        start_screen="s00_contacts", screens=(listing, page, editor), transitions=transitions,
        state=(StateVar(name="contacts", kind="collection",
                        fields=(FieldSpec(name="contact_name", kind="text"),)),
               StateVar(name="contacts_selected", kind="selection", collection="contacts"),
               StateVar(name="page_name", kind="text"), StateVar(name="name_input", kind="text")),
        initial_state={"contacts": [{"contact_name": "Ana Souza"}, {"contact_name": "Ben Okafor"}],
                       "contacts_selected": None, "page_name": "", "name_input": ""})


def test_a_record_written_from_a_page_the_editor_saved_to_is_an_edit() -> None:
    drafts = list(edits(app_facts(contacts_app(save_to_page=True))))
    assert [d.instruction for d in drafts] == ['Rename the contact "{old}" to "{new}"']


def test_a_record_written_from_a_page_nothing_typed_reaches_is_no_edit() -> None:
    assert list(edits(app_facts(contacts_app(save_to_page=False)))) == []


def test_a_new_value_is_of_the_kind_the_field_holds() -> None:
    from phoneworld.tasks import params
    from phoneworld.tasks.synth import PHRASE, record_values

    records = [{"contact_name": "Ana Souza", "phone": "555-0134", "mail": "ana@example.com",
                "note": "Met at the fair", "band": "Blue Monday"},
               {"contact_name": "Ben Okafor", "phone": "+1 (555) 0188", "mail": "",
                "note": "Plays chess", "band": "Karma Police"}]
    app = contacts_app(save_to_page=True)
    app = app.model_copy(update={"initial_state": {**app.initial_state, "contacts": records}})
    facts = app_facts(app)
    c = facts.collections["contacts"]

    def choices(field: str) -> object:
        return record_values(facts, c, field).get("choices")

    assert choices("phone") == list(params.PHONES)  # what the app's records show
    assert choices("mail") == list(params.EMAILS)
    assert choices("contact_email") == list(params.EMAILS)  # what its name asks for
    assert choices("contact_name") == list(params.NAMES)  # people, in a list of contacts
    assert record_values(facts, c, "note") == PHRASE
    # two capitalised words in a field that says nothing of people are no person's name
    assert record_values(facts, c, "band") == PHRASE
    # the records seeded for the tasks are of the same kind
    seeded = facts.seeded["contacts"][len(records):]
    assert seeded and all(r["contact_name"] in params.NAMES for r in seeded)
