"""A worker reads a recorded challenge's device from its cache of live devices
(service/event/live_devices.py), and the record's write checks it: a device revoked or paired
again through another worker is still refused at its very next request, with the answer a read
from the store gives, and nothing is recorded; anything that refuses a cached device before the
write reads the store first; every other route reads the store at each request."""

from __future__ import annotations

import sqlite3

import pytest

from service import create_app
from service.event.live_devices import LiveDevices
from tests.service.conftest import app_config
from tournament import Device, token_hash

from .test_http import SAME, Event, _now, checksum_of, problem
from .test_http import event as event

pytestmark = pytest.mark.slow  # events are created and logged into with the director's scrypt


@pytest.fixture
def other(event, lexicon_files) -> Event:
    """Another worker of the same event file, logged in as the director."""
    made = Event(create_app(app_config(lexicon_files, LEXICON_EVENT=str(event.path))), event.path, event.clock)
    made.login()
    return made


def offline(event, key) -> dict:
    """A verdict the phone gave offline, sent now (its queue): it goes through the same write."""
    return dict(idempotency_key=key, offline=True, device_time=_now(event), checksum=checksum_of(event))


def live(event):
    return event.app.extensions["lexicon_event"].live


def read_from_the_store(event, token) -> tuple[dict, str]:
    """What a route that reads the device from the store answers this token (its page's GET /v1/event)."""
    answer = event.app.test_client().get("/v1/event", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 401
    return answer.json, answer.headers["WWW-Authenticate"]


def refused_as_the_store_refuses(event, response, kind) -> None:
    """A 401 of `kind` with the body and headers a read from the store gives the same token."""
    token = response.request.headers["Authorization"][len("Bearer ") :]
    assert (problem(response, 401, kind), response.headers["WWW-Authenticate"]) == read_from_the_store(event, token)


def test_a_device_revoked_or_paired_again_by_another_worker_gets_no_verdict_at_its_next_challenge(event, other):
    device_id, old = event.device("Juez 1")
    assert event.challenge(old).status_code == 200
    assert live(event).get(token_hash(old)).id == device_id  # kept, by its token's hash only
    code = other.director.post(f"/v1/devices/{device_id}/code", headers=SAME).json["code"]
    new = other.app.test_client().post("/v1/devices/pair", json={"code": code}).json["token"]  # paired again

    refused_as_the_store_refuses(event, event.challenge(old), "device-unknown")
    assert live(event).get(token_hash(old)) is None and len(event.rows()) == 1
    assert event.challenge(new).status_code == 200
    assert event.challenge(new, **offline(event, "q1")).status_code == 200  # a phone's queue: the same write
    assert len(event.rows()) == 3

    assert other.director.delete(f"/v1/devices/{device_id}", headers=SAME).status_code == 200
    assert live(event).get(token_hash(new)) is not None  # still kept here: only the write knows
    gone = event.challenge(new, **offline(event, "q2"))
    refused_as_the_store_refuses(event, gone, "device-revoked")
    assert "Juez 1" in gone.json["detail"]
    assert live(event).get(token_hash(new)) is None
    refused_as_the_store_refuses(event, event.challenge(new), "device-revoked")
    assert len(event.rows()) == 3


def test_a_cached_device_refused_before_the_write_is_read_from_the_store_first(event, other):
    """A table device kept while its round was open, revoked after the round closed: its next
    challenge is refused as revoked, not as out of its round; a judge kept, revoked, then asking
    for another lexicon: revoked, not sent to the event's lexicon. Neither is a secret (a caller
    without a token learns the round from 403 `lookups-closed`, and the pinned lexicon is named
    to anyone): what matters is that a revoked device gets its 401 at its next request, as a read
    from the store gives it, whatever refuses it; that 401 is what unpairs its page. Neither
    request is a contact."""
    table_id, table = event.device("Mesa 7", "table", "7")
    judge_id, judge = event.device("Juez 1")
    event.open_round()
    assert event.challenge(table).status_code == event.challenge(judge).status_code == 200
    other.close_round()
    for device_id in (table_id, judge_id):
        assert other.director.delete(f"/v1/devices/{device_id}", headers=SAME).status_code == 200
    contacts = event.app.extensions["lexicon_event"].contacts
    contacts.pending.clear()
    assert live(event).get(token_hash(table)) is not None and live(event).get(token_hash(judge)) is not None
    refused_as_the_store_refuses(event, event.challenge(table), "device-revoked")
    refused_as_the_store_refuses(event, event.challenge(judge, ["CASA"], lexicon="ca-mini"), "device-revoked")
    assert len(live(event)) == 0 and contacts.pending == {}
    assert len(event.rows()) == 2


def test_a_cached_device_s_malformed_play_is_refused_as_revoked_not_as_malformed(event, other):
    """The API's own refusals of a request's form come after its device was admitted: to a device
    from the cache, revoked since, they are the store's 401 too (the app's problem handler asks
    the event: service.challenge_hook's `refusal`), so a revoked device whose word is no word of
    the alphabet gets its 401 at that request, by either route, as a read from the store gives
    it, and its page unpairs then, not at some later request."""
    _, table = event.device("Mesa 7", "table", "7")
    judge_id, judge = event.device("Juez 1")
    event.open_round()
    assert event.challenge(table).status_code == event.challenge(judge).status_code == 200
    problem(event.challenge(judge, ["C4SA"]), 422, "not-a-tile")  # live: the request's own refusal
    assert live(event).get(token_hash(judge)) is not None  # still kept: the store read it live
    assert other.director.delete(f"/v1/devices/{judge_id}", headers=SAME).status_code == 200
    other.director.delete(f"/v1/devices/{table_id(other)}", headers=SAME)
    refused_as_the_store_refuses(event, event.challenge(table, ["C4SA"]), "device-revoked")
    batch = event.app.test_client().post(
        "/v1/challenges",
        json={"lexicon": "es", "plays": [{"words": ["C4SA"], "idempotency_key": "b1"}]},
        headers={"Authorization": f"Bearer {judge}"},
    )
    refused_as_the_store_refuses(event, batch, "device-revoked")
    assert len(live(event)) == 0 and len(event.rows()) == 2


def table_id(event) -> int:
    return next(d["id"] for d in event.director.get("/v1/devices").json["devices"] if d["name"] == "Mesa 7")


def test_only_a_device_read_live_is_kept_and_other_routes_read_the_store(event, other):
    for token in ("not-a-token", "another"):
        problem(event.challenge(token), 401, "device-unknown")
    device_id, judge = event.device("Juez 1")
    assert event.challenge(judge).status_code == 200 and len(live(event)) == 1
    assert other.director.delete(f"/v1/devices/{device_id}", headers=SAME).status_code == 200
    headers = {"Authorization": f"Bearer {judge}"}
    problem(event.app.test_client().get("/v1/event", headers=headers), 401, "device-revoked")
    problem(event.app.test_client().get("/v1/lexicons/es-mini/browser", headers=headers), 401, "device-revoked")


def splits_in(path) -> list[tuple]:
    """The event file's notes of devices answered by another file (the console's `split`)."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT device_id, seen FROM splits").fetchall()
    finally:
        conn.close()


def test_a_cached_device_revoked_since_naming_another_event_file_is_refused_and_leaves_no_split_note(event, other):
    """The split is refused before the write (service.event.recording, `record`): the device is read
    from the store first, so a device revoked through another worker gets its 401 and no note of
    a split is written for it."""
    device_id, judge = event.device("Juez 1")
    assert event.challenge(judge).status_code == 200 and live(event).get(token_hash(judge)) is not None
    assert other.director.delete(f"/v1/devices/{device_id}", headers=SAME).status_code == 200
    refused_as_the_store_refuses(event, event.challenge(judge, event_file="0123456789abcdef"), "device-revoked")
    assert splits_in(event.path) == [] and len(live(event)) == 0 and len(event.rows()) == 1


def test_a_cached_device_recorded_is_a_contact(event):
    """A device read from the cache is noted in touch once the write has found it live."""
    device_id, judge = event.device("Juez 1")
    assert event.challenge(judge).status_code == 200  # read from the store: a contact, and kept
    contacts = event.app.extensions["lexicon_event"].contacts
    contacts.pending.clear()
    assert live(event).get(token_hash(judge)) is not None
    assert event.challenge(judge).status_code == 200  # from the cache
    assert device_id in contacts.pending


def test_a_cached_device_the_write_refuses_is_not_read_from_the_store_again(event, monkeypatch):
    """The write checked the device (tournament/record.py's `holder`) before its rules refused the
    verdict (here its idempotency key sent again with another play): that refusal is answered
    without a read of the store, and the device is noted in touch once (a device from the cache
    has one mark, in its request's environ, which the first check of the store takes)."""
    device_id, judge = event.device("Juez 1")
    assert event.challenge(judge, idempotency_key="k1").status_code == 200  # read from the store, and kept
    hook = event.app.extensions["lexicon_event"]
    reads, seen = [], []
    read, note = hook.db.device_by_token_hash, hook.contacts.seen
    monkeypatch.setattr(hook.db, "device_by_token_hash", lambda hashed: reads.append(hashed) or read(hashed))
    monkeypatch.setattr(hook.contacts, "seen", lambda device: seen.append(device) or note(device))
    problem(event.challenge(judge, ["PERRO"], idempotency_key="k1"), 409, "idempotency-conflict")
    assert reads == [] and seen == [device_id]
    assert event.challenge(judge).status_code == 200  # from the cache: checked by its write, noted once
    assert reads == [] and seen == [device_id, device_id] and len(event.rows()) == 2


def test_a_device_this_worker_revokes_or_pairs_again_leaves_its_cache_at_once(event):
    """This worker's own revocation or pairing drops the device's entries (LiveDevices.forget),
    so its old token is refused as the store refuses it, without a judging and a trip into the
    write first; another device's entry stays."""
    device_id, old = event.device("Juez 1")
    _, kept = event.device("Juez 2")
    for token in (old, kept):
        assert event.challenge(token).status_code == 200
    code = event.director.post(f"/v1/devices/{device_id}/code", headers=SAME).json["code"]
    new = event.app.test_client().post("/v1/devices/pair", json={"code": code}).json["token"]
    assert live(event).get(token_hash(old)) is None and live(event).get(token_hash(kept)) is not None
    assert event.challenge(new).status_code == 200 and live(event).get(token_hash(new)).id == device_id
    assert event.director.delete(f"/v1/devices/{device_id}", headers=SAME).status_code == 200
    assert live(event).get(token_hash(new)) is None and live(event).get(token_hash(kept)) is not None
    refused_as_the_store_refuses(event, event.challenge(new), "device-revoked")


def test_the_cache_keeps_at_most_its_size_dropping_the_oldest():
    kept = LiveDevices(size=2)
    devices = [
        Device(n, f"Juez {n}", "judge", None, "2026-05-01T10:00:00Z", "2026-05-01T10:00:00Z", None) for n in (1, 2, 3)
    ]
    for n, device in enumerate(devices):
        kept.add(f"hash-{n}", device)
    assert len(kept) == 2 and kept.get("hash-0") is None
    assert (kept.get("hash-1"), kept.get("hash-2")) == (devices[1], devices[2])
