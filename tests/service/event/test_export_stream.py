"""An export of the record is sent as it is made, a slice of rows at a time (service/event/record_routes.py):
the same bytes as one made whole, the rows there were when it began, and in a gevent worker the
worker's other connections run between two slices (`python -m bench record` measures the verdicts
judged meanwhile)."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from service.event import record_routes
from service.event.api_types import RECORDS_MAX
from tests.service.conftest import app_config
from tournament import create_event, export_records

from .conftest import PASSWORD, entry
from .test_http import SAME, event  # noqa: F401 - the fixture, shared


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_an_export_in_slices_is_the_record_as_it_was_when_it_began(event, monkeypatch, fmt):  # noqa: F811
    monkeypatch.setattr(record_routes, "EXPORT_SLICE", 7)
    db = event.db
    db.append_many([entry(table="7" if n % 3 == 0 else None) for n in range(40)])
    answer = event.director.get(f"/v1/records?format={fmt}", buffered=False)
    assert answer.status_code == 200 and answer.is_streamed
    parts = iter(answer.response)
    body = next(parts)
    db.append_many([entry() for _ in range(5)])  # after the export began: left for the next one
    body += b"".join(parts)
    rows = list(db.records())[:40]
    if fmt == "csv":
        assert body.decode() == export_records(rows, "csv", intact=db.intact_rows(rows))
        assert len(list(csv.DictReader(io.StringIO(body.decode())))) == 40
    else:
        page = event.director.get(f"/v1/records?limit={RECORDS_MAX}").json
        whole = json.loads(body)
        assert whole["records"] == page["records"][:40] and whole["more"] is False
        assert whole["event"] == "Open de Lleida 2026" and whole["chain"]["last"] == 40
    filtered = event.director.get("/v1/records?format=csv&table=7").get_data(as_text=True)
    assert [row["seq"] for row in csv.DictReader(io.StringIO(filtered))] == [str(n) for n in range(1, 41, 3)]


GEVENT_WORKER = r"""
import json, sys
from gevent import monkey
monkey.patch_all()
import gevent
from service import create_app

app = create_app(json.loads(sys.argv[1]))
client = app.test_client()
assert client.post("/v1/director/session", json={"password": sys.argv[2]}, headers={"Origin": "http://localhost"}).status_code == 201
ticks = 0
def ticker():  # another connection of the worker: it must run while the export is made
    global ticks
    while True:
        gevent.sleep(0.001)
        ticks += 1

beat = gevent.spawn(ticker)
gevent.sleep(0)
answer = client.get("/v1/records?format=" + sys.argv[3], buffered=False)
seen, size = [], 0
for part in answer.response:
    seen.append(ticks)
    size += len(part)
beat.kill()
print(json.dumps({"parts": len(seen), "ticks": seen[-1] - seen[0], "size": size}), flush=True)
"""


@pytest.mark.slow  # a gevent child process
@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_in_a_gevent_worker_other_connections_run_while_an_export_is_made(tmp_path, lexicon_files, fmt):
    path = tmp_path / "open.db"
    db = create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es")
    db.append_many([entry() for _ in range(3 * record_routes.EXPORT_SLICE)])
    db.close()
    config = app_config(lexicon_files, LEXICON_EVENT=str(path))
    done = subprocess.run(
        [sys.executable, "-c", GEVENT_WORKER, json.dumps(config), PASSWORD, fmt],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["parts"] >= 3 and seen["size"] > 0
    assert seen["ticks"] >= seen["parts"] - 2  # the loop ran other greenlets between the slices
