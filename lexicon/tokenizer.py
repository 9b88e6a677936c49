"""From written words to keys: one code per tile, read the way the rules read tiles.

A word becomes tiles in three steps, each a whole-string operation so that one word of a play
and a 600,000-line word list go through exactly the same code:

1. fold: Unicode NFC, upper case, diacritics dropped unless the letter is a tile of its own
   (Ñ in Spanish, Ç in Catalan; spelling notation only), the language's equivalent characters
   (the many shapes of the Catalan middle dot); any character that cannot be part of a tile
   becomes U+FFFD, so that nothing typed can pass for a tile code;
2. the multi-character spellings (CH, [CH], L·L, NY, QU...) become codes, scanning left to
   right and taking the longest spelling at each place: one `re` alternation, longest first,
   or, when no two spellings overlap (a suffix of one is never a prefix of another, true of
   both languages), one `str.replace` per spelling, longest first, which reads the same;
3. the remaining single characters become codes by `str.translate`.

Text within Latin-1 (nearly all Spanish and Catalan) takes steps 1 and 3 as two `bytes.translate`
tables, which read exactly as the general path does (tested on every Latin-1 character).

Anything left that is not a code is an error, which `diagnose` explains by scanning the word
again, one tile at a time, to name the character and its place.

Why not pyahocorasick for step 2: it is no faster here (`make bench` shows the three side by
side), and its `Automaton.iter_long` is not leftmost-longest on these very patterns: it finds
no tile in '[CH' where greedy reading finds CH, a known upstream bug. Both ways used here are
tested against a reference scanner.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import cache

from .alphabet import Alphabet, load_alphabet
from .board import MAX_TILES, MAX_WORDS, MIN_TILES, MIN_WORDS, check_lengths, check_play_size
from .charmap import CharMap
from .errors import EmptyWordError, InputError, TileError

REJECT = "\ufffd"


class _FoldTable(dict):
    """A `str.translate` table computed on demand: any character, folded once, then cached."""

    def __init__(self, fold):
        super().__init__()
        self._fold = fold

    def __missing__(self, codepoint: int) -> str:
        folded = self._fold(chr(codepoint))
        if codepoint < 0x10000:  # the cache stays bounded whatever is thrown at it
            self[codepoint] = folded
        return folded


def _latin1(text: str) -> bytes | None:
    """The Latin-1 bytes of `text`, or None when it holds a character beyond Latin-1."""
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError:
        return None


def _longest_first(spellings) -> list[str]:
    return sorted(spellings, key=lambda s: (-len(s), s))


def _alternation(spellings) -> re.Pattern:
    return re.compile("|".join(re.escape(s) for s in _longest_first(spellings)))


def overlapping(spellings) -> bool:
    """True when a proper suffix of one spelling is a proper prefix of another.

    Without such overlaps, occurrences of different spellings in a text are disjoint or nested,
    so replacing each spelling in turn, longest first, reads exactly as the greedy scan does.

    >>> overlapping(['CH', 'LL', 'RR', '[CH]', '[LL]', '[RR]'])
    False
    >>> overlapping(['XY', 'YZ'])
    True
    """
    for first in spellings:
        for second in spellings:
            if first != second and any(second.startswith(first[i:]) for i in range(1, len(first))):
                return True
    return False


class Tokenizer:
    """Reads words written in one notation (`spelling` or `tiles`) of one alphabet into keys."""

    def __init__(self, alphabet: Alphabet, notation: str = "spelling"):
        self.alphabet = alphabet
        self.notation = alphabet.notation(notation)
        spellings = self.notation.spellings
        self._vocabulary = frozenset("".join(spellings))
        self._fold_table = _FoldTable(self._fold_char)
        unchanged = {c for c in self._vocabulary if self._fold_char(c) == c} | {"\n", REJECT}
        self._unchanged = frozenset(unchanged)
        self._foldable = re.compile(f"[^{re.escape(''.join(sorted(unchanged)))}]")
        self._latin1_unchanged = "".join(c for c in sorted(unchanged) if ord(c) < 256).encode("latin-1")
        code = {s: alphabet.code_of[t] for s, t in spellings.items()}
        self._multi_code = {s: c for s, c in code.items() if len(s) > 1}
        self._multi = _alternation(self._multi_code) if self._multi_code else None
        self._chain = None if overlapping(self._multi_code) else _longest_first(self._multi_code)
        self._single = CharMap({s: c for s, c in code.items() if len(s) == 1})
        self._any_spelling = _alternation(spellings)
        codes = "".join(alphabet.code_of.values())
        self._not_key = re.compile(f"[^{re.escape(codes)}\n]")
        self._tables = self._latin1_tables(codes)
        # the same replacements in Latin-1 bytes, longest first (only with _tables, which needs _chain)
        self._chain_latin1 = [(s.encode("latin-1"), self._multi_code[s].encode("latin-1")) for s in self._chain or ()]

    def _latin1_tables(self, codes: str) -> tuple[bytes, bytes, str] | None:
        """Steps 1 and 3 as `bytes.translate` tables, for text within Latin-1, and the character both
        give for what is no tile; None if they do not fit.

        Nearly everything typed in Spanish or Catalan is Latin-1 (Ñ, Ç, the middle dot, accented
        vowels), and Latin-1 text is its own NFC form, so it folds one character at a time: one
        table folds it (a character that is no tile becomes a byte that is no code and in no
        spelling, as U+FFFD is in the general path), the multi-character spellings are replaced
        as in the general path, and a second table turns single characters into codes (any other
        character into that same byte). The property tests hold the two paths equal; a 3-word play
        is read in half the time, and the verdict is most of a challenge's own work.
        """
        if self._chain is None or "\n" in codes or set(codes) & set(self.notation.spellings):
            return None  # overlapping spellings, or a code that is also read as a letter: not one pass
        spare = next(b for b in range(255, 0, -1) if chr(b) not in self._vocabulary and chr(b) not in codes)
        fold, to_code = bytearray(256), bytearray(256)
        for byte in range(256):
            folded = self._fold_char(chr(byte))
            spelled = self.notation.spellings.get(chr(byte))
            code = self.alphabet.code_of[spelled] if spelled is not None else chr(byte)
            folded = chr(spare) if folded == REJECT else folded
            if len(folded) != 1 or ord(folded) > 255 or ord(code) > 255:
                return None
            fold[byte] = ord(folded)
            to_code[byte] = ord(code) if spelled is not None or code in codes or code == "\n" else spare
        if any(ord(c) > 255 for c in "".join(self._multi_code) + "".join(self._multi_code.values())):
            return None
        return bytes(fold), bytes(to_code), chr(spare)

    # -- the fast path -------------------------------------------------------------------

    def _fold_char(self, char: str) -> str:
        if char == "\n":
            return char
        upper = char.upper()
        folded = upper if len(upper) == 1 else char
        if self.notation.fold_diacritics and folded not in self.alphabet.distinct:
            decomposed = unicodedata.normalize("NFD", folded)
            folded = "".join(c for c in decomposed if not unicodedata.combining(c))
        folded = "".join(self.alphabet.equivalents.get(c, c) for c in folded)
        return folded if all(c in self._vocabulary for c in folded) else REJECT

    def fold(self, text: str) -> str:
        """Step 1 alone: the text as the scanner sees it.

        >>> tokenizer('es').fold('Camión')
        'CAMION'
        >>> tokenizer('es').fold('ñandú')
        'ÑANDU'
        >>> tokenizer('ca').fold('col•legi')
        'COL·LEGI'
        """
        if not text.isascii():
            text = unicodedata.normalize("NFC", text)
        upper = text.upper()
        if len(upper) != len(text):  # a letter whose capital is two (ß): the slow, exact way
            return text.translate(self._fold_table)
        # Upper case first, then only the few distinct characters that fold to something else:
        # a handful of str.replace calls instead of a dict lookup per character.
        for char in self._to_fold(upper):
            folded = self._fold_table[ord(char)]
            if not self._unchanged.issuperset(folded):  # data that folds in circles: the slow way
                return text.translate(self._fold_table)
            upper = upper.replace(char, folded)
        return upper

    def _to_fold(self, upper: str) -> set[str]:
        """The distinct characters of `upper` that fold to something else than themselves."""
        try:  # delete every unchanged character at bytes.translate speed: what is left is the set
            return set(upper.encode("latin-1").translate(None, self._latin1_unchanged).decode("latin-1"))
        except UnicodeEncodeError:
            return set(self._foldable.findall(upper))

    def encode(self, text: str) -> str:
        """Lines of words in, lines of keys out, line for line; no check is made here.

        A line that held a character which is no tile keeps a non-code character and is
        found by `invalid_lines`. This is the compiler's bulk path.
        """
        data = None if self._tables is None else _latin1(text)
        if data is not None:
            return self._encode_latin1(data).decode("latin-1")
        text = self.fold(text)
        if self._chain is not None:
            text = self._replace_multi(text)
        elif self._multi is not None:
            text = self._multi.sub(lambda m: self._multi_code[m.group()], text)
        return self._single(text)

    def _encode_latin1(self, data: bytes) -> bytes:
        """Steps 1 to 3 on Latin-1 text, in its bytes: fold, the multi-character spellings (a
        replace that finds nothing gives the same bytes back), the single characters."""
        fold, to_code, _ = self._tables
        data = data.translate(fold)
        for spelling, code in self._chain_latin1:
            data = data.replace(spelling, code)
        return data.translate(to_code)

    def _replace_multi(self, text: str) -> str:
        for spelling in self._chain:
            if spelling in text:  # str's search is fast; bytes' `in` is not (3 times the cost here)
                text = text.replace(spelling, self._multi_code[spelling])
        return text

    def invalid_lines(self, encoded: str) -> list[int]:
        """The 0-based numbers of the lines of `encoded` that are not keys, in order."""
        bad: list[int] = []
        line, scanned = 0, 0
        for match in self._not_key.finditer(encoded):
            line += encoded.count("\n", scanned, match.start())
            scanned = match.start()
            if not bad or bad[-1] != line:
                bad.append(line)
        return bad

    # -- words and plays -----------------------------------------------------------------

    def key(self, word: str) -> str:
        """The key of one word; surrounding white space is ignored.

        >>> es = tokenizer('es')
        >>> es.alphabet.tiles_of(es.key('carro'))
        ['C', 'A', 'RR', 'O']
        >>> tokenizer('es', 'tiles').alphabet.tiles_of(tokenizer('es', 'tiles').key('CARRO'))
        ['C', 'A', 'R', 'R', 'O']
        """
        return self.keys([word])[0]

    def play(self, words: Sequence[str]) -> list[str]:
        """The keys of one play's words: its size (`board.check_play_size`), every word's key
        (`keys`) and tiles (`board.check_lengths`), or the first InputError of them.

        A well-formed play within Latin-1, nearly every play, is read here in C calls (the checks
        of `keys`' own fast path, and every length measured at once): on a service's challenge a
        Python call costs, cold, more than most of the work it does. Anything else goes the
        general way, which names the error.

        >>> es = tokenizer('es')
        >>> [es.alphabet.tiles_of(key) for key in es.play(['carro', 'Chico'])]
        [['C', 'A', 'RR', 'O'], ['CH', 'I', 'C', 'O']]
        >>> es.play(['CASA', 'A'])
        Traceback (most recent call last):
        ...
        lexicon.errors.WordLengthError: 'A' has 1 tile; words have 2 to 15 tiles
        """
        if self._tables is not None and MIN_WORDS <= len(words) <= MAX_WORDS:
            try:
                data = "\n".join(words).encode("latin-1")
            except UnicodeEncodeError:
                data = None
            if data is not None:
                encoded = self._encode_latin1(data).decode("latin-1")
                keys = encoded.split("\n")
                lengths = sorted(map(len, keys))  # none empty, none too long: what check_lengths asks
                fits = lengths[0] >= MIN_TILES and lengths[-1] <= MAX_TILES
                if fits and self._tables[2] not in encoded and len(keys) == len(words):
                    return keys
        check_play_size(len(words))
        keys = self.keys(words)
        check_lengths(words, keys)
        return keys

    def keys(self, words: Sequence[str]) -> list[str]:
        """The keys of several words at once (a play), in one pass over their joined text.

        Raises the first word's `InputError`, with `index` set to its place in `words`.
        """
        data = None if self._tables is None else _latin1("\n".join(words))
        if data is not None:  # a well-formed play in Latin-1 is checked in three C calls
            encoded = self._encode_latin1(data).decode("latin-1")
            keys = encoded.split("\n")
            # every character a code (no white space either, so none to strip), one key a word
            # (no line break inside one), none empty: what the general path reads too
            if self._tables[2] not in encoded and len(keys) == len(words) and "" not in keys:
                return keys
        typed, words = words, [w.strip() for w in words]
        if not all(words):  # one pass at C speed; the loop only to name the empty one
            for index, word in enumerate(words, 1):
                if not word:
                    raise EmptyWordError(typed[index - 1]).in_play(index)  # as typed: "  " is not ""
        joined = "\n".join(words)
        encoded = self.encode(joined)
        if self._not_key.search(encoded) is None and joined.count("\n") == len(words) - 1:
            return encoded.split("\n")
        for index, word in enumerate(words, 1):
            error = self.diagnose(word)
            if error is not None:
                raise error.in_play(index)
        raise AssertionError(f"no error found in {words!r}")  # pragma: no cover

    def tiles(self, word: str) -> list[str]:
        """The tiles of one word, as their labels.

        >>> tokenizer('ca').tiles('Col·legi')
        ['C', 'O', 'L·L', 'E', 'G', 'I']
        >>> tokenizer('ca').tiles('qüestió')
        ['QU', 'E', 'S', 'T', 'I', 'O']
        """
        return self.alphabet.tiles_of(self.key(word))

    # -- explaining errors ---------------------------------------------------------------

    def diagnose(self, word: str) -> InputError | None:
        """Why `word` is no sequence of tiles, or None if it is one.

        Scans tile by tile, the same longest-first way as the fast path, remembering where
        each folded character came from, so the error names the character as it was typed
        and its place (1-based, counting characters of the NFC form).

        >>> str(tokenizer('es').diagnose('KIWI'))
        "'K' at 1 in 'KIWI': the Spanish set has no K tile"
        >>> print(tokenizer('es').diagnose('CARRO'))
        None
        """
        typed, word = word, unicodedata.normalize("NFC", word.strip())
        if not word:
            return EmptyWordError(typed)
        folded, source = [], []
        for place, char in enumerate(word):
            for piece in self._fold_char(char):
                folded.append(piece)
                source.append(place)
        text = "".join(folded)
        at = 0
        while at < len(text):
            match = self._any_spelling.match(text, at)
            if match is None:
                place = source[at]
                return TileError(word, word[place], place + 1, self._reason(word[place], text[at]))
            at = match.end()
        return None

    def _reason(self, typed: str, folded: str) -> str:
        for hints in (self.notation.hints, self.alphabet.hints):
            for char in (typed.upper(), folded):
                if char in hints:
                    return hints[char]
        name = self.alphabet.name
        if typed.isspace():
            return "white space is not a tile: one word at a time"
        if folded in self._vocabulary:
            return f"no {name} tile is written this way here"
        if typed.isalpha():
            if not self.notation.fold_diacritics and unicodedata.decomposition(typed):
                return f"no {name} tile in {self.notation.name} notation; accents belong to spelling"
            return f"the {name} set has no {typed.upper()} tile"
        return f"not a letter of the {name} tile set"


@cache
def tokenizer(language: str, notation: str = "spelling") -> Tokenizer:
    """The shared tokenizer of a language and notation (built once: its tables are not small)."""
    return Tokenizer(load_alphabet(language), notation)
