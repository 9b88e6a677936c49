"""Errors of the core, each quoting the input that caused it.

The core never prints and never exits: it raises one of these. Only the CLI turns them into
click errors and only the service into HTTP problem responses, so both can rely on `str(error)`
being a complete sentence a judge or a director understands, and on the attributes for detail.
"""

from __future__ import annotations

import unicodedata


def show_char(char: str) -> str:
    """Quote a character so that an invisible or combining one is still visible.

    >>> show_char('K')
    "'K'"
    >>> show_char('\\u0301')
    'U+0301 (COMBINING ACUTE ACCENT)'
    >>> show_char(' ')
    'a space'
    """
    if char == " ":
        return "a space"
    if char.isprintable() and not unicodedata.combining(char):
        return f"'{char}'"
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X} ({name})" if name else f"U+{ord(char):04X}"


SHOWN = 200  # the characters of a bad value a message quotes, at most


def cut(quoted: str, length: int, unit: str = "characters") -> str:
    """A quoted value cut past SHOWN characters with its length said, so that a bad value of a
    hundred thousand characters (a list with no line feeds, an edited field) gives a sentence,
    not a page.

    >>> cut("'" + "x" * 1000 + "'", 1000)[-30:]
    'xxxxxxxxxx… (1,000 characters)'
    """
    return quoted if len(quoted) <= SHOWN else f"{quoted[:SHOWN]}… ({length:,} {unit})"


def show_word(word: str) -> str:
    """Quote a word, escaping anything a terminal or a log would not show faithfully, cut if long.

    >>> show_word('KIWI')
    "'KIWI'"
    >>> show_word('CA\\nRRO')
    "'CA\\\\nRRO'"
    """
    if word.isprintable():
        return cut(f"'{word}'", len(word))
    return cut("'" + word.encode("unicode_escape").decode("ascii") + "'", len(word))


class LexiconError(Exception):
    """Base of every error the core raises on purpose."""


class InputError(LexiconError, ValueError):
    """Something typed is not a word made of tiles: it is about the input, never the lexicon.

    `index` is the word's 1-based place in a play when the error comes from a play.
    """

    def __init__(self, message: str, word: str, index: int | None = None):
        super().__init__(message)
        self.message = message
        self.word = word
        self.index = index

    def in_play(self, index: int) -> InputError:
        """The same error, told which word of the play it is about."""
        self.index = index
        return self


class TileError(InputError):
    """A character that is no tile of the language in the notation used."""

    def __init__(self, word: str, char: str, position: int, reason: str):
        super().__init__(f"{show_char(char)} at {position} in {show_word(word)}: {reason}", word)
        self.char = char
        self.position = position
        self.reason = reason


class EmptyWordError(InputError):
    def __init__(self, word: str = ""):
        super().__init__("empty word: a word has at least one tile", word)


class WordLengthError(InputError):
    """A word no play can form: fewer than 2 or more than 15 tiles (the board is 15 by 15)."""

    def __init__(self, word: str, tiles: int, low: int, high: int):
        super().__init__(
            f"{show_word(word)} has {tiles} tile{'s' if tiles != 1 else ''}; words have {low} to {high} tiles",
            word,
        )
        self.tiles = tiles


class PlaySizeError(InputError):
    """A play forms 1 to 8 words: at most 7 tiles in a line, each with one cross-word."""

    def __init__(self, count: int, low: int, high: int):
        super().__init__(f"a play has {low} to {high} words, not {count}", "")
        self.count = count


class LexiconFileError(LexiconError):
    """A compiled lexicon file that cannot be trusted: truncated, corrupt, foreign or too new."""

    def __init__(self, source: str, reason: str):
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


class NotALexiconFile(LexiconFileError):
    """A directory (a DISC source's, say) given where a compiled file goes. The core says what it
    is; whoever reports it says what to do (the command line: compile it with `lexicon build`)."""

    def __init__(self, source: str):
        super().__init__(source, "a directory, not a compiled lexicon file")


class MetaError(LexiconError, ValueError):
    """An id, name or version a compiled file cannot carry (lexfile.LexiconMeta)."""


class CompileInputError(LexiconError, ValueError):
    """The compiler's input rule (tile keys of 2 to 15 tiles, sorted, unique) was broken."""
