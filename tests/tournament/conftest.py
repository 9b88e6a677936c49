"""Fixtures of the tournament storage tests: an event file in a temporary folder, a clock the
test moves by hand, and a well-formed entry to record."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from tournament import (
    REFUSED_LEXICON,
    REFUSED_VERDICT,
    Entry,
    IdempotencyConflict,
    OfflineRefusal,
    OfflineRefused,
    Pin,
    RefusedOffline,
    create_event,
)

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


# A device's refused offline verdicts as a store from before their reasons kept them (the event
# file's schema 13, PostgreSQL's 4): every one for the verdict its phone showed.
OLD_REFUSED = RefusedOffline(2, "k-2", 1, "2026-11-22T08:58:00.000000Z", "2026-11-22T09:00:00.000000Z")


def counted_apart_once_migrated(migrated, device_id: int) -> None:
    """A store migrated from before the reasons, which held OLD_REFUSED for the device: those are
    its phone's verdict's, and a refusal for another list is counted apart."""
    assert migrated.refused_offline() == {device_id: {REFUSED_VERDICT: OLD_REFUSED}}
    with pytest.raises(OfflineRefused):
        migrated.append_many(
            [entry(device_id=device_id, idempotency_key="k-3")], refusal=OfflineRefusal(0, REFUSED_LEXICON)
        )
    assert migrated.refused_offline()[device_id][REFUSED_VERDICT] == OLD_REFUSED
    assert migrated.refused_offline()[device_id][REFUSED_LEXICON].count == 1


def latest_keys_kept_once_migrated(migrated, device_id: int) -> None:
    """A store migrated from before every refused key was kept (the event file's schema 15,
    PostgreSQL's 6), which held OLD_REFUSED for the device: its latest key is one refused, for an
    online challenge and for a count, as before; a new refusal's key is kept beside it."""
    offline = dict(offline=True, device_time=OLD_REFUSED.device_time)
    for key in ("k-2", "k-5"):
        with pytest.raises(OfflineRefused):
            migrated.append_many(
                [entry(device_id=device_id, idempotency_key=key, **offline)], refusal=OfflineRefusal(0, REFUSED_VERDICT)
            )
    assert migrated.refused_offline()[device_id][REFUSED_VERDICT].count == OLD_REFUSED.count + 1
    for key in ("k-2", "k-5"):
        with pytest.raises(IdempotencyConflict):
            migrated.append(entry(device_id=device_id, idempotency_key=key))
    assert list(migrated.records()) == []


def marks_unshown_seconds_once_migrated(migrated, device_id: int) -> None:
    """A store migrated from before the marks of second opinions never shown (the event file's
    schema 16, PostgreSQL's 7): none marked, and a row then marked as any."""
    assert migrated.unshown_seconds() == {}
    second = dict(second_lexicon_id="fise-2", second_lexicon_version="2", second_lexicon_checksum="6a" * 32)
    row = migrated.append(entry(device_id=device_id, idempotency_key="k-6", second_valid=True, **second))
    with pytest.raises(IdempotencyConflict):
        migrated.append(entry(device_id=device_id, idempotency_key="k-6", offline=True, device_time=START_STAMP))
    assert migrated.unshown_seconds() == {row.seq: (START_STAMP, START_STAMP)}


START_STAMP = "2026-11-22T09:00:00.000000Z"  # START, as the record writes it


# An event's pin as `create_event` at START keeps it, with its list's language (the event file's
# schema 15, PostgreSQL's 6).
PINNED = Pin("ca-mini", "1", "ab" * 32, "/lists/ca-mini.lex", "2026-11-22T09:00:00.000000Z", "init", "ca")


def given_its_language_once_migrated(migrated) -> None:
    """A store migrated from before the pins' languages, which held PINNED: its pin is read as it
    was, its language unknown, until the same bytes are pinned with theirs (service.event.pin)."""
    assert migrated.event().pin == replace(PINNED, language=None)
    assert migrated.pin_lexicon(PINNED) == PINNED == migrated.event().pin


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
