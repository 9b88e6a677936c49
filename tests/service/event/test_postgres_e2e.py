"""An event in PostgreSQL end to end: `lexicon event init postgresql://…` as the database's owner,
then two real `lexicon serve` instances (two gevent workers each, as two machines would run them)
with LEXICON_EVENT naming the event as the instances' role, one over TCP and one over the socket.

- challenges from paired devices through both instances at once make one chain: every answer
  its own record number, no gap, each row saying what its answer said, and the chain verifies;
- the director's session, made on one instance, is good on the other (it is in the database);
- the database's password is never shown: not by `init`, not in the service's logs.
"""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.postgres import OWNER, SERVICE
from tests.service.event.test_http_e2e import Console, challenge, init
from tests.support import LiveServer, stop_all
from tournament import open_event

pytestmark = pytest.mark.server  # live `lexicon serve` instances (and PostgreSQL, by its fixture)

CHALLENGES = 120


def test_two_instances_serving_an_event_in_postgresql_append_one_chain(tmp_path, postgres_server, lexicon_files):
    event = f"open-{uuid.uuid4().hex[:8]}"
    owner = postgres_server.url(OWNER, event=event, tcp=True).replace(f"{OWNER}@", f"{OWNER}:not-asked@")
    made = init(owner, lexicon_files["es-mini"])
    assert f"created postgresql://{OWNER}@127.0.0.1:{postgres_server.port}/lexicon?event={event}" in made.stderr
    assert "not-asked" not in made.stdout + made.stderr  # trust authentication: any password is let in
    files = [lexicon_files["es-mini"], lexicon_files["ca-mini"]]
    urls = [
        postgres_server.url(SERVICE, event=event, tcp=True).replace(f"{SERVICE}@", f"{SERVICE}:not-asked@"),
        postgres_server.url(SERVICE, event=event),
    ]
    instances = [LiveServer(tmp_path, files, workers=2, LEXICON_EVENT=url) for url in urls]
    try:
        for instance in instances:
            instance.wait_ready()
        console = Console(instances[0])
        assert console.login()[0] == 201
        tokens = [console.pair(f"Juez {n}") for n in range(1, 5)]
        assert console.call("POST", "/v1/rounds", {"number": 1})[0] == 201

        def ask(index):
            words = ("CARRO", "CHICO") if index % 3 else ("CARRO", "CARRA")
            return challenge(instances[index % 2], tokens[index % len(tokens)], words)

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(ask, range(CHALLENGES)))
        assert [status for status, _ in answers] == [200] * CHALLENGES
        assert sorted(body["record"] for _, body in answers) == list(range(1, CHALLENGES + 1))
        other = Console(instances[1])  # the director's session is the event's, in the database
        other.cookie = console.cookie
        status, _, rounds = other.call("GET", "/v1/rounds")
        assert status == 200 and [r["number"] for r in rounds["rounds"]] == [1]
    finally:
        stop_all(instances)
    db = open_event(postgres_server.url(SERVICE, event=event), readonly=True)
    try:
        rows = list(db.records())
        assert db.verify() is None and len(rows) == CHALLENGES
        by_seq = {body["record"]: body["valid"] for _, body in answers}
        assert all(row.entry.valid == by_seq[row.seq] for row in rows)
        assert {row.entry.device_name for row in rows} == {f"Juez {n}" for n in range(1, 5)}
    finally:
        db.close()
    for instance in instances:
        assert "not-asked" not in instance.logs()
