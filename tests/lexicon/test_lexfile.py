"""The compiled file: what it records, what it refuses, and the compiler's input rule."""

from __future__ import annotations

import hashlib
import json
import struct

import marisa_trie
import pytest

from lexicon.alphabet import load_alphabet
from lexicon.errors import CompileInputError, LexiconFileError, NotALexiconFile
from lexicon.lexfile import MAGIC, Lexicon, LexiconMeta, compile_lexicon, read_header
from lexicon.tokenizer import tokenizer
from tests.support import rewrite_header

WORDS = ["CARRO", "CHICO", "LLAVE", "ÑANDU", "CASA", "CAMION", "ZAS"]
META = LexiconMeta(id="mini-es", language="es", name="Mini", version="1.2", source="tests", licence="CC0")


def keys_of(words, language="es"):
    return sorted(tokenizer(language).key(w) for w in words)


@pytest.fixture
def data() -> bytes:
    return compile_lexicon(keys_of(WORDS), META, load_alphabet("es"))


@pytest.fixture
def path(tmp_path, data):
    target = tmp_path / "mini.lex"
    target.write_bytes(data)
    return target


def test_header_records_what_the_list_is(path, data):
    header = read_header(path)
    assert (header.id, header.language, header.name, header.version) == ("mini-es", "es", "Mini", "1.2")
    assert (header.source, header.licence, header.words, header.format) == ("tests", "CC0", 7, 1)
    assert header.tiles == load_alphabet("es").tiles
    assert header.built_at is None  # no timestamp unless one is given
    assert header.tool.startswith("lexicon-judge ")
    dump = "".join(Lexicon.open(path).dump())
    assert header.words_sha256 == hashlib.sha256(dump.encode("utf-8")).hexdigest()
    assert Lexicon.open(path).checksum == hashlib.sha256(data).hexdigest()


def test_dump_is_engine_notation_in_the_alphabets_order(path):
    assert list("".join(Lexicon.open(path).dump()).splitlines()) == [
        "CAMION",
        "CA[RR]O",
        "CASA",
        "[CH]ICO",
        "[LL]AVE",
        "ÑANDU",
        "ZAS",
    ]


def test_a_timestamp_is_stored_only_when_given():
    meta = LexiconMeta(**{**META.__dict__, "built_at": "2026-11-21T09:00:00Z"})
    lexicon = Lexicon.from_bytes(compile_lexicon(keys_of(WORDS), meta, load_alphabet("es")))
    assert lexicon.header.built_at == "2026-11-21T09:00:00Z"


def test_the_trie_is_aligned_for_memory_mapping(data):
    header_length = struct.unpack_from("<I", data, 12)[0]
    start = 48 + header_length + (-(48 + header_length) % 64)
    assert start % 64 == 0 and data[start:].startswith(b"We love Marisa.")


# -- refusing what cannot be trusted ------------------------------------------------------------


def refused(data: bytes, says: str) -> None:
    with pytest.raises(LexiconFileError, match=says):
        Lexicon.from_bytes(data, "x.lex")


@pytest.mark.parametrize("cut", [0, 4, 8, 20, 47, 48, 100, -1000, -1])
def test_a_truncated_file_is_refused(data, cut):
    refused(data[:cut], "not a compiled lexicon|truncated|checksum mismatch|empty")


def test_every_altered_byte_is_refused(data):
    for place in [9, 12, 16, 47, 48, 60, len(data) // 2, len(data) - 1]:
        altered = bytearray(data)
        altered[place] ^= 0x01
        with pytest.raises(LexiconFileError):
            Lexicon.from_bytes(bytes(altered))


def test_a_foreign_file_is_refused(tmp_path):
    trie = marisa_trie.Trie(["CARRO"])
    refused(trie.tobytes(), "not a compiled lexicon file")
    refused(b"CARRO\nCHICO\n", "not a compiled lexicon file")
    refused(b"\xfd7zXZ\x00" + bytes(100), "not a compiled lexicon file")


def test_another_format_version_is_refused_with_advice(data):
    newer = data[:8] + struct.pack("<H", 2) + data[10:]
    refused(newer, "format version 2; this program reads version 1: recompile it")


def test_a_file_built_with_another_tile_set_is_refused(data):
    refused(rewrite_header(data, lambda h: h.update(tiles=h["tiles"][:-1])), "another Spanish tile set")


def test_a_word_count_that_disagrees_with_the_trie_is_refused(data):
    refused(rewrite_header(data, lambda h: h.update(words=8)), "7 words where the header says 8")


def test_an_unknown_language_is_refused(data):
    refused(rewrite_header(data, lambda h: h.update(language="xx")), "unknown language 'xx'")


def test_a_header_missing_a_field_is_refused(data):
    refused(rewrite_header(data, lambda h: h.pop("version")), "corrupt header")


@pytest.mark.parametrize(
    "change, says",
    [
        ({"id": 123}, "header: id is 123, not text"),
        ({"id": "Mini ES/x"}, "header: id 'Mini ES/x' is not an id"),
        ({"id": "es"}, "header: id 'es' is two letters alone"),
        ({"version": ""}, "header: version '' is not a version"),
        ({"version": 2}, "header: version is 2, not text"),
        ({"version": "1\x1b[31m"}, "header: version '1\\x1b[31m' is not a version"),
        ({"name": None}, "header: name is None, not text"),
        ({"words": "7"}, "header: words is '7', not a whole number"),
        ({"words": True}, "header: words is True, not a whole number"),
        ({"trie_bytes": -1}, "header: trie_bytes is -1, not a whole number"),
        ({"words_sha256": "00"}, "header: words_sha256 is '00', not a SHA-256 in hex"),
        ({"format": 2}, "header: format 2, but the file's prefix says format 1"),
        ({"source": 5}, "header: source is 5, not text"),
        ({"licence": "CC0\x1b[2J"}, "header: licence 'CC0\\x1b[2J' is not a licence"),
        ({"built_at": 5}, "header: built_at is 5, not text"),
        ({"build": [1]}, "header: build is [1], not an object"),
        ({"tiles": "ABC"}, "header: tiles is 'ABC', not a list of tiles"),
    ],
)
def test_a_header_that_no_build_writes_is_refused_quoting_the_field(data, change, says):
    """A header edited and its checksum recomputed (a forged file, or another tool's): every field
    is checked as a build would write it, so nothing served carries an id, a name or a version
    that `lexicon build` refuses, and nothing downstream meets a number where it reads text."""
    with pytest.raises(LexiconFileError) as error:
        Lexicon.from_bytes(rewrite_header(data, lambda h: h.update(change)), "x.lex")
    assert str(error.value).startswith(f"x.lex: {says}")


def test_a_header_in_another_json_spelling_is_refused(data):
    """The header is canonical JSON: the same facts spelt with spaces are no file a build writes."""
    length = struct.unpack_from("<I", data, 12)[0]
    spaced = json.dumps(json.loads(data[48 : 48 + length]), sort_keys=True, ensure_ascii=False).encode()
    trie = data[48 + length + (-(48 + length) % 64) :]
    body = spaced + b"\0" * (-(48 + len(spaced)) % 64) + trie
    forged = MAGIC + struct.pack("<HHI", 1, 0, len(spaced)) + hashlib.sha256(body).digest() + body
    refused(forged, "header is not in canonical JSON")


@pytest.mark.parametrize("make", ["missing", "empty", "directory"])
def test_paths_that_are_no_lexicon_file_are_refused_clearly(tmp_path, make):
    target = tmp_path / "x.lex"
    if make == "empty":
        target.write_bytes(b"")
    elif make == "directory":
        target.mkdir()
    with pytest.raises(LexiconFileError, match=r"x\.lex: "):
        Lexicon.open(target)


def test_a_directory_is_said_to_be_one_with_no_command_s_advice(tmp_path):
    """The pure core says what the path is; what to run about it is the command line's to say
    (lexicon_cli.common.bad_lexicon), never the core's: a service or a library has no `lexicon build`."""
    (tmp_path / "llista").mkdir()
    with pytest.raises(NotALexiconFile) as refused:
        Lexicon.open(tmp_path / "llista")
    assert str(refused.value) == f"{tmp_path / 'llista'}: a directory, not a compiled lexicon file"


# -- the compiler's input rule -------------------------------------------------------------------


@pytest.mark.parametrize(
    "keys, says",
    [
        (["CASA", "CARRO"], "comes before the entry before it"),
        (["CASA", "CASA"], "repeats the entry before it"),
        (["C"], "not a key of 2 to 15"),
        (["CASASCASASCASASC"], "not a key of 2 to 15"),
        (["CASA\x7f"], "not a key of 2 to 15"),
    ],
)
def test_the_input_rule_is_enforced(keys, says):
    es = tokenizer("es", "tiles")
    encoded = [es.key(k.rstrip("\x7f")) + ("\x7f" if k.endswith("\x7f") else "") for k in keys]
    with pytest.raises(CompileInputError, match=says):
        compile_lexicon(encoded, META, load_alphabet("es"))


def test_keys_of_another_language_are_refused():
    with pytest.raises(CompileInputError, match="meta says 'es', alphabet is 'ca'"):
        compile_lexicon([], META, load_alphabet("ca"))


def test_an_empty_lexicon_compiles_and_finds_nothing():
    lexicon = Lexicon.from_bytes(compile_lexicon([], META, load_alphabet("es")))
    assert len(lexicon) == 0 and tokenizer("es").key("CASA") not in lexicon
