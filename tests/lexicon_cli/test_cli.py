"""The `lexicon` CLI contract: commands, output, exit codes, default lexicons."""

from __future__ import annotations

import json
import re
import lzma
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lexicon_cli import main
from lexicon.lexfile import Lexicon

DATA = Path(__file__).resolve().parents[1] / "data"
MINI = DATA / "mini-es.txt"
LEXICON_BIN = Path(sys.executable).parent / "lexicon"


def run(*args, input=None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)


@pytest.fixture(scope="module")
def mini(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "mini.lex"
    result = run("build", MINI, "--lang", "es", "--id", "mini-es", "--name", "Mini", "--version", "1", "-o", out)
    assert result.exit_code == 0, result.output
    return out


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
    result = CliRunner().invoke(main, ["build", str(MINI), "--lang", "es", "--id", "m", "--version", "1", "--strict", "-o", str(out)])
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
    assert run("build", words, "--lang", "es", "--id", "t", "--version", "1", "--notation", "tiles", "-o", out).exit_code == 0
    assert run("dump", out).output == "CA[RR]O\n[CH]ICO\n[LL]AVE\n"


def test_build_timestamp_is_stored_only_when_given_and_must_be_iso(tmp_path, mini):
    assert Lexicon.open(mini).header.built_at is None
    out = tmp_path / "t.lex"
    run("build", MINI, "--lang", "es", "--id", "m", "--version", "1", "--timestamp", "2026-11-21T09:00:00+01:00", "-o", out)
    assert Lexicon.open(out).header.built_at == "2026-11-21T09:00:00+01:00"
    bad = CliRunner().invoke(main, ["build", str(MINI), "--lang", "es", "--id", "m", "--version", "1", "--timestamp", "yesterday", "-o", str(out)])
    assert bad.exit_code == 2 and "not ISO 8601" in bad.output


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


def test_unknown_and_corrupt_lexicons_exit_2(tmp_path, mini):
    result = CliRunner().invoke(main, ["check", "nonesuch", "casa"])
    assert result.exit_code == 2 and "unknown lexicon 'nonesuch'" in result.output
    broken = tmp_path / "broken.lex"
    broken.write_bytes(mini.read_bytes()[:-7])
    result = CliRunner().invoke(main, ["info", str(broken)])
    assert result.exit_code == 2 and "truncated or corrupt" in result.output


@pytest.fixture
def manifest(tmp_path, monkeypatch) -> Path:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "mini.txt").write_text("carro\nchico\n")
    path = tmp_path / "data" / "manifest.toml"
    path.write_text(
        'output = "../out"\n[[lexicon]]\nid = "mini-es"\nlanguage = "es"\ndefault = true\n'
        'name = "Mini"\nversion = "1"\nsource = "mini.txt"\n'
    )
    monkeypatch.setenv("LEXICON_MANIFEST", str(path))
    return path


def test_defaults_build_once_and_answer_to_their_language(manifest):
    first = run("build-defaults")
    assert "mini-es: building" in first.output and (manifest.parent.parent / "out" / "mini-es.lex").is_file()
    assert "mini-es: up to date" in run("build-defaults").output
    assert run("check", "es", "carro", "chico").output == "VALID\n"
    assert run("check", "mini-es", "carros").output == "NOT VALID\n"


def test_a_default_is_rebuilt_when_its_source_changes(manifest):
    run("build-defaults")
    (manifest.parent / "mini.txt").write_text("carro\nchico\ncarros\n")
    assert "mini-es: building" in run("build-defaults").output
    assert run("check", "es", "carros").output == "VALID\n"


def test_a_default_is_built_on_first_use_without_touching_stdout(manifest):
    result = CliRunner().invoke(main, ["dump", "es"])
    assert result.stdout == "CA[RR]O\n[CH]ICO\n"
    assert "mini-es is not built yet: building it now" in result.stderr


def test_the_installed_console_script(mini):
    """The real entry point, as a user runs it, including a pipe closed early."""
    done = subprocess.run([LEXICON_BIN, "check", mini, "CARRO", "ÑANDÚ"], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "VALID\n")
    done = subprocess.run(f"'{LEXICON_BIN}' dump '{mini}' | head -1", shell=True, capture_output=True, text=True)
    assert done.stdout == "CAMION\n" and "Traceback" not in done.stderr


def test_an_unwritable_output_is_a_clear_error_and_writes_nothing(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    for extra in (["-o", str(blocker / "x.lex")], ["--report", str(blocker / "r.json"), "-o", str(tmp_path / "y.lex")]):
        result = CliRunner().invoke(main, ["build", str(MINI), "--lang", "es", "--id", "m", "--version", "1", *extra])
        assert result.exit_code == 2 and "cannot write" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "y.lex").exists()
