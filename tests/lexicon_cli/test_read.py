"""`lexicon check`, `dump` and `info`: verdicts, words, headers, exit codes."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from lexicon.lexfile import Lexicon
from lexicon_cli import main
from lexicon_cli.common import LEXICON_IS
from tests.support import rewrite_header

from .conftest import LEXICON_BIN, invoke, run


def test_check_prints_one_joint_verdict(mini):
    assert run("check", mini, "carro", "chico", "llave").output == "VALID\n"
    assert run("check", mini, "carro", "chicos", "llave").output == "NOT VALID\n"
    assert run("check", mini, "--notation", "tiles", "CA3O").output == "VALID\n"
    verdict = json.loads(run("check", mini, "--json", "ZAS").output)
    assert verdict["valid"] is True and verdict["lexicon"]["id"] == "mini-es"
    assert verdict["lexicon"]["checksum"] == Lexicon.open(mini).checksum


@pytest.mark.parametrize(
    "words, says",
    [
        (["carro", "kiwi"], "word 2: 'k' at 1 in 'kiwi'"),
        (["a"], "'a' has 1 tile; words have 2 to 15 tiles"),
        (["casa"] * 9, "a play has 1 to 8 words, not 9"),
        ([""], "empty word"),
    ],
)
def test_check_bad_input_exits_2_with_the_error(mini, words, says):
    result = CliRunner().invoke(main, ["check", str(mini), *words])
    assert result.exit_code == 2 and says in result.output


def test_dump_is_sorted_engine_notation(mini):
    assert run("dump", mini).output.split() == ["CAMION", "CA[RR]O", "[CH]ICO", "[LL]AVE", "ÑANDU", "ZAS"]


def test_info_shows_the_header(mini):
    text = run("info", mini).output
    assert "id:           mini-es" in text and "words:        6" in text and "tiles:        A B C CH D" in text
    info = json.loads(run("info", mini, "--json", "--verify").output)
    assert info["words"] == 6 and info["words_verified"] is True and info["file_sha256"] == Lexicon.open(mini).checksum


def test_a_long_unknown_lexicon_name_is_quoted_escaped_and_cut_not_a_traceback(tmp_path):
    """A name longer than a file's may be (a word list pasted as LEXICON): the file system refused
    to look it up (OSError, a traceback); now it is an unknown lexicon, its start quoted, escaped,
    and its length said, in every command that takes one."""
    name = "\x1b[31m" + "x" * 5000
    event = tmp_path / "open.db"
    for args in (
        ["check", name, "casa"],
        ["info", name],
        ["event", "init", event, "--name", "Open", "--lexicon", name],
    ):
        result = run(*args)
        assert result.exit_code == 2, result.output[:200]
        error = result.stderr.strip()
        assert error.startswith("Error: unknown lexicon '\\x1b[31mxxx"), (args, error[:100])
        assert "x… (5,005 characters): not a" in error and len(error) < 400, (args, error[:100])
    assert not event.exists()


def test_unknown_and_corrupt_lexicons_exit_2(tmp_path, mini):
    result = CliRunner().invoke(main, ["check", "nonesuch", "casa"])
    assert result.exit_code == 2 and "unknown lexicon 'nonesuch'" in result.output
    broken = tmp_path / "broken.lex"
    broken.write_bytes(mini.read_bytes()[:-7])
    result = CliRunner().invoke(main, ["info", str(broken)])
    assert result.exit_code == 2 and "truncated or corrupt" in result.output


def test_the_installed_console_script(mini):
    """The real entry point, as a user runs it, including a pipe closed early."""
    done = subprocess.run([LEXICON_BIN, "check", mini, "CARRO", "ÑANDÚ"], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "VALID\n")
    done = subprocess.run(f"'{LEXICON_BIN}' dump '{mini}' | head -1", shell=True, capture_output=True, text=True)
    assert done.stdout == "CAMION\n" and "Traceback" not in done.stderr


@pytest.mark.parametrize("name", ["es", "ES", "Es", "mini-es"])
def test_a_default_answers_to_its_language_in_any_case(manifest, name):
    assert run("check", name, "carro").stdout == "VALID\n"


def test_an_argument_that_is_not_utf8_is_said_to_be_so(mini):
    """A Latin-1 terminal types bytes Python keeps as surrogates: say so, not 'U+DCFF at 3'."""
    done = subprocess.run([os.fsencode(LEXICON_BIN), b"check", os.fsencode(mini), b"CA\xffSA"], capture_output=True)
    assert done.returncode == 2 and b"the word is not valid UTF-8 text" in done.stderr
    assert b"DCFF" not in done.stderr and b"Traceback" not in done.stderr
    result = invoke("check", "--json", mini, "CASA", "CA\udcffSA")
    assert result.exit_code == 2 and json.loads(result.stdout)["word"] == 2
    assert json.loads(result.stdout)["error"].startswith("word 2 is not valid UTF-8 text")


def test_check_json_reports_errors_as_json_too(mini):
    result = invoke("check", "--json", mini, "casa", "kiwi")
    assert result.exit_code == 2
    assert json.loads(result.stdout) == {
        "error": "word 2: 'k' at 1 in 'kiwi': the Spanish set has no K tile",
        "word": 2,
    }
    result = invoke("check", "--json", "nonesuch", "casa")
    assert result.exit_code == 2 and json.loads(result.stdout)["error"].startswith("unknown lexicon 'nonesuch'")


def test_info_verify_prints_yes_like_its_other_fields(mini):
    text = run("info", "--verify", mini).output
    assert "\nwords_verified: yes\n" in text and "\nid:             mini-es\n" in text  # one column


def test_info_verify_names_the_file_whose_words_do_not_match(tmp_path, mini):
    """A header whose words_sha256 was edited (its checksum recomputed): `--verify` exits 2, and
    the error names the file and the two checksums, for a list keeper checking a file received."""
    forged = tmp_path / "forged.lex"
    forged.write_bytes(rewrite_header(mini.read_bytes(), lambda header: header.update(words_sha256="a" * 64)))
    words = hashlib.sha256(run("dump", mini).output.encode()).hexdigest()
    result = invoke("info", "--verify", forged)
    assert result.exit_code == 2 and "words_verified: no" in result.stdout
    assert result.stderr == (
        f"Error: {forged}: the words are not those of its header: words_sha256 {'a' * 64}, and its words give {words}\n"
    )


@pytest.mark.parametrize(
    "command, own, not_theirs",
    [
        (
            ["check"],
            "Exit codes: 0 done, VALID or NOT VALID; 2 bad input (an unknown lexicon, a corrupt or foreign "
            "file, a word that is no tiles)",
            "",
        ),
        (["dump"], "Exit codes: 0 done; 2 bad input (an unknown lexicon, a corrupt or foreign file).", "no tiles"),
        (["info"], "words that do not match their checksum, with --verify).", "no tiles"),
        (
            ["diff"],
            "0 done, whether or not they differ; 1 with --exit-code, when a word is shown; 2 bad input",
            "no tiles",
        ),
        (
            ["export"],
            "Exit codes: 0 written; 2 bad input (an unknown lexicon, a corrupt or foreign file, no format "
            "given, an output that cannot be written).",
            "no tiles",
        ),
        (["event", "init"], "Exit codes: 0 created; 2 bad input (an unknown lexicon", "no tiles"),
    ],
)
def test_help_says_what_lexicon_may_be_and_the_commands_own_exit_codes(command, own, not_theirs):
    text = " ".join(run(*command, "--help").output.split())
    assert LEXICON_IS in text  # one phrase, written once in lexicon_cli.common
    assert own in text
    assert "NOT VALID" not in text or command == ["check"]
    assert not not_theirs or not_theirs not in text


def test_event_init_help_says_what_leaving_out_the_lexicon_means():
    text = " ".join(run("event", "init", "--help").output.split())
    # It is no default of the API: a challenge to an event still names its lexicon.
    assert "every verdict the event records is judged with it, whoever asks (the service refuses another)" in text
    assert "a challenge to the API names it" in text
    assert "Left out, the event judges with the service's default lexicon, pinned at its first start" in text
    assert "may choose another" not in text and "choose as judges do" not in text


def test_check_notation_has_help():
    text = run("check", "--help").output
    assert "engine tile notation" in text.split("--notation", 1)[1]


def test_python_m_lexicon_cli_is_the_same_command(mini, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "lexicon_cli", "check", mini, "CARRO"], cwd=tmp_path, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout) == (0, "VALID\n")


def test_a_default_s_name_wins_over_a_file_of_that_name_here(manifest, tmp_path, monkeypatch):
    from tests.support import compile_list

    monkeypatch.chdir(tmp_path)
    compile_list(tmp_path / "es", ["CASA", "MESA"], "es", "other-es", "Other")  # a file named like the language
    assert "id:           mini-es" in run("info", "es").output  # the manifest's default
    assert "id:           other-es" in run("info", "./es").output  # the file, by its path
    compile_list(tmp_path / "mylist", ["CASA"], "es", "mine", "Mine")
    assert "id:           mine" in run("info", "mylist").output  # no default of that name: the file


def test_a_directory_given_as_a_lexicon_is_told_to_be_compiled_first(tmp_path, monkeypatch, manifest):
    """A list maintainer who names the DISC source directory itself (`lexicon check llista ANY`)
    was told "unknown lexicon 'llista': not a file, nor a default", or with a slash the system's
    "Is a directory". Every command that reads a LEXICON says what it is and what to do."""
    (tmp_path / "llista" / "models").mkdir(parents=True)
    (tmp_path / "llista" / "entrades.txt").write_text("any|m.|201\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    said = "a directory, not a compiled lexicon file: compile a word list or a DISC source with `lexicon build` first"
    env = {"LEXICON_DIRECTOR_PASSWORD": "una-clave-de-prueba"}
    for name in ("llista", "llista/"):
        for args in (
            ["check", name, "ANY"],
            ["info", name],
            ["event", "init", "e.db", "--name", "E", "--lexicon", name],
        ):
            result = invoke(*args, env=env)
            assert result.exit_code == 2 and result.stderr == f"Error: {name}: {said}\n", (args, result.output)
    assert not (tmp_path / "e.db").exists()
