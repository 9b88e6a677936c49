"""`python -m bench single_file` at small scale, never timed: its rows, and a file that does not
judge stops the run."""

from __future__ import annotations

import re

import pytest

from bench import chromium, single_file
from bench.browser import PLAYS
from lexicon.lexfile import Lexicon
from tests.support import compile_list


def measure(lexicons, **options):
    """In a thread of its own, as the other Chromium sections' tests (`chromium.in_thread`)."""
    return chromium.in_thread(single_file.measure, lexicons, **options)


def small(folder, language: str, words: list[str]) -> Lexicon:
    return Lexicon.open(compile_list(folder / f"{language}.lex", words, language, f"bench-{language}", "Bench"))


def test_the_section_reports_size_export_and_opening_of_each_file(tmp_path):
    tables = measure(
        [small(tmp_path, "es", PLAYS["es"] + ["CASA"]), small(tmp_path, "ca", PLAYS["ca"])], runs=2, exports=1
    )
    assert [table.title for table in tables] == [
        f"The single-file judge: bench-es ({len(PLAYS['es']) + 1} words)",
        f"The single-file judge: bench-ca ({len(PLAYS['ca'])} words)",
    ]
    for table in tables:
        size, export, *opened = table.rows
        assert re.fullmatch(r"[\d,]+ B \([\d,]+ B\)", size.value) and size.target == "≤ 1,000,000 B" and size.met
        assert re.fullmatch(r"\d+\.\d\d s", export.value)
        assert [row.figure.split(": first")[0] for row in opened] == [
            "opened from file:// offline, unthrottled",
            "opened from file:// offline, CPU throttled 4×",
        ]
        for row in opened:
            assert re.fullmatch(r"\d+ ms / \d+ ms \(ready max \d+\)", row.value), row.value


def test_a_file_that_does_not_judge_the_play_stops_the_run(tmp_path):
    lexicon = small(tmp_path, "es", PLAYS["es"][1:] + ["CASA"])  # the bench's valid play is not valid here
    with pytest.raises(RuntimeError, match="does not judge offline"):
        measure([lexicon], runs=1, exports=1)
