"""What `static/tiles.js` needs to read words as `lexicon.tokenizer` does: data, not rules.

- `alphabet_data(language)`: one language's spelling notation from `lexicon/alphabets/LANG.toml`
  (through `lexicon.alphabet`): tiles, spellings, folding, equivalents, hints and their
  translations, and the on-screen tile keys;
- `unicode_facts()`: the Unicode facts Python's tokenizer relies on and JavaScript has no API
  for (which characters are combining marks, which are white space), so both agree.

The judge's page embeds both (service/page_data.py); tests/page compares tiles.js with Python.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import cache
from typing import Any

from lexicon.alphabet import load_alphabet

# Every combining mark and every white-space character is in the first two planes (tests check
# all of Unicode, so a future Unicode that breaks this fails a test, not a judge).
SCANNED = 0x20000


def _ranges(codepoints: Iterable[int]) -> str:
    """Code points as compact hexadecimal ranges.

    >>> _ranges([0x300, 0x301, 0x302, 0x483, 0x485, 0x486])
    '300-302,483,485-486'
    """
    spans: list[list[int]] = []
    for cp in codepoints:
        if spans and spans[-1][1] == cp - 1:
            spans[-1][1] = cp
        else:
            spans.append([cp, cp])
    return ",".join(f"{a:x}" if a == b else f"{a:x}-{b:x}" for a, b in spans)


@cache
def unicode_facts() -> dict[str, str]:
    """The Unicode facts of Python's tokenizer that JavaScript has no API for.

    `combining`: the characters `unicodedata.combining` calls combining (what spelling notation
    drops after NFD); `space`: what `str.isspace` calls white space (what `str.strip` removes).
    """
    chars = range(SCANNED)  # a tenth of the code points, a tenth of the start-up time
    return {
        "unicode": unicodedata.unidata_version,
        "combining": _ranges(cp for cp in chars if unicodedata.combining(chr(cp))),
        "space": _ranges(cp for cp in chars if chr(cp).isspace()),
    }


def alphabet_data(language: str) -> dict[str, Any]:
    """One language's spelling notation, as `tiles.js` reads it: the data of `LANG.toml`."""
    alphabet = load_alphabet(language)
    notation = alphabet.notation("spelling")
    spellings = dict(notation.spellings)
    keys = []  # the on-screen tile keys: multi-letter tiles, then the letters with a diacritic
    for tile in [t for t in alphabet.tiles if len(t) > 1] + sorted(alphabet.distinct):
        bracketed = f"[{tile}]"
        keys.append(
            {
                "tile": tile,
                "text": tile if spellings.get(tile) == tile else next(s for s, t in spellings.items() if t == tile),
                "bracketed": bracketed if spellings.get(bracketed) == tile else None,
            }
        )
    return {
        "language": alphabet.language,
        "name": alphabet.name,
        "spellings": spellings,
        "foldDiacritics": notation.fold_diacritics,
        "distinct": sorted(alphabet.distinct),
        "equivalents": dict(alphabet.equivalents),
        "hints": dict(alphabet.hints),
        "notationHints": dict(notation.hints),
        # translated reasons, by interface language: notation's first, as the tokenizer looks;
        # sorted, so every worker renders the same bytes (and the same ETag)
        "hintsIn": {
            ui: {**alphabet.hints_in.get(ui, {}), **notation.hints_in.get(ui, {})}
            for ui in sorted({*alphabet.hints_in, *notation.hints_in})
        },
        "keys": keys,
    }


__all__ = ["alphabet_data", "unicode_facts"]
