"""The pipeline: entries in, keys and a report out; left-out lines named with their reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from build_tools.compiler import build, collect_keys
from build_tools.report import BuildReport
from build_tools.wordlist import clean, comment_lines, read_word_list
from lexicon.alphabet import load_alphabet
from lexicon.lexfile import Lexicon, LexiconMeta
from lexicon.tokenizer import tokenizer
from tests.lexicon.test_properties import reference, words

MINI = Path(__file__).resolve().parents[1] / "data" / "mini-es.txt"


def test_left_out_lines_are_reported_by_reason_with_line_numbers():
    text, _, _ = read_word_list(str(MINI))
    report = BuildReport()
    keys = collect_keys(text, tokenizer("es"), report)
    assert report.entries == 11 and report.blank == 2
    assert report.words == len(keys) == 6  # carro chico llave camion ñandu zas
    assert report.duplicates.count == 1
    assert [(e.where, e.word) for e in report.duplicates.examples] == [("line 7", "camion")]
    assert "same tiles as line 6" in report.duplicates.examples[0].detail
    left = {reason: [(e.where, e.word) for e in t.examples] for reason, t in report.left_out.items()}
    assert left == {
        "non-tile": [("line 8", "kiwi"), ("line 9", "ad-hoc")],
        "too-short": [("line 10", "a")],
        "too-long": [("line 12", "comprenderiamoslos")],
    }
    assert report.left_out["non-tile"].examples[0].detail.endswith("the Spanish set has no K tile")
    assert report.left_out["too-long"].examples[0].detail == "18 tiles"
    rendered = "\n".join(report.lines())
    assert "left out, a character that is no tile: 2" in rendered and "line 9: ad-hoc" in rendered


def test_examples_are_capped_but_counts_are_not():
    report = BuildReport()
    collect_keys("\n".join(f"K{'A' * n}" for n in range(1, 12)), tokenizer("es"), report)
    assert report.left_out["non-tile"].count == 11 and len(report.left_out["non-tile"].examples) == 5


def test_tile_notation_lists_read_digits_as_digraph_tiles():
    report = BuildReport()
    keys = collect_keys("CA3O\n1ICO\nCARRO\n", tokenizer("es", "tiles"), report)
    assert sorted(tokenizer("es", "tiles").alphabet.engine_text(k) for k in keys) == ["CARRO", "CA[RR]O", "[CH]ICO"]


def test_a_tiles_list_with_a_digraph_written_as_two_tiles_is_compiled_and_named_in_the_report():
    """PERRO in tiles notation is P E R R O, which no Spanish word is: a list in spelling built with
    --notation tiles. The report says so, by line, and how the notation writes the tile; a line
    left out is not named again, and Catalan (no L·L, NY or QU of separate tiles) has nothing to say."""
    report = BuildReport()
    text = "CA3O\nPERRO\n\nKARRO\nCHICO\n[LL]AVE\nCALLE\nPERRO\n"
    keys = collect_keys(text, tokenizer("es", "tiles"), report)
    assert report.words == len(keys) == 5  # compiled as written: the report warns, it leaves nothing out
    assert report.left_out["non-tile"].count == 1  # KARRO (no K tile): not named again
    # PERRO again (line 8) is the word of line 2, collapsed: counted once, as `words` counts it
    assert [(e.where, e.word, e.detail) for e in report.split.examples] == [
        ("line 2", "PERRO", "R R as separate tiles"),
        ("line 5", "CHICO", "C H as separate tiles"),
        ("line 7", "CALLE", "L L as separate tiles"),
    ]
    rendered = "\n".join(report.lines())
    assert "compiled with one tile written as separate tiles: 3 (no Spanish word has C H, L L, R R apart" in rendered
    assert "RR as 3 or [RR]" in rendered and "without --notation tiles" in rendered
    assert report.as_dict()["split"]["count"] == 3
    for language, listed in (("es", "CA3O\n1ICO\nCARRO\n"), ("ca", "CAVALL\nCOL·LEGI\nANYS\nQADRE\n")):
        quiet = BuildReport()
        collect_keys(listed, tokenizer(language), quiet)  # spelling: CARRO is C A RR O, nothing to say
        assert quiet.split.count == 0 and "separate tiles" not in "\n".join(quiet.lines())
    catalan = BuildReport()
    collect_keys("CAVALL\nCOL·LEGI\nANYS\nQADRE\n", tokenizer("ca", "tiles"), catalan)
    assert catalan.words == 4 and catalan.split.count == 0


def test_build_gives_a_lexicon_and_the_same_bytes_every_time():
    meta = LexiconMeta(id="mini", language="es", name="Mini", version="1")
    text, _, _ = read_word_list(str(MINI))
    first, report = build(text, tokenizer("es"), meta)
    again, _ = build("\n".join(reversed(text.split("\n"))), tokenizer("es"), meta)
    assert first == again
    lexicon = Lexicon.from_bytes(first)
    assert len(lexicon) == report.words == 6
    assert "".join(lexicon.dump()).split() == ["CAMION", "CA[RR]O", "[CH]ICO", "[LL]AVE", "ÑANDU", "ZAS"]


def test_stages_are_announced_for_the_progress_bar():
    stages = []
    build("casa\n", tokenizer("es"), LexiconMeta(id="m", language="es", name="M", version="1"), on_stage=stages.append)
    assert stages == ["tokenizing", "compiling"]


def test_the_report_counts_comment_lines_apart_from_blank_ones_and_says_one_in_the_singular():
    text, _, comments = read_word_list(str(MINI))  # a comment line, then a blank one further down
    _, report = build(
        text, tokenizer("es"), LexiconMeta(id="mini", language="es", name="Mini", version="1"), comments=comments
    )
    assert (report.blank, report.comments) == (1, 1)
    assert report.lines()[0] == "entries read:               11  (1 blank line, 1 comment line)"
    assert report.as_dict()["comments"] == 1
    raw = "\n\n# a\n  # b\ncasa\n"
    _, two = build(
        clean(raw),
        tokenizer("es"),
        LexiconMeta(id="x", language="es", name="X", version="1"),
        comments=comment_lines(raw),
    )
    assert two.lines()[0] == "entries read:                1  (2 blank lines, 2 comment lines)"


def test_a_list_of_one_blank_or_comment_line_says_so_as_a_list_of_two_does():
    """A file of one blank line, or of one comment, was reported as no line at all (its line feed
    taken for the end of an empty text), while two were two: each line is counted."""
    for raw, blank, comments in (("\n", 1, 0), ("# only a comment\n", 0, 1), ("\n\n", 2, 0), ("", 0, 0)):
        _, report = build(
            clean(raw),
            tokenizer("es"),
            LexiconMeta(id="x", language="es", name="X", version="1"),
            comments=comment_lines(raw),
        )
        assert (report.entries, report.blank, report.comments) == (0, blank, comments), raw


def test_lines_left_out_are_never_named_as_duplicates():
    # b4 b5 b6: each has a digit that is no tile, so each is left out, and none repeats a word
    report = BuildReport()
    keys = collect_keys("b4\nb5\nb6\ncasa\ncasa\n", tokenizer("es", "tiles"), report)
    assert len(keys) == 1 and report.left_out["non-tile"].count == 3
    assert report.duplicates.count == 1
    assert [(e.where, e.word, e.detail) for e in report.duplicates.examples] == [
        ("line 5", "casa", "(same tiles as line 4)")
    ]


def test_a_line_left_out_is_quoted_escaped_and_cut_in_the_report():
    """A list given as one line (a JSON array, a file with no line feeds) or with a control byte:
    the report printed the line whole, twice (the word, then the error quoting it), and a NUL or
    an escape sequence raw to the terminal. Each is quoted escaped, cut, with its length."""
    long = "k" * 5000
    report = BuildReport()
    collect_keys(f"casa\n{long}\nca\x00sa\n", tokenizer("es"), report)
    lines = report.lines()
    (kiwi,) = [line for line in lines if line.startswith("  line 2: ")]
    assert len(kiwi) < 600 and kiwi.count("… (5,000 characters)") == 2, kiwi
    assert "  line 3: 'ca\\x00sa': U+0000 at 3 in 'ca\\x00sa': not a letter of the Spanish tile set" in lines
    assert all(line.isprintable() for line in lines)
    assert report.as_dict()["left_out"]["non-tile"]["examples"][0]["word"] == long  # the JSON keeps it whole


@pytest.mark.parametrize("language", ["es", "ca"])
@given(data=st.data())
def test_a_list_compiles_to_the_words_its_lines_read_as_one_by_one(language, data):
    """The compiler's whole-list passes against the plain reading (tests/lexicon/test_properties.py's
    `reference`, line by line): its keys are exactly the lines that read as 2 to 15 tiles, each
    once; every other line is counted once, as blank, left out or a duplicate."""
    alphabet = load_alphabet(language)
    line = st.one_of(
        words(language).map(str.strip).filter(lambda text: "\n" not in text),
        st.lists(st.sampled_from(alphabet.tiles), min_size=1, max_size=16).map("".join),  # lengths at the bounds
        st.just(""),
    )
    lines = data.draw(st.lists(line, max_size=12).map(lambda drawn: drawn + drawn[: len(drawn) // 3]))  # duplicates
    report = BuildReport()
    keys = collect_keys("".join(text + "\n" for text in lines), tokenizer(language), report)  # as a file holds them
    read = [reference(language, "spelling", text) for text in lines if text]
    expected = {alphabet.key(tiles) for tiles in read if isinstance(tiles, list) and 2 <= len(tiles) <= 15}
    assert keys == sorted(expected) and report.words == len(expected)
    left_out = sum(reasons.count for reasons in report.left_out.values())
    assert report.blank == lines.count("") and report.words + report.duplicates.count + left_out == len(read)
