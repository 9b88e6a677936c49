"""`python -m bench record` at small scale: a real `lexicon serve` under wrk while the record is
exported, and an edit by hand seen by the console's look; never timed.

What is asserted is what the section's figures stand on: every challenge during the exports was
answered 200, exports were made and whole, a sweep of an untouched record finds nothing, and the
edit is named at its row."""

from __future__ import annotations

import pytest

from bench import record
from bench.table import Table
from bench.wrk import PLAY3, ensure_wrk
from tests.support import compile_list


def test_verdicts_go_on_during_exports_and_an_edit_is_named_at_its_row(tmp_path, monkeypatch):
    monkeypatch.setattr(record, "EDITED", 700)
    monkeypatch.setattr(record, "CHAIN_WATCH", 1.0)
    lexicon = compile_list(tmp_path / "es.lex", PLAY3["words"] + ["GATO"], "es", "bench-es", "bench es")
    wrk_path = ensure_wrk()
    assert wrk_path, "wrk is needed (apt-get install wrk)"
    found = record.measure([lexicon], tmp_path, wrk_path, rows=1_500, runs=1, seconds=1)
    assert all(r["bad"] == 0 and r["requests"] > 0 for r in found["quiet"] + found["busy"])
    exports = found["exports"][0]
    assert exports.seconds and min(exports.sizes) > 1_500 * 100  # whole exports, each row some 300 bytes
    seconds, seq = found["seen"]
    assert seq == 700 and seconds < 60
    table = Table("record")
    record.add_rows(table, found, 1_500)
    assert [row.figure.split(":")[0] for row in table.rows][2] == "p99 while exporting / p99 without"
    assert table.rows[-1].met is not None


@pytest.mark.parametrize("rows", [0, 3])
def test_a_sweep_of_an_untouched_record_finds_nothing(tmp_path, rows):
    record.fill(tmp_path / "event.db", rows)
    assert record.sweep_seconds(tmp_path / "event.db", repeat=1) >= 0
