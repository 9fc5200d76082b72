"""The output folder contract (`phoneworld.outdir`, issue 15): every data-loss case a user found
is refused with exit 2 and a message naming the folder, and the user's files survive byte for
byte; phoneworld's own outputs carry a manifest and are replaced atomically."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from phoneworld import outdir
from phoneworld.cli import app
from phoneworld.errors import OutputError
from tests.conftest import EXAMPLE, MESSAGES, REPO, build_mini_world

THESIS = "my thesis, chapter 1\n".encode() * 100


def tree(folder: Path) -> dict[str, str]:
    """Every file under `folder` (hidden ones too) -> the sha256 of its bytes."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, [str(a) for a in args])


def assert_refused(r, folder: Path | str, code: str) -> None:  # type: ignore[no-untyped-def]
    assert r.exit_code == 2, r.output
    assert f"error[{code}]" in r.stderr, r.stderr
    assert str(folder) in r.stderr, r.stderr
    assert "hint:" in r.stderr and "Traceback" not in r.output


def one_episode(tmp_path: Path, app_id: str) -> Path:
    """A native trace folder of one example episode whose `app` is `app_id`."""
    ep = tmp_path / "traces" / "ep"
    shutil.copytree(EXAMPLE / "com.example.notes" / "ep_0001", ep)
    doc = json.loads((ep / "episode.json").read_text(encoding="utf-8"))
    doc["app"] = app_id
    (ep / "episode.json").write_text(json.dumps(doc), encoding="utf-8")
    return ep.parent


@pytest.fixture
def earlier_build(tmp_path: Path) -> Path:
    """An --out folder holding an earlier build of another app (the messages example)."""
    out = tmp_path / "out"
    assert invoke("build", MESSAGES, "--out", out).exit_code == 0
    return out


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    return build_mini_world(tmp_path / "mini")


# ----------------------------------------------------------------------------- the data-loss cases


def test_world_build_refuses_a_folder_holding_user_files(mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "papers"
    out.mkdir()
    (out / "thesis.txt").write_bytes(THESIS)
    r = invoke("world", "build", mini / "world.yaml", "--out", out)
    assert_refused(r, out, "PW052")
    assert "--force" in r.stderr
    assert tree(out) == {"thesis.txt": hashlib.sha256(THESIS).hexdigest()}


def test_world_build_refuses_the_spec_s_own_folder(mini: Path) -> None:
    before = tree(mini)
    r = invoke("world", "build", mini / "world.yaml", "--out", mini)
    assert_refused(r, mini, "PW051")
    r = invoke("world", "build", mini / "world.yaml", "--out", mini, "--force")
    assert_refused(r, mini, "PW051")  # --force never takes over an input
    assert tree(mini) == before


def test_world_build_refuses_the_same_dir_twice(mini: Path, tmp_path: Path) -> None:
    spec = mini / "twice.yaml"
    spec.write_text("format: phoneworld-world/1\nname: twice\napps:\n  - dir: com.example.notes\n"
                    "  - dir: com.example.notes\n", encoding="utf-8")
    before = tree(mini)
    out = tmp_path / "w"
    r = invoke("world", "build", spec, "--out", out)
    assert_refused(r, spec.as_posix(), "PW055")
    assert not out.exists() and tree(mini) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_build_refuses_out_equal_to_the_traces(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    shutil.copytree(EXAMPLE, traces)
    before = tree(traces)
    for out in (traces, traces / "com.example.notes", traces / "built"):
        assert_refused(invoke("build", traces, "--out", out), out, "PW051")
    assert_refused(invoke("build", traces / "com.example.notes", "--out", traces), traces,
                   "PW051")
    assert tree(traces) == before


@pytest.mark.parametrize("app_id", [".", "..", "a/b", "x" * 300, "com.ex ample", "1com.x"],
                         ids=["dot", "dotdot", "separator", "long", "space", "digit"])
def test_build_refuses_an_app_id_that_is_no_package(tmp_path: Path, earlier_build: Path,
                                                    app_id: str) -> None:
    before, around = tree(earlier_build), sorted(p.name for p in tmp_path.iterdir())
    r = invoke("build", one_episode(tmp_path, app_id), "--out", earlier_build)
    assert r.exit_code == 2, r.output
    assert "error[PW054]" in r.stderr and "ep/episode.json" in r.stderr, r.stderr
    assert tree(earlier_build) == before  # the other app's build is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*around, "traces"])


def test_build_refuses_an_autodroid_package_txt_of_dot(tmp_path: Path,
                                                       earlier_build: Path) -> None:
    from tests.ingest.test_autodroid import FORM, record, write_utg

    folder = write_utg(tmp_path / "traces" / "app", [record(FORM, 1), record(FORM, -1)],
                       package=".")
    before = tree(earlier_build)
    r = invoke("build", folder.parent, "--from", "autodroid", "--out", earlier_build)
    assert r.exit_code == 2, r.output
    assert "error[PW054]" in r.stderr and "'.'" in r.stderr
    assert tree(earlier_build) == before
    assert not any(p.name.startswith(".out") for p in tmp_path.iterdir())


@pytest.mark.parametrize("where", ["file", "under-file", "dev-null", "proc"])
def test_build_refuses_an_unwritable_out_before_building(tmp_path: Path, where: str) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_bytes(THESIS)
    out = {"file": a_file, "under-file": a_file / "x", "dev-null": Path("/dev/null/x"),
           "proc": Path("/proc/phoneworld-out")}[where]
    # traces with errors: had the build run first, this would exit 1 with PW1xx diagnostics
    bad = REPO / "tests" / "fixtures" / "traces_with_errors"
    defect = next(p for p in sorted(bad.iterdir()) if p.is_dir())
    r = invoke("build", defect, "--out", out)
    assert_refused(r, out, "PW050")
    assert "error[PW1" not in r.stderr
    assert a_file.read_bytes() == THESIS


def test_build_refuses_an_unmarked_folder_unless_forced(tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.txt").write_bytes(THESIS)
    assert_refused(invoke("build", EXAMPLE, "--out", out), out, "PW052")
    assert tree(out) == {"thesis.txt": hashlib.sha256(THESIS).hexdigest()}
    r = invoke("build", EXAMPLE, "--out", out, "--force")
    assert r.exit_code == 0, r.output
    assert (out / "thesis.txt").read_bytes() == THESIS  # taken over, but only its app is written
    assert outdir.read_marker(out) == {"format": 1, "kind": "apps"}


# ----------------------------------------------------------------------------- the marker


def test_build_marks_what_it_wrote_and_replaces_only_that(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert invoke("build", EXAMPLE, "--out", out).exit_code == 0
    folder = out / "com.example.notes"
    manifest = outdir.read_marker(folder)
    assert manifest is not None and manifest["kind"] == "app"
    assert manifest["files"] == sorted(set(tree(folder)) - {outdir.MARKER})
    assert invoke("build", EXAMPLE, "--out", out).exit_code == 0  # its own output: replaced
    (folder / "my_notes.txt").write_bytes(THESIS)
    r = invoke("build", EXAMPLE, "--out", out)
    assert_refused(r, folder, "PW053")
    assert "my_notes.txt" in r.stderr
    assert (folder / "my_notes.txt").read_bytes() == THESIS


def test_an_earlier_version_s_output_is_replaced(tmp_path: Path) -> None:
    """Outputs written before the marker (no MARKER anywhere) are recognised by their layout."""
    out = tmp_path / "out"
    assert invoke("build", EXAMPLE, "--out", out).exit_code == 0
    for marker in out.rglob(outdir.MARKER):
        marker.unlink()
    (out / "com.example.notes" / "com.example.notes-debug.apk").write_bytes(b"PK\x03\x04")
    assert invoke("build", EXAMPLE, "--out", out).exit_code == 0
    assert outdir.read_marker(out / "com.example.notes") is not None


def test_the_bundled_generated_apps_folder_is_marked() -> None:
    """`make demo` builds into generated_apps/, which a fresh clone holds with its README."""
    assert outdir.read_marker(REPO / "generated_apps") == {"format": 1, "kind": "apps"}
    assert (REPO / "generated_apps" / "README.md").is_file()


def test_make_demo_twice_in_a_fresh_clone_s_generated_apps(tmp_path: Path) -> None:
    out = tmp_path / "generated_apps"
    out.mkdir()
    for name in ("README.md", outdir.MARKER):
        shutil.copy(REPO / "generated_apps" / name, out / name)
    readme = (out / "README.md").read_bytes()
    for _ in range(2):
        r = invoke("build", EXAMPLE, "--out", out, "--heldout", "0.2")
        assert r.exit_code == 0, r.output
    assert (out / "README.md").read_bytes() == readme
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [outdir.MARKER, "README.md", "com.example.notes"])


def test_world_build_twice_and_after_world_files_were_added(mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "w"
    assert invoke("world", "build", mini / "world.yaml", "--out", out).exit_code == 0
    assert outdir.read_marker(out)["kind"] == "world"  # type: ignore[index]
    # a later phoneworld output inside the world (what `world apk` writes) is phoneworld's too
    outdir.Root(out / "apk", "world-apk").open()
    assert invoke("world", "build", mini / "world.yaml", "--out", out).exit_code == 0
    (out / "notes.md").write_text("mine")
    assert_refused(invoke("world", "build", mini / "world.yaml", "--out", out), out, "PW053")
    assert (out / "notes.md").read_text() == "mine"


def test_an_earlier_version_s_world_is_replaced(mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "w"
    assert invoke("world", "build", mini / "world.yaml", "--out", out).exit_code == 0
    for marker in out.rglob(outdir.MARKER):
        marker.unlink()
    assert invoke("world", "build", mini / "world.yaml", "--out", out).exit_code == 0
    (out / outdir.MARKER).unlink()
    (out / "thesis.txt").write_bytes(THESIS)  # not a layout phoneworld ever wrote
    assert_refused(invoke("world", "build", mini / "world.yaml", "--out", out), out, "PW052")
    assert (out / "thesis.txt").read_bytes() == THESIS


# ----------------------------------------------------------------------------- atomic replacement


def test_replacement_is_atomic_and_leaves_nothing_on_failure(tmp_path: Path) -> None:
    final = tmp_path / "app"
    outdir.replace_folder(final, "app", lambda d: (d / "a.txt").write_text("one"))
    before = tree(final)

    def broken(d: Path) -> None:
        (d / "a.txt").write_text("half")
        raise RuntimeError("the build failed half-way")

    with pytest.raises(RuntimeError):
        outdir.replace_folder(final, "app", broken)
    assert tree(final) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app"]  # no staging, no .old folder
    outdir.replace_folder(final, "app", lambda d: (d / "b.txt").write_text("two"))
    assert sorted(tree(final)) == [outdir.MARKER, "b.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app"]


def test_a_failed_swap_puts_the_earlier_folder_back(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    final = tmp_path / "app"
    outdir.replace_folder(final, "app", lambda d: (d / "a.txt").write_text("one"))
    before = tree(final)
    real = outdir.os.replace
    calls = []

    def flaky(src: str, dst: str) -> None:
        calls.append(src)
        if len(calls) == 2:  # the new folder's rename into place
            raise OSError("disk went away")
        real(src, dst)

    monkeypatch.setattr(outdir.os, "replace", flaky)
    with pytest.raises(OSError):
        outdir.replace_folder(final, "app", lambda d: (d / "b.txt").write_text("two"))
    assert tree(final) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app"]


# ----------------------------------------------------------------------------- names


@pytest.mark.parametrize(("name", "package", "ok"), [
    ("com.example.notes", True, True), ("autodroid.sms_messenger", True, True),
    (".", True, False), ("..", True, False), ("", True, False), ("a\x00b", True, False),
    ("a/b", True, False), ("a" * 129, True, False), ("com..x", True, False),
    ("com.1x", True, False), ("add_note_0001", False, True), ("..", False, False),
    (".hidden", False, False), ("a\\b", False, False),
], ids=lambda v: repr(v)[:20])
def test_names_become_paths_only_when_valid(name: str, package: bool, ok: bool) -> None:
    assert (outdir.name_problem(name, package) is None) == ok


def test_a_file_output_is_never_an_input(tmp_path: Path) -> None:
    (tmp_path / "app.json").write_text("{}")
    with pytest.raises(OutputError) as exc:
        outdir.claim_file(tmp_path / "app.json", [tmp_path / "app.json"], force=True)
    assert exc.value.exit_code == 2 and exc.value.diagnostics[0].code == "PW051"


# ----------------------------------------------------------------------------- the other commands


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("built")
    assert invoke("build", EXAMPLE, "--out", out).exit_code == 0
    return out / "com.example.notes"


def test_demos_refuse_a_user_file_and_the_app_folder(built: Path, tmp_path: Path) -> None:
    mine = tmp_path / "thesis.jsonl"
    mine.write_bytes(THESIS)
    before = tree(built)
    assert_refused(invoke("demos", built, "--out", mine, "--per-task", "1"), mine, "PW052")
    assert mine.read_bytes() == THESIS
    assert_refused(invoke("demos", built, "--out", built / "app.json"), built / "app.json",
                   "PW051")
    assert_refused(invoke("demos", built, "--out", tmp_path / "d.jsonl", "--traces", built),
                   built, "PW051")
    users = tmp_path / "user_traces"
    users.mkdir()
    (users / "thesis.txt").write_bytes(THESIS)
    r = invoke("demos", built, "--out", tmp_path / "d.jsonl", "--traces", users)
    assert_refused(r, users, "PW052")
    assert tree(built) == before and tree(users) == {
        "thesis.txt": hashlib.sha256(THESIS).hexdigest()}


def test_demos_write_traces_phoneworld_builds_again(built: Path, tmp_path: Path) -> None:
    out, traces = tmp_path / "d.jsonl", tmp_path / "traces"
    for _ in range(2):  # the second run replaces its own file and episodes
        r = invoke("demos", built, "--out", out, "--traces", traces, "--task",
                   "answer_count_note", "--per-task", "1")
        assert r.exit_code == 0, r.output
    assert outdir.read_marker(traces) == {"format": 1, "kind": "traces"}
    assert invoke("check", traces).exit_code == 0


def test_report_refuses_to_overwrite_an_input_or_a_user_file(built: Path,
                                                             tmp_path: Path) -> None:
    before = tree(built)
    r = invoke("report", "--compare", built, built, "--out", built / "app.json")
    assert_refused(r, built / "app.json", "PW051")
    mine = tmp_path / "thesis.html"
    mine.write_bytes(THESIS)
    assert_refused(invoke("report", "--compare", built, built, "--out", mine), mine, "PW052")
    assert mine.read_bytes() == THESIS and tree(built) == before
    r = invoke("report", "--compare", built, built)  # the default page, inside B: recorded
    assert r.exit_code == 0, r.output
    assert "compare.html" in outdir.read_marker(built)["files"]  # type: ignore[index,operator]


def test_record_refuses_a_file_or_the_app_folder_before_the_device(built: Path,
                                                                   tmp_path: Path) -> None:
    mine = tmp_path / "thesis.txt"
    mine.write_bytes(THESIS)
    for out in (mine, built):
        r = invoke("record", "--serial", "emulator-5554", "--app-dir", built, "--out", out)
        assert r.exit_code == 2, r.output
        assert str(out) in r.stderr and "error[PW05" in r.stderr
    assert mine.read_bytes() == THESIS


def test_apk_refuses_a_user_file_and_the_world_folder(built: Path, mini: Path,
                                                     tmp_path: Path) -> None:
    mine = tmp_path / "thesis.apk"
    mine.write_bytes(THESIS)
    assert_refused(invoke("apk", built, "--out", mine), mine, "PW052")
    assert_refused(invoke("apk", built, "--out", built / "app.json"), built / "app.json", "PW051")
    assert mine.read_bytes() == THESIS
    before = tree(mini)
    assert_refused(invoke("world", "apk", mini, "--out", mini), mini, "PW051")
    assert tree(mini) == before
