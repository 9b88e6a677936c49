"""`python -m bench service`'s reload figures at small scale: a real `lexicon serve` under wrk, never timed.

What is asserted is what the figures are made of: the command's exit, the poller seeing the new
checksum, no old answer to a request sent after the command returned, and wrk counting nothing
lost; and that the rows land in the table with their targets.
"""

from __future__ import annotations

import json
import re

from bench import reloading
from bench.server import LEXICON
from bench.service_in_process import challenge_and_health, wsgi_call
from bench.service_server import Server
from bench.table import Table
from bench.wrk import PLAY3, Wrk, ensure_wrk
from tests.support import compile_list


def test_a_reload_under_load_is_measured_and_its_rows_judged(tmp_path):
    lexicon = compile_list(tmp_path / "es.lex", PLAY3["words"] + ["GATO"], "es", "letterpress-es", "bench es")
    wrk_path = ensure_wrk()
    assert wrk_path, "wrk is needed (apt-get install wrk)"
    figures = reloading.measure(Wrk(wrk_path, tmp_path), Server, LEXICON, lexicon, tmp_path, seconds=3, connections=8)
    assert figures["exit"] == 0
    assert figures["first_new"] is not None and figures["polls"] > 1
    assert figures["old_after_return"] == 0 and figures["poll_errors"] == 0
    assert figures["wrk"]["requests"] > 0 and not figures["wrk"]["failed"] and not figures["wrk"]["bad"]
    table = Table("t")
    reloading.add_rows(table, figures)
    rendered = table.render()
    assert rendered.count("`lexicon reload` under 8 connections") == 4
    assert "| both ≤ 3 s |" in rendered and "| 0 / 0 | 0 / 0 | yes |" in rendered


def test_the_in_process_pair_measures_answers_not_errors(tmp_path):
    """The challenge-beside-healthz figure times a 200 verdict and a 200 health answer (a 4xx would
    be cheaper and flatter the figure), both through the whole app, and reports both."""
    from service import create_app

    lexicon = compile_list(tmp_path / "es.lex", PLAY3["words"], "es", "letterpress-es", "bench es")
    app = create_app(
        {
            "LEXICON_FILES": [str(lexicon)],
            "LEXICON_TOKEN": None,
            "LEXICON_CORS_ORIGINS": "",
            "LEXICON_LOG_LEVEL": "warning",
        }
    )
    answers = []
    post = wsgi_call(app, "POST", "/v1/challenge", json.dumps(PLAY3).encode())
    original = app.wsgi_app
    app.wsgi_app = lambda environ, start: answers.append(environ["PATH_INFO"]) or original(environ, start)
    assert post() == "200 OK" and wsgi_call(app, "GET", "/healthz")() == "200 OK"
    figures = challenge_and_health(app, rounds=2, number=3)
    assert set(figures) == {"challenge", "healthz", "added", "spread", "ratios"}
    assert len(figures["ratios"]) == 2 and all(ratio > 0 for ratio in figures["ratios"])
    assert figures["challenge"] > 0 and figures["healthz"] > 0
    assert figures["added"] == figures["challenge"] - figures["healthz"] and len(figures["spread"]) == 2
    assert answers.count("/v1/challenge") == 1 + 1 + 2 * 3 and answers.count("/healthz") == 1 + 1 + 2 * 3


def test_the_start_to_ready_row_says_each_start_and_the_load(tmp_path):
    """`python -m bench.service start` prints this row alone; others share the machine, so the row
    carries each start's time and the load average beside the median."""
    from bench.service import start_to_ready

    lexicon = compile_list(tmp_path / "es.lex", PLAY3["words"], "es", "letterpress-es", "bench es")
    table = Table("t")
    start_to_ready(table, [lexicon], starts=1)
    (row,) = table.rows
    assert row.figure == "start to ready (`lexicon serve` launched → /readyz 200), median of 1"
    assert re.fullmatch(r"\d+\.\d\d s \(starts: \d+\.\d\d; load average [\d.]+, [\d.]+, [\d.]+\)", row.value)
    assert row.target == "≤ 2 s" and row.met is not None


def test_only_start_is_a_part_run_alone():
    from bench.service import main

    assert main(["load"]) == 2 and main([]) == 2


def test_the_in_process_ratio_is_a_guard_judged_by_the_median_of_its_rounds(tmp_path, monkeypatch):
    from bench import service_in_process

    rounds = {"challenge": 50.0, "healthz": 44.0, "added": 6.0, "spread": (5, 7), "ratios": [0.95, 0.85, 0.88]}
    monkeypatch.setattr(service_in_process, "challenge_and_health", lambda app, rounds_, number: rounds)
    table = Table("t")
    assert service_in_process.ratio_row(table, None, 3, 10) is False
    (row,) = table.guards()
    assert row.target == "≥ 0.9" and row.met is False and row.value.startswith("0.880 (rounds: middle half")
    assert "fastest rounds 44.0 / 50.0 µs = 0.880" in row.value
    rounds["ratios"] = [0.95, 0.91, 0.85]
    assert service_in_process.ratio_row(Table("t"), None, 3, 10) is True
