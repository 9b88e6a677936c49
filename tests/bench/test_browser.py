"""`python -m bench browser` at small scale: small lexicons through the real build and Node, never timed.

What is asserted is what its figures stand on: the browser file of each lexicon, its sizes on the
wire judged against its limit, Node finding every word of the lexicon with lexicon.js and
giving the bench's play the verdict Python gives it; a lexicon without one of the play's words
makes that row missed.
"""

from __future__ import annotations

import re

from bench import browser
from bench.browser import PLAYS
from lexicon.browser import BrowserLexicon, browser_bytes
from lexicon.lexfile import Lexicon
from tests.support import compile_list

ROWS = [
    "states, edges",
    "file (packed edges), raw",
    "file, gzip -9 (what plain HTTP carries)",
    "file, brotli 11 (HTTPS only)",
    "for comparison, 32-bit edges: raw, gzip -9, brotli 11",
    "build from the loaded .lex (Python): wall median of 3, CPU",
    "read and verify (Python)",
    "Node: bytes to ready (checksum, expand, check), crypto.subtle",
    "Node: bytes to ready, pure-JS SHA-256 (plain HTTP)",
    "Node: lookup of a key (words and as many non-words)",
]


def small(folder, language: str, words: list[str]) -> Lexicon:
    return Lexicon.open(compile_list(folder / f"{language}.lex", words, language, f"bench-{language}", "Bench"))


def test_each_lexicon_s_table_has_its_sizes_and_node_s_verdict(tmp_path):
    lexicons = [small(tmp_path, language, PLAYS[language] + ["CASA", "MESA"]) for language in ("es", "ca")]
    tables = browser.run(lexicons)
    assert [table.title for table in tables] == [
        "Browser lexicon: bench-es (5 words)",
        "Browser lexicon: bench-ca (5 words)",
    ]
    for table, lexicon in zip(tables, lexicons, strict=True):
        language = lexicon.header.language
        assert [row.figure for row in table.rows] == ROWS + [
            f"Node: 3-word verdict with tiles.js ({' '.join(PLAYS[language])})"
        ]
        rows = {row.figure: row for row in table.rows}
        opened = BrowserLexicon(browser_bytes(lexicon))
        assert rows["states, edges"].value == f"{opened.header.states:,}, {opened.header.edges:,}"
        for name in ("file, gzip -9 (what plain HTTP carries)", "file, brotli 11 (HTTPS only)"):
            assert re.fullmatch(r"\d+\.\d KB", rows[name].value) and rows[name].met is True
        assert rows["build from the loaded .lex (Python): wall median of 3, CPU"].met is True
        for row in table.rows[7:10]:
            assert re.fullmatch(r"\d+(\.\d)? (ms|ns)", row.value), row.value
        verdict = table.rows[-1]
        assert re.fullmatch(r"\d+\.\d µs", verdict.value) and verdict.met is True


def test_a_play_the_lexicon_refuses_is_a_missed_verdict_row(tmp_path):
    lexicon = small(tmp_path, "es", PLAYS["es"][:2] + ["CASA", "MESA"])  # no LLAVE
    [table] = browser.run([lexicon])
    assert table.rows[-1].figure.startswith("Node: 3-word verdict") and table.rows[-1].met is False
