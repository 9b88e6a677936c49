"""An export of the record is sent as it is made, a slice of rows at a time (service/event/record_routes.py),
all but the first by a process of its own (service/event/export_process.py): the same bytes as one
made whole, from either store, the rows there were when it began, a download cut short when a row
cannot be read, the process ended with an abandoned download, and in a gevent worker the worker's
other connections run meanwhile, the rows made outside it (`python -m bench record` measures the
verdicts judged meanwhile)."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from service.event import record_routes
from service.event.export_process import ExportStopped
from service.event.record_types import RECORDS_MAX
from tests.lexicon_cli.test_event import run
from tests.service.conftest import app_config
from tournament import ExportFilter, create_event, export_records

from .conftest import PASSWORD, entry
from .test_http import SAME, either_store, event  # noqa: F401 - the fixtures, shared


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_an_export_in_slices_is_the_record_as_it_was_when_it_began(either_store, monkeypatch, fmt):  # noqa: F811
    monkeypatch.setattr(record_routes, "EXPORT_SLICE", 7)
    db, director = either_store.db, either_store.director
    db.append_many([entry(table="7" if n % 3 == 0 else None) for n in range(40)])
    answer = director.get(f"/v1/records?format={fmt}", buffered=False)
    assert answer.status_code == 200 and answer.is_streamed
    parts = iter(answer.response)
    body = next(parts)
    db.append_many([entry() for _ in range(5)])  # after the export began: left for the next one
    body += b"".join(parts)
    rows = list(db.records())[:40]
    if fmt == "csv":
        unshown = db.unshown_seconds()  # the marks of rows whose second opinion was never shown: none here
        assert body.decode() == export_records(
            rows, "csv", intact=db.intact_rows(rows), filter=ExportFilter(), unshown=unshown
        )
        assert len(list(csv.DictReader(io.StringIO(body.decode())))) == 40
    else:
        page = director.get(f"/v1/records?limit={RECORDS_MAX}").json
        whole = json.loads(body)
        assert whole["records"] == page["records"][:40] and whole["more"] is False
        assert whole["event"] == "Open de Lleida 2026" and whole["chain"]["last"] == 40
    filtered = director.get("/v1/records?format=csv&table=7").get_data(as_text=True)
    assert [row["seq"] for row in csv.DictReader(io.StringIO(filtered))] == [str(n) for n in range(1, 41, 3)]


def unreadable(path, seq: int) -> None:
    """Row `seq`'s words made something no row holds (the triggers dropped and made again)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        triggers = conn.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%update'"
        ).fetchall()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("DROP TRIGGER records_append_only_update")
        conn.execute("UPDATE records SET words = '[' WHERE seq = ?", (seq,))
        for (sql,) in triggers:
            conn.execute(sql)
        conn.execute("COMMIT")
    finally:
        conn.close()


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_a_row_that_cannot_be_read_past_the_first_slice_cuts_the_download_short(event, monkeypatch, fmt):  # noqa: F811
    monkeypatch.setattr(record_routes, "EXPORT_SLICE", 7)
    event.db.append_many([entry() for _ in range(30)])
    unreadable(event.path, 20)
    answer = event.director.get(f"/v1/records?format={fmt}", buffered=False)
    assert answer.status_code == 200  # the first slice was read: the answer had started
    parts = iter(answer.response)
    body = next(parts)
    with pytest.raises(ExportStopped, match="MalformedRow after row 14"):
        for chunk in parts:
            body += chunk
    assert body.count(b"Open de Lleida" if fmt == "json" else b"\r\n") < 20  # never a whole-looking file


def another_event_over(path, tmp_path) -> None:
    """Another event's file, with rows of table 99, moved over the one at `path`."""
    other = tmp_path / "other.db"
    moved = create_event(other, "Otro torneo", PASSWORD, lexicon="es")
    moved.append_many([entry(table="99") for _ in range(30)])
    moved.close()
    os.replace(other, path)


def test_no_export_of_a_file_replaced_under_the_service(event, tmp_path):  # noqa: F811
    event.db.append_many([entry() for _ in range(3)])
    another_event_over(event.path, tmp_path)
    answer = event.director.get("/v1/records?format=csv")
    assert answer.status_code == 503 and answer.json["type"].endswith("/record-unavailable")
    assert "not the one this service opened" in answer.json["detail"]
    assert answer.headers["Retry-After"] == "5" == str(answer.json["retry_after"])  # as every record-unavailable


def test_the_rows_made_elsewhere_come_from_the_served_file_or_none(event, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setattr(record_routes, "EXPORT_SLICE", 5)
    event.db.append_many([entry(table="1") for _ in range(12)])
    answer = event.director.get("/v1/records?format=csv", buffered=False)
    parts = iter(answer.response)
    body = next(parts)  # the first slice, made here; the child starts with the next part
    another_event_over(event.path, tmp_path)
    with pytest.raises(ExportStopped, match="FileReplaced after row 5"):
        for chunk in parts:
            body += chunk
    assert b",99," not in body


def children() -> set[int]:
    """This process's child processes (Linux): each thread's, read from /proc, skipping a thread
    that ended between the listing and the read (another test's writer thread may end then)."""
    found = set()
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as listed:
                found.update(int(pid) for pid in listed.read().split())
        except FileNotFoundError:  # that thread ended meanwhile: it has no children to list
            continue
    return found


def test_an_abandoned_download_ends_the_process_making_it(event, monkeypatch):  # noqa: F811
    monkeypatch.setattr(record_routes, "EXPORT_SLICE", 7)
    for _ in range(20):
        event.db.append_many([entry() for _ in range(500)])
    before = children()
    answer = event.director.get("/v1/records?format=csv", buffered=False)
    parts = iter(answer.response)
    next(parts), next(parts)  # the first slice, and the child's first chunk
    assert children() - before  # it is making the rest
    answer.close()  # the director's browser closed the download
    assert children() == before


GEVENT_WORKER = r"""
import json, resource, sys
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

app.extensions["lexicon_event"].db.chain_state(wait=True)  # verified whole, as a worker's record soon is
beat = gevent.spawn(ticker)
gevent.sleep(0)
answer = client.get("/v1/records?format=" + sys.argv[3], buffered=False)
seen, size = [], 0
for part in answer.response:
    seen.append(ticks)
    size += len(part)
beat.kill()
# The CPU of the same export again, the ticker stopped: its ticks cost the worker CPU for as long
# as the export takes, which a loaded machine makes longer, and the relay's own does not grow so.
cpu = lambda who: (lambda used: used.ru_utime + used.ru_stime)(resource.getrusage(who))
mine, child = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
again = sum(len(part) for part in client.get("/v1/records?format=" + sys.argv[3], buffered=False).response)
mine, child = cpu(resource.RUSAGE_SELF) - mine, cpu(resource.RUSAGE_CHILDREN) - child
print(json.dumps({"parts": len(seen), "ticks": seen[-1] - seen[0], "size": size, "again": again, "mine": mine,
                  "child": child}), flush=True)
"""


@pytest.mark.slow  # a gevent child process
@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_in_a_gevent_worker_other_connections_run_while_an_export_is_made_outside_it(tmp_path, lexicon_files, fmt):
    path = tmp_path / "open.db"
    db = create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es")
    for _ in range(4):
        db.append_many([entry() for _ in range(1_000)])
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
    assert seen["parts"] >= 3 and seen["size"] == seen["again"] > 0
    assert seen["ticks"] >= seen["parts"] - 2  # the loop ran other greenlets between the parts
    # the rows were read, checked and written by the child: the worker only relayed their bytes
    assert seen["child"] > 2 * seen["mine"], seen


def test_the_service_s_export_and_the_command_s_agree_and_say_their_filter(event, tmp_path):  # noqa: F811
    """The console's export and `lexicon records export` of the same rows are the same file, each
    saying what it holds (its filter: what was asked), which `lexicon records verify` then checks:
    a table's export is checked as one, its gaps the other tables' as it says."""
    db = event.db
    for number, count in ((1, 4), (2, 2)):
        db.open_round(number)
        db.append_many([entry(table="7" if n % 2 else None) for n in range(count)])
        db.close_round()
    out = tmp_path / "export"
    for query, asked in (("", ()), ("&round=1", ("--round", 1))):
        service = event.director.get(f"/v1/records?format=csv{query}").get_data()
        assert run("records", "export", event.path, *asked, "-o", out).exit_code == 0 and service == out.read_bytes()
        service = event.director.get(f"/v1/records?format=json{query}").json
        assert run("records", "export", event.path, "--format", "json", *asked, "-o", out).exit_code == 0
        command = json.loads(out.read_text(encoding="utf-8"))
        assert (
            service["filter"]
            == command["filter"]
            == {"round": asked[1] if asked else None, "table": None, "device": None}
        )
        assert service["records"] == command["records"]
    table = tmp_path / "mesa-7.csv"
    table.write_text(event.director.get("/v1/records?format=csv&round=1&table=7").get_data(as_text=True))
    done = run("records", "verify", table)
    assert done.exit_code == 0 and done.stdout.startswith(
        f"{table}: intact export (CSV) of round 1 and table '7' only, as it says: 2 records 2 to 4, chained from"
    )
    assert "; not in it: 3 (not of round 1 and table '7', as it says; rows deleted from it would look the same" in (
        done.stdout
    )
