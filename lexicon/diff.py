"""What changed between two compiled lexicons: the words that came, the words that went.

A new federation release (a FILE list, a DISC commit) starts a season of transition: players
study the new words, directors announce them. Comparing two *compiled* lexicons, rather than two
word files, compares what a judge would actually answer: tiles, not spellings. So CHICO as
C H I C O (a tiles-notation list with plain letters) and [CH]ICO (CH as one tile) are different
words here, as they are on the board.

Both lexicons must share language and tile set: a Spanish key and a Catalan key with the same
codes are different words, so comparing them would be meaningless, and it is refused.

    >>> from lexicon import LexiconMeta, Lexicon, compile_lexicon, load_alphabet, tokenizer
    >>> def tiny(words, notation='spelling'):
    ...     keys = sorted({tokenizer('es', notation).key(w) for w in words})
    ...     meta = LexiconMeta('tiny', 'es', 'Tiny', '1')
    ...     return Lexicon.from_bytes(compile_lexicon(keys, meta, load_alphabet('es')))
    >>> change = diff(tiny(['carro', 'chico', 'casa']), tiny(['carro', 'ñandu', 'casas', 'casa']))
    >>> change.added_words(), change.removed_words(), change.counts()
    (['CASAS', 'ÑANDU'], ['[CH]ICO'], {'added': 2, 'removed': 1, 'kept': 2})
    >>> change.lines()
    ['+ CASAS', '- [CH]ICO', '+ ÑANDU']
    >>> diff(tiny(['chico']), tiny(['chico'], notation='tiles')).lines()
    ['+ CHICO', '- [CH]ICO']
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from dataclasses import dataclass, field

from .alphabet import Alphabet
from .errors import LexiconError
from .lexfile import Lexicon


class IncomparableError(LexiconError, ValueError):
    """Two lexicons whose words are not of the same tiles: another language or tile set."""

    def __init__(self, old: Lexicon, new: Lexicon, what: str, old_value: str, new_value: str):
        super().__init__(
            f"cannot compare {old.source} ({what} {old_value}) with {new.source} ({what} {new_value}): "
            f"a diff needs two lexicons of the same language and tile set"
        )
        self.what = what


@dataclass(frozen=True)
class LexiconDiff:
    """The words only in NEW (`added`) and only in OLD (`removed`), as keys in the alphabet's order.

    Keys (one code per tile) sort in the alphabet's order (C < CH < D, N < Ñ < O), the order of
    `lexicon dump`; `*_words` give them in engine notation, as the dump writes them.
    """

    alphabet: Alphabet
    added: tuple[str, ...]
    removed: tuple[str, ...]
    kept: int
    new: Lexicon = field(repr=False, compare=False)  # read again by by_length, only when asked

    def added_words(self) -> list[str]:
        return self._engine(self.added)

    def removed_words(self) -> list[str]:
        return self._engine(self.removed)

    def _engine(self, keys: tuple[str, ...]) -> list[str]:
        # One translation of the joined text, not one per word: the lists can be 50,000 long.
        return self.alphabet.engine_text("\n".join(keys)).split("\n") if keys else []

    def lines(self, added: bool = True, removed: bool = True) -> list[str]:
        """`+ WORD` and `- WORD`, merged in the alphabet's order, as a diff of two dumps shows them.

        All at C speed, since a first release against a new list can differ in 400,000 words:
        the two sorted lists are two runs that `sorted` merges in linear time, and the signs are
        put in before one engine-notation pass over the whole text (it leaves `+`, `-` alone).
        """
        signs = dict.fromkeys(self.added, "+ ") if added else {}
        if removed:
            signs.update(dict.fromkeys(self.removed, "- "))
        if not signs:
            return []
        merged = sorted(signs)
        text = "\n".join(map(operator.add, map(signs.__getitem__, merged), merged))
        return self.alphabet.engine_text(text).split("\n")

    def counts(self) -> dict[str, int]:
        return {"added": len(self.added), "removed": len(self.removed), "kept": self.kept}

    def by_length(self) -> dict[int, dict[str, int]]:
        """The counts for each word length in tiles, lengths with no word in either left out."""
        # Counted when asked, not in `diff`: over every word of NEW, it is a sixth of the work.
        added, removed = Counter(map(len, self.added)), Counter(map(len, self.removed))
        kept = Counter(map(len, self.new.iter_keys()))
        kept.subtract(added)
        lengths = sorted(n for n in set(added) | set(removed) | set(kept) if added[n] or removed[n] or kept[n])
        return {n: {"added": added[n], "removed": removed[n], "kept": kept[n]} for n in lengths}

    def differs(self, added: bool = True, removed: bool = True) -> bool:
        return bool((added and self.added) or (removed and self.removed))


def check_comparable(old: Lexicon, new: Lexicon) -> None:
    """Refuse two lexicons of another language or tile set, quoting both."""
    if old.header.language != new.header.language:
        raise IncomparableError(old, new, "language", old.header.language, new.header.language)
    if old.header.tiles != new.header.tiles:
        raise IncomparableError(old, new, "tiles", " ".join(old.header.tiles), " ".join(new.header.tiles))


def diff(old: Lexicon, new: Lexicon) -> LexiconDiff:
    """Compare two lexicons of the same language and tile set (else `IncomparableError`).

    A merge of the two key lists, all in C: each list holds a key at most once, so once both are
    sorted together a key is in only one of them exactly when its neighbours differ from it.
    Which one is then asked of NEW's trie for those keys only: less CPU and a lower peak of
    memory than two hash sets and their differences, on lists of the Spanish default's size.
    """
    check_comparable(old, new)
    merged = list(old.iter_keys())
    merged += new.iter_keys()
    merged.sort()  # two runs of nearly sorted keys
    differs_next = list(map(operator.ne, merged, itertools.islice(merged, 1, None)))
    differs_next.append(True)
    differs_previous = [True]
    differs_previous += differs_next[:-1]
    single = list(itertools.compress(merged, map(operator.and_, differs_previous, differs_next)))
    del merged, differs_next, differs_previous
    in_new = [key in new for key in single]
    added = tuple(itertools.compress(single, in_new))
    removed = tuple(itertools.compress(single, map(operator.not_, in_new)))
    return LexiconDiff(alphabet=new.alphabet, added=added, removed=removed, kept=len(new) - len(added), new=new)
