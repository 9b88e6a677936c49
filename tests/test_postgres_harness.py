"""The tests' PostgreSQL (tests/postgres.py): Debian's server in a temporary folder, reached over its
socket and over 127.0.0.1, with a federation's roles, and gone when stopped."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import psycopg
import pytest

from tests.postgres import DATABASE, OWNER, SERVICE, WRITER, PostgresServer


def test_the_session_server_answers_on_its_socket_and_on_loopback_with_a_federation_s_roles(postgres_server):
    assert (postgres_server.socket / f".s.PGSQL.{postgres_server.port}").is_socket()
    with psycopg.connect(postgres_server.url(SERVICE, DATABASE, tcp=True)) as conn:
        assert conn.execute("SELECT current_user, current_database()").fetchone() == (SERVICE, DATABASE)
        assert conn.execute("SELECT pg_has_role(%s, 'member')", (WRITER,)).fetchone() == (True,)
        assert conn.execute("SELECT inet_server_addr()::text").fetchone() == ("127.0.0.1/32",)
    with psycopg.connect(postgres_server.conninfo(OWNER, DATABASE)) as conn:
        owner = conn.execute("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = %s", (DATABASE,))
        assert owner.fetchone() == (OWNER,)
        assert conn.execute("SELECT inet_server_addr()").fetchone() == (None,)  # the Unix socket


@pytest.mark.postgres
def test_a_server_stopped_is_gone_and_starts_again_on_the_same_address():
    folder = Path(tempfile.mkdtemp(prefix="lexicon-postgres-"))
    server = PostgresServer(folder)
    try:
        pid = server.postmaster()
        assert server.running() and pid is not None
        server.stop()
        assert not server.running()
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(server.conninfo("postgres", "postgres"), connect_timeout=2)
        server.start()
        assert server.postmaster() != pid
        with server.connect() as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    assert not server.running()
