"""Task instances: a task's initial state, and its parameters drawn by seeded generators.

`instantiate(spec, app, seed)` gives the `TaskInstance` an episode runs: the app's initial state
with the task's overrides (normalized by the runtime), the parameters drawn from
`random.Random(f"{task id}:{seed}")` (so a draw is the same on every machine), and the rendered
instruction.

A draw means what the instruction says, or it is re-drawn: the parameters of one generator kind
are all different (two placeholders name two things), `distinct_from` is honoured, and, with a
verifier, neither the rule nor a top-level clause that names a parameter already holds at the
start: "add a note titled X" never draws an X that is already a note, "mark X done" never a note
that is done. A clause on app data that holds whichever record is drawn ("the note X still
exists") keeps things as they are and is not counted, nor is an `unchanged` clause; the rest of the rule (other records,
settings) holds at the start by design. A task whose draws all fail raises `InputError` with the
reason.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from phoneworld.errors import EnvError, InputError
from phoneworld.ir.app import AppSpec
from phoneworld.runtime.compiled import compile_app
from phoneworld.runtime.validate import SCREEN, normalize_state
from phoneworld.tasks import rules as r
from phoneworld.tasks import spec as s

if TYPE_CHECKING:
    from phoneworld.tasks.codegen import Verifier

MAX_DRAWS = 25
PHRASES = (
    "Buy fresh bread", "Call the dentist", "Book a taxi", "Fix the garage door", "Water the plants",
    "Send the report", "Book train tickets", "Wash the car", "Clean the kitchen", "Call grandma",
    "Return the library books", "Renew the gym pass", "Bake a birthday cake", "Pay the invoices",
    "Renew the passport", "Buy new batteries", "Walk the dog", "Print the photos",
    "Pay the phone bill", "Plan the summer trip", "Pump the bike tyres", "Order printer ink",
    "Email the landlord", "Cancel the newspaper", "Pick up the parcel", "Defrost the freezer",
    "Sort the recycling", "Mow the lawn", "Read chapter five", "Update the budget",
    "Buy a gift for Sam", "Call the plumber", "Change the bed sheets", "Back up the laptop",
    "Prepare the slides", "Reply to Maria", "Get a haircut", "Check the tyre pressure",
    "Feed the cat", "Book the vet", "Charge the camera", "Vacuum the stairs", "Buy oat milk",
    "Write thank-you cards", "Fill up the car", "Repot the basil", "Learn ten Spanish words",
    "Drop off the dry cleaning",
)
# What a user types into fields that ask for a kind of value (`synth.fill_values`)
EMAILS = ("ada@example.com", "sam.lee@example.org", "maria.k@example.net", "tom@example.com",
          "jo.park@example.org", "li.wei@example.com")
PHONES = ("5550142387", "5550198821", "5550117346", "5550163094", "5550125578")
NUMBERS = ("4821", "1093", "7250", "365", "58124", "90417")
PASSWORDS = ("Maple!2048", "Orbit#7731", "Cedar$5092", "Velvet@318", "Comet%6604")
URLS = ("https://example.com", "https://example.org/news", "https://example.net/docs")
# people, for the records of a list of people (`synth.record_values`)
NAMES = ("Ada Lovelace", "Grace Hopper", "Alan Turing", "Marie Curie", "Nikola Tesla",
         "Rosalind Franklin", "Hedy Lamarr", "Carl Sagan", "Emmy Noether", "Katherine Johnson",
         "Srinivasa Ramanujan", "Lise Meitner")
WORDS = ("amber", "river", "lantern", "maple", "orbit", "velvet", "harbor", "meadow", "copper",
         "pixel", "summit", "willow", "comet", "saffron", "glacier", "ember", "violet", "canyon",
         "falcon", "cedar", "marble", "breeze", "echo", "quartz", "tulip", "atlas", "nectar",
         "puzzle", "cobalt", "thistle")


@dataclass(frozen=True)
class TaskInstance:
    """One runnable draw of a task."""

    spec: s.TaskSpec
    params: dict[str, Any]
    state: dict[str, Any]
    instruction: str
    seed: int


def task_state(spec: s.TaskSpec, app: AppSpec) -> dict[str, Any]:
    """The app's initial state with the task's overrides, in the runtime's canonical form."""
    capp = compile_app(app)
    merged = dict(capp.initial_state)
    merged.update(spec.initial_state)
    return normalize_state(capp, merged)


def source_values(source: str, state: dict[str, Any]) -> list[Any]:
    """The distinct non-empty values of `COLLECTION.FIELD` (or of a variable) in `state`."""
    coll, _, field = source.partition(".")
    raw: list[Any]
    if field:
        recs = state.get(coll)
        raw = [r.get(field) for r in recs] if isinstance(recs, list) else []
    else:
        raw = [state.get(coll)]
    out: list[Any] = []
    for v in raw:
        if v is not None and v != "" and v not in out:
            out.append(v)
    return out


def _date(p: s.DateGen, rng: random.Random) -> str:
    start, end = dt.date.fromisoformat(p.start), dt.date.fromisoformat(p.end)
    day = start + dt.timedelta(days=rng.randint(0, max(0, (end - start).days)))
    return day.strftime(p.format)


Sources = Callable[[str, Any], list[Any]]  # (parameter source, start state) -> its values


def draw_one(p: Any, state: Any, rng: random.Random, sources: Sources | None = None) -> Any:
    """One value of one parameter (`sources` reads a data source's values; default: an app's
    `COLLECTION.FIELD` or variable)."""
    if isinstance(p, s.PhraseGen):
        return rng.choice(PHRASES)
    if isinstance(p, s.WordsGen):
        words = [rng.choice(WORDS) for _ in range(rng.randint(p.min, p.max))]
        return " ".join(words).capitalize()
    if isinstance(p, s.RangeGen):
        return rng.randint(p.min, p.max)
    if isinstance(p, s.DateGen):
        return _date(p, rng)
    if isinstance(p, s.ChoiceGen):
        return rng.choice(p.choices)
    values = (sources or source_values)(p.source, state)
    if not values:
        raise InputError(f"parameter source {p.source!r} has no values in the task's initial state")
    return rng.choice(values)


def draw_params(spec: s.TaskSpec, state: Any, rng: random.Random,
                sources: Sources | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in sorted(spec.params):
        p = spec.params[name]
        value = draw_one(p, state, rng, sources)
        for _ in range(MAX_DRAWS):
            if all(value != out.get(o) for o in p.distinct_from):
                break
            value = draw_one(p, state, rng, sources)
        out[name] = value
    return out


def fresh(spec: s.TaskSpec) -> set[str]:
    """The parameters whose values the agent is asked to create or write (not found in the app)."""
    return {n for n, p in spec.params.items() if not isinstance(p, s.AppDataGen)}


def top_clauses(rule: r.RuleNode) -> tuple[r.RuleNode, ...]:
    """The rule's top-level clauses, in the order `Verifier.clauses_held` reports them."""
    return rule.all_of if isinstance(rule, r.AllOf) else (rule,)


def draw_problem(spec: s.TaskSpec, params: dict[str, Any], start: dict[str, Any],
                 verify: Verifier | None, sources: Sources | None = None) -> str | None:
    """Why a draw does not mean what the instruction says, or None."""
    for name, p in sorted(spec.params.items()):
        for other in p.distinct_from:
            if other in params and params[name] == params[other]:
                return f"{{{name}}} and {{{other}}} must differ, both drew {params[name]!r}"
        for other, q in sorted(spec.params.items()):
            if other < name and type(q) is type(p) and getattr(q, "source", None) == getattr(
                    p, "source", None) and params[name] == params[other]:
                return f"{{{other}}} and {{{name}}} name two things, both drew {params[name]!r}"
    if verify is None:
        return None
    if verify(start, params, None).passed:
        return "the whole rule already holds at the start"
    new = fresh(spec)
    held = verify.clauses_held(start, params, None)
    for i, (clause, holds) in enumerate(zip(top_clauses(spec.rule), held)):
        named = r.params_used(clause)
        if not holds or not named or isinstance(clause, r.Unchanged) or (not named & new and _holds_for_any(
                spec, verify, i, start, params, named, sources)):
            continue
        from phoneworld.tasks.codegen import clause_text

        return (f"{', '.join('{' + n + '}' for n in sorted(named))} = "
                f"{', '.join(repr(params[n]) for n in sorted(named))}: "
                f"'{clause_text(clause)}' already holds at the start")
    return None


def _holds_for_any(spec: s.TaskSpec, verify: Verifier, i: int, start: dict[str, Any],
                   params: dict[str, Any], names: set[str], sources: Sources | None) -> bool:
    """Whether top-level clause `i` holds at the start whichever value the app-data parameters
    `names` take: a clause that keeps something as it is ("the note {old} still exists"), not one
    the draw happens to satisfy already ("mark {old} done" drawing a done note)."""
    for name in names:
        p = spec.params[name]
        for value in (sources or source_values)(p.source, start)[:MAX_DRAWS]:
            if not verify.clauses_held(start, {**params, name: value}, None)[i]:
                return False
    return True


def draw_instance(spec: s.TaskSpec, seed: int | None, start: Callable[[Any], dict[str, Any]],
                  sources: Sources | None = None,
                  verify: Verifier | None = None, screen: str | None = None) -> TaskInstance:
    """A draw of `spec` (seed None: the canonical one, `spec.seed`) whose initial state is
    `start(params)` (`start(None)`: the state the parameters are drawn from), re-drawn until it
    means what the instruction says (`draw_problem`, which reads the start as a verifier does:
    on the start `screen`, where given). Shared by an app's tasks (`instantiate`) and a world's
    (`phoneworld.world.schema.instantiate`)."""
    seed = spec.seed if seed is None else seed
    state = start(None)
    rng = random.Random(f"{spec.id}:{seed}")

    def seen(params: dict[str, Any]) -> dict[str, Any]:
        return {**start(params), SCREEN: screen} if screen is not None else start(params)

    params = draw_params(spec, state, rng, sources)
    problem = draw_problem(spec, params, seen(params), verify, sources) if spec.params else None
    for _ in range(MAX_DRAWS if problem else 0):
        params = draw_params(spec, state, rng, sources)
        problem = draw_problem(spec, params, seen(params), verify, sources)
        if problem is None:
            break
    if problem is not None:
        raise InputError(f"task {spec.id}: no draw of its parameters in {MAX_DRAWS + 1} tries "
                         f"means what the instruction says; the last: {problem}")
    return TaskInstance(spec, params, start(params), s.render_instruction(spec.instruction, params),
                        seed)


def instantiate(spec: s.TaskSpec, app: AppSpec, seed: int | None = None,
                verify: Verifier | None = None) -> TaskInstance:
    """A draw of `spec` in `app` (seed None: the canonical one, `spec.seed`)."""
    try:
        state = task_state(spec, app)
    except EnvError as exc:
        raise InputError(f"task {spec.id}: its initial state does not fit the app: {exc}") from exc
    return draw_instance(spec, seed, lambda params: state, verify=verify, screen=app.start_screen)
