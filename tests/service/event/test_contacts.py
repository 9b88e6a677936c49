"""A device's last contact is any request it sends with its token, its page's own asking
included; a worker notes it in memory and writes its notes at most every FLUSH_SECONDS, so every
worker's console sees it, and a request costs no write of its own. The last verdict says what was
said, and in which round."""

from __future__ import annotations

import sqlite3

from service import create_app
from service.event.contacts import FLUSH_SECONDS
from tests.service.conftest import app_config

from .test_http import SAME, event  # noqa: F401 - the fixture, shared


class Seconds:
    """A monotonic clock moved by hand."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def stored(path) -> dict[int, str]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT device_id, time FROM contacts"))
    finally:
        conn.close()


def listed(client) -> dict[str, dict]:
    answer = client.get("/v1/devices")
    assert answer.status_code == 200, answer.json
    return {d["name"]: d for d in answer.json["devices"]}


def test_a_page_asking_the_event_is_a_contact_written_at_most_every_few_seconds(event, lexicon_files):  # noqa: F811
    contacts = event.app.extensions["lexicon_event"].contacts
    contacts.clock = seconds = Seconds()
    contacts.written = seconds.now
    device_id, token = event.device("Juez 1")
    assert listed(event.director)["Juez 1"]["last_contact"] is None
    asked = event.app.test_client().get("/v1/event", headers={"Authorization": f"Bearer {token}"})
    assert asked.status_code == 200
    first = listed(event.director)["Juez 1"]
    assert first["last_contact"] is not None and first["last_seen"] is None  # no verdict: still a contact
    assert stored(event.path) == {}  # noted in memory only: the request wrote nothing

    seconds.now += FLUSH_SECONDS
    event.app.test_client().get("/v1/event", headers={"Authorization": f"Bearer {token}"})
    assert list(stored(event.path)) == [device_id]  # the notes, written once the last write is old enough
    other = create_app(app_config(lexicon_files, LEXICON_EVENT=str(event.path)))  # another worker
    client = other.test_client()
    event.login(client)
    assert listed(client)["Juez 1"]["last_contact"] == stored(event.path)[device_id]

    unknown = event.app.test_client().get("/v1/event", headers={"Authorization": "Bearer not-a-token"})
    assert unknown.status_code == 401 and len(contacts.pending) == 0  # only a paired device's request


def test_the_last_verdict_says_what_was_said_and_in_which_round(event):  # noqa: F811
    _, token = event.device("Juez 1")
    event.open_round(3)
    assert event.challenge(token, ("CARRO", "LLAVEX")).status_code == 200
    device = listed(event.director)["Juez 1"]
    assert (device["last_valid"], device["last_round"]) == (False, 3)
    assert device["last_seen"] is not None and device["last_contact"] >= device["last_seen"]
    assert event.challenge(token, ("CARRO",)).status_code == 200
    assert listed(event.director)["Juez 1"]["last_valid"] is True


def test_a_revoked_device_s_requests_are_no_contact(event):  # noqa: F811
    device_id, token = event.device("Juez 1")
    assert event.director.delete(f"/v1/devices/{device_id}", headers=SAME).status_code == 200
    refused = event.app.test_client().get("/v1/event", headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 401
    assert listed(event.director)["Juez 1"]["last_contact"] is None
