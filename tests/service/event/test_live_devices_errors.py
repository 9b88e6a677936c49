"""A device from a worker's cache of live devices (service/event/live_devices.py), revoked through
another worker, gets its 401 at its next request whatever refuses it there: a value read back
from a hand-edited file (the app's Unreadable handler) and an unexpected error (the 500 handler)
go through the event's `refusal` like every other refusal."""

from __future__ import annotations

import pytest

from tournament import token_hash

from .test_edited_file import edit
from .test_http import SAME, problem
from .test_live_devices import event as event  # the fixtures, shared
from .test_live_devices import live, other, refused_as_the_store_refuses  # noqa: F401 - other: a fixture

pytestmark = pytest.mark.slow  # events are created and logged into with the director's scrypt


def cached_then_revoked(event, other) -> tuple[str, str]:  # noqa: F811
    """A table device kept by `event`'s worker in an open round, revoked through `other`'s; and
    another table device, paired, not kept (the store reads it live at its first request)."""
    table_id, table = event.device("Mesa 7", "table", "7")
    _, fresh = event.device("Mesa 8", "table", "8")
    event.open_round()
    assert event.challenge(table).status_code == 200
    assert other.director.delete(f"/v1/devices/{table_id}", headers=SAME).status_code == 200
    assert live(event).get(token_hash(table)) is not None and live(event).get(token_hash(fresh)) is None
    return table, fresh


def test_a_cached_device_revoked_meeting_an_edited_round_gets_its_401(event, other):  # noqa: F811
    table, fresh = cached_then_revoked(event, other)
    edit(event.path, "UPDATE rounds SET pending = 'not a list' WHERE closed IS NULL")
    refused_as_the_store_refuses(event, event.challenge(table), "device-revoked")
    assert live(event).get(token_hash(table)) is None
    body = problem(event.challenge(fresh), 409, "record-tampered")  # read live: the edit's refusal, naming where
    assert "rounds.pending" in body["detail"]
    assert len(event.rows()) == 1


def unexpected(response) -> None:
    assert response.status_code == 500 and response.json["detail"] == "an unexpected error; it has been logged"


def test_a_cached_device_revoked_meeting_an_unexpected_error_gets_its_401(event, other, monkeypatch):  # noqa: F811
    """An unexpected error where the round is read: the revoked device's 401; a device read live,
    the 500; and when the store's read of the revoked device fails too, still the 500."""
    table, fresh = cached_then_revoked(event, other)
    tournament = event.app.extensions["lexicon_event"]

    def broken(*_):
        raise RuntimeError("a fault")

    monkeypatch.setattr(tournament.db, "current_round", broken)
    refused_as_the_store_refuses(event, event.challenge(table), "device-revoked")
    assert live(event).get(token_hash(table)) is None
    unexpected(event.challenge(fresh))

    cached = live(event).get(token_hash(fresh))
    assert cached is not None  # kept: the store read it live before the fault
    monkeypatch.setattr(tournament, "stored_device", broken)
    unexpected(event.challenge(fresh))
    assert len(event.rows()) == 1


def test_a_cached_device_edited_into_a_name_no_row_holds_meeting_a_refusal_gets_record_tampered(event):
    """A device kept in the cache, whose name is then edited empty: a refusal of its next request
    (the round's) reads it from the store first, and that read's own refusal, the edit's 409
    naming where, is the answer, as problem+json (Flask's bare 500 page before: the read raised
    inside the refusal's handler)."""
    table_id, table = event.device("Mesa 7", "table", "7")
    event.open_round()
    assert event.challenge(table).status_code == 200
    assert live(event).get(token_hash(table)) is not None
    event.close_round()
    edit(event.path, f"UPDATE devices SET name = '' WHERE id = {table_id}")
    body = problem(event.challenge(table), 409, "record-tampered")  # not in a round, and edited
    assert f"devices.name of device {table_id}" in body["detail"]
    assert live(event).get(token_hash(table)) is None
    assert len(event.rows()) == 1
