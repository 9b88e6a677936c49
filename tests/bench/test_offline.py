"""`python -m bench offline` drives the judge's page in Chromium; at small scale, never timed.

Small lexicons compiled with the real compiler hold the bench's plays, served by the real
`lexicon serve`, so the section's own check (the phone's verdict is Python's) runs for real.
"""

from __future__ import annotations

import re

import pytest

from bench import offline
from bench.browser import PLAYS
from bench.chromium import in_thread
from lexicon.lexfile import Lexicon
from tests.support import LiveServer, compile_list, stop_soon

FIGURE = r"\d+\.\d ms \(max \d+\.\d\)"


def measure(lexicons: list[Lexicon], url: str):
    """`offline.measure` at small scale, in a thread of its own (`chromium.in_thread`)."""
    return in_thread(offline.measure, lexicons, url, visits=1, verdicts=2)


def served(tmp_path, extra: list[str] = ()):
    words = {language: PLAYS[language] + ["CASA", "MESA"] + list(extra) for language in ("es", "ca")}
    paths = [
        compile_list(tmp_path / f"{language}.lex", words[language], language, f"bench-{language}", "Bench")
        for language in ("es", "ca")
    ]
    server = LiveServer(tmp_path, paths, LEXICON_LOG_LEVEL="warning")
    server.wait_ready()
    return server, [Lexicon.open(path) for path in paths]


def test_the_section_reports_paint_ready_and_the_phone_s_verdict_for_each_lexicon(tmp_path):
    server, lexicons = served(tmp_path)
    try:
        tables = measure(lexicons, server.url)
    finally:
        server.stop()
    assert [table.title for table in tables] == [
        f"The judge's page offline, Chromium: bench-{language} ({len(PLAYS[language]) + 2} words)"
        for language in ("es", "ca")
    ]
    for table, language in zip(tables, ("es", "ca"), strict=True):
        figures = [row.figure for row in table.rows]
        assert figures[0].startswith("first paint") and figures[1].startswith("first visit")
        assert figures[2].startswith("visit with the copy kept")
        assert figures[3] == f"verdict on the phone, browser offline: {' '.join(PLAYS[language])}"
        for row in table.rows:
            assert re.fullmatch(rf"{FIGURE} throttled 4×; unthrottled {FIGURE}", row.value), row.value


def test_a_phone_verdict_that_is_not_python_s_stops_the_run(tmp_path, monkeypatch):
    server, lexicons = served(tmp_path)
    monkeypatch.setattr(offline, "judge", lambda lexicon, words: False)  # Python says otherwise
    try:
        with pytest.raises(RuntimeError, match="offline, Python False"):
            measure(lexicons[:1], server.url)
    finally:
        stop_soon(server)
