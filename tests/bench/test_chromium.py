"""`python -m bench chromium` runs in Chromium and reports its rows; at small scale, never timed.

Small lexicons compiled with the real compiler hold the bench's valid plays, so the section's own
checks (every verdict as Python gives it, every word count as the .lex says) run for real.
"""

from __future__ import annotations

import re

import pytest

from bench import chromium
from bench.browser import PLAYS
from lexicon.lexfile import Lexicon
from tests.support import compile_list

SMALL = {"runs": 2, "repetitions": 5, "rounds": 2, "cold_runs": 2}


def measure(lexicons: list[Lexicon]):
    """`chromium.measure` at small scale, in a thread of its own (`chromium.in_thread`)."""
    return chromium.in_thread(chromium.measure, lexicons, **SMALL)


NUMBER = r"\d+\.\d"


def small(folder, language: str, extra: list[str] = ()) -> Lexicon:
    words = PLAYS[language] + ["CASA", "MESA"] + list(extra)
    return Lexicon.open(compile_list(folder / f"{language}.lex", words, language, f"bench-{language}", "Bench"))


def test_the_section_reports_each_lexicon_ready_times_and_verdicts_against_the_targets(tmp_path):
    lexicons = [small(tmp_path, "es"), small(tmp_path, "ca")]
    tables = measure(lexicons)
    assert [table.title for table in tables] == [
        f"Chromium, CPU throttled 4× (a phone's stand-in): bench-{language} ({len(PLAYS[language]) + 2} words)"
        for language in ("es", "ca")
    ]
    for table, language in zip(tables, ("es", "ca"), strict=True):
        figures = [row.figure for row in table.rows]
        assert figures[0].startswith("bytes to ready (verify, expand, check), crypto.subtle")
        assert figures[1].startswith("bytes to ready (verify, expand, check), the page's own SHA-256")
        assert figures[2].startswith("of which the checksum alone")
        assert re.fullmatch(rf"{NUMBER} ms, {NUMBER} ms; unthrottled {NUMBER} ms, {NUMBER} ms", table.rows[2].value)
        assert table.rows[2].met is None
        assert figures[3].startswith(f"3-word verdict, tiles.js reading + lookups: {' '.join(PLAYS[language])} (")
        assert "typed in lower case" in figures[4] and "one word not valid" in figures[5]
        for row in table.rows[:2]:
            assert re.fullmatch(
                rf"{NUMBER} ms, max {NUMBER} \(first of them: {NUMBER}\); unthrottled {NUMBER} ms", row.value
            ), row.value
            assert row.target == "≤ 50 ms" and row.met is not None
        for row in table.rows[3:6]:
            assert re.fullmatch(rf"{NUMBER} µs, max {NUMBER}; unthrottled {NUMBER} µs", row.value), row.value
            assert row.target == "≤ 50 µs" and row.met is not None
        # the first load in fresh pages, throttled from their start: as the page does it (the
        # section stops if lexicon.js did not use its WebAssembly), then JavaScript only beside it
        for cold, how in zip(table.rows[6:], ("lexicon.js's WebAssembly", "JavaScript only"), strict=True):
            assert cold.figure.startswith("bytes to ready, crypto.subtle, a page's first load throttled")
            assert how in cold.figure and cold.figure.endswith(f"max of {SMALL['cold_runs']} fresh pages")
            assert re.fullmatch(rf"{NUMBER} ms, max {NUMBER}", cold.value)
        assert table.rows[6].target == "≤ 50 ms" and table.rows[6].met is not None
        assert table.rows[7].target == "" and table.rows[7].met is None
        assert len(table.rows) == 8
        assert "| ≤ 50 µs |" in table.render()


def test_bench_data_that_python_judges_otherwise_stops_the_run(tmp_path):
    misspelt = chromium.NOT_VALID["es"][-1]
    lexicon = small(tmp_path, "es", extra=[misspelt])  # the "not valid" play is valid here
    with pytest.raises(RuntimeError, match="Python's verdict"):
        measure([lexicon])
