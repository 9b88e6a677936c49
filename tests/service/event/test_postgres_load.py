"""An event in PostgreSQL under load in ONE gevent worker (so every request shares its event loop, its
writer thread and the verification's thread): the store's connections and locks
(tournament/stores/postgres/connections.py) hold up under many recorded challenges at once beside
directors' console looks, and a query the database makes wait holds up no other connection.

Before connections.py, the record's verification held a lock made in gunicorn's master (before
the worker's patch: the OS's) across its read of the database, which waited cooperatively: a second
console look arriving meanwhile stopped the loop's thread on that lock, so the first could never
finish, and the worker answered nothing more (the first test timed out; challenges alone did not).
The worker's pool (psycopg_pool) was also shared between the loop's greenlets and the writer
thread, its locks gevent's (made after the patch) taken from a native thread: unsound by design,
though this load did not show it. Now neither kind of thread takes a lock the other takes.
"""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import psycopg
import pytest

from tests.postgres import DATABASE, OWNER, SERVICE
from tests.service.event.test_http_e2e import Console, challenge, init
from tests.support import LiveServer, until
from tournament import open_event

pytestmark = pytest.mark.server  # a live `lexicon serve` (and PostgreSQL, by its fixture)

CHALLENGES = 700  # past the verification's INLINE_ROWS (500): the last looks start it off the request
JUDGES = 8


@contextmanager
def _served(tmp_path, postgres_server, lexicon_files):
    """A new event in the database, served by one gevent worker, its director signed in: (event, server, console)."""
    event = f"load-{uuid.uuid4().hex[:8]}"
    init(postgres_server.url(OWNER, event=event), lexicon_files["es-mini"])
    server = LiveServer(
        tmp_path, [lexicon_files["es-mini"]], workers=1, LEXICON_EVENT=postgres_server.url(SERVICE, event=event)
    )
    try:
        server.wait_ready()
        console = Console(server)
        assert console.login()[0] == 201
        yield event, server, console
    finally:
        server.stop()


def test_one_gevent_worker_answers_every_challenge_and_every_console_look_under_load(
    tmp_path, postgres_server, lexicon_files
):
    with _served(tmp_path, postgres_server, lexicon_files) as (event, server, console):
        tokens = [console.pair(f"Juez {n}") for n in range(1, JUDGES + 1)]
        assert console.call("POST", "/v1/rounds", {"number": 1})[0] == 201
        done, looks = threading.Event(), []

        def look() -> None:  # a director's console refreshing, as fast as it is answered
            other = Console(server)
            other.cookie = console.cookie
            while not done.is_set():
                status, _, body = other.call("GET", "/v1/records?limit=20")
                looks.append((status, body.get("chain") if isinstance(body, dict) else body))

        def ask(index: int):
            words = ("CARRO", "CHICO") if index % 3 else ("CARRO", "CARRA")
            return challenge(server, tokens[index % JUDGES], words)

        lookers = [threading.Thread(target=look) for _ in range(3)]
        for looker in lookers:
            looker.start()
        try:
            with ThreadPoolExecutor(24) as pool:
                answers = list(pool.map(ask, range(CHALLENGES)))
        finally:
            done.set()
            for looker in lookers:
                looker.join(60)
        assert [status for status, _ in answers] == [200] * CHALLENGES
        assert sorted(body["record"] for _, body in answers) == list(range(1, CHALLENGES + 1))
        assert looks and all(status == 200 and chain is not None for status, chain in looks), looks[:3]
        state = until(
            lambda: (lambda s: s if s["intact"] else None)(console.call("GET", "/v1/records")[2]["chain"]),
            "the console to say the record intact once the verification off the request ended",
        )
        assert state["last"] == CHALLENGES
    db = open_event(postgres_server.url(SERVICE, event=event), readonly=True)
    try:
        assert db.verify() is None and len(list(db.records())) == CHALLENGES
    finally:
        db.close()


def test_a_query_the_database_makes_wait_holds_up_no_other_connection_of_the_worker(
    tmp_path, postgres_server, lexicon_files
):
    """A console's look waits in the database (its table locked by the owner): meanwhile /healthz,
    and a challenge, on the same worker are answered. psycopg was imported in gunicorn's master,
    before the worker patched anything: its wait never runs on the worker's loop."""
    with _served(tmp_path, postgres_server, lexicon_files) as (_, server, console):
        with psycopg.connect(postgres_server.conninfo(OWNER, DATABASE), autocommit=True) as holder:
            holder.execute("BEGIN")
            holder.execute("LOCK TABLE rounds IN ACCESS EXCLUSIVE MODE")
            answered = []
            waiting = threading.Thread(target=lambda: answered.append(console.call("GET", "/v1/rounds")[0]))
            waiting.start()
            with psycopg.connect(postgres_server.conninfo("postgres", DATABASE), autocommit=True) as watcher:
                until(
                    lambda: watcher.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE usename = %s AND wait_event_type = 'Lock'",
                        (SERVICE,),
                    ).fetchone()[0],
                    "the console's look to wait for the table's lock in the database",
                )
            assert server.get("/healthz")[0] == 200  # a worker held by the look: a timeout, not an answer
            assert waiting.is_alive() and not answered  # answered while the look still waits
            holder.execute("ROLLBACK")
        waiting.join(30)
        assert answered == [200]
