"""The joint verdict: one answer for the play, every word looked up, input errors first."""

from __future__ import annotations

import pytest

from lexicon.alphabet import load_alphabet
from lexicon.errors import PlaySizeError, TileError, WordLengthError
from lexicon.lexfile import Lexicon, LexiconMeta, compile_lexicon
from lexicon.tokenizer import tokenizer
from lexicon.verdict import Identity, judge, lookup_all, play_keys

WORDS = ["CARRO", "CHICO", "LLAVE", "CASA", "ES", "COMPRENDEREMOS"]


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    keys = sorted(tokenizer("es").key(w) for w in WORDS)
    meta = LexiconMeta(id="mini", language="es", name="Mini", version="1")
    return Lexicon.from_bytes(compile_lexicon(keys, meta, load_alphabet("es")))


def test_a_play_is_valid_only_when_every_word_is(lexicon):
    assert judge(lexicon, ["carro", "chico", "llave"])
    assert not judge(lexicon, ["carro", "chicos", "llave"])
    assert not judge(lexicon, ["CARO"])
    assert judge(lexicon, ["CA[RR]O"], "spelling")
    assert judge(lexicon, ["CA3O", "1ICO"], "tiles")
    assert not judge(lexicon, ["CARRO"], "tiles")  # five tiles C A R R O: not the word CA[RR]O


class CountingTrie:
    """The lexicon's trie, counting the lookups made in it."""

    def __init__(self, trie):
        self.trie, self.lookups = trie, 0

    def __contains__(self, key):
        self.lookups += 1
        return key in self.trie


@pytest.mark.parametrize("failing", range(8))
def test_every_word_is_looked_up_wherever_the_failing_word_is(lexicon, failing, monkeypatch):
    words = ["CARRO", "CHICO", "LLAVE", "CASA", "ES", "CARRO", "CHICO", "CASA"]
    words[failing] = "CASAS"
    keys = play_keys(lexicon, words)
    counting = CountingTrie(lexicon._trie)
    monkeypatch.setattr(lexicon, "_trie", counting)
    assert lookup_all(lexicon, keys) is False
    assert counting.lookups == 8


@pytest.mark.parametrize("count", [0, 9])
def test_a_play_has_one_to_eight_words(lexicon, count):
    with pytest.raises(PlaySizeError, match=f"a play has 1 to 8 words, not {count}"):
        judge(lexicon, ["CASA"] * count)


@pytest.mark.parametrize("word, tiles", [("A", 1), ("CH", 1), ("COMPRENDERIAMOSX", 16)])
def test_a_word_no_play_can_form_is_an_input_error_naming_it(lexicon, word, tiles):
    with pytest.raises(WordLengthError) as caught:
        judge(lexicon, ["CASA", word])
    assert caught.value.index == 2 and caught.value.tiles == tiles
    assert f"'{word}' has {tiles} tile" in str(caught.value)


@pytest.mark.parametrize(
    "words, tiles", [(["CASA", "A", "COMPRENDERIAMOSX"], 1), (["CASA", "COMPRENDERIAMOSX", "A"], 16)]
)
def test_of_two_words_of_wrong_length_the_first_is_named(lexicon, words, tiles):
    """One too short and one too long: the error is the first word's, whichever way it is wrong."""
    with pytest.raises(WordLengthError) as caught:
        judge(lexicon, words)
    assert caught.value.index == 2 and caught.value.tiles == tiles


def test_fifteen_tiles_with_digraphs_is_a_word_length_not_a_character_count(lexicon):
    assert len(tokenizer("es").key("CHLLRRCHLLRRCHLLRRCHLLRRCHLLRR")) == 15
    assert judge(lexicon, ["CHLLRRCHLLRRCHLLRRCHLLRRCHLLRR"]) is False  # 30 letters, 15 tiles: a fair question


@pytest.mark.parametrize(
    "words, error",
    [
        (["CASA", "CARRO", "KIWI"], TileError),  # well-formed words first: nothing looked up before the error
        (["CASA", "CARRO", "A"], WordLengthError),
        (["CASA"] * 9, PlaySizeError),
    ],
)
def test_input_errors_come_before_any_lookup(lexicon, words, error, monkeypatch):
    """judge() as a whole: a verdict that looked each word up as it read it would fail here."""
    counting = CountingTrie(lexicon._trie)
    monkeypatch.setattr(lexicon, "_trie", counting)
    with pytest.raises(error):
        judge(lexicon, words)
    assert counting.lookups == 0
    assert judge(lexicon, words[:2]) is True and counting.lookups == 2  # the stand-in does count


def test_identity_says_which_list_answered(lexicon):
    identity = Identity.of(lexicon)
    assert (identity.id, identity.name, identity.version) == ("mini", "Mini", "1")
    assert identity.checksum == lexicon.checksum and len(identity.checksum) == 64
