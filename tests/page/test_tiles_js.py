"""The page's tile reader (service/static/tiles.js) reads words exactly as lexicon/tokenizer.py.

Evaluated in Chromium, on the live page, with the alphabet data the page embeds, and compared
with Python's tokenizer: every literal case of tests/lexicon/test_tokenizer.py in spelling
notation, then thousands of random strings per language made of what phones and judges type
(letters in both cases, accented and precomposed letters, combining marks, the middle dot in all
its shapes, digraphs and brackets, white space of every kind, control characters, digits,
punctuation, other scripts, letters whose capital is two letters, astral characters) and of any
character assigned in Python's Unicode. Same tiles, or the same error: the same character at the
same place with the same reason.
"""

from __future__ import annotations

import importlib.util
import random
import unicodedata

import pytest

from lexicon.board import MAX_TILES, MIN_TILES
from lexicon.errors import EmptyWordError, TileError
from lexicon.tokenizer import tokenizer

from .conftest import REPO

RANDOM_WORDS = 4000  # per language


def literal_cases():
    """The literal cases of the tokenizer's own tests, spelling notation only."""
    path = REPO / "tests" / "lexicon" / "test_tokenizer.py"
    spec = importlib.util.spec_from_file_location("literal_tokenizer_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    cases = {"es": [w for w, _ in module.ES_SPELLING], "ca": [w for w, _ in module.CA_SPELLING]}
    for dot in module.MIDDLE_DOTS:
        cases["ca"] += [f"COL{dot}LEGI", f"col{dot}legi"]
    cases["ca"] += ["COĿLEGI", "coŀlegi", "COŀLEGI"]
    for language, notation, word, *_ in module.ERRORS:
        if notation == "spelling":
            cases[language].append(word)
    for language in cases:
        cases[language] += ["", "   ", "\t", "CAR\nRO", "A", "O" * 15, "O" * 16]
    return cases


def python_read(language: str, word: str) -> dict:
    """What the service would say of one word: its tiles, or the input error."""
    tokens = tokenizer(language)
    try:
        key = tokens.keys([word])[0]
    except EmptyWordError:
        return {"error": {"kind": "empty"}}
    except TileError as error:
        return {"error": {"kind": "tile", "char": error.char, "position": error.position, "reason": error.reason}}
    tiles = tokens.alphabet.tiles_of(key)
    if not MIN_TILES <= len(tiles) <= MAX_TILES:
        return {"tiles": tiles, "error": {"kind": "length", "tiles": len(tiles)}}
    return {"tiles": tiles, "error": None}


JS_READ = """
([language, words]) => words.map((word) => {
  const read = LexiconJudge.readers[language].read(word);
  const error = read.error && (read.error.kind === "tile" ?
    { kind: "tile", char: read.error.char, position: read.error.position, reason: read.error.reason } :
    read.error.kind === "length" ? { kind: "length", tiles: read.error.tiles } : { kind: read.error.kind });
  return read.error && read.error.kind !== "length" ? { error } : { tiles: read.tiles, error };
})
"""


def compare(page, language: str, words: list[str]) -> list[str]:
    got = page.evaluate(JS_READ, [language, words])
    mismatches = []
    for word, js in zip(words, got, strict=True):
        expected = python_read(language, word)
        if js != expected:
            mismatches.append(
                f"{language} {word!r} ({' '.join(f'U+{ord(c):04X}' for c in word)}): JS {js} != Python {expected}"
            )
    return mismatches


@pytest.fixture(scope="module")
def reader_page(browser, live):
    context = browser.new_context(base_url=live.url)
    page = context.new_page()
    page.goto("/")
    page.wait_for_function("window.LexiconJudge && LexiconJudge.readers.es && LexiconJudge.readers.ca")
    yield page
    context.close()


@pytest.mark.parametrize("language", ["es", "ca"])
def test_literal_cases_agree_with_python(reader_page, language):
    words = literal_cases()[language]
    assert len(words) > 25
    assert compare(reader_page, language, words) == []


def test_literal_cases_read_as_the_rules_say(reader_page):
    read = lambda language, word: reader_page.evaluate(
        "([l, w]) => LexiconJudge.readers[l].read(w).tiles.join('|')", [language, word]
    )
    assert read("es", "CARRO") == "C|A|RR|O"
    assert read("es", "n\u0303andu\u0301") == "Ñ|A|N|D|U"
    assert read("ca", "col•legi") == "C|O|L·L|E|G|I"
    assert read("ca", "QADRE") == "QU|A|D|R|E"
    assert read("ca", "qüestió") == "QU|E|S|T|I|O"
    assert read("ca", "CAVALL") == "C|A|V|A|L|L"


# -- random strings --------------------------------------------------------------------------------


def _assigned(low: int, high: int) -> list[str]:
    """Characters assigned in Python's Unicode (the browser may know a newer one: see below)."""
    return [chr(cp) for cp in range(low, high) if unicodedata.category(chr(cp)) not in ("Cn", "Cs", "Co")]


PIECES = {
    "common": (
        [chr(c) for c in range(ord("A"), ord("Z") + 1)] * 4
        + [chr(c) for c in range(ord("a"), ord("z") + 1)] * 3
        + list("ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿ") * 2
        + [chr(c) for c in range(0x100, 0x180)]  # Latin Extended-A (Ŀ ŀ ŉ ſ ı ...)
        + [chr(c) for c in range(0x1E00, 0x1F00, 3)]  # Latin Extended Additional
        + [chr(c) for c in range(0x300, 0x370)] * 2  # combining diacritics
        + [
            "\u034f",
            "\u0345",
            "\u0483",
            "\u0591",
            "\u05b0",
            "\u0670",
            "\u093c",
            "\u1ab0",
            "\u20d0",
            "\u20e3",
            "\u302a",
            "\ufe20",
            "\U0001d165",
            "\U0001e944",
            "\u0f39",
            "\u0e38",
        ]
        + ["·", ".", "•", "∙", "‧", "⋅", "\u0387", "Ŀ", "ŀ"] * 3
        + [
            "CH",
            "LL",
            "RR",
            "L·L",
            "NY",
            "QU",
            "QÜ",
            "Q",
            "[",
            "]",
            "[CH]",
            "[LL]",
            "[RR]",
            "[L·L]",
            "[NY]",
            "[QU]",
            "[C",
            "H]",
            "ny",
            "l·l",
            "l.l",
            "ŀl",
            "Ñ",
            "ñ",
            "Ç",
            "ç",
            "n\u0303",
            "c\u0327",
        ]
        * 2
        + list("0123456789'-_,;:!?¿¡\"()/\\@#&*+=%$€ºª")
        + [
            " ",
            "\t",
            "\n",
            "\r",
            "\u00a0",
            "\u2000",
            "\u2007",
            "\u200b",
            "\u202f",
            "\u3000",
            "\x1c",
            "\x1f",
            "\x85",
            "\ufeff",
            "\u180e",
            "\u2028",
        ]
        + [chr(c) for c in list(range(0x20)) + list(range(0x7F, 0xA0))]
        + [
            "ß",
            "ﬀ",
            "ﬁ",
            "ŉ",
            "ǅ",
            "ǈ",
            "ǰ",
            "ΐ",
            "\u212a",
            "\u212b",
            "Ａ",
            "ｋ",
            "𝐀",
            "😀",
            "İ",
            "ẞ",
            "Ω",
            "ω",
            "Σ",
            "ς",
            "Ж",
            "я",
            "ß",
            "\u1e9e",
            "ꭓ",
            "Ꞵ",
            "ꞵ",
            "Ǳ",
            "ǲ",
        ]
    ),
}


# What a judge mostly types: letters, accents, digraphs, dots (half the random words).
PIECES["tiles"] = (
    [chr(c) for c in range(ord("A"), ord("Z") + 1)] * 3
    + list("aeioulnrsctdmp") * 3
    + list("ÁÉÍÓÚÜÀÈÒÏáéíóúüàèòïÑñÇç")
    + ["\u0301", "\u0300", "\u0308", "\u0303", "\u0327"]
    + [
        "CH",
        "LL",
        "RR",
        "L·L",
        "l·l",
        "L.L",
        "ŀl",
        "NY",
        "ny",
        "QU",
        "QÜ",
        "Q",
        "[CH]",
        "[RR]",
        "[L·L]",
        "[NY]",
        "·",
        ".",
    ]
    * 2
)


def random_words(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    common, bmp, astral = PIECES["common"], _assigned(0x20, 0x10000), _assigned(0x10000, 0x20000)
    words = []
    for index in range(count):
        size = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16])
        parts = []
        for _ in range(size):
            roll = rng.random()
            if index % 2:
                parts.append(rng.choice(PIECES["tiles"]))
            elif roll < 0.06:
                parts.append(rng.choice(bmp))
            elif roll < 0.07:
                parts.append(rng.choice(astral))
            else:
                parts.append(rng.choice(common))
        words.append("".join(parts))
    return [w for w in words if not any(0xD800 <= ord(c) <= 0xDFFF for c in w)]


@pytest.mark.parametrize("language, seed", [("es", 20260), ("ca", 20261)])
def test_random_strings_agree_with_python(reader_page, language, seed):
    words = random_words(seed, RANDOM_WORDS)
    kinds = {"tiles": 0, "tile": 0, "length": 0, "empty": 0}
    for word in words:
        result = python_read(language, word)
        kinds[result["error"]["kind"] if result["error"] else "tiles"] += 1
    assert min(kinds.values()) > 20, kinds  # every outcome is well represented
    mismatches = compare(reader_page, language, words)
    assert mismatches == [], f"{len(mismatches)} of {len(words)} differ:\n" + "\n".join(mismatches[:20])


# Characters that Python's Unicode (14.0 for Python 3.11) does not know yet and the browser's does:
# Kirat Rai, Egyptian hieroglyphs extended, Tangut components, Garay, Sunuwar letters.
NEWER = ["\U00016d56", "\U000141a1", "\U00018d94", "\U00010d50", "\U00011bc0"]


def test_characters_newer_than_pythons_unicode_are_no_tiles_on_both_sides(reader_page):
    """The page carries Python's Unicode facts; the browser's own may be newer. A character that
    only the browser knows is still no tile, at the same place: only the English wording of the
    reason may differ (Python does not know it is a letter)."""
    assert reader_page.evaluate("LexiconJudge.data.unicode.unicode") == unicodedata.unidata_version
    for language in ("es", "ca"):
        for char in [c for c in NEWER if unicodedata.category(c) == "Cn"]:
            word = f"CA{char}SA"
            js = reader_page.evaluate(JS_READ, [language, [word]])[0]["error"]
            python = python_read(language, word)["error"]
            assert (js["kind"], js["char"], js["position"]) == (python["kind"], python["char"], python["position"])
