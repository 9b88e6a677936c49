"""The contract suite: the same tests, unchanged, against every store of the event.

The event's rules are the domain's (tournament/storage.py says what a store must guarantee); each
test here drives the EventStore callers use (`create_event`, `open_event` and its methods) and
runs once per store in STORES, so a store that keeps the contract passes it as it is. A test that
needs one store's own mechanism (an edit of SQLite's file by hand, its schema, its page
fingerprints) is not here but beside the suite, saying why.

Adding a store: its name in STORES and a fixture `<name>_store` giving a `Store` (starting what
it needs, and stopping it when the test ends).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from tests.postgres import OWNER, SERVICE
from tournament import create_event

from ..conftest import PASSWORD

# every store the contract suite runs against; one that starts a server carries that server's tier marker
STORES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@dataclass(frozen=True)
class Store:
    """A store under test: `location(name)` gives where a new event named `name` is kept (nothing
    there yet), in the form `open_event` and `create_event` accept."""

    name: str
    location: Callable[[str], str]


@pytest.fixture
def sqlite_store(tmp_path) -> Store:
    return Store("sqlite", lambda name: str(tmp_path / f"{name}.db"))


@pytest.fixture(scope="session")
def postgres_database(postgres_server) -> None:
    """The shared database's tables, made once by its owner (tests/postgres.py): each test then
    creates its events as the instances' role, which may not make tables."""
    from tournament.stores.postgres import store

    with store.connect(store.parse(postgres_server.url(OWNER, event="schema"))) as conn:
        store.migrate(conn, "the tests' database")


@pytest.fixture
def postgres_store(postgres_server, postgres_database) -> Store:
    """Events of their own in the session's PostgreSQL (tests/postgres.py), as a federation's
    instances reach them: a new event id per test and name, as the instances' role."""
    test = uuid.uuid4().hex[:12]
    return Store("postgres", lambda name: postgres_server.url(SERVICE, event=f"t{test}-{name}"))


@pytest.fixture(params=STORES)
def store(request) -> Store:
    return request.getfixturevalue(f"{request.param}_store")


@pytest.fixture
def location(store) -> str:
    """Where the test's event is kept."""
    return store.location("event")


@pytest.fixture
def db(location, clock):
    event = create_event(location, "Open de Lleida 2026", PASSWORD, lexicon="ca", clock=clock)
    yield event
    event.close()
