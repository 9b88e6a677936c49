"""Reading word lists: plain, xz, gzip, standard input, comments, line numbers, bad bytes."""

from __future__ import annotations

import gzip
import io
import lzma
import sys

import pytest

from build_tools.wordlist import WordListError, clean, read_word_list
from lexicon.browser import browser_bytes
from lexicon.lexfile import Lexicon
from tests.support import compile_list

TEXT = "# header\ncarro\n  chico \r\nllave # comment\n\n"


@pytest.mark.parametrize("pack", [lambda b: b, lzma.compress, gzip.compress], ids=["plain", "xz", "gz"])
def test_compression_is_recognised_by_content_not_name(tmp_path, pack):
    path = tmp_path / "list.dat"
    path.write_bytes(pack(TEXT.encode()))
    text, digest, _ = read_word_list(str(path))
    assert text.split("\n") == ["", "carro", "chico", "llave", "", ""]
    assert len(digest) == 64


def test_the_checksum_is_of_the_uncompressed_bytes(tmp_path):
    (tmp_path / "a.txt").write_bytes(TEXT.encode())
    (tmp_path / "a.txt.xz").write_bytes(lzma.compress(TEXT.encode()))
    assert read_word_list(str(tmp_path / "a.txt"))[1] == read_word_list(str(tmp_path / "a.txt.xz"))[1]


def test_standard_input(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(lzma.compress(TEXT.encode()))))
    assert read_word_list("-")[0].split("\n")[1:4] == ["carro", "chico", "llave"]


def test_a_bom_and_crlf_are_not_part_of_words(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeffcarro\r\nchico\r\n".encode())
    assert read_word_list(str(path))[0] == "carro\nchico\n"


def test_lines_keep_their_place_so_reports_can_quote_line_numbers():
    assert clean("a\n#b\n c \n\nd").split("\n") == ["a", "", "c", "", "d"]


def test_inner_white_space_is_kept_for_the_tokenizer_to_refuse():
    assert clean("  ad hoc  \n") == "ad hoc\n"


def test_bytes_that_are_not_utf8_name_their_line(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("carro\nchico\ncamión\n".encode("latin-1"))
    with pytest.raises(WordListError, match=r"line 3 is not UTF-8 \(byte 0xF3 at column 5\)"):
        read_word_list(str(path))


@pytest.mark.parametrize("encoding, mark", [("utf-16", "FF FE"), ("utf-16-be", "FE FF")])
def test_a_utf16_list_is_named_as_one(tmp_path, encoding, mark):
    """Windows' Notepad saves "Unicode" as UTF-16: the error said only that byte 0xFF is not
    UTF-8. It names the encoding and what to do, at the place the bytes are."""
    path = tmp_path / "llista.txt"
    path.write_bytes((b"\xfe\xff" if encoding == "utf-16-be" else b"") + "carro\nchico\n".encode(encoding))
    with pytest.raises(WordListError) as refused:
        read_word_list(str(path))
    assert str(refused.value) == (
        f"{path}: line 1 is not UTF-8 (bytes {mark} at column 1, the mark of a UTF-16 file: save it as "
        "UTF-8); word lists are UTF-8"
    )


@pytest.mark.parametrize("kind", ["compiled", "browser"])
def test_a_compiled_file_given_as_a_word_list_is_named_as_one(tmp_path, kind):
    """`lexicon build fed.lex ...`, the compiled file where its list goes: the error said only
    that line 1 is not UTF-8 at some byte. It says what the file is."""
    lexicon = compile_list(tmp_path / "fed.lex", ["CASA", "CARRO"], "es", "fed", "Fed")
    path = lexicon if kind == "compiled" else tmp_path / "fed.dawg"
    if kind == "browser":
        path.write_bytes(browser_bytes(Lexicon.open(lexicon)))
    what = {"compiled": "a compiled lexicon file", "browser": "a browser lexicon file"}[kind]
    with pytest.raises(WordListError) as refused:
        read_word_list(str(path))
    assert str(refused.value) == f"{path}: {what}, not a word list"


def test_a_missing_file_and_broken_compressed_data_are_clear_errors(tmp_path):
    with pytest.raises(WordListError, match="No such file"):
        read_word_list(str(tmp_path / "nope.txt"))
    broken = tmp_path / "broken.xz"
    broken.write_bytes(lzma.compress(TEXT.encode())[:-10])
    with pytest.raises(WordListError, match="broken compressed data"):
        read_word_list(str(broken))
