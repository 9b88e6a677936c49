"""Every tokenization rule of docs/tiles.md, as literal cases, failures included."""

from __future__ import annotations

import unicodedata

import pytest

from lexicon.errors import EmptyWordError, TileError
from lexicon.tokenizer import tokenizer


def tiles(language: str, word: str, notation: str = "spelling") -> str:
    return "|".join(tokenizer(language, notation).tiles(word))


# -- Spanish, natural spelling ---------------------------------------------------------------

ES_SPELLING = [
    ("CARRO", "C|A|RR|O"),
    ("carro", "C|A|RR|O"),
    ("CHICO", "CH|I|C|O"),
    ("LLAVE", "LL|A|V|E"),
    ("calle", "C|A|LL|E"),
    ("LLL", "LL|L"),  # greedy, left to right
    ("RRR", "RR|R"),
    ("CHH", "CH|H"),
    ("ACCIÓN", "A|C|C|I|O|N"),  # CC is no digraph
    ("Camión", "C|A|M|I|O|N"),  # every diacritic dropped...
    ("PINGÜINO", "P|I|N|G|U|I|N|O"),
    ("ÑANDÚ", "Ñ|A|N|D|U"),  # ...but Ñ, a tile of its own
    ("ñandú", "Ñ|A|N|D|U"),
    ("n\u0303andu\u0301", "Ñ|A|N|D|U"),  # NFD: N + combining tilde is Ñ
    ("[CH]ICO", "CH|I|C|O"),  # bracketed tiles are accepted in spelling too
    ("CA[RR]O", "C|A|RR|O"),
    ("[ll]ave", "LL|A|V|E"),
    ("  CARRO \t", "C|A|RR|O"),  # surrounding white space is no part of a word
    ("ÇA", "C|A"),  # Ç is no Spanish tile: its cedilla is a diacritic like any other
    ("ÀÉÎÕÜ", "A|E|I|O|U"),
    ("QUE", "Q|U|E"),  # Q is a Spanish tile of its own
]


@pytest.mark.parametrize("word, expected", ES_SPELLING)
def test_spanish_spelling(word, expected):
    assert tiles("es", word) == expected


# -- Spanish, engine tile notation -------------------------------------------------------------

ES_TILES = [
    ("CARRO", "C|A|R|R|O"),  # here a plain RR is two R tiles
    ("CHICO", "C|H|I|C|O"),
    ("CA[RR]O", "C|A|RR|O"),
    ("CA3O", "C|A|RR|O"),  # FISE/FILE word files: 1 2 3 = CH LL RR
    ("1ICO", "CH|I|C|O"),
    ("2AVE", "LL|A|V|E"),
    ("[CH][LL][RR]123", "CH|LL|RR|CH|LL|RR"),
    ("ca[rr]o", "C|A|RR|O"),  # lower case is a blank: the same tile for validity
    ("ÑU", "Ñ|U"),
    ("ñu", "Ñ|U"),
]


@pytest.mark.parametrize("word, expected", ES_TILES)
def test_spanish_tile_notation(word, expected):
    assert tiles("es", word, "tiles") == expected


# -- Catalan, natural spelling ----------------------------------------------------------------

MIDDLE_DOTS = ["\u00b7", ".", "\u2022", "\u2219", "\u2027", "\u22c5", "\u0387"]


@pytest.mark.parametrize("dot", MIDDLE_DOTS, ids=[f"U+{ord(d):04X}" for d in MIDDLE_DOTS])
def test_catalan_every_middle_dot_shape_is_the_ela_geminada(dot):
    assert tiles("ca", f"COL{dot}LEGI") == "C|O|L·L|E|G|I"
    assert tiles("ca", f"col{dot}legi") == "C|O|L·L|E|G|I"


@pytest.mark.parametrize("word", ["COĿLEGI", "coŀlegi", "COŀLEGI"])
def test_catalan_precomposed_l_with_middle_dot(word):
    assert tiles("ca", word) == "C|O|L·L|E|G|I"


CA_SPELLING = [
    ("CAVALL", "C|A|V|A|L|L"),  # plain LL is two L tiles
    ("LLUNA", "L|L|U|N|A"),
    ("LL·L", "L|L·L"),
    ("QUADRE", "QU|A|D|R|E"),
    ("QADRE", "QU|A|D|R|E"),  # Scrabble spelling: a bare Q is the QU tile
    ("QÜESTIÓ", "QU|E|S|T|I|O"),  # QÜ is the QU tile too
    ("qüestió", "QU|E|S|T|I|O"),
    ("ANYS", "A|NY|S"),
    ("NYAP", "NY|A|P"),
    ("CANÇÓ", "C|A|N|Ç|O"),  # Ç is a tile of its own
    ("cançó", "C|A|N|Ç|O"),
    ("c\u0327anc\u0327o\u0301", "Ç|A|N|Ç|O"),  # NFD: C + combining cedilla is Ç
    ("ÑU", "N|U"),  # Ñ is no Catalan tile: its tilde is a diacritic like any other
    ("[L·L][NY][QU]", "L·L|NY|QU"),
    ("ÀÈÉÍÏÒÓÚÜ", "A|E|E|I|I|O|O|U|U"),
]


@pytest.mark.parametrize("word, expected", CA_SPELLING)
def test_catalan_spelling(word, expected):
    assert tiles("ca", word) == expected


# -- Catalan, engine tile notation -------------------------------------------------------------

CA_TILES = [
    ("COL·LEGI", "C|O|L·L|E|G|I"),
    ("COWEGI", "C|O|L·L|E|G|I"),  # W = L·L
    ("ANY", "A|NY"),
    ("AY", "A|NY"),  # Y = NY
    ("QADRE", "QU|A|D|R|E"),  # Q = QU
    ("QUADRE", "QU|A|D|R|E"),
    ("CANKO", "C|A|N|Ç|O"),  # K = Ç
    ("CANÇO", "C|A|N|Ç|O"),
    ("[L·L][NY][QU]", "L·L|NY|QU"),
    ("cowegi", "C|O|L·L|E|G|I"),  # lower case is a blank
]


@pytest.mark.parametrize("word, expected", CA_TILES)
def test_catalan_tile_notation(word, expected):
    assert tiles("ca", word, "tiles") == expected


# -- errors: every one names the character, its place and the word, and says why --------------

ERRORS = [
    ("es", "spelling", "KIWI", "K", 1, "'K' at 1 in 'KIWI': the Spanish set has no K tile"),
    ("es", "spelling", "WATERPOLO", "W", 1, "the Spanish set has no W tile"),
    ("es", "spelling", "CA3O", "3", 3, "digits are tiles only in tiles notation"),
    ("es", "spelling", "AD-HOC", "-", 3, "not a letter of the Spanish tile set"),
    ("es", "spelling", "AD HOC", " ", 3, "white space is not a tile"),
    ("es", "spelling", "COL·LEGI", "·", 4, "the Spanish set has no L·L tile"),
    ("es", "spelling", "[CH", "[", 1, "no Spanish tile is written this way"),
    ("es", "spelling", "CH]", "]", 3, "no Spanish tile is written this way"),
    ("es", "spelling", "O'DONNELL", "'", 2, "not a letter"),
    ("es", "spelling", "ΩMEGA", "Ω", 1, "the Spanish set has no Ω tile"),
    ("es", "spelling", "CAMI\x00N", "\x00", 5, "U+0000 at 5"),
    ("es", "spelling", "CA\x04O", "\x04", 3, "U+0004 at 3"),  # a tile code typed is no tile
    ("es", "spelling", "CA\ue004O", "\ue004", 3, "U+E004 at 3"),
    ("es", "spelling", "STRAßE", "ß", 5, "the Spanish set has no"),
    ("es", "tiles", "CAMIÓN", "Ó", 5, "accents belong to spelling"),
    ("es", "tiles", "CAMIO\u0301N", "Ó", 5, "accents belong to spelling"),  # reported in NFC
    ("es", "tiles", "CA4O", "4", 3, "not a letter"),
    ("es", "tiles", "KIWI", "K", 1, "the Spanish set has no K tile"),
    ("ca", "spelling", "KAYAK", "K", 1, "the Catalan set has no K tile"),
    ("ca", "spelling", "YOGA", "Y", 1, "no Y tile; NY is one tile"),
    ("ca", "spelling", "WATER", "W", 1, "the Catalan set has no W tile"),
    ("ca", "spelling", "A·B", "·", 2, "a middle dot only joins L·L"),
    ("ca", "spelling", "COL·", "·", 4, "a middle dot only joins L·L"),
    ("ca", "spelling", "·LA", "·", 1, "a middle dot only joins L·L"),
    ("ca", "spelling", "L·L·L", "·", 4, "a middle dot only joins L·L"),
    ("ca", "spelling", "COL.", ".", 4, "a middle dot only joins L·L"),
    ("ca", "spelling", "L'AIGUA", "'", 2, "not a letter"),
    ("ca", "tiles", "CANÇÓ", "Ó", 5, "accents belong to spelling"),
]


@pytest.mark.parametrize("language, notation, word, char, position, says", ERRORS)
def test_errors_name_the_character_its_place_and_why(language, notation, word, char, position, says):
    with pytest.raises(TileError) as caught:
        tokenizer(language, notation).key(word)
    error = caught.value
    assert (error.char, error.position) == (unicodedata.normalize("NFC", char), position)
    assert says in str(error)
    assert tokenizer(language, notation).diagnose(word).message == error.message


@pytest.mark.parametrize("word", ["", "   ", "\t"])
def test_an_empty_word_is_an_error(word):
    with pytest.raises(EmptyWordError) as caught:
        tokenizer("es").key(word)
    assert caught.value.word == word  # what was typed, spaces and all, not the stripped ""
    assert tokenizer("es").diagnose(word).word == word


def test_a_play_error_names_the_word_in_the_play():
    with pytest.raises(TileError) as caught:
        tokenizer("es").keys(["CARRO", "CHICO", "KIWI"])
    assert caught.value.index == 3
    with pytest.raises(EmptyWordError) as empty:
        tokenizer("es").keys(["CARRO", " "])
    assert empty.value.index == 2


def test_a_line_feed_inside_a_word_cannot_split_it_into_two_words():
    with pytest.raises(TileError) as caught:
        tokenizer("es").keys(["CAR\nRO"])
    assert (caught.value.char, caught.value.position) == ("\n", 4)


def test_unknown_notation_is_refused():
    with pytest.raises(ValueError, match="unknown notation 'morse'"):
        tokenizer("es", "morse")


def test_overlapping_spellings_are_read_leftmost_longest_by_the_general_scanner():
    """Neither language has spellings that overlap; an alphabet that does must still read right."""
    from lexicon.alphabet import parse_alphabet
    from lexicon.tokenizer import Tokenizer

    alphabet = parse_alphabet(
        'language = "xx"\nname = "Test"\ntiles = [["X", 1], ["Y", 1], ["Z", 1], ["XY", 1], ["YZ", 1]]\n'
        '[notations.spelling]\nspellings = { "XY" = "XY", "YZ" = "YZ" }\n'
    )
    tokens = Tokenizer(alphabet)
    assert tokens._chain is None  # replacing one spelling after the other would misread these
    assert tokens.tiles("XYZ") == ["XY", "Z"]
    assert tokens.tiles("ZYZ") == ["Z", "YZ"]
    assert tokens.tiles("XYZYZ") == ["XY", "Z", "YZ"]
    assert tokenizer("es")._chain is not None and tokenizer("ca", "tiles")._chain is not None
