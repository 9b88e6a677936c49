"""The board's limits on words and plays (FISE art. 10 and 40; LLISCA art. 26).

The board is 15 by 15, so a word has 2 to 15 tiles; a play puts at most 7 tiles in one line,
so it forms at most 8 words: the main word and one cross-word per tile.
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import InputError, PlaySizeError, WordLengthError

MIN_TILES = 2
MAX_TILES = 15
MIN_WORDS = 1
MAX_WORDS = 8


def check_length(word: str, key: str) -> None:
    """A word no play can form is an input error, not a verdict.

    >>> check_length('A', 'x')
    Traceback (most recent call last):
    ...
    lexicon.errors.WordLengthError: 'A' has 1 tile; words have 2 to 15 tiles
    """
    if not MIN_TILES <= len(key) <= MAX_TILES:
        raise WordLengthError(word.strip(), len(key), MIN_TILES, MAX_TILES)


def check_lengths(words: Sequence[str], keys: Sequence[str]) -> None:
    """`check_length` for every word of a play: the InputError of the first that fails, told its place.

    Every key's length is measured at C speed first (sorted, then the ends compared: `min` and
    `max` with a `default` parse their keywords slowly, 0.6 µs of each 3-word challenge), and
    the words are gone through one by one only to name the one that fails: the loop alone cost
    0.7 µs of each 3-word challenge.

    >>> check_lengths(['CASA', 'A'], ['abcd', 'x'])
    Traceback (most recent call last):
    ...
    lexicon.errors.WordLengthError: 'A' has 1 tile; words have 2 to 15 tiles
    """
    lengths = sorted(map(len, keys))
    if not lengths or (lengths[0] >= MIN_TILES and lengths[-1] <= MAX_TILES):
        return
    for index, (word, key) in enumerate(zip(words, keys, strict=True), 1):
        try:
            check_length(word, key)
        except InputError as error:
            raise error.in_play(index) from None


def check_play_size(count: int) -> None:
    if not MIN_WORDS <= count <= MAX_WORDS:
        raise PlaySizeError(count, MIN_WORDS, MAX_WORDS)
