"""The row a judged play becomes (service/event/entries.py): its words in engine tiles."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexicon.errors import InputError
from lexicon.tokenizer import tokenizer
from service.event.entries import tile_writer

LETTERS = {"ca": "abcçdefghijlmnopqrstuvxyzàèéíïòóúü·", "es": "abcdefghijlmnñopqrstuvxyzáéíóúü"}
TILES = {"ca": ["A", "Ç", "L·L", "QU", "NY"], "es": ["A", "Ñ", "CH", "LL", "RR", "O"]}


@pytest.mark.parametrize("language", ["ca", "es"])
@given(data=st.data())
def test_a_play_s_tiles_are_each_key_s_engine_tiles_written_in_one_call(language, data):
    """All of a play's keys in one engine_text call (separated by line feeds): each key's tiles,
    in order, as one call a key writes them (Catalan and Spanish words, spelled or in tiles)."""
    notation = data.draw(st.sampled_from(["spelling", "tiles"]))
    if notation == "spelling":
        words = data.draw(
            st.lists(st.text(st.sampled_from(LETTERS[language]), min_size=1, max_size=9), min_size=1, max_size=8)
        )
    else:
        words = data.draw(
            st.lists(st.lists(st.sampled_from(TILES[language]), min_size=1, max_size=6), min_size=1, max_size=8)
        )
        words = ["".join(f"[{tile}]" if len(tile) > 1 else tile for tile in word) for word in words]
    tokens = tokenizer(language, notation)
    try:
        keys = tokens.keys(words)
    except InputError:
        return  # not a play (a middle dot out of place): no verdict, no row
    written = tile_writer(language, notation)(keys)
    assert written == tuple(tokens.alphabet.engine_text(key) for key in keys)
    assert len(written) == len(words)


def test_no_keys_are_no_tiles():
    assert tile_writer("es", "spelling")(()) == ()
