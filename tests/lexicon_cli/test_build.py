"""`lexicon build` and `lexicon build-defaults`: reports, files written or not, exit codes."""

from __future__ import annotations

import gzip
import hashlib
import json
import lzma
import os
import re
import shlex
import stat
import tomllib

import pytest
from click.testing import CliRunner

from lexicon.lexfile import Lexicon
from lexicon_cli import main
from tests.support import REPO, compile_list

from .conftest import MINI, invoke, run


def test_build_prints_the_report_and_writes_the_file(mini, tmp_path):
    out = tmp_path / "again.lex"
    result = run("build", MINI, "--lang", "es", "--id", "mini-es", "--name", "Mini", "--version", "1", "-o", out)
    assert re.search(r"words compiled: +6\n", result.output)
    assert "left out, a character that is no tile: 2" in result.output
    assert "line 8: kiwi: 'k' at 1 in 'kiwi': the Spanish set has no K tile" in result.output
    assert f"wrote {out}: 6 words" in result.output
    assert out.read_bytes() == mini.read_bytes()  # reproducible: same input, same bytes


def test_build_strict_fails_and_writes_nothing(tmp_path):
    out = tmp_path / "strict.lex"
    result = CliRunner().invoke(
        main, ["build", str(MINI), "--lang", "es", "--id", "m", "--version", "1", "--strict", "-o", str(out)]
    )
    assert result.exit_code == 1
    assert "4 entries left out; --strict" in result.output and not out.exists()


def test_build_from_standard_input_compressed_with_a_json_report(tmp_path):
    out, report = tmp_path / "stdin.lex", tmp_path / "report.json"
    result = CliRunner().invoke(
        main,
        ["build", "-", "--lang", "es", "--id", "s", "--version", "1", "--report", str(report), "-o", str(out)],
        input=lzma.compress(b"carro\nchico\nkiwi\n"),
    )
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text())
    assert data["words"] == 2 and data["left_out"]["non-tile"]["examples"][0]["where"] == "line 3"


def test_build_in_tile_notation(tmp_path):
    words = tmp_path / "file.txt"
    words.write_text("CA3O\n1ICO\n2AVE\n")
    out = tmp_path / "tiles.lex"
    assert (
        run("build", words, "--lang", "es", "--id", "t", "--version", "1", "--notation", "tiles", "-o", out).exit_code
        == 0
    )
    assert run("dump", out).output == "CA[RR]O\n[CH]ICO\n[LL]AVE\n"


def test_build_timestamp_is_stored_only_when_given_and_must_be_iso(tmp_path, mini):
    assert Lexicon.open(mini).header.built_at is None
    out = tmp_path / "t.lex"
    run(
        "build",
        MINI,
        "--lang",
        "es",
        "--id",
        "m",
        "--version",
        "1",
        "--timestamp",
        "2026-11-21T09:00:00+01:00",
        "-o",
        out,
    )
    assert Lexicon.open(out).header.built_at == "2026-11-21T09:00:00+01:00"
    bad = CliRunner().invoke(
        main,
        ["build", str(MINI), "--lang", "es", "--id", "m", "--version", "1", "--timestamp", "yesterday", "-o", str(out)],
    )
    assert bad.exit_code == 2 and "--timestamp 'yesterday' is not ISO 8601" in bad.output
    pasted = "2026-11-21\n" + "9" * 3000  # a page pasted: its start quoted, escaped, its length said
    bad = invoke("build", MINI, "--lang", "es", "--id", "m", "--version", "1", "--timestamp", pasted, "-o", out)
    assert bad.exit_code == 2 and "--timestamp '2026-11-21\\n999" in bad.stderr, bad.stderr[:100]
    assert "9… (3,011 characters) is not ISO 8601" in bad.stderr and len(bad.stderr) < 350


def test_defaults_build_once_and_answer_to_their_language(manifest):
    first = run("build-defaults")
    assert "mini-es: built" in first.output and (manifest.parent.parent / "out" / "mini-es.lex").is_file()
    assert "mini-es: up to date" in run("build-defaults").output
    assert run("check", "es", "carro", "chico").output == "VALID\n"
    assert run("check", "mini-es", "carros").output == "NOT VALID\n"


def test_a_default_is_rebuilt_when_its_source_changes(manifest):
    run("build-defaults")
    (manifest.parent / "mini.txt").write_text("carro\nchico\ncarros\n")
    assert "mini-es: built" in run("build-defaults").output
    assert run("check", "es", "carros").output == "VALID\n"


def test_another_list_copied_over_a_default_is_never_built_over_unseen(manifest):
    """A list keeper's own list copied over a default's file (`cp fed.lex build/lexicons/...`), as
    the reload recipe once said: served after a reload, then at the next start rebuilt over from
    data/ without a word, the new list gone and the old one served. Refused, exit 2, naming what
    the file holds; `--force` builds the default over it when that is what is wanted."""
    run("build-defaults")
    target = manifest.parent.parent / "out" / "mini-es.lex"
    compile_list(target, ["CASA", "GATO"], "es", "fed-2027", "Fed", version="2027")
    theirs = target.read_bytes()
    checksum = hashlib.sha256(theirs).hexdigest()
    # build-defaults as `lexicon serve` runs it before it starts; `check es` would have judged
    # with their list under the default's name
    for command in (["build-defaults"], ["check", "es", "casa"], ["check", "mini-es", "casa"]):
        result = invoke(*command)
        assert result.exit_code == 2, result.output
        assert (
            f"Error: {target} holds another list, fed-2027 2027 (checksum {checksum}), not the default "
            "mini-es: it neither answers for the default nor is built over. Serve it from a file of its own (LEXICON_FILES) and remove it "
            "from here, or build the default over it with `lexicon build-defaults --force`"
        ) in result.output, result.output
        assert target.read_bytes() == theirs
    assert "mini-es: built" in run("build-defaults", "--force").output


def test_a_default_is_built_on_first_use_without_touching_stdout(manifest):
    result = CliRunner().invoke(main, ["dump", "es"])
    assert result.stdout == "CA[RR]O\n[CH]ICO\n"
    assert "mini-es is not built yet: building it now" in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and lines[1].startswith("mini-es: built ")
    doc = " ".join((REPO / "docs" / "cli.md").read_text(encoding="utf-8").split())
    assert "built on first use, with two lines on standard error" in doc  # as counted here


def test_an_unwritable_output_is_a_clear_error_and_writes_nothing(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    for extra in (["-o", str(blocker / "x.lex")], ["--report", str(blocker / "r.json"), "-o", str(tmp_path / "y.lex")]):
        result = CliRunner().invoke(main, ["build", str(MINI), "--lang", "es", "--id", "m", "--version", "1", *extra])
        assert result.exit_code == 2 and "cannot write" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "y.lex").exists()


def test_build_defaults_prints_one_line_a_lexicon_and_writes_the_full_report(manifest):
    first = run("build-defaults")
    out = manifest.parent.parent / "out"
    assert first.output == (
        f"mini-es: built {out / 'mini-es.lex'}: 2 words, 0 entries left out "
        f"(report: {out / 'mini-es.report.json'}; browser files: {out / 'mini-es.dawg'} and its .br and .gz)\n"
    )
    assert json.loads((out / "mini-es.report.json").read_text())["words"] == 2


@pytest.mark.parametrize("text", ["", "\n\n   \n", "# only a comment\n", "kiwi\nwok\n"])
@pytest.mark.parametrize("strict", [[], ["--strict"]])
def test_a_list_that_gives_no_words_is_a_failed_build_writing_nothing(tmp_path, text, strict):
    source, out = tmp_path / "empty.txt", tmp_path / "empty.lex"
    source.write_text(text)
    result = invoke("build", source, "--lang", "es", "--id", "e", "--version", "1", *strict, "-o", out)
    assert result.exit_code == 2, result.output
    assert f"no words compiled from {source}" in result.output and "not written" in result.output
    assert not out.exists()


def test_a_default_that_gives_no_words_is_refused_too(manifest):
    (manifest.parent / "mini.txt").write_text("\n")
    result = invoke("build-defaults")
    assert result.exit_code == 2 and "no words compiled" in result.output
    assert not (manifest.parent.parent / "out" / "mini-es.lex").exists()


@pytest.mark.parametrize("option", ["-o", "--report"])
def test_an_output_in_a_missing_directory_is_refused_and_no_directory_is_made(tmp_path, option):
    missing = tmp_path / "no" / "such" / "dir"
    args = [option, missing / "out.x"] + (["-o", tmp_path / "ok.lex"] if option == "--report" else [])
    result = invoke("build", MINI, "--lang", "es", "--id", "m", "--version", "1", *args)
    assert result.exit_code == 2 and f"no directory {missing}" in result.output
    assert not (tmp_path / "no").exists() and not (tmp_path / "ok.lex").exists()


@pytest.mark.parametrize("option", ["-o", "--report"])
def test_an_output_that_is_no_regular_file_is_refused_and_left_as_it_was(tmp_path, option):
    """`-o /dev/null` as root once renamed a regular file over the device: a pipe stands in for it."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    args = [option, pipe] + (["-o", tmp_path / "ok.lex"] if option == "--report" else [])
    result = invoke("build", MINI, "--lang", "es", "--id", "m", "--version", "1", *args)
    assert result.exit_code == 2 and "not a regular file" in result.output
    assert stat.S_ISFIFO(pipe.stat().st_mode)


def test_a_directory_without_from_disc_suggests_it(disc_dir_copy):
    result = invoke(
        "build", disc_dir_copy, "--lang", "ca", "--id", "d", "--version", "1", "-o", disc_dir_copy.parent / "d.lex"
    )
    assert result.exit_code == 2 and "add --from disc" in result.output


@pytest.fixture
def disc_dir_copy(tmp_path):
    folder = tmp_path / "disc"
    (folder / "models").mkdir(parents=True)
    (folder / "entrades.txt").write_text("casa NC 1\n")
    return folder


def test_help_of_build_explains_output_notation_and_exit_codes():
    text = run("build", "--help").output
    assert "Exit codes: 0 written; 1 --strict" in text
    for option in ("-o, --output", "--notation"):
        assert len(text.split(option, 1)[1].split("\n", 1)[0].split()) > 2, f"{option} has no help"


def test_build_defaults_writes_the_browser_file_beside_each_default_once(manifest):
    from lexicon.browser import browser_bytes
    from lexicon.lexfile import Lexicon

    run("build-defaults")
    out = manifest.parent.parent / "out"
    dawg = out / "mini-es.dawg"
    assert dawg.read_bytes() == browser_bytes(Lexicon.open(out / "mini-es.lex"))
    written = dawg.stat().st_mtime_ns
    assert run("build-defaults").output == f"mini-es: up to date ({out / 'mini-es.lex'})\n"
    assert dawg.stat().st_mtime_ns == written
    dawg.write_bytes(b"damaged")
    assert "(browser files written)" in run("build-defaults").output
    assert dawg.read_bytes() == browser_bytes(Lexicon.open(out / "mini-es.lex"))
    (manifest.parent / "mini.txt").write_text("carro\nchico\ncarros\n")
    run("build-defaults")
    assert dawg.read_bytes() == browser_bytes(Lexicon.open(out / "mini-es.lex"))


def test_build_defaults_writes_the_compressed_forms_the_service_sends_and_mends_them(manifest):
    """The service reads them at start instead of compressing (brotli at quality 11: a second a lexicon)."""
    import brotli

    run("build-defaults")
    out = manifest.parent.parent / "out"
    raw = (out / "mini-es.dawg").read_bytes()
    br, gz = out / "mini-es.dawg.br", out / "mini-es.dawg.gz"
    assert brotli.decompress(br.read_bytes()) == raw and gzip.decompress(gz.read_bytes()) == raw
    made = br.read_bytes(), gz.read_bytes()
    br.write_bytes(brotli.compress(b"another file", quality=11))  # stale
    gz.unlink()
    assert run("build-defaults").output == f"mini-es: up to date ({out / 'mini-es.lex'}) (browser files written)\n"
    assert (br.read_bytes(), gz.read_bytes()) == made  # the same bytes again
    assert run("build-defaults").output == f"mini-es: up to date ({out / 'mini-es.lex'})\n"


def test_build_defaults_makes_the_default_lexicons_home(manifest):
    out = manifest.parent.parent / "out"
    assert not out.exists()
    assert run("build-defaults").exit_code == 0 and (out / "mini-es.lex").is_file()


def test_a_failed_build_writes_its_report_but_no_lexicon_as_the_help_says(tmp_path):
    out, report = tmp_path / "strict.lex", tmp_path / "report.json"
    result = invoke(
        "build", MINI, "--lang", "es", "--id", "m", "--version", "1", "--strict", "--report", report, "-o", out
    )
    assert result.exit_code == 1 and not out.exists()
    assert sum(r["count"] for r in json.loads(report.read_text())["left_out"].values()) == 4
    help_text = " ".join(run("build", "--help").output.split())
    assert "written even when the build then fails" in help_text and "compiled file is written only on 0" in help_text


@pytest.mark.parametrize(
    "options, message",
    [
        (["--id", "", "--version", "1"], "id '' is not an id"),
        (["--id", "a b/c:d", "--version", "1"], "id 'a b/c:d' is not an id"),
        (["--id", "File2017", "--version", "1"], "id 'File2017' is not an id"),
        (["--id", "ca", "--version", "1"], "id 'ca' is two letters alone"),
        (["--id", "es", "--version", "1"], "id 'es' is two letters alone"),
        (["--id", "mini", "--version", ""], "version '' is not a version"),
        (["--id", "mini", "--version", "  "], "version '  ' is not a version"),
        (
            ["--id", "mini", "--version", "1", "--licence", "CC0\nline two"],
            "licence 'CC0\\nline two' is not a licence: at most 1000 printable characters, on one line",
        ),
        (["--id", "mini", "--version", "1", "--source", "a\tb"], "source 'a\\tb' is not a source"),
    ],
)
def test_a_bad_id_or_version_is_refused_quoting_it(tmp_path, options, message):
    out = tmp_path / "bad.lex"
    result = invoke("build", MINI, "--lang", "es", *options, "-o", out)
    assert result.exit_code == 2 and message in result.output, result.output
    assert not out.exists() and "Traceback" not in result.output


def test_a_manifest_with_a_bad_id_is_refused_naming_it(manifest):
    manifest.write_text(manifest.read_text().replace('id = "mini-es"', 'id = "../mini"'))
    result = invoke("build-defaults")
    assert result.exit_code == 2 and f"{manifest}: id '../mini' is not an id" in result.output


@pytest.mark.parametrize(
    "old, new, says",
    [
        ('language = "es"', 'language = "fr"', "lexicon 'mini-es': language 'fr' is not one of: ca, es"),
        ("default = true", 'from = "lst"', "lexicon 'mini-es': from 'lst' is not one of: list, disc"),
        ("default = true", 'notation = "tile"', "lexicon 'mini-es': notation 'tile' is not one of: spelling, tiles"),
        ('output = "../out"', "output = 5", "output is 5, not text"),
        ("default = true", 'default = "yes"', "lexicon 'mini-es': default is 'yes', not true or false"),
        ('name = "Mini"', "name = 7", "lexicon 'mini-es': name is 7, not text"),
        ("default = true", "defualt = true", "lexicon 'mini-es': unknown key 'defualt' (known: id, language, default,"),
        ("[[lexicon]]", "[[lexicons]]", "unknown key 'lexicons' (known: output, lexicon)"),
        ('id = "mini-es"', "id = 3", "a lexicon's id is 3, not text"),
        ("default = true", 'licence = "CC0\\nline two"', "licence 'CC0\\nline two' is not a licence"),
    ],
)
def test_a_manifest_that_cannot_be_used_is_refused_quoting_the_field(manifest, old, new, says):
    """A federation's own manifest (LEXICON_MANIFEST) with a typo: a language, kind or notation
    that is none, a value of another type, or a key misspelt. Each was a traceback, or was
    ignored (a misspelt key, `[[lexicons]]`: nothing built, exit 0). Exit 2, quoting it."""
    assert old in manifest.read_text()
    manifest.write_text(manifest.read_text().replace(old, new))
    result = invoke("build-defaults")
    assert result.exit_code == 2, result.output
    assert f"Error: {manifest}: {says}" in result.output and "Traceback" not in result.output


LONG = "x" * 5000  # a value pasted whole, or a line of a list pasted into the manifest


@pytest.mark.parametrize(
    "old, new, says, whole",
    [
        ('language = "es"', f'language = "{LONG}"', "language 'xxx", LONG),
        ("default = true", f"{LONG} = true", "unknown key 'xxx", LONG),
        ('name = "Mini"', f"name = [{', '.join(['1'] * 3000)}]", "name is [1, 1", ", 1" * 2999),
        ('language = "es"', 'language = "e\\u001b[2Js"', "language 'e\\x1b[2Js' is not one of", "\x1b"),
    ],
)
def test_a_manifest_s_bad_value_is_quoted_escaped_and_cut(manifest, old, new, says, whole):
    """A bad value of a manifest was quoted whole: a page of error for a value pasted in. Quoted
    as any bad input is (show_word): cut past SHOWN characters with its length said, and escaped,
    a control character (a terminal's clear-screen) shown, never written as it is."""
    from lexicon.errors import SHOWN

    manifest.write_text(manifest.read_text().replace(old, new))
    result = invoke("build-defaults")
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    (line,) = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert says in line and whole not in line, line
    assert len(line) < len(f"Error: {manifest}: lexicon 'mini-es': ") + SHOWN + 200, line  # not the whole value
    if len(whole) > SHOWN:
        assert "characters)" in line


def test_a_lexicon_home_that_cannot_be_written_is_named(manifest, tmp_path):
    home = tmp_path / "a-file"
    home.write_text("not a directory")
    result = invoke("check", "es", "carro", env={"LEXICON_HOME": str(home)})
    assert result.exit_code == 2 and f"check LEXICON_HOME ({home})" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("option", ["-o", "--report"])
@pytest.mark.parametrize("kind", ["list", "disc"])
def test_the_source_is_never_written_over(tmp_path, kind, option):
    """`lexicon build llista.txt ... -o llista.txt` (or `--report` there) replaced the list keeper's
    word list with the compiled file, exit 0: their list was gone. A file the build reads is
    refused as the output or the report, exit 2, naming it, and left as it was."""
    if kind == "list":
        source = tmp_path / "llista.txt"
        source.write_bytes(MINI.read_bytes())
        target, options = source, []
    else:
        source = tmp_path / "disc"
        source.mkdir()
        (source / "entrades.txt").write_text("gat|m.|201\n")
        (source / "models").mkdir()
        (source / "models" / "201.model").write_text("# 201 gat\n0 s . NP # gats\n0 0 . NS # gat\n")
        target, options = source / "models" / "201.model", ["--from", "disc"]
    before = target.read_bytes()
    others = {"-o": ["--report", tmp_path / "report.json"], "--report": ["-o", tmp_path / "out.lex"]}[option]
    result = invoke("build", source, "--lang", "ca", "--id", "x-1", "--version", "1", *options, *others, option, target)
    assert result.exit_code == 2, result.output
    assert (
        f"Error: cannot write {target}: this command reads it (the source {source}); name another file" in result.output
    )
    assert target.read_bytes() == before


def test_the_federation_build_of_cli_md_compiles_a_tiles_list_that_the_service_then_serves(tmp_path, monkeypatch):
    """docs/cli.md's "Building a federation's list", as written, on a two-word FILE2017.txt in the
    notation it describes (1 2 3 = CH LL RR): the build succeeds under --strict with the header
    it asks for; its LEXICON_FILES line names the default Catalan file by its built name and,
    given those two files, makes a service that answers Spanish challenges from the new list."""
    doc = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Building a federation's list") :]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1).replace("\\\n", " ")
    build, serve = (shlex.split(line) for line in block.splitlines() if line.strip())
    monkeypatch.chdir(tmp_path)
    (tmp_path / "FILE2017.txt").write_text("CA3O\n1ICO\n", encoding="utf-8")  # CARRO, CHICO
    assert build[:2] == ["lexicon", "build"]
    result = invoke(*build[1:])
    assert result.exit_code == 0, result.output
    header = Lexicon.open(tmp_path / "file2017.lex").header
    assert (header.id, header.name, header.version, header.language, header.words) == (
        "file2017",
        "FILE 2017",
        "2017",
        "es",
        2,
    )
    assert header.licence == "© FILE, for its members"

    setting, command = serve[0].split("=", 1), serve[1:]
    assert setting[0] == "LEXICON_FILES" and command == ["lexicon", "serve"]
    ours, catalan = setting[1].split(":")
    assert ours == "file2017.lex"  # the file the build line wrote
    manifest = tomllib.loads((REPO / "data" / "manifest.toml").read_text(encoding="utf-8"))
    (default,) = [found["id"] for found in manifest["lexicon"] if found["language"] == "ca" and found.get("default")]
    assert catalan == f"build/lexicons/{default}.lex"  # the default Catalan lexicon, as build-defaults names it
    (tmp_path / catalan).parent.mkdir(parents=True)
    compile_list(tmp_path / catalan, ["CASA"], "ca", "disc-small", "DISC, small")  # its name; seconds less to read
    monkeypatch.setenv("LEXICON_FILES", setting[1])
    from service import create_app

    client = create_app({"LEXICON_LOG_LEVEL": "warning"}).test_client()
    answer = client.post("/v1/challenge", json={"lexicon": "es", "words": ["CARRO", "CHICO"]}).get_json()
    assert answer["valid"] is True and answer["lexicon"]["id"] == "file2017"
