"""Tournament mode over HTTP, through Flask's test client: every endpoint and its error paths.

The app runs on an event file in a temporary folder; its store's clock is the test's, so code
expiry, the login's lockout and rate limits are tested without sleeping.
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
import sqlite3
import time
import uuid
from datetime import timedelta

import msgspec
import pytest

from lexicon.lexfile import Lexicon
from service import StartError, create_app
from service.types import Verdict
from tests.service.conftest import EIGHT_VALID, app_config
from tests.support import lock_held_elsewhere
from tournament import MAX_NUMBER, StorageError, create_event, open_event
from tournament.stores.sqlite import connection
from tournament.stores.sqlite.tables import SQLiteView

from .conftest import PASSWORD, Clock, keyed

pytestmark = pytest.mark.slow  # every event is created and logged into with the director's scrypt

SAME = {"Origin": "http://localhost"}


class Event:
    """An app in tournament mode, its store, its clock, and helpers to log in and pair."""

    def __init__(self, app, path, clock):
        self.app, self.path, self.clock = app, path, clock
        self.director = app.test_client()
        self.db = app.extensions["lexicon_event"].db
        self.db._clock = clock  # the test moves time by hand

    def login(self, client=None):
        response = (client or self.director).post("/v1/director/session", json={"password": PASSWORD}, headers=SAME)
        assert response.status_code == 201, response.json
        return response

    def device(self, name="Juez 1", role="judge", table=None):
        """A paired device: (id, token)."""
        added = self.director.post("/v1/devices", json={"name": name, "role": role, "table": table}, headers=SAME)
        assert added.status_code == 201, added.json
        paired = self.app.test_client().post("/v1/devices/pair", json={"code": added.json["code"]})
        assert paired.status_code == 201, paired.json
        return added.json["device"]["id"], paired.json["token"]

    def challenge(self, token=None, words=("CARRO", "CHICO"), **more):
        """POST a challenge, with a new idempotency key unless `more` gives one (None: none)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        body = {"lexicon": "es", "words": list(words), "idempotency_key": uuid.uuid4().hex, **more}
        if body["idempotency_key"] is None:
            del body["idempotency_key"]
        return self.app.test_client().post("/v1/challenge", json=body, headers=headers)

    def open_round(self, number=None):
        response = self.director.post("/v1/rounds", json={} if number is None else {"number": number}, headers=SAME)
        assert response.status_code == 201, response.json
        return response.json

    def close_round(self):
        response = self.director.post("/v1/rounds/close", headers=SAME)
        assert response.status_code == 200, response.json
        return response.json

    def rows(self):
        return list(self.db.records())


@pytest.fixture
def event(tmp_path, lexicon_files):
    path = tmp_path / "open.db"
    clock = Clock()
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es", clock=clock).close()
    app = create_app(app_config(lexicon_files, LEXICON_EVENT=str(path)))
    made = Event(app, path, clock)
    made.login()
    return made


def problem(response, status, kind):
    assert response.status_code == status, response.json
    assert response.content_type == "application/problem+json"
    assert response.json["type"] == f"tag:lexicon-judge,2026:problem/{kind}"
    return response.json


# -- the director's session --------------------------------------------------------------------------


def test_the_session_says_how_long_it_has_left_and_ends_on_time(event):
    """The console signs out by itself when its session ends (never meeting the 401 a browser
    logs as an error): it learns when from expires_in, the seconds left, not the lifetime."""
    assert event.director.get("/v1/director/session").json["expires_in"] == 12 * 3600
    event.clock.advance(hours=11, minutes=59)
    assert event.director.get("/v1/director/session").json["expires_in"] == 60
    event.clock.advance(minutes=1)
    problem(event.director.get("/v1/director/session"), 401, "director-required")
    problem(event.director.get("/v1/devices"), 401, "director-required")


def test_login_sets_a_strict_httponly_cookie_and_logout_ends_it(event):
    client = event.app.test_client()
    problem(client.get("/v1/director/session"), 401, "director-required")
    problem(
        client.post("/v1/director/session", json={"password": "not-the-password"}, headers=SAME), 401, "wrong-password"
    )
    cookie = event.login(client).headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert client.get("/v1/director/session").json["event"] == "Open de Lleida 2026"
    stolen = cookie.split(";")[0].split("=", 1)[1]
    assert client.delete("/v1/director/session", headers=SAME).status_code == 204
    problem(client.get("/v1/director/session"), 401, "director-required")
    other = event.app.test_client()
    other.set_cookie("lexicon_director", stolen)
    problem(other.get("/v1/devices"), 401, "director-required")  # the session ended for everyone


def test_five_wrong_passwords_lock_the_login_for_a_minute(event):
    client = event.app.test_client()
    for _ in range(4):
        problem(client.post("/v1/director/session", json={"password": "wrong-wrong-wrong"}), 401, "wrong-password")
    locked = problem(client.post("/v1/director/session", json={"password": "wrong-wrong-wrong"}), 429, "login-locked")
    assert locked["retry_after"] == 60
    right = client.post("/v1/director/session", json={"password": PASSWORD})
    problem(right, 429, "login-locked")  # even the right one, while locked
    assert 0 < int(right.headers["Retry-After"]) <= 60
    event.clock.advance(seconds=61)
    event.login(client)


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
        {"Origin": "http://localhost.evil.example", "Sec-Fetch-Site": "same-origin"},
        {"Origin": "http://[::1"},  # no URL: an IPv6 host not closed (urlsplit's ValueError, a 500 before)
        {"Origin": "http://a]b"},
    ],
)
def test_a_cross_origin_write_is_refused_and_changes_nothing(event, headers):
    problem(event.director.post("/v1/rounds", json={}, headers=headers), 403, "cross-origin")
    problem(
        event.director.post("/v1/devices", json={"name": "X", "role": "judge"}, headers=headers), 403, "cross-origin"
    )
    problem(
        event.app.test_client().post("/v1/director/session", json={"password": PASSWORD}, headers=headers),
        403,
        "cross-origin",
    )
    assert event.db.current_round() is None and event.db.devices() == []
    assert event.director.post("/v1/rounds", json={}, headers={"Sec-Fetch-Site": "same-origin"}).status_code == 201


def test_director_endpoints_refuse_devices_and_strangers(event):
    _, token = event.device()
    stranger = event.app.test_client()
    device = {"Authorization": f"Bearer {token}"}
    for method, path in [
        ("get", "/v1/devices"),
        ("post", "/v1/devices"),
        ("delete", "/v1/devices/1"),
        ("post", "/v1/rounds"),
        ("post", "/v1/rounds/close"),
        ("get", "/v1/rounds"),
        ("get", "/v1/records"),
        ("get", "/v1/records/1"),
        ("post", "/v1/devices/1/code"),
    ]:
        problem(getattr(stranger, method)(path, json={}), 401, "director-required")
        problem(getattr(stranger, method)(path, json={}, headers=device), 403, "director-only")


# -- devices -------------------------------------------------------------------------------------------


def test_a_member_of_the_wrong_kind_is_said_in_words_and_quoted(event):
    """A table number sent as a JSON number: the refusal says what the member is, and what came."""
    sent = event.director.post("/v1/devices", json={"name": "Mesa 12", "role": "table", "table": 12}, headers=SAME)
    body = problem(sent, 422, "invalid-request")
    assert body["detail"] == "the body does not fit DeviceRequest: table is a string or null, not 12"
    assert body["pointer"] == "/table"
    assert event.director.get("/v1/devices").json["devices"] == []  # nothing added


def test_a_role_that_is_none_names_the_roles_and_quotes_what_came(event):
    """A role typed in the director's own language (`juez`): the refusal lists the roles the API
    takes and quotes the one sent once, not msgspec's "Invalid enum value 'juez'" quoted again."""
    sent = event.director.post("/v1/devices", json={"name": "Juez 1", "role": "juez"}, headers=SAME)
    body = problem(sent, 422, "invalid-request")
    assert body["detail"] == "the body does not fit DeviceRequest: role is one of judge, table, lookup, not 'juez'"
    assert body["pointer"] == "/role"
    assert event.director.get("/v1/devices").json["devices"] == []  # nothing added


@pytest.mark.parametrize(
    "path, body",
    [
        ("/v1/director/session", '"correct horse battery"'),
        ("/v1/director/session", '{"password": "correct horse battery", "extra": 1}'),
        ("/v1/director/link", '["tok-secret-123"]'),
        ("/v1/devices/pair", '"K7QH-3MXP"'),
    ],
)
def test_a_body_that_holds_a_secret_is_never_quoted_back_whole(event, path, body):
    """A password, link or code sent as the wrong shape: refused, and nothing of it in the answer."""
    sent = event.app.test_client().post(path, data=body, headers={**SAME, "Content-Type": "application/json"})
    assert sent.status_code in (400, 422), sent.json
    secret = re.search(r"(correct horse battery|tok-secret-123|K7QH-3MXP)", body)[1]
    assert secret not in sent.get_data(as_text=True)


def test_add_list_pair_once_and_revoke(event):
    added = event.director.post("/v1/devices", json={"name": "Mesa 12", "role": "table", "table": "12"}, headers=SAME)
    assert added.status_code == 201
    code = added.json["code"]
    assert re.fullmatch(r"[0-9A-Z]{4}-[0-9A-Z]{4}", code) and added.json["expires_in"] == 600
    assert added.json["pairing_url"] == f"http://localhost/#pair={code}"
    assert added.json["device"] == {
        **added.json["device"],
        "name": "Mesa 12",
        "role": "table",
        "table": "12",
        "paired": None,
        "active": False,
    }
    phone = event.app.test_client()
    paired = phone.post("/v1/devices/pair", json={"code": code.lower().replace("-", " ")})
    assert (
        paired.status_code == 201 and paired.json["device"]["active"] and paired.json["event"] == "Open de Lleida 2026"
    )
    again = problem(phone.post("/v1/devices/pair", json={"code": code}), 400, "pairing-refused")
    unknown = problem(phone.post("/v1/devices/pair", json={"code": "AAAA-AAAA"}), 400, "pairing-refused")
    assert again["detail"] == unknown["detail"]  # a guesser learns nothing
    listed = event.director.get("/v1/devices").json["devices"]
    assert [(d["name"], d["active"]) for d in listed] == [("Mesa 12", True)]
    device_id, token = listed[0]["id"], paired.json["token"]
    assert event.challenge(token).status_code == 403  # no round: a table device waits
    event.open_round()
    assert event.challenge(token).status_code == 200
    revoked = event.director.delete(f"/v1/devices/{device_id}", headers=SAME)
    assert revoked.status_code == 200 and revoked.json["revoked"] and not revoked.json["active"]
    gone = problem(event.challenge(token), 401, "device-revoked")
    assert "no longer paired" in gone["detail"]
    problem(
        event.app.test_client().get("/v1/event", headers={"Authorization": f"Bearer {token}"}), 401, "device-revoked"
    )
    problem(event.director.delete("/v1/devices/99", headers=SAME), 404, "unknown-device")
    problem(event.director.post(f"/v1/devices/{device_id}/code", headers=SAME), 400, "pairing-refused")


def test_a_name_taken_in_the_event_is_refused_with_409_and_nothing_written(event):
    first = event.director.post("/v1/devices", json={"name": "Mesa 7", "role": "table", "table": "7"}, headers=SAME)
    before = event.director.get("/v1/devices").json
    taken = problem(
        event.director.post("/v1/devices", json={"name": " mesa 7 ", "role": "judge"}, headers=SAME),
        409,
        "device-name-taken",
    )
    assert "'mesa 7'" in taken["detail"] and "new code" in taken["detail"] and taken["pointer"] == "/name"
    assert event.director.get("/v1/devices").json == before
    event.director.delete(f"/v1/devices/{first.json['device']['id']}", headers=SAME)
    again = event.director.post("/v1/devices", json={"name": "Mesa 7", "role": "table", "table": "7"}, headers=SAME)
    assert again.status_code == 201 and again.json["device"]["id"] != first.json["device"]["id"]


@pytest.mark.parametrize("name", ["Mesa 7\ufe0f", "Mesa\u034f 7", "Ｍｅｓａ ７", "MESA\u3164 7"])
def test_a_name_that_looks_the_same_is_the_same_name(event, name):
    """An invisible character (a variation selector, the combining grapheme joiner, a Hangul
    filler) or full-width letters do not make another name: the console would show two alike."""
    event.director.post("/v1/devices", json={"name": "Mesa 7", "role": "table", "table": "7"}, headers=SAME)
    problem(
        event.director.post("/v1/devices", json={"name": name, "role": "judge"}, headers=SAME), 409, "device-name-taken"
    )


@pytest.mark.parametrize("name", ["\u3164", "\u3164\ufe0f", "-", "· ·"])
def test_a_name_with_nothing_to_read_is_refused(event, name):
    refused = event.director.post("/v1/devices", json={"name": name, "role": "judge"}, headers=SAME)
    assert refused.status_code == 422 and "a letter or a digit" in refused.json["detail"]
    assert event.director.get("/v1/devices").json["devices"] == []


def test_a_code_expires_after_ten_minutes_and_a_new_one_replaces_it(event):
    added = event.director.post("/v1/devices", json={"name": "Juez 2", "role": "judge"}, headers=SAME).json
    event.clock.advance(minutes=10, seconds=1)
    problem(event.app.test_client().post("/v1/devices/pair", json={"code": added["code"]}), 400, "pairing-refused")
    fresh = event.director.post(f"/v1/devices/{added['device']['id']}/code", headers=SAME)
    assert fresh.status_code == 201 and fresh.json["code"] != added["code"]
    assert event.app.test_client().post("/v1/devices/pair", json={"code": fresh.json["code"]}).status_code == 201
    problem(event.director.post("/v1/devices/99/code", headers=SAME), 404, "unknown-device")


@pytest.mark.parametrize(
    "body, pointer",
    [
        ({"name": "Mesa", "role": "table"}, "/table"),
        ({"name": "Mesa", "role": "table", "table": "1\u00072"}, "/table"),
        ({"name": "J", "role": "judge", "table": "3"}, "/table"),
        ({"name": "J", "role": "boss"}, "/role"),
        ({"name": "", "role": "judge"}, "/name"),
        ({"name": "---", "role": "judge"}, "/name"),
        ({"name": "Juez\u00071", "role": "judge"}, "/name"),
        ({"name": "J", "role": "judge", "colour": "red"}, "/colour"),
        ({"role": "judge"}, "/name"),
    ],
)
def test_a_device_that_cannot_be_is_refused_pointing_at_its_member(event, body, pointer):
    """Each refusal names the member at fault (the console marks its field): msgspec's own, and the
    event's rules (a name with no letter one can see, a table missing, a table for a judge)."""
    refused = problem(event.director.post("/v1/devices", json=body, headers=SAME), 422, "invalid-request")
    assert refused["pointer"] == pointer, refused
    assert event.db.devices() == []


def test_bad_bodies_are_problems(event):
    problem(event.director.post("/v1/devices", data=b"{nope", headers=SAME), 400, "invalid-json")
    zero = problem(event.director.post("/v1/rounds", json={"number": 0}, headers=SAME), 422, "invalid-request")
    assert zero["detail"].endswith("Expected `int` >= 1, not 0") and zero["pointer"] == "/number"
    role = problem(
        event.director.post("/v1/devices", json={"name": "J", "role": "boss"}, headers=SAME), 422, "invalid-request"
    )
    assert role["detail"].endswith("not 'boss'")
    code = problem(event.app.test_client().post("/v1/devices/pair", json={"code": 7}), 422, "invalid-request")
    assert not code["detail"].endswith("7")  # a pairing code or a password is never sent back
    typed = problem(
        event.app.test_client().post("/v1/director/session", json={"password": ["la-clave-2026"]}),
        422,
        "invalid-request",
    )
    assert "clave" not in typed["detail"]


def test_a_compressed_body_is_415_on_every_route_that_reads_one_and_changes_nothing(event):
    """Every operation of the document that takes a body, and the console's QR code: a body in a
    content coding (gzip) is refused before it is read, whoever sends it, and nothing is done."""
    _, code = event.device("Juez 2")  # a pairing code the body would use
    document = event.director.get("/openapi.json").json
    routes = [path for path, item in document["paths"].items() if any("requestBody" in op for op in item.values())]
    assert {"/v1/challenge", "/v1/challenges", "/v1/director/session", "/v1/devices/pair", "/v1/rounds"} <= set(routes)
    sent = {"password": PASSWORD, "code": code, "name": "Juez 3", "role": "judge", "number": 4, "text": "x"}
    sent |= {"lexicon": "es", "words": ["CARRO"], "idempotency_key": "k1", "plays": [{"words": ["CARRO"]}]}
    compressed = gzip.compress(json.dumps(sent).encode())
    seen = [event.director.get(path).json for path in ("/v1/devices", "/v1/rounds", "/v1/event")]
    for path in [*routes, "/director/qr"]:
        refused = event.director.post(path, data=compressed, headers={**SAME, "Content-Encoding": "gzip"})
        assert refused.status_code == 415 and refused.content_type == "application/problem+json", path
        assert refused.json["detail"].startswith("the body's Content-Encoding is 'gzip'"), path
        assert refused.headers["Accept-Encoding"] == "identity" and "Set-Cookie" not in refused.headers
    assert [event.director.get(path).json for path in ("/v1/devices", "/v1/rounds", "/v1/event")] == seen
    assert event.rows() == []


def test_an_unknown_or_missing_member_is_pointed_at_and_its_value_never_quoted(event):
    """As the challenge routes do: the member's own pointer and name (it was the whole body's, "",
    with msgspec's own sentence), and never its value, which may be a password sent misnamed."""
    login = event.app.test_client().post("/v1/director/session", json={"pass": "la-clave-2026"})
    body = problem(login, 422, "invalid-request")
    assert body["pointer"] == "/pass" and "clave" not in body["detail"]
    assert (
        body["detail"] == "the body does not fit LoginRequest: the body has an unknown member 'pass'; known: password"
    )
    odd = problem(
        event.app.test_client().post("/v1/devices/pair", json={"code": "K7QH-3MXP", "a/b": 1}), 422, "invalid-request"
    )
    assert odd["pointer"] == "/a~1b"
    lacking = problem(event.director.post("/v1/devices", json={"role": "judge"}, headers=SAME), 422, "invalid-request")
    assert lacking["pointer"] == "/name"
    assert lacking["detail"] == "the body does not fit DeviceRequest: the body lacks 'name'"
    assert event.db.devices() == []


def test_an_unknown_token_is_401(event):
    problem(event.challenge("not-a-token"), 401, "device-unknown")
    response = event.app.test_client().post(
        "/v1/challenge", json=keyed({"lexicon": "es", "words": ["CARRO"]}), headers={"Authorization": "Basic abc"}
    )
    problem(response, 401, "device-unknown")
    assert event.rows() == []


# -- rounds and roles ---------------------------------------------------------------------------------


def test_rounds_open_close_and_conflicts(event):
    assert event.open_round(3)["number"] == 3
    problem(event.director.post("/v1/rounds", json={}, headers=SAME), 409, "round-conflict")
    closed = event.close_round()
    assert closed["closed"] and closed["head_seq"] == 0
    problem(event.director.post("/v1/rounds/close", headers=SAME), 409, "round-conflict")
    problem(event.director.post("/v1/rounds", json={"number": 3}, headers=SAME), 409, "round-conflict")
    assert event.open_round()["number"] == 4
    listed = event.director.get("/v1/rounds").json
    assert listed["current"] == 4 and [r["number"] for r in listed["rounds"]] == [3, 4]


def test_roles_follow_the_rounds(event):
    _, judge = event.device("Juez 1", "judge")
    _, table = event.device("Mesa 7", "table", "7")
    _, kiosk = event.device("Consulta", "lookup")
    # between rounds: the kiosk and anyone answer, a table device does not
    assert event.challenge(kiosk).status_code == 200
    assert event.challenge(None).status_code == 200
    assert event.challenge(judge).status_code == 200
    problem(event.challenge(table), 403, "no-round")
    event.open_round()
    closed = problem(event.challenge(kiosk), 403, "lookups-closed")
    assert "lookups are closed during rounds" in closed["detail"]
    problem(event.challenge(None), 403, "lookups-closed")
    problem(
        event.app.test_client().post("/v1/challenges", json=keyed({"lexicon": "es", "plays": [{"words": ["CARRO"]}]})),
        403,
        "lookups-closed",
    )
    assert event.challenge(judge).status_code == 200
    assert event.challenge(table).status_code == 200
    counts = event.director.get("/v1/rounds").json
    assert counts["rounds"][0]["challenges"] == [
        {"device": 1, "name": "Juez 1", "count": 1},
        {"device": 2, "name": "Mesa 7", "count": 1},
    ]
    assert sum(c["count"] for c in counts["outside_rounds"]) == 3
    event.close_round()
    assert event.challenge(kiosk).status_code == 200
    assert [r.entry.role for r in event.rows()] == ["lookup", None, "judge", "judge", "table", "lookup"]


def test_a_table_device_waits_ten_seconds_between_challenges(event):
    _, table = event.device("Mesa 7", "table", "7")
    _, judge = event.device("Juez 1", "judge")
    event.open_round()
    assert event.challenge(table).status_code == 200
    event.clock.advance(seconds=4)
    limited = event.challenge(table)
    assert problem(limited, 429, "rate-limited")["retry_after"] == 6
    assert limited.headers["Retry-After"] == "6"
    assert len(event.rows()) == 1  # a refused challenge writes nothing
    for _ in range(3):
        assert event.challenge(judge).status_code == 200  # a judge has no limit by default
    event.clock.advance(seconds=6)
    assert event.challenge(table).status_code == 200


def test_every_verdict_of_an_event_is_judged_with_its_lexicon_whoever_asks(event):
    """The event's lexicon (`event init --lexicon es`: es-mini here, pinned by checksum) judges
    every recorded verdict: another (by id, by language, the other list of the same language) is
    refused to every role and to a caller without a device, by every route (POST, GET, a batch, a
    verdict given offline), naming the event's lexicon, and nothing is recorded. A judge's phone
    tapped to another language (a juez in a Catalan event tapping Español) used to have its play
    judged and recorded with that language's list."""
    _, judge = event.device("Juez 1", "judge")
    _, kiosk = event.device("Consulta", "lookup")
    between = {"judge": judge, "lookup": kiosk, "nobody": None}
    typed = {
        "post": "'es-alt'",
        "ca-mini": "'ca-mini'",
        "batch": "'ca', which is ca-mini",
    }  # as sent, and what it names
    for who, token in between.items():  # lookups and callers without a device: between rounds
        for route, response in _asks_another_lexicon(event, token).items():
            refused = problem(response, 403, "event-lexicon")
            assert refused["lexicon"] == "es-mini" and "es-mini" in refused["detail"], (who, refused)
            assert f"; not with {typed[route]}: nothing is recorded" in refused["detail"], (who, refused)
    offline = dict(offline=True, idempotency_key="k1", device_time=_now(event), checksum=checksum_of(event, "ca"))
    problem(event.challenge(judge, ["CASA"], lexicon="ca-mini", **offline), 403, "event-lexicon")
    _, table = event.device("Mesa 7", "table", "7")
    event.open_round()
    for who, token in {"judge": judge, "table": table}.items():
        for route, response in _asks_another_lexicon(event, token).items():
            assert problem(response, 403, "event-lexicon")["lexicon"] == "es-mini", (who, route)
    assert event.rows() == []  # nothing recorded, and no rate limit spent
    assert event.challenge(table, ["CASA"], lexicon="es").json["lexicon"]["id"] == "es-mini"
    assert event.challenge(judge, ["CASA"], lexicon="es-mini").json["lexicon"]["id"] == "es-mini"
    assert {row.entry.lexicon_id for row in event.rows()} == {"es-mini"}


def test_an_unknown_lexicon_in_an_event_names_only_the_event_s_own(event, lexicon_files):
    """A name no served lexicon has, in an event: the 404 lists the names the caller can use there,
    the event's lexicon's (its id and its language, es-mini pinned), never the others this service
    serves, which the event would refuse (403 event-lexicon); so does the event's document, the
    `enum` of `lexicon`. Outside an event, every served name is listed."""
    _, judge = event.device("Juez 1", "judge")
    _, table = event.device("Mesa 7", "table", "7")
    event.open_round()
    client = event.app.test_client()
    for token in (judge, table):
        headers = {"Authorization": f"Bearer {token}"}
        batch = {"lexicon": "fr-ODS", "plays": [{"words": ["CASA"]}]}
        for response in (
            event.challenge(token, ["CASA"], lexicon="fr-ODS"),
            client.post("/v1/challenges", json=keyed(batch), headers=headers),
        ):
            refused = problem(response, 404, "unknown-lexicon")
            assert refused["known"] == ["es", "es-mini"] and refused["lexicon"] == "fr-ODS"
            assert refused["detail"] == "no lexicon 'fr-ODS' here; known: es, es-mini"
    schemas = client.get("/openapi.json").json["components"]["schemas"]
    assert schemas["ChallengeRequest"]["properties"]["lexicon"]["enum"] == ["es", "es-mini"]
    assert schemas["BatchRequest"]["properties"]["lexicon"]["enum"] == ["es", "es-mini"]
    assert event.rows() == []
    plain = create_app(app_config(lexicon_files)).test_client()
    everything = plain.post("/v1/challenge", json={"lexicon": "fr-ODS", "words": ["CASA"]}).json["known"]
    assert everything == ["ca", "ca-mini", "es", "es-alt", "es-mini"]


def _now(event):
    from tournament import stamp

    return stamp(event.clock())


def _asks_another_lexicon(event, token):
    """A challenge on other lexicons than the event's, by each route: POST (another list of the
    event's language, by id), a batch (another language, by name); a GET is refused in an event
    before anything (test_a_get_challenge_is_refused_in_an_event_whoever_asks_and_nothing_recorded)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    client = event.app.test_client()
    return {
        "post": event.challenge(token, ["CASA"], lexicon="es-alt"),
        "ca-mini": event.challenge(token, ["CASA"], lexicon="ca-mini"),
        "batch": client.post(
            "/v1/challenges", json=keyed({"lexicon": "ca", "plays": [{"words": ["CASA"]}]}), headers=headers
        ),
    }


def _table_asks_another_lexicon(event, table):
    """A table device's challenge on another lexicon than the event's, by each route: POST and a
    batch (a table device's offline verdict is refused before its lexicon: test_offline; a GET
    before anything: test_a_get_challenge_is_refused_in_an_event_whoever_asks_and_nothing_recorded)."""
    headers = {"Authorization": f"Bearer {table}"}
    client = event.app.test_client()
    return {
        "post": event.challenge(table, ["CASA"], lexicon="ca-mini"),
        "batch": client.post(
            "/v1/challenges", json=keyed({"lexicon": "ca-mini", "plays": [{"words": ["CASA"]}]}), headers=headers
        ),
    }


def test_a_table_device_is_refused_another_lexicon_before_its_play_is_read(event, monkeypatch):
    """The refusal costs no lookup, and no typing error in the play comes before it."""
    looked_up = []
    count_in = Lexicon.count_in
    monkeypatch.setattr(Lexicon, "count_in", lambda self, keys: looked_up.append(self) or count_in(self, keys))
    _, table = event.device("Mesa 7", "table", "7")
    event.open_round()
    for response in _table_asks_another_lexicon(event, table).values():
        problem(response, 403, "event-lexicon")
    assert looked_up == []
    problem(event.challenge(table, ["C4SA"], lexicon="ca-mini"), 403, "event-lexicon")  # not-a-tile, once read
    assert event.challenge(table, ["CASA"]).status_code == 200
    assert len(looked_up) == 1  # the event's lexicon is looked up, through the patched method


def test_a_table_devices_refusal_of_another_lexicon_is_the_same_answer_by_every_route(event):
    """The bytes the refusal had when it was checked after the verdict, before any row: checked
    earlier now, it must answer the same status, media type and body."""
    _, table = event.device("Mesa 7", "table", "7")
    event.open_round()
    body = (
        b'{"type":"tag:lexicon-judge,2026:problem/event-lexicon","title":"Every verdict of the event is judged '
        b'with its lexicon","status":403,"detail":"every verdict of this event is judged with its lexicon, es-mini '
        b"test-1 (checksum " + checksum_of(event)[:12].encode() + b"\xe2\x80\xa6); not with 'ca-mini': nothing is "
        b'recorded","lexicon":"es-mini"}'
    )
    for route, response in _table_asks_another_lexicon(event, table).items():
        assert (response.status_code, response.content_type, response.get_data()) == (
            403,
            "application/problem+json",
            body,
        ), route
        assert response.headers["Cache-Control"] == "no-store", route
    assert event.rows() == []


def test_an_event_without_a_lexicon_judges_with_the_service_default_pinned_at_its_start(tmp_path, lexicon_files):
    """An event made without --lexicon let a table device (and a paired judge) judge with the
    other list: it is pinned at its first start to the service's default lexicon (the first
    default served), and every verdict uses that one list, whoever asks."""
    path = tmp_path / "e.db"
    create_event(path, "E", PASSWORD).close()
    made = Event(create_app(app_config(lexicon_files, LEXICON_EVENT=str(path))), path, Clock())
    made.login()
    _, table = made.device("Mesa 7", "table", "7")
    _, judge = made.device("Juez 1")
    made.open_round()
    for token in (table, judge):
        refused = problem(made.challenge(token, ["CASA"], lexicon="ca-mini"), 403, "event-lexicon")
        assert refused["lexicon"] == "es-mini"
    assert made.rows() == []
    assert made.challenge(table, ["CASA"], lexicon="es").json["lexicon"]["id"] == "es-mini"
    pin = open_event(path, readonly=True).event().pin
    assert (pin.id, pin.by) == ("es-mini", "start")


def test_rate_limits_are_settings(tmp_path, lexicon_files):
    path = tmp_path / "e.db"
    create_event(path, "E", PASSWORD).close()
    app = create_app(app_config(lexicon_files, LEXICON_EVENT=str(path), LEXICON_RATE_JUDGE="30"))
    made = Event(app, path, Clock())
    made.login()
    _, judge = made.device()
    assert made.challenge(judge).status_code == 200
    assert problem(made.challenge(judge), 429, "rate-limited")["retry_after"] == 30


# -- the record ---------------------------------------------------------------------------------------


def test_every_verdict_is_recorded_before_it_is_answered(event, lexicon_files):
    device_id, table = event.device("Mesa 12", "table", "12")
    event.open_round(2)
    answer = event.challenge(table, ["carro", " Chico "])
    assert answer.status_code == 200
    row = event.db.record(answer.json["record"])
    assert row is not None and row.round == 2
    e = row.entry
    assert (e.device_id, e.device_name, e.role, e.table) == (device_id, "Mesa 12", "table", "12")
    assert e.words == ("carro", "Chico") and e.tiles == ("CA[RR]O", "[CH]ICO") and e.valid is True
    assert (e.lexicon_id, e.lexicon_version, e.lexicon_checksum) == (
        answer.json["lexicon"]["id"],
        answer.json["lexicon"]["version"],
        answer.json["lexicon"]["checksum"],
    )
    assert e.notation == "spelling"
    # the answer is the fixed verdict with its number, exactly as the type writes it
    verdict = msgspec.json.decode(answer.data, type=Verdict)
    assert answer.data == msgspec.json.encode(verdict) and verdict.record == row.seq and verdict.round == 2


def test_an_answer_gives_the_round_its_record_has(event):
    """The round written on the slip is the record's: the open one, or none once it is closed,
    whatever round the page saw last; a batch gives each play's."""
    _, judge = event.device()
    event.open_round(3)
    during = event.challenge(judge).json
    assert during["round"] == 3 == event.db.record(during["record"]).round
    event.close_round()
    after = event.challenge(judge, ["CARRA"])
    assert after.json["round"] is None and event.db.record(after.json["record"]).round is None
    assert after.data.endswith(b',"round":null}')
    batch = event.app.test_client().post(
        "/v1/challenges",
        json=keyed({"lexicon": "es", "plays": [{"words": ["CASA"]}]}),
        headers={"Authorization": f"Bearer {judge}"},
    )
    assert [(play["record"], play["round"]) for play in batch.json["results"]] == [(during["record"] + 2, None)]
    event.open_round(4)
    batch = event.app.test_client().post(
        "/v1/challenges",
        json=keyed({"lexicon": "es", "plays": [{"words": ["CASA"]}]}),
        headers={"Authorization": f"Bearer {judge}"},
    )
    assert batch.json["results"][0]["round"] == 4


def test_no_verdict_while_the_event_file_is_gone_and_the_same_bytes_whatever_word_fails(event, caplog):
    """The event file deleted under the service: 503 `record-unavailable` with Retry-After and no
    verdict, identical whichever word would have failed, nothing in the log but the error's kind;
    the file put back, verdicts are given and recorded again."""
    kept = event.path.with_name("kept.db")
    os.link(event.path, kept)
    event.path.unlink()
    with caplog.at_level(logging.INFO):
        answers = [
            event.challenge(words=words) for words in (("CARRO", "CARRA"), ("CARRA", "CARRO"), ("CARRO", "CHICO"))
        ]
    bodies = {answer.data for answer in answers}
    assert len(bodies) == 1 and all(answer.headers["Retry-After"] == "5" for answer in answers)
    body = problem(answers[0], 503, "record-unavailable")
    assert "valid" not in body and "record" not in body
    assert not re.search("CARR|CHICO", caplog.text, re.IGNORECASE)
    os.replace(kept, event.path)
    again = event.challenge()
    assert again.status_code == 200 and again.json["valid"] is True and event.rows()[-1].seq == again.json["record"]


def test_a_store_that_fails_checking_the_device_s_last_key_is_a_503_not_a_500(event, monkeypatch):
    """The device's last key is looked up in the append's write (a challenge) or in a read (a
    heartbeat): the store failing there is the 503 `record-unavailable` the append's failure is,
    nothing recorded."""
    _, judge = event.device()
    first = event.challenge(judge).json["record"]

    def unavailable(view, *keys):
        raise StorageError("the database does not answer")

    monkeypatch.setattr(SQLiteView, "holds", unavailable)  # the heartbeat's read
    monkeypatch.setattr(SQLiteView, "keys_and_holders", unavailable)  # the append's write (its keys at once)
    body = problem(event.challenge(judge, last_key="k-1"), 503, "record-unavailable")
    assert "valid" not in body and [row.seq for row in event.rows()] == [first]
    beat = event.app.test_client().get("/v1/event?last_key=k-1", headers={"Authorization": f"Bearer {judge}"})
    problem(beat, 503, "record-unavailable")


def declares_retry_after(document, method, path, answer) -> None:
    """`answer` says when to ask again, and the document declares that header on its operation's
    answer of that status (a `headers` entry, not only words in its description)."""
    assert int(answer.headers["Retry-After"]) == answer.json["retry_after"] > 0, (method, path)
    declared = document["paths"][path][method]["responses"][str(answer.status_code)].get("headers", {})
    assert "Retry-After" in declared, (method, path, answer.status_code)
    name = declared["Retry-After"]["$ref"].rsplit("/", 1)[-1]
    assert name in document["components"]["headers"], name


def refused(response, status, kind):
    """The response, once it is that problem."""
    problem(response, status, kind)
    return response


def test_every_refusal_that_says_when_to_ask_again_declares_its_header(event):
    """Each 429 of an event (plays-limited, rate-limited, pairing-limited, login-locked) carries
    Retry-After, and the document declared it in words only: a tool generated from it did not
    know the header. Each operation's answer now declares it (the 503s: the tests that follow)."""
    client = event.app.test_client()
    document = client.get("/openapi.json").json
    plays = [
        client.post("/v1/challenges", json={"lexicon": "es", "plays": [keyed({"words": ["CARRO"]}) for _ in range(10)]})
        for _ in range(4)
    ]
    assert [answer.status_code for answer in plays] == [200, 200, 200, 429]  # LEXICON_RATE_PLAYS: 30
    declares_retry_after(document, "post", "/v1/challenges", plays[-1])
    _, table = event.device("Mesa 7", "table", "7")
    event.open_round()
    assert event.challenge(table).status_code == 200
    declares_retry_after(document, "post", "/v1/challenge", refused(event.challenge(table), 429, "rate-limited"))
    for _ in range(10):
        problem(client.post("/v1/devices/pair", json={"code": "ZZZZ-ZZZZ"}, headers=SAME), 400, "pairing-refused")
    limited = client.post("/v1/devices/pair", json={"code": "ZZZZ-ZZZZ"}, headers=SAME)
    declares_retry_after(document, "post", "/v1/devices/pair", refused(limited, 429, "pairing-limited"))
    for _ in range(4):
        problem(client.post("/v1/director/session", json={"password": "wrong-wrong-wrong"}), 401, "wrong-password")
    locked = client.post("/v1/director/session", json={"password": "wrong-wrong-wrong"})
    declares_retry_after(document, "post", "/v1/director/session", refused(locked, 429, "login-locked"))


def test_a_store_out_of_reach_is_the_declared_503_of_a_device_s_reads(event, monkeypatch):
    """A device's look at the event (its page's heartbeat) and a judge's browser lexicon read the
    device from the store at each request: the store out of reach, each is 503 `record-unavailable`
    with Retry-After, and the document declares that 503 on both (it declared none there)."""
    _, judge = event.device()

    def unavailable(view, *args):
        raise StorageError("the database does not answer")

    monkeypatch.setattr(SQLiteView, "device_by_token_hash", unavailable)
    client = event.app.test_client()
    document = client.get("/openapi.json").json
    paths = document["paths"]
    for path, url in (
        ("/v1/event", "/v1/event"),
        ("/v1/lexicons/{lexicon_id}/browser", "/v1/lexicons/es-mini/browser"),
    ):
        answer = client.get(url, headers={"Authorization": f"Bearer {judge}"})
        body = problem(answer, 503, "record-unavailable")
        assert answer.headers["Retry-After"] == str(body["retry_after"]), path
        declared = paths[path]["get"]["responses"].get("503", {}).get("description", "")
        assert "`record-unavailable`" in declared and "`Retry-After`" in declared, path
        declares_retry_after(document, "get", path, answer)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def either_store(request, tmp_path, lexicon_files):
    """An event in a file, or in the test's PostgreSQL (made by its owner, served as the service's role)."""
    clock = Clock()
    if request.param == "sqlite":
        location = made = tmp_path / "open.db"
    else:
        from tests.postgres import OWNER, SERVICE

        server = request.getfixturevalue("postgres_server")
        event_id = f"t-{uuid.uuid4().hex[:16]}"
        made, location = server.url(OWNER, event=event_id), server.url(SERVICE, event=event_id)
    create_event(made, "Open de Lleida 2026", PASSWORD, lexicon="es", clock=clock).close()
    app = create_app(app_config(lexicon_files, LEXICON_EVENT=str(location)))
    made = Event(app, location, clock)
    made.login()
    yield made
    made.db.close()


@pytest.mark.parametrize("control", ["\x00", "\n", "\x1b", "\x85"])
def test_a_control_character_in_a_key_or_a_table_is_refused_naming_it_and_nothing_recorded(either_store, control):
    """A NUL (PostgreSQL refuses one in text, failing every verdict of the group commit) or any
    other control character: refused before the store, naming the member, nothing recorded."""
    event = either_store
    _, judge = event.device()
    first = event.challenge(judge, idempotency_key="k ñ 1").json["record"]
    for member in ("idempotency_key", "last_key", "table"):
        body = problem(event.challenge(judge, **{member: f"k{control}1"}), 422, "invalid-request")
        assert body["pointer"] == f"/{member}" and "control character" in body["detail"]
    beat = event.app.test_client().get(
        "/v1/event", query_string={"last_key": f"k{control}1"}, headers={"Authorization": f"Bearer {judge}"}
    )
    assert problem(beat, 422, "invalid-request")["parameter"] == "last_key"
    assert [row.seq for row in event.rows()] == [first]
    assert event.challenge(judge, table="Mesa 3", last_key="k ñ 1").json["record"] == first + 1


@pytest.mark.parametrize("control", ["\x00", "\n", "\x85"])
def test_a_control_character_in_the_records_table_filter_is_refused_naming_it(either_store, control):
    """The record's `table` filter, as a table is written: no row holds a table with a control
    character (a slip's and a table device's are refused one), and PostgreSQL refuses a NUL in
    text, which made the director's list and export a 503 saying the record cannot be written, the
    error logged as a store's failure. A 422 naming the parameter and quoting it, in either store;
    so is a table longer than any row holds."""
    event = either_store
    _, judge = event.device()
    event.challenge(judge, table="Mesa 3")
    for value in (f"Mesa{control}3", "7" * 61):
        for query in ({"table": value}, {"table": value, "format": "csv"}):
            refused = problem(event.director.get("/v1/records", query_string=query), 422, "invalid-request")
            assert refused["parameter"] == "table" and repr(value)[1:-1][:20] in refused["detail"]
    assert [row["table"] for row in event.director.get("/v1/records?table=Mesa%203").json["records"]] == ["Mesa 3"]


def test_the_records_table_filter_given_twice_is_refused_naming_both(either_store):
    """Two tables asked at once (`?table=Mesa 3&table=Mesa 4`) were read as the first alone: the
    list or export held table 3's rows as if they answered both. Refused as a number given twice
    is (round, device), naming the values, list and export."""
    event = either_store
    _, judge = event.device()
    event.challenge(judge, table="Mesa 3")
    for extra in ({}, {"format": "csv"}):
        query = [("table", "Mesa 3"), ("table", "Mesa 4"), *extra.items()]
        refused = problem(event.director.get("/v1/records", query_string=query), 422, "invalid-request")
        assert refused["parameter"] == "table" and "Mesa 3" in refused["detail"] and "Mesa 4" in refused["detail"]


def test_a_table_device_stored_without_its_table_is_refused_saying_who_mends_it(either_store, request):
    """A table device whose stored table is gone (NULL: an edit, or an event moved from such a file)
    was answered, each of its rows recorded with no table. In either store it is refused, 409
    `table-missing`, nothing recorded, the detail saying that the director revokes it in the console
    and adds it again with its table; the other devices are answered as ever."""
    event = either_store
    device_id, table = event.device("Mesa 7", "table", "7")
    event.open_round()
    if str(event.path).startswith("postgresql:"):
        from tests.postgres import OWNER

        event_id = str(event.path).rsplit("event=", 1)[1]
        with request.getfixturevalue("postgres_server").connect(OWNER) as conn:
            conn.execute('UPDATE devices SET "table" = NULL WHERE event_id = %s AND id = %s', (event_id, device_id))
    else:
        conn = sqlite3.connect(event.path)
        conn.execute('UPDATE devices SET "table" = NULL WHERE id = ?', (device_id,))
        conn.commit()
        conn.close()
    refused = problem(event.challenge(table, ["CARRO", "LLAVEX"]), 409, "table-missing")
    assert refused["detail"].startswith(f"device {device_id} is a table device with no table")
    assert (
        "the director revokes it in the console (Devices) and adds a table device with its table" in refused["detail"]
    )
    client = event.app.test_client()
    problem(client.get("/v1/event", headers={"Authorization": f"Bearer {table}"}), 409, "table-missing")
    assert event.rows() == []
    _, judge = event.device()
    assert event.challenge(judge).status_code == 200
    paths = client.get("/openapi.json").json["paths"]  # both refusals declared where they come
    for method, path in (("post", "/v1/challenge"), ("post", "/v1/challenges"), ("get", "/v1/event")):
        assert "`table-missing`" in paths[path][method]["responses"]["409"]["description"], (method, path)


@pytest.mark.parametrize(
    "key", ["", "k", "k" * 64, "k" * 65, "ñ" * 64, "\U0001f600" * 64, "\U0001f600" * 65, "k\x00", "k\n", "\x85k"]
)
def test_the_heartbeat_takes_the_last_keys_a_challenge_takes_and_refuses_the_others_alike(event, key):
    """A page sends its device's last key in each verdict's body and in its heartbeat's query: one
    type (LastKey) says which are keys, for both; a key refused is refused alike, the challenge
    naming its member (`must be`), the heartbeat its parameter (`is`), the rule and the key the same."""
    _, judge = event.device()
    challenge = event.challenge(judge, last_key=key)
    beat = event.app.test_client().get(
        "/v1/event", query_string={"last_key": key}, headers={"Authorization": f"Bearer {judge}"}
    )
    refused = not 0 < len(key) <= 64 or any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in key)
    assert (challenge.status_code == 422, beat.status_code == 422) == (refused, refused), (challenge.json, beat.json)
    if refused:
        body, heard = problem(challenge, 422, "invalid-request"), problem(beat, 422, "invalid-request")
        assert (body["pointer"], heard["parameter"]) == ("/last_key", "last_key")
        assert heard["detail"] == body["detail"].replace("last_key must be ", "last_key is ", 1), heard["detail"]


def test_a_lock_held_elsewhere_is_a_503_after_the_bound_without_gevent(event, monkeypatch):
    """The sync and gthread workers (and Flask's test client) write in the calling thread: a
    write lock held by another process is given up after BUSY_SECONDS, 503 `record-unavailable`,
    nothing recorded; free again, verdicts are recorded."""
    monkeypatch.setattr(connection, "BUSY_SECONDS", 0.5)
    before = len(event.rows())
    with lock_held_elsewhere(event.path):
        started = time.monotonic()
        answer = event.challenge()
        waited = time.monotonic() - started
    body = problem(answer, 503, "record-unavailable")
    assert "valid" not in body and 0.5 <= waited < 10  # the bound, not the holder's 30 s
    assert len(event.rows()) == before
    assert event.challenge().status_code == 200 and len(event.rows()) == before + 1


def test_not_valid_answers_differ_only_in_their_record_number(event):
    _, judge = event.device()
    answers = []
    for position in range(8):
        words = list(EIGHT_VALID)
        words[position] = "CARRA"
        response = event.challenge(judge, words)
        assert response.status_code == 200 and response.json["valid"] is False
        answers.append((response.json["record"], response.data, sorted(response.headers.items())))
    assert [seq for seq, _, _ in answers] == list(range(1, 9))
    normalised = {
        (re.sub(rb'"record":\d+,"round":null}$', b'"record":N}', data), str(headers))
        for seq, data, headers in [(s, d, [h for h in hs if h[0] != "Content-Length"]) for s, d, hs in answers]
    }
    assert len(normalised) == 1
    assert [r.entry.valid for r in event.rows()] == [False] * 8


def test_a_judge_slip_gives_the_table_and_other_roles_cannot(event):
    _, judge = event.device()
    _, table = event.device("Mesa 3", "table", "3")
    _, kiosk = event.device("Consulta", "lookup")
    answer = event.challenge(judge, table="15")
    assert event.db.record(answer.json["record"]).entry.table == "15"
    refused = problem(event.challenge(kiosk, table="15"), 422, "slip-not-allowed")
    assert refused["pointer"] == "/table" and "(table '15')" in refused["detail"]
    in_batch = event.app.test_client().post(  # the pointer names the play's member, and the detail the play
        "/v1/challenges",
        json={"lexicon": "es", "plays": [keyed({"words": ["CARRO"]}), keyed({"words": ["CASA"], "table": "15"})]},
        headers={"Authorization": f"Bearer {kiosk}"},
    )
    refused = problem(in_batch, 422, "slip-not-allowed")
    assert (
        refused["pointer"] == "/plays/1/table" and "(table '15' at /plays/1)" in refused["detail"]
    )  # JSON Pointer: from 0
    event.open_round()
    problem(event.challenge(table, table="15"), 422, "slip-not-allowed")
    assert len(event.rows()) == 1


def test_a_batch_writes_one_row_per_play(event):
    _, judge = event.device()
    response = event.app.test_client().post(
        "/v1/challenges",
        headers={"Authorization": f"Bearer {judge}"},
        json=keyed(
            {
                "lexicon": "es",
                "plays": [{"id": "m1", "words": ["CARRO"], "table": "1"}, {"id": "m2", "words": ["CARRA", "CHICO"]}],
            }
        ),
    )
    assert response.status_code == 200
    results = response.json["results"]
    assert [(r["id"], r["valid"], r["record"]) for r in results] == [("m1", True, 1), ("m2", False, 2)]
    rows = event.rows()
    assert [(r.entry.words, r.entry.valid, r.entry.table) for r in rows] == [
        (("CARRO",), True, "1"),
        (("CARRA", "CHICO"), False, None),
    ]


def test_a_batch_with_an_error_records_nothing(event):
    response = event.app.test_client().post(
        "/v1/challenges", json=keyed({"lexicon": "es", "plays": [{"words": ["CARRO"]}, {"words": ["KIWI"]}]})
    )
    assert response.status_code == 422 and event.rows() == []


def checksum_of(event, lexicon="es"):
    listed = event.app.test_client().get("/v1/lexicons").json["lexicons"]
    return next(item["checksum"] for item in listed if item["language"] == lexicon and item["default"])


def test_an_idempotency_key_records_once(event):
    _, judge = event.device()
    event.clock.advance(hours=2)  # the phone judged at 10:31, after its pairing at 9:00; sent at 11:00
    sent = dict(
        idempotency_key="phone-1:17",
        offline=True,
        device_time="2026-11-22T10:31:07.120034Z",
        checksum=checksum_of(event),
    )
    first = event.challenge(judge, **sent)
    second = event.challenge(judge, **sent)
    assert first.data == second.data and len(event.rows()) == 1
    row = event.rows()[0].entry
    assert row.offline and row.device_time == sent["device_time"] and row.idempotency_key == "phone-1:17"
    problem(event.challenge(judge, ["CARRA"], **sent), 409, "idempotency-conflict")
    problem(event.challenge(judge, device_time="yesterday"), 422, "invalid-request")
    problem(event.challenge(judge, offline=True, idempotency_key="phone-1:18"), 422, "invalid-request")
    assert len(event.rows()) == 1


def test_a_key_conflict_names_nothing_of_another_device_s_row(event):
    """Keys are one namespace: a device that sends another's key learns no record number, name
    or verdict of that row; its own conflict names its own row, which it was shown."""
    _, judge = event.device()
    _, other = event.device("Juez 2")
    for n in range(1, 5):
        assert event.challenge(judge, idempotency_key=f"juez-1:{n}").json["record"] == n
    mine = problem(event.challenge(judge, ["CARRA"], idempotency_key="juez-1:3"), 409, "idempotency-conflict")
    assert "record 3" in mine["detail"] and mine["record"] == 3
    theirs = problem(event.challenge(other, ["CARRA"], idempotency_key="juez-1:3"), 409, "idempotency-conflict")
    assert not re.search(r"\d", theirs["detail"].replace("juez-1:3", "")), theirs["detail"]
    assert "Juez 1" not in theirs["detail"] and set(theirs) == set(mine) - {"record"}
    same = problem(event.challenge(other, idempotency_key="juez-1:3"), 409, "idempotency-conflict")
    assert same == theirs  # the very play the other device sent: no replay of its row either
    assert len(event.rows()) == 4


def test_a_get_challenge_is_refused_in_an_event_whoever_asks_and_nothing_recorded(event):
    """A GET is sent again by whatever thinks it safe (a front end's retry after a reset, a
    browser's reload), and each would be a row: in an event every challenge is a POST with an
    idempotency key, which makes a retry the same row (deploy/test_nginx_event.py)."""
    _, judge = event.device()
    _, table = event.device("Mesa 7", "table", "7")
    _, kiosk = event.device("Consulta", "lookup")
    client = event.app.test_client()
    for opened in (False, True):
        if opened:
            event.open_round()
        for token in (None, judge, table, kiosk):
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            for query in ("lexicon=es&word=CARRO&word=CHICO", "lexicon=es&word=CARRO&idempotency_key=k1", ""):
                refused = client.get(f"/v1/challenge?{query}", headers=headers)
                assert refused.status_code == 405 and refused.headers["Allow"] == "OPTIONS, POST"
                assert refused.content_type == "application/problem+json"
                assert refused.json["type"] == "about:blank" and "POST /v1/challenge" in refused.json["detail"]
    assert event.rows() == []
    assert event.challenge(judge).json["record"] == 1  # a POST is recorded


def test_the_record_read_filtered_exported_and_one_by_one(event):
    _, judge = event.device()
    _, table = event.device("Mesa 4", "table", "4")
    event.challenge(judge)
    event.open_round()
    event.challenge(table, ["CARRA"])
    event.challenge(judge, table="9")
    records = event.director.get("/v1/records").json
    assert records["event"] == "Open de Lleida 2026" and [r["seq"] for r in records["records"]] == [1, 2, 3]
    assert [r["seq"] for r in event.director.get("/v1/records?round=1").json["records"]] == [2, 3]
    assert [r["seq"] for r in event.director.get("/v1/records?table=4").json["records"]] == [2]
    assert [r["seq"] for r in event.director.get("/v1/records?device=1").json["records"]] == [1, 3]
    csv = event.director.get("/v1/records?format=csv&round=1")
    assert csv.content_type.startswith("text/csv") and csv.data.decode().count("\r\n") == 3
    one = event.director.get("/v1/records/2").json
    assert one["words"] == ["CARRA"] and one["valid"] is False and one["table"] == "4" and one["round"] == 1
    problem(event.director.get("/v1/records/99"), 404, "unknown-record")
    for bad in ("round=x", "device=-1", "format=xml", "colour=red", "round=1&round=2"):
        problem(event.director.get(f"/v1/records?{bad}"), 422, "invalid-request")


def test_the_event_as_a_device_and_the_director_see_it(event):
    _, table = event.device("Mesa 4", "table", "4")
    event.open_round(5)
    seen = event.app.test_client().get("/v1/event", headers={"Authorization": f"Bearer {table}"}).json
    assert seen["name"] == "Open de Lleida 2026" and seen["round"] == 5 and not seen["director"]
    assert seen["device"]["name"] == "Mesa 4" and seen["device"]["table"] == "4"
    assert seen["lexicon"]["id"] == "es-mini"  # the event's lexicon: es, whose default is es-mini
    assert seen["wait"] == 10  # LEXICON_RATE_TABLE's default: the page keeps it offline too
    _, judge = event.device("Juez 1", "judge")
    assert event.app.test_client().get("/v1/event", headers={"Authorization": f"Bearer {judge}"}).json["wait"] == 0
    director = event.director.get("/v1/event").json
    assert director["director"] and director["device"] is None and director["wait"] == 0
    problem(event.app.test_client().get("/v1/event"), 401, "device-unknown")


def test_secrets_never_reach_logs_pages_or_the_event_file(event, caplog):
    caplog.set_level(logging.DEBUG)
    added = event.director.post("/v1/devices", json={"name": "Juez 9", "role": "judge"}, headers=SAME).json
    code = added["code"]
    paired = event.app.test_client().post("/v1/devices/pair", json={"code": code}).json
    token = paired["token"]
    session = event.login().headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
    event.challenge(token)
    event.challenge("wrong-" + token)
    event.app.test_client().post("/v1/director/session", json={"password": PASSWORD + "x"})
    pages = b"".join(
        event.director.get(p).data
        for p in ("/v1/records", "/v1/devices", "/v1/rounds", "/v1/event", "/openapi.json", "/")
    )
    event.db.close()
    stored = b"".join(p.read_bytes() for p in event.path.parent.iterdir() if p.name.startswith("open.db"))
    logged = caplog.text
    for secret in (PASSWORD, token, session, code, code.replace("-", "")):
        assert secret not in logged
        assert secret.encode() not in stored and secret.encode() not in pages


def test_the_document_lists_the_tournament_endpoints(event):
    document = json.loads(event.app.test_client().get("/openapi.json").data)
    for path in (
        "/v1/director/session",
        "/v1/devices",
        "/v1/devices/pair",
        "/v1/devices/{device_id}",
        "/v1/rounds",
        "/v1/rounds/close",
        "/v1/records",
        "/v1/records/{seq}",
        "/v1/event",
    ):
        assert path in document["paths"]
    schemas = document["components"]["schemas"]
    assert "record" in schemas["Verdict"]["properties"] and "NewDevice" in schemas
    assert "429" in document["paths"]["/v1/challenge"]["post"]["responses"]
    # every route of the app is in the document, and every documented operation is a route, but
    # GET /v1/challenge: no route in an event, documented as its 405 (`Allow: OPTIONS, POST`)
    routes = {
        (re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule), method.lower())
        for rule in event.app.url_map.iter_rules()
        for method in rule.methods - {"HEAD", "OPTIONS"}
        if rule.rule.startswith("/v1/")
    } | {("/v1/challenge", "get")}
    # refused only: its 405, or the 400 of a query that is no UTF-8, which every route reads first
    assert sorted(document["paths"]["/v1/challenge"]["get"]["responses"]) == ["400", "405"]
    documented = {
        (path, method) for path, item in document["paths"].items() for method in item if path.startswith("/v1/")
    }
    assert routes == documented
    # a device's id is what the store can hold, the same in every path that names one
    for path, method in (("/v1/devices/{device_id}", "delete"), ("/v1/devices/{device_id}/code", "post")):
        [parameter] = document["paths"][path][method]["parameters"]
        assert parameter["schema"] == {"type": "integer", "minimum": 1, "maximum": MAX_NUMBER}


def test_wrong_pairing_codes_are_limited_per_address(event):
    from service.event.limits import WINDOW, WRONG_CODES

    limiter = event.app.extensions["lexicon_event"].wrong_codes
    now = [1000.0]
    limiter.clock = lambda: now[0]
    added = event.director.post("/v1/devices", json={"name": "Juez 1", "role": "judge"}, headers=SAME)
    guesser = event.app.test_client()
    guesser.environ_base["REMOTE_ADDR"] = "192.168.1.66"
    for _ in range(WRONG_CODES):
        problem(guesser.post("/v1/devices/pair", json={"code": "ZZZZ-ZZZZ"}), 400, "pairing-refused")
    for code in ("ZZZZ-ZZZZ", added.json["code"]):  # the right code too, or the guessing would go on
        limited = guesser.post("/v1/devices/pair", json={"code": code})
        body = problem(limited, 429, "pairing-limited")
        assert limited.headers["Retry-After"] == str(int(WINDOW)) == str(body["retry_after"])
    neighbour = event.app.test_client()
    neighbour.environ_base["REMOTE_ADDR"] = "192.168.1.67"
    problem(neighbour.post("/v1/devices/pair", json={"code": "ZZZZ-ZZZZ"}), 400, "pairing-refused")
    now[0] += WINDOW
    assert guesser.post("/v1/devices/pair", json={"code": added.json["code"]}).status_code == 201


def test_a_pairing_held_by_its_64_says_so_not_this_address(event):
    """An IPv6 phone that sent no wrong code, on a /64 whose addresses sent NETWORK_CODES, is held
    with them: its 429 said 'too many wrong pairing codes from this address', false for it (and for
    the director reading the tool's answer). It names the /64 now; one address past its own ten is
    still told 'this address'."""
    from service.event.limits import NETWORK_CODES, WRONG_CODES

    def phone(address):
        client = event.app.test_client()
        client.environ_base["REMOTE_ADDR"] = address
        return client

    for n in range(NETWORK_CODES):
        problem(
            phone(f"2001:db8:1:2::{n + 1:x}").post("/v1/devices/pair", json={"code": "ZZZZ-ZZZZ"}),
            400,
            "pairing-refused",
        )
    held = problem(
        phone("2001:db8:1:2::ff").post("/v1/devices/pair", json={"code": "ZZZZ-ZZZZ"}), 429, "pairing-limited"
    )
    assert held["detail"].startswith("too many wrong pairing codes from the addresses of this IPv6 network (/64)")
    one = phone("2001:db8:1:3::1")
    for _ in range(WRONG_CODES):
        problem(one.post("/v1/devices/pair", json={"code": "ZZZZ-ZZZZ"}), 400, "pairing-refused")
    alone = problem(one.post("/v1/devices/pair", json={"code": "ZZZZ-ZZZZ"}), 429, "pairing-limited")
    assert alone["detail"].startswith("too many wrong pairing codes from this address:")


def test_the_refusals_say_the_limits_the_store_keeps(event, monkeypatch):
    """Each number a refusal tells a person is read from where it is kept, never written again."""
    from service.event import routes

    monkeypatch.setattr(routes, "MAX_FAILURES", 3)
    monkeypatch.setattr(routes, "LOCKOUT", timedelta(minutes=2))
    monkeypatch.setattr(routes, "CODE_LIFETIME", timedelta(minutes=7))
    client = event.app.test_client()
    wrong = problem(client.post("/v1/director/session", json={"password": "wrong-wrong-wrong"}), 401, "wrong-password")
    assert "3 wrong in a row" in wrong["detail"] and "for 2 minutes" in wrong["detail"]
    refused = problem(client.post("/v1/devices/pair", json={"code": "ZZZZ-ZZZZ"}), 400, "pairing-refused")
    assert "codes last 7 minutes" in refused["detail"]


def test_without_an_event_nothing_changes(make_app):
    app = make_app()
    assert (
        "record" not in app.test_client().post("/v1/challenge", json=keyed({"lexicon": "es", "words": ["CARRO"]})).json
    )
    assert app.test_client().get("/v1/devices").status_code == 404
    assert "/v1/devices" not in json.loads(app.test_client().get("/openapi.json").data)["paths"]


def test_a_missing_event_file_stops_the_start(tmp_path, lexicon_files):
    with pytest.raises(StartError, match="LEXICON_EVENT"):
        create_app(app_config(lexicon_files, LEXICON_EVENT=str(tmp_path / "none.db")))


def test_an_event_file_locked_elsewhere_at_start_stops_the_start_with_a_sentence(tmp_path, lexicon_files, monkeypatch):
    from tests.tournament.test_schema import load_v1

    path = tmp_path / "v1.db"
    load_v1(path)  # an old file, whose first writer switches its journal: it needs the file to itself
    monkeypatch.setattr(connection, "BUSY_SECONDS", 0.3)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(
            StartError, match=r"LEXICON_EVENT: .*held its write lock for 0\.3 s.*; try again once that is done"
        ):
            create_app(app_config(lexicon_files, LEXICON_EVENT=str(path)))
    finally:
        other.execute("COMMIT")
        other.close()


def test_an_event_moved_away_or_a_database_that_does_not_answer_stops_the_start_with_a_sentence(
    tmp_path, lexicon_files
):
    """`lexicon serve` said these with a traceback and exit 1 (a StorageError at start): an event
    file moved to a database before it was ever served (its lexicon is pinned at its first start,
    a write the mark refuses), and an event's database that does not answer."""
    from click.testing import CliRunner

    from lexicon_cli import main

    source = tmp_path / "hall.db"
    create_event(source, "E", PASSWORD).close()
    moved = CliRunner().invoke(main, ["event", "move", str(source), str(tmp_path / "moved.db")])
    assert moved.exit_code == 0, moved.output
    with pytest.raises(StartError, match=r"LEXICON_EVENT: .*hall\.db: the event was moved .*"):
        create_app(app_config(lexicon_files, LEXICON_EVENT=str(source)))
    away = f"postgresql://lexicon@/lexicon?host={tmp_path / 'no-server'}&event=open-2026"
    with pytest.raises(StartError, match=r"LEXICON_EVENT: .*the event's database failed \(.*\)$"):
        create_app(app_config(lexicon_files, LEXICON_EVENT=away))


def test_sync_setting_reaches_the_store(tmp_path, lexicon_files):
    path = tmp_path / "e.db"
    create_event(path, "E", PASSWORD).close()
    app = create_app(app_config(lexicon_files, LEXICON_EVENT=str(path), LEXICON_EVENT_SYNC="normal"))
    db = app.extensions["lexicon_event"].db
    assert db._storage._conn().execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert open_event(path)._storage._conn().execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL, the default


@pytest.mark.parametrize("words", ["x", "[" * 100_000 + "]" * 100_000])  # nested past the parser's limit too
def test_a_row_edited_into_nonsense_is_reported_not_a_500(event, words):
    import sqlite3

    event.challenge()
    event.challenge()
    conn = sqlite3.connect(event.path)
    conn.executescript("DROP TRIGGER records_append_only_update;")
    conn.execute("UPDATE records SET words = ? WHERE seq = 2", (words,))
    conn.commit()
    conn.close()
    tampered = problem(event.director.get("/v1/records"), 409, "record-tampered")
    assert "record 2" in tampered["detail"] and "lexicon records verify" in tampered["detail"]
    problem(event.director.get("/v1/records/2"), 409, "record-tampered")
    assert event.director.get("/v1/records/1").status_code == 200
