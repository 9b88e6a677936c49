"""Every byte of a compiled file is covered by a check: change any one, and the file is refused.

The reserved field of the prefix (bytes 10 and 11) was once read and ignored, so a file with
those bytes changed loaded and verified; now each byte, prefix included, is checked by its exact
value, by the hash, or by the header ending where the prefix says and the sizes adding up.
"""

from __future__ import annotations

import pytest

from lexicon.alphabet import load_alphabet
from lexicon.errors import LexiconFileError
from lexicon.lexfile import Lexicon, LexiconMeta, compile_lexicon, read_header
from lexicon.tokenizer import tokenizer


@pytest.fixture(scope="module")
def small() -> bytes:
    words = ["CASA", "CHICO", "LLAVE", "PERRO", "ÑU"]
    keys = sorted({tokenizer("es", "spelling").key(word) for word in words})
    meta = LexiconMeta(id="tiny", language="es", name="Tiny", version="1")
    return compile_lexicon(keys, meta, load_alphabet("es"))


@pytest.mark.parametrize("mask", [0x01, 0x80, 0xFF])
def test_changing_any_byte_is_refused(small, mask, tmp_path):
    assert len(Lexicon.from_bytes(small)) == 5
    accepted = []
    for position in range(len(small)):
        changed = bytearray(small)
        changed[position] ^= mask
        try:
            Lexicon.from_bytes(bytes(changed))
        except LexiconFileError:
            continue
        accepted.append(position)
    assert accepted == []


def test_reserved_bytes_are_refused_by_name(small, tmp_path):
    changed = bytearray(small)
    changed[10] = 1
    path = tmp_path / "reserved.lex"
    path.write_bytes(bytes(changed))
    with pytest.raises(LexiconFileError, match="reserved bytes 10-11"):
        Lexicon.open(path)
    with pytest.raises(LexiconFileError, match="reserved bytes 10-11"):
        read_header(path)


def test_a_file_changed_after_open_changes_nothing(small, tmp_path):
    """Served from the bytes that were verified: overwriting the file in place (same inode) later
    neither changes an answer nor can crash the reader (a memory map of it could, with SIGBUS)."""
    path = tmp_path / "served.lex"
    path.write_bytes(small)
    lexicon = Lexicon.open(path)
    key = tokenizer("es", "spelling").key("LLAVE")
    with open(path, "r+b") as file:  # same inode: truncated, then garbage
        file.truncate(0)
        file.write(b"\0" * 100)
    assert key in lexicon and len(lexicon.keys()) == 5 and lexicon.verify_words()
