"""Fixtures of the tournament storage tests: an event file in a temporary folder, a clock the
test moves by hand, and a well-formed entry to record."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tournament import Entry, create_event

PASSWORD = "correct-horse-battery"
START = datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


class Clock:
    """A clock that moves only when told: expiry and lockout without sleeping."""

    def __init__(self, now: datetime = START):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta) -> None:
        self.now += timedelta(**delta)


def entry(**fields) -> Entry:
    values = dict(
        lexicon_id="disc-ca",
        lexicon_version="2.9",
        lexicon_checksum="5f" * 32,
        notation="spelling",
        words=("COL·LEGI", "QUADRE"),
        tiles=("COL·LEGI", "QUADRE"),
        valid=True,
    )
    values.update(fields)
    return Entry(**values)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def event_path(tmp_path):
    return tmp_path / "event.db"


@pytest.fixture
def db(event_path, clock):
    store = create_event(event_path, "Open de Lleida 2026", PASSWORD, lexicon="ca", clock=clock)
    yield store
    store.close()
