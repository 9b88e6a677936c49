"""The files beside a `.lex`: its browser file and that file's compressed forms, written once and
trusted only while each follows from the one before it (build_tools.browser_files)."""

from __future__ import annotations

import gzip

import brotli
import pytest

from build_tools.browser_files import SUFFIXES, form_path, read_beside, write_beside
from lexicon.browser import beside, browser_bytes
from lexicon.lexfile import Lexicon
from tests.support import compile_list

WORDS = ["CARRO", "CHICO", "PERRO", "LLAVE", "ÑANDÚ"]
OTHER = WORDS + ["CASA"]


@pytest.fixture
def lex(tmp_path):
    return compile_list(tmp_path / "club.lex", WORDS, "es", "club", "Club")


def forms(lex):
    return {coding: form_path(beside(lex), coding) for coding in SUFFIXES}


def test_written_beside_named_after_the_lex_each_form_exactly_the_browser_file(lex):
    written = write_beside(lex)
    raw = browser_bytes(Lexicon.open(lex))
    paths = forms(lex)
    assert sorted(p.name for p in written) == ["club.dawg", "club.dawg.br", "club.dawg.gz"]
    assert beside(lex).read_bytes() == raw
    assert brotli.decompress(paths["br"].read_bytes()) == raw
    assert gzip.decompress(paths["gzip"].read_bytes()) == raw
    found = read_beside(Lexicon.open(lex))
    assert found.raw == raw and found.ignored == []
    assert found.forms == {coding: path.read_bytes() for coding, path in paths.items()}


def test_the_same_lex_gives_the_same_bytes_byte_for_byte(lex, tmp_path):
    (tmp_path / "again").mkdir()
    copy = tmp_path / "again" / "club.lex"
    copy.write_bytes(lex.read_bytes())
    write_beside(lex)
    write_beside(copy)
    for name in ("club.dawg", "club.dawg.br", "club.dawg.gz"):
        assert (tmp_path / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name
    before = {name: (tmp_path / name).read_bytes() for name in ("club.dawg", "club.dawg.br", "club.dawg.gz")}
    assert len(write_beside(lex, force=True)) == 3
    assert {name: (tmp_path / name).read_bytes() for name in before} == before


def test_only_what_is_missing_stale_or_damaged_is_written_again(lex):
    write_beside(lex)
    paths = forms(lex)
    kept = beside(lex).stat().st_mtime_ns, paths["gzip"].stat().st_mtime_ns
    assert write_beside(lex) == []
    good = paths["br"].read_bytes()
    paths["br"].write_bytes(good[:-1] + bytes([good[-1] ^ 1]))
    assert write_beside(lex) == [paths["br"]]
    assert paths["br"].read_bytes() == good
    assert (beside(lex).stat().st_mtime_ns, paths["gzip"].stat().st_mtime_ns) == kept
    paths["gzip"].unlink()
    assert write_beside(lex) == [paths["gzip"]]


def test_a_form_is_used_only_if_it_decompresses_to_exactly_the_browser_file(lex, tmp_path):
    write_beside(lex)
    raw = beside(lex).read_bytes()
    paths = forms(lex)
    other = compile_list(tmp_path / "other.lex", OTHER, "es", "club", "Club", version="test-2")
    stale = browser_bytes(Lexicon.open(other))  # a valid browser file, of another list
    cases = {
        "br": [
            brotli.compress(stale, quality=11),  # stale: another list's form
            paths["br"].read_bytes()[:-3],  # truncated
            b"not brotli at all",
            brotli.compress(raw + b"more", quality=11),  # more than the file: output bounded, refused
            brotli.compress(raw[:-1], quality=11),
        ],
        "gzip": [
            gzip.compress(stale, mtime=0),
            paths["gzip"].read_bytes() + b"trailing",  # anything after the member
            gzip.compress(raw, mtime=0) + gzip.compress(b"x", mtime=0),  # a second member
            gzip.compress(raw + b"\0", mtime=0),
            b"",
        ],
    }
    for coding, bad_forms in cases.items():
        good = paths[coding].read_bytes()
        for bad in bad_forms:
            paths[coding].write_bytes(bad)
            found = read_beside(Lexicon.open(lex))
            assert coding not in found.forms and found.raw == raw
            assert [path for path, _ in found.ignored] == [paths[coding]]
            assert "stale or damaged" in found.ignored[0][1]
        paths[coding].write_bytes(good)


def test_no_form_is_read_for_a_browser_file_that_does_not_fit(lex, tmp_path):
    write_beside(lex)
    other = compile_list(tmp_path / "other.lex", OTHER, "es", "club", "Club", version="test-2")
    beside(lex).write_bytes(browser_bytes(Lexicon.open(other)))  # the .dawg of another list
    found = read_beside(Lexicon.open(lex))
    assert found.raw is None and found.forms == {}
    assert found.ignored == [(beside(lex), "made from another .lex file")]
    beside(lex).unlink()
    assert read_beside(Lexicon.open(lex)).ignored == [(beside(lex), "missing")]
