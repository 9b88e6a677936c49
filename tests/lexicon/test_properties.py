"""Property tests over each language's tile alphabet.

The tokenizer's fast path (whole-string passes) is checked against a reference scanner written
here the plain way: fold each character, then read the longest spelling at each place. The
compiled file is checked by round trips: every word found, a mutated word not, dump equal to
the input, bytes reproducible, memory-mapped and in-memory loads equal.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from lexicon.alphabet import load_alphabet
from lexicon.board import check_lengths, check_play_size
from lexicon.errors import EmptyWordError, InputError, TileError
from lexicon.lexfile import Lexicon, LexiconMeta, compile_lexicon
from lexicon.tokenizer import Tokenizer, tokenizer
from lexicon.verdict import judge

LANGUAGES = ["es", "ca"]
CASES = [(language, notation) for language in LANGUAGES for notation in ("spelling", "tiles")]


def reference(language: str, notation_name: str, word: str):
    """Tiles of `word`, or ('error', char, position), or 'empty': the rules read plainly."""
    alphabet = load_alphabet(language)
    notation = alphabet.notation(notation_name)
    word = unicodedata.normalize("NFC", word.strip())
    if not word:
        return "empty"
    folded, source = "", []
    for place, char in enumerate(word):
        piece = char.upper() if len(char.upper()) == 1 else char
        if notation.fold_diacritics and piece not in alphabet.distinct:
            piece = "".join(c for c in unicodedata.normalize("NFD", piece) if not unicodedata.combining(c))
        piece = "".join(alphabet.equivalents.get(c, c) for c in piece)
        folded += piece
        source += [place] * len(piece)
    longest = max(map(len, notation.spellings))
    tiles, at = [], 0
    while at < len(folded):
        for size in range(min(longest, len(folded) - at), 0, -1):
            if folded[at : at + size] in notation.spellings:
                tiles.append(notation.spellings[folded[at : at + size]])
                at += size
                break
        else:
            return ("error", word[source[at]], source[at] + 1)
    return tiles


def typed_characters(language: str) -> list[str]:
    """What a judge, a phone keyboard or a careless file may put in a word."""
    alphabet = load_alphabet(language)
    spelled = {c for n in alphabet.notations.values() for s in n.spellings for c in s}
    return sorted(
        spelled
        | {c.lower() for c in spelled}
        | set("ÁÉÍÓÚÀÈÒÜÏáéíóúàèòüïÑñÇçŀĿ·.•∙‧⋅·")
        | {"\u0301", "\u0303", "\u0327", "\u0308"}  # combining marks, as NFD input has them
        | set("KWYkwy0123456789[]-' \tß")
        | {"\x04", "\x0e", "\ue000", "😀"}  # tile codes, private use, astral
    )


def words(language: str):
    return st.text(alphabet=typed_characters(language), min_size=0, max_size=18)


@pytest.mark.parametrize("language, notation", CASES)
@given(data=st.data())
def test_tokenizer_agrees_with_the_reference_reading(language, notation, data):
    word = data.draw(words(language))
    expected = reference(language, notation, word)
    tokens = tokenizer(language, notation)
    try:
        got = tokens.tiles(word)
    except EmptyWordError:
        assert expected == "empty"
    except TileError as error:
        assert expected == ("error", error.char, error.position)
    else:
        assert got == expected


@pytest.mark.parametrize("language, notation", CASES)
@given(data=st.data())
def test_bulk_encoding_of_a_list_equals_word_by_word(language, notation, data):
    """The compiler's path (many lines at once) reads each line as the verdict's path does."""
    batch = data.draw(st.lists(words(language).map(str.strip).filter(bool), max_size=12))
    tokens = tokenizer(language, notation)
    text = tokens.encode("\n".join(batch))
    encoded, bad = text.split("\n"), set(tokens.invalid_lines(text))
    assert len(encoded) == max(len(batch), 1)
    for number, word in enumerate(batch):
        try:
            key = tokens.key(word)
        except InputError:
            assert number in bad
        else:
            assert encoded[number] == key and number not in bad


@pytest.mark.parametrize("language", LANGUAGES)
@given(data=st.data())
def test_nfc_nfd_and_nfkc_give_the_same_tiles(language, data):
    """NFKC too: it spells the precomposed ŀ/Ŀ as l·/L·, which the alphabet reads the same way."""
    word = data.draw(words(language))
    results = []
    for form in ("NFC", "NFD", "NFKC"):
        try:
            results.append(tokenizer(language).tiles(unicodedata.normalize(form, word)))
        except InputError:
            results.append(None)
    assert results[0] == results[1] == results[2]


@pytest.mark.parametrize("language, notation", CASES)
@given(text=st.text(alphabet=st.characters(max_codepoint=255), max_size=40))
def test_latin1_bytes_path_encodes_as_the_general_path(language, notation, text):
    """Latin-1 text (nearly all that is typed) is encoded by bytes operations; any Latin-1
    character, control characters and the sentinel's own byte included, reads as the general path
    reads it: the same codes, and a non-code exactly where the general path leaves one."""
    tokens = tokenizer(language, notation)
    assert tokens._tables is not None  # the fast path exists for both languages and notations
    fast = tokens.encode(text)
    general = Tokenizer(tokens.alphabet, notation)
    general._tables = None
    slow = general.encode(text)
    assert len(fast) == len(slow)
    assert [c if c == "\n" or c in tokens.alphabet.code_of.values() else None for c in fast] == [
        c if c == "\n" or c in tokens.alphabet.code_of.values() else None for c in slow
    ]


def _outcome(tokens, play):
    try:
        return tokens.keys(play)
    except InputError as error:
        return type(error), error.index, str(error)


@pytest.mark.parametrize("language, notation", CASES)
@given(data=st.data())
def test_a_play_is_read_as_the_general_path_reads_it(language, notation, data):
    """The play's own fast path (Latin-1, checked in C) gives the same keys, or the same first
    error at the same place, as the word-by-word checks: white space around or inside a word,
    an empty word, a line break inside one, a character that is no tile, non-Latin-1 text."""
    word = st.one_of(words(language), st.sampled_from(["", " ", "CA\nSA", "\n", " casa ", "ÿ", "\xa0CASA"]))
    play = data.draw(st.lists(word, min_size=1, max_size=8))
    tokens = tokenizer(language, notation)
    general = Tokenizer(tokens.alphabet, notation)
    general._tables = None
    assert _outcome(tokens, play) == _outcome(general, play)


def _play_outcome(read, play):
    try:
        return read(play)
    except InputError as error:
        return type(error), error.index, str(error)


def _checked_one_by_one(tokens):
    """A play read as its three checks read it, each on its own: its size, every word's tiles
    (the general path), every word's length."""

    def read(play):
        check_play_size(len(play))
        keys = tokens.keys(play)
        check_lengths(play, keys)
        return keys

    return read


@pytest.mark.parametrize("language, notation", CASES)
@given(data=st.data())
def test_a_play_is_judged_readable_as_its_three_checks_say(language, notation, data):
    """`Tokenizer.play`, whose fast path checks the play's size, its tiles and every word's
    length in C calls, gives the same keys, or the same first error, as the three checks made one
    after the other on the general path: plays of 0 to 10 words, words of 0 to 18 characters."""
    word = st.one_of(
        words(language),
        st.sampled_from(["", " ", "A", "CH", "CARRO", "ÿ", "\n", "CA\nSA", "casa " * 3, "CHICO" * 3, "RR" * 8]),
    )
    play = data.draw(st.lists(word, min_size=0, max_size=10))
    tokens = tokenizer(language, notation)
    general = Tokenizer(tokens.alphabet, notation)
    general._tables = None
    assert _play_outcome(tokens.play, play) == _play_outcome(_checked_one_by_one(general), play)


def tile_words(language: str):
    alphabet = load_alphabet(language)
    return st.lists(st.sampled_from(alphabet.tiles), min_size=2, max_size=15).map(alphabet.key)


def compiled(language: str, keys: list[str]) -> bytes:
    meta = LexiconMeta(id=f"t-{language}", language=language, name="Test", version="1")
    return compile_lexicon(sorted(set(keys)), meta, load_alphabet(language))


@pytest.mark.parametrize("language", LANGUAGES)
@given(data=st.data())
def test_every_compiled_word_is_found_and_a_mutated_one_is_not(language, data):
    alphabet = load_alphabet(language)
    keys = set(data.draw(st.lists(tile_words(language), min_size=1, max_size=40)))
    lexicon = Lexicon.from_bytes(compiled(language, list(keys)))
    assert len(lexicon) == len(keys)
    assert all(key in lexicon for key in keys)
    key = data.draw(st.sampled_from(sorted(keys)))
    place = data.draw(st.integers(0, len(key) - 1))
    code = data.draw(st.sampled_from(sorted(alphabet.tile_of)))
    mutations = {key[:place] + code + key[place + 1 :], key + code, key[:place] + key[place + 1 :], key[:-1]}
    for mutated in mutations - keys:
        assert mutated not in lexicon


@pytest.mark.parametrize("language", LANGUAGES)
@given(data=st.data())
def test_dump_equals_the_input_and_reads_back_in_tile_notation(language, data):
    alphabet = load_alphabet(language)
    keys = sorted(set(data.draw(st.lists(tile_words(language), max_size=40))))
    lexicon = Lexicon.from_bytes(compiled(language, keys))
    dumped = "".join(lexicon.dump()).splitlines()
    assert dumped == [alphabet.engine_text(k) for k in keys]
    # sorted in the alphabet's order: by tile index, not by the spelling's characters
    order = {tile: i for i, tile in enumerate(alphabet.tiles)}
    as_indices = [[order[t] for t in alphabet.tiles_of(k)] for k in keys]
    assert as_indices == sorted(as_indices)
    assert [tokenizer(language, "tiles").key(line) for line in dumped] == keys


@pytest.mark.parametrize("language", LANGUAGES)
@given(data=st.data())
def test_save_load_and_mmap_round_trip_and_bytes_are_reproducible(language, data, tmp_path_factory):
    keys = data.draw(st.lists(tile_words(language), min_size=1, max_size=30))
    first = compiled(language, keys)
    assert compiled(language, list(reversed(keys))) == first
    path = tmp_path_factory.mktemp("lex") / "t.lex"
    path.write_bytes(first)
    mapped, loaded = Lexicon.open(path), Lexicon.from_bytes(path.read_bytes())
    assert mapped.keys() == loaded.keys() == sorted(set(keys))
    assert mapped.header == loaded.header
    assert mapped.checksum == loaded.checksum
    assert mapped.verify_words() and loaded.verify_words()


@pytest.mark.parametrize("language", LANGUAGES)
@given(data=st.data())
def test_the_joint_verdict_is_every_word_read_plainly_being_in_the_list(language, data):
    """The verdict against a reference that shares nothing with it: the list as a Python set of
    tile sequences, each word read by `reference` above; a play of 1 to 8 words, some of the list
    (written as typed: any case), some one tile off, is valid exactly when every word is in it."""
    alphabet = load_alphabet(language)
    listed = data.draw(st.lists(st.lists(st.sampled_from(alphabet.tiles), min_size=2, max_size=15), min_size=1))
    lexicon = Lexicon.from_bytes(compiled(language, [alphabet.key(tiles) for tiles in listed]))
    in_list = {tuple(tiles) for tiles in listed}
    word = st.one_of(
        st.sampled_from(listed).map("".join),
        st.sampled_from(listed).map(lambda tiles: "".join(tiles).lower()),
        st.lists(st.sampled_from(alphabet.tiles), min_size=2, max_size=15).map("".join),
    )
    play = data.draw(st.lists(word, min_size=1, max_size=8))
    read = [reference(language, "spelling", typed) for typed in play]
    assume(all(isinstance(tiles, list) and 2 <= len(tiles) <= 15 for tiles in read))  # else an input error
    assert judge(lexicon, play) is all(tuple(tiles) in in_list for tiles in read)
