"""The joint verdict: one answer for all the words of one play.

FISE art. 40, AJS DCT 4.1.7 and LLISCA art. 26: a challenge names every word formed by the
play at once and gets one answer, valid or not valid, that never says which word failed. So
the verdict looks every word up, always, and combines the answers without short-circuit: the
work done, and so the time taken, does not depend on which word is missing. Input errors (a
character that is no tile, a word of one tile) are raised before any lookup: they are about
what was typed, never about the lexicon.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .board import check_lengths, check_play_size
from .lexfile import Lexicon
from .tokenizer import tokenizer


@dataclass(frozen=True)
class Identity:
    """Which list answered: a verdict is only as trustworthy as this. checksum: `sha256sum` of the file."""

    id: str
    name: str
    version: str
    checksum: str

    @classmethod
    def of(cls, lexicon: Lexicon) -> Identity:
        header = lexicon.header
        return cls(header.id, header.name, header.version, lexicon.checksum)


def play_keys(lexicon: Lexicon, words: Sequence[str], notation: str = "spelling") -> list[str]:
    """The keys of a play's words, or the InputError of the first word that is no word."""
    check_play_size(len(words))
    keys = tokenizer(lexicon.header.language, notation).keys(words)
    check_lengths(words, keys)
    return keys


def lookup_all(lexicon: Lexicon, keys: Sequence[str]) -> bool:
    """True when every key is in the lexicon; every key is looked up, whatever the answers."""
    return lexicon.count_in(keys) == len(keys)


def judge(lexicon: Lexicon, words: Sequence[str], notation: str = "spelling") -> bool:
    """The joint verdict on one play: True when every word is in the lexicon.

    Raises InputError (with `index`, the 1-based place of the word) on bad input.
    """
    return lookup_all(lexicon, play_keys(lexicon, words, notation))
