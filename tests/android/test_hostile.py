"""Hostile strings through traces into a generated app: the Kotlin compiles, and the strings come
back byte-identical from the Kotlin core's screen content and state on the JVM.

The example's traces are copied with some of their texts replaced: the toolbar title, two notes of
the list (the initial state), a content-desc, a button label, a settings label, a very long text
(split into several class-file constants) and a typed text (which may hold anything JSON can,
control characters and lone surrogates included). XML can only carry XML characters, so the
strings placed in dumps are drawn from those.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from phoneworld.android.conformance import RandomWalk, episode_sequences
from phoneworld.android.escape import CHUNK_UNITS
from phoneworld.android.jvm import _split, agree, compile_cores, replay
from phoneworld.pipeline import BuildConfig, build, check
from phoneworld.runtime.xmltext import escape_attr, sanitize
from tests.android.conftest import JVM_TOOLS, need
from tests.conftest import EXAMPLE

# (attribute, original value) replaced by hostile strings 0..6; the typed text is string 7
SLOTS = [("text", "Notes"), ("text", "Buy milk"), ("text", "Call Alice"),
         ("content-desc", "Settings"), ("text", "Save"), ("text", "Dark mode"),
         ("text", "Keep done notes at the bottom")]
TYPED = "Water plants 2x a week"
FRAGMENTS = [
    '"', "'", "\\", "$", "${x}", "$x", "${", "}", "*/", "/*", "//", "<", ">", "&", "&amp;", "]]>",
    "<!--", "-->", "\n", "\r\n", "\t", "%s", "%1$s", "@string/x", "?attr/y", "\u2028", "\u2029",
    "\u200e", "\ufeff", "\U0001F600", "\U0001F469\u200d\U0001F469\u200d\U0001F467", "\u00e9",
    "\u0130", "\u00df", "\u4e2d\u6587", "\u0085", "\x7f", "\\u0041", "\\n", "`", "#", "{}",
    "{{ x }}", "{% if x %}", '"); Runtime.getRuntime().exec("rm', "\u0663", " ",
]
XML_CHARS = st.characters(min_codepoint=0x20, blacklist_categories=("Cs",),
                          blacklist_characters="\ufffe\uffff")
TEXT_IN_XML = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(XML_CHARS, max_size=5)),
                       min_size=1, max_size=8).map("".join)
TEXT_TYPED = st.lists(st.one_of(st.sampled_from([*FRAGMENTS, "\x00", "\x1b", "\ud800", "\udfff"]),
                                st.text(max_size=5)), min_size=1, max_size=8).map("".join)
LONG = st.builds(lambda s: (s * (2 * CHUNK_UNITS // len(s) + 1))[: 2 * CHUNK_UNITS + 7], TEXT_IN_XML)
FIXED = ['He said "hi" & left <now>', "${'$'}{x} $y \\ \\n */ /* end",
         "emoji \U0001F600\U0001F469\u200d\U0001F467 \u4e2d\u6587 \u0130",
         'Runtime.getRuntime().exec("id"); //', "\u2028line\nbreak\ttab\r\n", "%1$s @x ?y '",
         "long " + "\u00e9\U0001F600<&>\"\\$" * 3000, "typed \x00\x1b\ud800 \"$\" \\"]
EXISTING = {"Notes", "Buy milk", "Call Alice", "Settings", "Save", "Dark mode", TYPED, "Edit",
            "Delete", "Note", "Open", "Done", "Edit note", "Navigate up", "Add note", "Pay rent"}


def _usable(strings: list[str]) -> bool:
    placed = strings[:7]
    return (len(set(placed)) == len(placed) and all(s.strip() for s in placed)
            and not any(s in EXISTING or sanitize(s) in EXISTING for s in strings)
            and len({sanitize(s) for s in placed}) == len(placed))


def hostile_traces(strings: list[str], dest: Path) -> Path:
    """The example's traces with SLOTS and the typed text replaced by `strings`."""
    src_root = EXAMPLE / "com.example.notes"
    root = dest / "traces" / "com.example.notes"
    typed = strings[7]
    for ep in sorted(src_root.iterdir()):
        (root / ep.name).mkdir(parents=True)
        for f in sorted(ep.iterdir()):
            if f.suffix == ".xml":
                text = f.read_text(encoding="utf-8")
                for (attr, old), new in zip(SLOTS, strings, strict=False):
                    text = text.replace(f'{attr}="{old}"', f'{attr}="{escape_attr(sanitize(new))}"')
                text = text.replace(f'text="{TYPED}"', f'text="{escape_attr(sanitize(typed))}"')
                (root / ep.name / f.name).write_text(text, encoding="utf-8")
            elif f.name == "episode.json":
                episode = json.loads(f.read_text(encoding="utf-8"))
                for step in episode["steps"]:
                    action = step.get("action") or {}
                    if action.get("type") == "type" and action.get("text") == TYPED:
                        action["text"] = typed
                (root / ep.name / f.name).write_text(json.dumps(episode), encoding="utf-8")
            else:
                shutil.copyfile(f, root / ep.name / f.name)
    return dest / "traces"


def _check(strings: list[str], work: Path) -> None:
    traces = hostile_traces(strings, work)
    built = build(BuildConfig(traces=traces, out=work / "out", tasks=False, html=False)).apps[0]
    spec, project = built.spec, built.path / "android"
    core = compile_cores([project], work / "classes")  # the Kotlin compiles
    trace_set, _ = check(traces)
    sequences = episode_sequences(trace_set.episodes)
    walk = RandomWalk(spec, seed=7)
    sequences += walk.sequences(60, 20)
    for seq in sequences[-60:]:  # and type the hostile strings too
        seq.actions = [["type", strings[i % len(strings)]] if a[0] == "type" else a
                       for i, a in enumerate(seq.actions)]
    result = agree(spec, core, project, sequences)
    assert result.ok, "\n".join(str(m) for m in result.mismatches[:3])
    # the start screen shows the XML-placed strings exactly (as uiautomator would: sanitized)
    first = json.loads(_split(replay(core, project, {"sequences": [sequences[0].job()],
                                                     "verbose": [0]}))[0][0])
    shown = {n[7] for n in first[6]} | {n[12] for n in first[6]}
    for s in (strings[0], strings[1], strings[2], strings[3]):
        assert sanitize(s) in shown, (s, sorted(shown)[:20])
    # a typed text comes back from the core's state byte-identical (lone surrogates included)
    typed_seq = next(q for q in sequences if any(a == ["type", strings[7]] for a in q.actions))
    records = _split(replay(core, project, {"sequences": [typed_seq.job()], "verbose": [0]}))[0]
    step = typed_seq.actions.index(["type", strings[7]]) + 1
    state = json.loads(records[step])[7]
    assert strings[7] in state.values(), state


@settings(max_examples=2, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(st.tuples(TEXT_IN_XML, TEXT_IN_XML, TEXT_IN_XML, TEXT_IN_XML, TEXT_IN_XML, TEXT_IN_XML,
                 LONG, TEXT_TYPED).map(list).filter(_usable))
@example(FIXED)
def test_hostile_strings_survive_generation(tmp_path_factory, strings: list[str]) -> None:  # type: ignore[no-untyped-def]
    need(*JVM_TOOLS)
    _check(strings, tmp_path_factory.mktemp("hostile"))
