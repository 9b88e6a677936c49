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

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from tournament import create_event

from ..conftest import PASSWORD

STORES = ["sqlite"]  # every store the contract suite runs against


@dataclass(frozen=True)
class Store:
    """A store under test: `location(name)` gives where a new event named `name` is kept (nothing
    there yet), in the form `open_event` and `create_event` accept."""

    name: str
    location: Callable[[str], str]


@pytest.fixture
def sqlite_store(tmp_path) -> Store:
    return Store("sqlite", lambda name: str(tmp_path / f"{name}.db"))


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
