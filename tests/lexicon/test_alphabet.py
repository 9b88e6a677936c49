"""The alphabet files hold the tile sets of docs/tiles.md, and a broken file fails loudly."""

from __future__ import annotations

import pytest

from lexicon.alphabet import TILE_CODES, languages, load_alphabet, parse_alphabet

SPANISH = "A12 B2 C4 CH1 D5 E12 F1 G2 H2 I6 J1 L4 LL1 M2 N5 Ñ1 O9 P2 Q1 R5 RR1 S6 T4 U5 V1 X1 Y1 Z1"
CATALAN = "A12 B2 C3 Ç1 D3 E13 F1 G2 H1 I8 J1 L4 L·L1 M3 N6 NY1 O5 P2 QU1 R8 S8 T5 U4 V1 X1 Z1"


def as_text(language: str) -> str:
    alphabet = load_alphabet(language)
    return " ".join(f"{tile}{alphabet.counts[tile]}" for tile in alphabet.tiles)


def test_languages():
    assert languages() == ["ca", "es"]


@pytest.mark.parametrize("language, expected", [("es", SPANISH), ("ca", CATALAN)])
def test_tile_sets_and_counts_are_the_federations(language, expected):
    alphabet = load_alphabet(language)
    assert as_text(language) == expected
    assert alphabet.blanks == 2 and alphabet.tile_count == 100


def test_no_k_or_w_tile_in_either_language_and_no_y_in_catalan():
    for language in ("es", "ca"):
        assert not {"K", "W"} & set(load_alphabet(language).tiles)
    assert "Y" not in load_alphabet("ca").tiles


def test_codes_are_control_characters_so_no_typed_word_holds_one():
    assert all(not c.isprintable() for c in TILE_CODES) and "\n" not in TILE_CODES and "\0" not in TILE_CODES
    assert len(set(TILE_CODES)) == len(TILE_CODES)


def test_keys_sort_in_the_alphabets_order():
    es = load_alphabet("es")
    words = [["C", "H"], ["CH"], ["C", "I"], ["D"], ["N"], ["Ñ"], ["O"], ["L", "L"], ["LL"], ["M"]]
    ordered = sorted(words, key=es.key)
    assert ordered == [["C", "H"], ["C", "I"], ["CH"], ["D"], ["L", "L"], ["LL"], ["M"], ["N"], ["Ñ"], ["O"]]


MINIMAL = """
language = "xx"
name = "Test"
tiles = [["A", 1], ["CH", 1]]
[notations.spelling]
spellings = { "CH" = "CH" }
"""


def test_a_minimal_alphabet_parses():
    alphabet = parse_alphabet(MINIMAL)
    assert alphabet.tiles == ("A", "CH") and dict(alphabet.notation("spelling").spellings) == {"A": "A", "CH": "CH"}


@pytest.mark.parametrize(
    "change, says",
    [
        (('["A", 1], ["CH", 1]', '["A", 1], ["A", 1], ["CH", 1]'), "listed twice"),
        (('["A", 1]', '["a", 1]'), "must be upper case"),
        (('"CH" = "CH"', '"CH" = "KH"'), "names no tile 'KH'"),
        (('"CH" = "CH"', '"ch" = "CH"'), "must be upper case"),
        (('spellings = { "CH" = "CH" }', "spellings = {}"), r"no spelling spelling for tiles \['CH'\]"),
        (("[notations.spelling]", "[notations.tiles]"), "spelling notation is missing"),
        (('name = "Test"', 'name = "Test"\ndistinct = ["Ñ"]'), "distinct letters"),
        (
            ('spellings = { "CH" = "CH" }', 'spellings = { "CH" = "CH" }\nhints_in.es = { "K" = "no hay K" }'),
            r"hints_in.es translates no hint for \['K'\]",
        ),
    ],
)
def test_a_broken_alphabet_file_fails_loudly(change, says):
    with pytest.raises(ValueError, match=says):
        parse_alphabet(MINIMAL.replace(*change))


def test_unknown_language():
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        load_alphabet("fr")


def test_every_hint_translated_for_the_page_has_its_english_original():
    for language in ("es", "ca"):
        alphabet = load_alphabet(language)
        for table, hints in [(alphabet.hints_in, alphabet.hints)] + [
            (n.hints_in, n.hints) for n in alphabet.notations.values()
        ]:
            for interface in ("es", "ca"):
                assert set(table.get(interface, {})) <= set(hints)
    assert load_alphabet("ca").notation("spelling").hints_in["es"]["Y"].startswith("el juego catalán")
