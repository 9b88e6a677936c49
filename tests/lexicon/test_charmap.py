"""lexicon/charmap.py: CharMap replaces exactly as `str.translate` does, its reference, on its fast
path (Latin-1 bytes, longer replacements first) and off it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from lexicon.charmap import CharMap

# Latin-1 and a few beyond it; tile codes are control characters, so those are in too
CHARACTERS = st.sampled_from([*"\x01\x02\x03\n AÑÇ·ñcChHlL[]", "\u0140", "\u2022", "😀"])
MAPPINGS = st.dictionaries(CHARACTERS, st.text(CHARACTERS, min_size=0, max_size=4), max_size=8)


@given(MAPPINGS, st.text(CHARACTERS, max_size=30))
def test_a_charmap_replaces_as_str_translate_does(mapping, text):
    assert CharMap(mapping)(text) == text.translate(str.maketrans(mapping))


def test_the_fast_path_is_taken_for_tile_codes_and_gives_the_same():
    """A tokenizer's kind of mapping (codes to Latin-1 letters, one to a bracketed digraph) is
    replaced by bytes: the path property above cannot tell it was taken."""
    mapping = {"\x01": "A", "\x02": "[CH]", "\x03": "Ñ"}
    charmap = CharMap(mapping)
    assert charmap._bytes is not None
    assert charmap("\x02\x01\x03\x01") == "[CH]AÑA"
    assert CharMap({"\x01": "\u0140"})._bytes is None  # beyond Latin-1: str.translate's own path
