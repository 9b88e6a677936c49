"""lexicon.diff: the words that came and went between two compiled lexicons."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexicon import Lexicon, LexiconMeta, compile_lexicon, load_alphabet, tokenizer
from lexicon.diff import IncomparableError, diff
from lexicon.errors import LexiconError


def lexicon_of(words, language="es", notation="spelling", source="<bytes>") -> Lexicon:
    keys = sorted({tokenizer(language, notation).key(w) for w in words})
    meta = LexiconMeta("t", language, "T", "1")
    return Lexicon.from_bytes(compile_lexicon(keys, meta, load_alphabet(language)), source)


OLD = ["carro", "casa", "chico", "llave", "nandu", "zas", "ocho"]
NEW = ["carro", "casa", "casas", "llave", "ñandu", "zas", "ocho", "chicos", "dé"]


def test_known_lists_give_the_known_words_in_the_alphabets_order():
    change = diff(lexicon_of(OLD), lexicon_of(NEW))
    # C < CH < D and N < Ñ < O: the order of `lexicon dump`, not of Unicode.
    assert change.added_words() == ["CASAS", "[CH]ICOS", "DE", "ÑANDU"]
    assert change.removed_words() == ["[CH]ICO", "NANDU"]
    assert change.lines() == ["+ CASAS", "- [CH]ICO", "+ [CH]ICOS", "+ DE", "- NANDU", "+ ÑANDU"]
    assert change.counts() == {"added": 4, "removed": 2, "kept": 5}
    assert change.differs()


def test_counts_by_length_in_tiles_not_letters():
    change = diff(lexicon_of(OLD), lexicon_of(NEW))
    # CARRO, LLAVE, OCHO are 4, 4, 3 tiles; [CH]ICOS 5; DE 2; ZAS 3; CASA 4; CASAS 5; ÑANDU 5.
    assert change.by_length() == {
        2: {"added": 1, "removed": 0, "kept": 0},
        3: {"added": 0, "removed": 0, "kept": 2},
        4: {"added": 0, "removed": 1, "kept": 3},
        5: {"added": 3, "removed": 1, "kept": 0},
    }


def test_only_one_side_and_what_differs_means():
    change = diff(lexicon_of(["casa", "zas"]), lexicon_of(["casa", "cosa"]))
    assert change.lines(removed=False) == ["+ COSA"]
    assert change.lines(added=False) == ["- ZAS"]
    only_added = diff(lexicon_of(["casa"]), lexicon_of(["casa", "cosa"]))
    assert only_added.differs() and only_added.differs(added=False, removed=True) is False


def test_the_same_list_differs_in_nothing():
    change = diff(lexicon_of(OLD), lexicon_of(list(reversed(OLD))))
    assert change.lines() == [] and not change.differs()
    assert change.counts() == {"added": 0, "removed": 0, "kept": len(OLD)}


def test_spanish_digraphs_one_tile_against_two_letters():
    """Tiles notation reads every plain letter as a tile: CHICO there is C H I C O, not [CH]ICO."""
    spelled = lexicon_of(["chico", "carro", "llave", "casa"])
    change = diff(spelled, lexicon_of(["CHICO", "CA[RR]O", "[LL]AVE", "CASA"], notation="tiles"))
    assert change.lines() == ["+ CHICO", "- [CH]ICO"]
    assert change.counts() == {"added": 1, "removed": 1, "kept": 3}
    # The two CHICOs differ in length too: 5 tiles against 4.
    assert change.by_length()[5]["added"] == 1 and change.by_length()[4]["removed"] == 1
    change = diff(spelled, lexicon_of(["[CH]ICO", "CARRO", "LLAVE", "CASA"], notation="tiles"))
    # R < RR and L < LL in the alphabet: C A R R O sorts before C A RR O.
    assert change.lines() == ["+ CARRO", "- CA[RR]O", "+ LLAVE", "- [LL]AVE"]
    # FISE's digit aliases are the same tiles as the bracketed ones: no difference at all.
    assert not diff(spelled, lexicon_of(["1ICO", "CA3O", "2AVE", "CASA"], notation="tiles")).differs()


def test_catalan_digraphs_one_tile_against_two_letters():
    spelled = lexicon_of(["col·legi", "quadre", "anys"], language="ca")
    tiles = lexicon_of(["COLLEGI", "QUADRE", "ANYS"], language="ca", notation="tiles")
    change = diff(spelled, tiles)
    assert change.lines() == ["+ COLLEGI", "- COL·LEGI"]
    assert change.counts() == {"added": 1, "removed": 1, "kept": 2}


def test_another_language_is_refused_quoting_both():
    spanish = lexicon_of(["casa"], source="old.lex")
    catalan = lexicon_of(["casa"], language="ca", source="new.lex")
    with pytest.raises(IncomparableError) as refused:
        diff(spanish, catalan)
    message = str(refused.value)
    assert "old.lex (language es)" in message and "new.lex (language ca)" in message
    assert isinstance(refused.value, LexiconError)  # the CLI's bad-input path catches it


def test_another_tile_set_is_refused_quoting_both():
    old, new = lexicon_of(["casa"], source="old.lex"), lexicon_of(["casa"], source="new.lex")
    # A file of another tile set is refused on load today; the diff still checks it itself.
    new.header = dataclasses.replace(new.header, tiles=new.header.tiles[:-1])
    with pytest.raises(
        IncomparableError,
        match=r"old\.lex \(tiles A B C CH .* Y Z\) with new\.lex "
        r"\(tiles A B C CH .* X Y\)",
    ):
        diff(old, new)


def word_sets(language):
    """Words as tuples of tile indexes, so the reference never touches keys: sorted tuples are
    the alphabet's order by definition (the tile list is in that order), and sets do the rest."""
    words = st.lists(st.integers(0, len(load_alphabet(language).tiles) - 1), min_size=2, max_size=6).map(tuple)
    return st.tuples(st.just(language), st.sets(words, max_size=30), st.sets(words, max_size=30))


@given(st.sampled_from(["es", "ca"]).flatmap(word_sets))
def test_diff_is_the_set_differences(case):
    language, a, b = case
    alphabet = load_alphabet(language)

    def lexicon(tuples):
        keys = sorted(alphabet.key([alphabet.tiles[i] for i in t]) for t in tuples)
        return Lexicon.from_bytes(compile_lexicon(keys, LexiconMeta("p", language, "P", "1"), alphabet))

    def engine(tuples):
        return ["".join(alphabet.engine[alphabet.tiles[i]] for i in t) for t in sorted(tuples)]

    change = diff(lexicon(a), lexicon(b))
    assert change.added_words() == engine(b - a)
    assert change.removed_words() == engine(a - b)
    assert change.counts() == {"added": len(b - a), "removed": len(a - b), "kept": len(a & b)}
    for n, counts in change.by_length().items():
        assert counts == {
            "added": sum(len(t) == n for t in b - a),
            "removed": sum(len(t) == n for t in a - b),
            "kept": sum(len(t) == n for t in a & b),
        }
    assert sum(c["kept"] for c in change.by_length().values()) == len(a & b)
    assert [line[2:] for line in change.lines()] == engine((a - b) | (b - a))
    assert [line[0] for line in change.lines()] == ["+" if t in b else "-" for t in sorted((a - b) | (b - a))]
