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
    """The keys of a play's words, or the InputError of the first word that is no word (the
    play's size, then each word's tiles and length: `Tokenizer.play`)."""
    return tokenizer(lexicon.header.language, notation).play(words)


def lookup_all(lexicon: Lexicon, keys: Sequence[str]) -> bool:
    """True when every key is in the lexicon; every key is looked up, whatever the answers."""
    return lexicon.count_in(keys) == len(keys)


class Judge:
    """The joint verdict on plays of one lexicon written in one notation (`judge`), with its
    tokenizer found once: a service makes one per lexicon and notation when it loads them, and
    answers every challenge with it."""

    __slots__ = ("_lexicon", "_tokenizer")

    def __init__(self, lexicon: Lexicon, notation: str = "spelling"):
        self._lexicon = lexicon
        self._tokenizer = tokenizer(lexicon.header.language, notation)

    def keys(self, words: Sequence[str]) -> list[str]:
        """`play_keys`: the keys of the play's words, or the InputError of the first that is no word."""
        return self._tokenizer.play(words)

    def __call__(self, words: Sequence[str]) -> bool:
        """`judge`: True when every word is in the lexicon, every one looked up."""
        return lookup_all(self._lexicon, self._tokenizer.play(words))


def judge(lexicon: Lexicon, words: Sequence[str], notation: str = "spelling") -> bool:
    """The joint verdict on one play: True when every word is in the lexicon.

    Raises InputError (with `index`, the 1-based place of the word) on bad input.
    """
    return lookup_all(lexicon, play_keys(lexicon, words, notation))
