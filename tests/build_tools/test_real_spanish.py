"""The real Spanish list compiles to its own distinct tile words and dumps back to them."""

from __future__ import annotations

import lzma
from pathlib import Path

import pytest

from build_tools.compiler import build
from build_tools.sources import load_source
from lexicon.lexfile import Lexicon, LexiconMeta
from lexicon.tokenizer import tokenizer
from lexicon.verdict import judge

pytestmark = pytest.mark.slow  # the real Spanish list, compiled whole

SOURCE = Path(__file__).resolve().parents[2] / "data" / "es-letterpress" / "words.txt.xz"


@pytest.fixture(scope="module")
def original() -> list[str]:
    return lzma.decompress(SOURCE.read_bytes()).decode("utf-8").split()


@pytest.fixture(scope="module")
def compiled():
    meta = LexiconMeta(id="letterpress-es", language="es", name="Letterpress", version="2.0.0")
    data, report = build(load_source(str(SOURCE)).text, tokenizer("es"), meta)
    return Lexicon.from_bytes(data), report


def test_every_line_is_a_distinct_word_of_2_to_15_tiles(original, compiled):
    lexicon, report = compiled
    assert len(original) == len(set(original)) == report.entries == report.words == len(lexicon)
    assert report.left_out_count == 0 and report.duplicates.count == 0


def test_the_dump_spells_back_to_the_original_list(original, compiled):
    lexicon, _ = compiled
    dumped = "".join(lexicon.dump())
    spelled = dumped.replace("[CH]", "CH").replace("[LL]", "LL").replace("[RR]", "RR").lower().split()
    assert len(spelled) == len(original) and set(spelled) == set(original)


def test_long_spellings_fit_because_digraphs_are_one_tile(original, compiled):
    lexicon, _ = compiled
    longest = [w for w in original if len(w) > 15]
    assert longest, "the list has words of more than 15 letters"
    for word in longest:
        assert len(tokenizer("es").key(word)) <= 15 and judge(lexicon, [word])


def test_judges_real_plays(compiled):
    lexicon, _ = compiled
    assert judge(lexicon, ["carro", "chico", "llave", "ñandú", "camión", "pingüino"])
    assert not judge(lexicon, ["carro", "chico", "llave", "ñandú", "camión", "pinguinox"])
