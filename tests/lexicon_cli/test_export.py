"""`lexicon export --browser`: the browser file, beside the .lex or where -o says."""

from __future__ import annotations

import gzip

import brotli
import pytest
from click.testing import CliRunner

from lexicon.browser import BrowserLexicon
from lexicon.lexfile import Lexicon
from lexicon_cli import main
from tests.support import REPO, compile_list


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_export_beside_the_lex_and_to_a_path(tmp_path):
    lex = compile_list(tmp_path / "mini.lex", ["CARRO", "CHICO", "LLAVE"], "es", "mini", "Mini")
    result = run("export", "--browser", lex)
    assert result.exit_code == 0, result.output
    written = (tmp_path / "mini.dawg").read_bytes()
    assert f"wrote {tmp_path / 'mini.dawg'}: 3 words" in result.output
    opened = BrowserLexicon(written)
    assert opened.header.lexicon_sha256 == Lexicon.open(lex).checksum
    assert run("export", "--browser", lex, "-o", tmp_path / "other.bin").exit_code == 0
    assert (tmp_path / "other.bin").read_bytes() == written  # reproducible
    for name in ("mini.dawg", "other.bin"):  # its compressed forms beside it, as the service sends them
        assert brotli.decompress((tmp_path / f"{name}.br").read_bytes()) == written
        assert gzip.decompress((tmp_path / f"{name}.gz").read_bytes()) == written
    assert (tmp_path / "mini.dawg.br").read_bytes() == (tmp_path / "other.bin.br").read_bytes()
    assert (tmp_path / "mini.dawg.gz").read_bytes() == (tmp_path / "other.bin.gz").read_bytes()


def test_bad_requests_exit_2_and_write_nothing(tmp_path):
    lex = compile_list(tmp_path / "mini.lex", ["CARRO", "CHICO"], "es", "mini", "Mini")
    result = run("export", lex)
    assert result.exit_code == 2 and "--browser" in result.output
    (tmp_path / "junk.lex").write_bytes(b"not a lexicon")
    result = run("export", "--browser", tmp_path / "junk.lex")
    assert result.exit_code == 2 and "no Lexicon Judge magic" in result.output
    result = run("export", "--browser", lex, "-o", lex / "x.dawg")  # under a file: unwritable
    assert result.exit_code == 2 and "cannot write" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["junk.lex", "mini.lex"]


def test_an_output_in_a_missing_directory_is_refused_and_no_directory_is_made(tmp_path):
    lex = compile_list(tmp_path / "mini.lex", ["CARRO", "CHICO"], "es", "mini", "Mini")
    missing = tmp_path / "no" / "such" / "dir"
    result = run("export", "--browser", lex, "-o", missing / "out.dawg")
    assert result.exit_code == 2 and f"no directory {missing}" in result.output
    assert not (tmp_path / "no").exists()


def test_the_default_output_is_named_after_the_lex_file_where_the_service_looks(tmp_path):
    """Not after the id: the docs, the help and the service's lookup all say NAME.dawg."""
    from lexicon.browser import beside

    lex = compile_list(tmp_path / "club-2026.lex", ["CARRO", "CHICO"], "es", "other-id", "Club")
    result = run("export", "--browser", lex)
    assert result.exit_code == 0 and (tmp_path / "club-2026.dawg").is_file()
    assert beside(lex) == tmp_path / "club-2026.dawg" and not (tmp_path / "other-id.dawg").exists()
    assert "NAME.lex: NAME.dawg" in " ".join(run("export", "--help").output.split())
    doc = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "`NAME.lex` → `NAME.dawg`" in doc and "`ID.dawg`" not in doc


@pytest.mark.parametrize("command", ["export --browser", "export-page", "expand"])
def test_what_a_command_reads_is_never_its_output(tmp_path, command):
    """`lexicon export --browser fed.lex -o fed.lex` wrote the browser file over the federation's
    compiled list, exit 0 (`export-page` the page, `expand DIR -o DIR/entrades.txt` the forms over
    the lemmas): the published file was gone. Refused, exit 2, naming it; left as it was."""
    if command == "expand":
        source = tmp_path / "disc"
        (source / "models").mkdir(parents=True)
        (source / "entrades.txt").write_text("gat|m.|201\n")
        (source / "models" / "201.model").write_text("# 201 gat\n0 s . NP # gats\n")
        target, what = source / "entrades.txt", f"the source {source}"
    else:
        source = target = compile_list(tmp_path / "fed.lex", ["CASA", "CARRO"], "es", "fed", "Fed")
        what = f"the lexicon {source}"
    before = target.read_bytes()
    result = CliRunner().invoke(main, [*command.split(), str(source), "-o", str(target)])
    assert result.exit_code == 2, result.output
    assert f"Error: cannot write {target}: this command reads it ({what}); name another file" in result.output
    assert target.read_bytes() == before


@pytest.mark.parametrize(
    "command",
    [
        "build {list} --lang es --id x-1 --version 1 -o -",
        "build {list} --lang es --id x-1 --version 1 -o {out} --report -",
        "export --browser {lex} -o -",
        "export-page {lex} -o -",
    ],
)
def test_a_dash_for_an_output_file_is_refused_not_a_file_called_dash(tmp_path, monkeypatch, command):
    """`-o -` wrote a file called `-` in the current directory, exit 0, where this command line
    reads `-` as standard output (`records export -o -`, `expand -o -`). Refused, exit 2, saying
    so; `./-` still names such a file."""
    monkeypatch.chdir(tmp_path)
    lex = compile_list(tmp_path / "fed.lex", ["CASA", "CARRO"], "es", "fed", "Fed")
    filled = command.format(list=REPO / "tests" / "data" / "mini-es.txt", lex=lex, out=tmp_path / "x.lex")
    result = CliRunner().invoke(main, filled.split())
    assert result.exit_code == 2, result.output
    assert "'-' is standard output, and this command writes a file: name one (./- for a file called -)" in result.output
    assert not (tmp_path / "-").exists()
