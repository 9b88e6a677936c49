"""A service of every event in a database holds the connections of a bounded number of events per
worker process, whoever asks (service/federation.py, MAX_APPS): an outsider asking /readyz of
every event of a season, ids being no secret, cannot make it hold one connection per event until
PostgreSQL refuses every other; and every event still judges and records afterwards, its app
made again at its next request (docs/operations.md, "A federation's service")."""

from __future__ import annotations

import json
import uuid

import psycopg
import pytest

from service.federation import MAX_APPS
from tests.postgres import DATABASE, OWNER, SERVICE, recorded
from tests.service.event.conftest import keyed
from tests.support import LiveServer
from tournament import create_event

from .conftest import PASSWORD

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.server]

EVENTS = MAX_APPS + 16  # well past what one worker keeps
PER_APP = 3  # an app's idle connections: a greenlets' reader, its writer thread's writer and reader


def test_asking_every_event_of_a_season_keeps_the_databases_connections_bounded(
    tmp_path, postgres_server, lexicon_files
):
    events = [f"s-{uuid.uuid4().hex[:12]}" for _ in range(EVENTS)]
    for event_id in events:
        create_event(postgres_server.url(OWNER, event=event_id), f"Open {event_id}", PASSWORD, lexicon="es").close()
    with psycopg.connect(postgres_server.conninfo("postgres", DATABASE), autocommit=True) as clock:
        started = clock.execute("SELECT clock_timestamp()").fetchone()[0]  # the database's clock
    server = LiveServer(tmp_path, [lexicon_files["es-mini"]], workers=1, LEXICON_EVENT=postgres_server.url(SERVICE))

    def call(method, path, payload=None, headers=None):
        sent = {"Content-Type": "application/json", "Origin": server.url, **(headers or {})}
        status, received, data = server.request(
            method, path, None if payload is None else json.dumps(payload).encode(), sent
        )
        return status, dict(received), json.loads(data) if data[:1] == b"{" else data

    with psycopg.connect(postgres_server.conninfo("postgres", DATABASE), autocommit=True) as watcher:

        def backends() -> int:
            """The service's: its role's, opened since it started. Other tests' apps left in this
            process keep theirs, and a server another test stopped without waiting (stop_soon) may
            still be closing its own: neither is counted, nor lowers what is."""
            query = "SELECT count(*) FROM pg_stat_activity WHERE usename = %s AND backend_start >= %s"
            return watcher.execute(query, (SERVICE, started)).fetchone()[0]

        try:
            server.wait_ready()
            for _ in range(2):  # an outsider's round of every event, twice
                assert [call("GET", f"/e/{event_id}/readyz")[0] for event_id in events] == [200] * EVENTS
                assert backends() <= PER_APP * MAX_APPS + 1  # and the look at the ids
            answers = {}
            for event_id in events:  # the director of each, then a judge: every event judges and records
                status, headers, _ = call("POST", f"/e/{event_id}/v1/director/session", {"password": PASSWORD})
                assert status == 201, (event_id, status)
                cookie = {"Cookie": headers["Set-Cookie"].split(";")[0]}
                status, _, added = call(
                    "POST", f"/e/{event_id}/v1/devices", {"name": "Juez 1", "role": "judge"}, cookie
                )
                assert status == 201, (event_id, status, added)
                status, _, paired = call("POST", f"/e/{event_id}/v1/devices/pair", {"code": added["code"]})
                assert status == 201, (event_id, status, paired)
                body = keyed({"lexicon": "es", "words": ["CARRO", "CHICO"]})
                status, _, answer = call(
                    "POST", f"/e/{event_id}/v1/challenge", body, {"Authorization": f"Bearer {paired['token']}"}
                )
                assert status == 200, (event_id, status, answer)
                answers[event_id] = answer
            assert backends() <= PER_APP * MAX_APPS + 1
        finally:
            server.stop()
    for event_id in events:
        broken, rows = recorded(postgres_server, event_id)
        assert broken is None and len(rows) == 1 == answers[event_id]["record"]
        assert rows[0].entry.valid == answers[event_id]["valid"]
