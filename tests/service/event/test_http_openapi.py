"""The OpenAPI document of an app in tournament mode, checked against it by schemathesis (as
tests/service/test_openapi.py does for the simple mode): the challenge operations with a judge
device's token, and the director's reading operations with the session cookie."""

from __future__ import annotations

import pytest
from schemathesis.generation import GenerationMode

from service import create_app
from tests.service.conftest import app_config
from tests.service.test_openapi import TILE_RULES, load, run
from tournament import create_event, open_event

from .conftest import PASSWORD
from .test_http import SAME, event, problem  # noqa: F401 - event: the fixture, shared

pytestmark = pytest.mark.slow  # schemathesis generates hundreds of requests per operation

# In an event, besides the tile rules: an offline verdict without its key or device time.
# In an event a generated verdict without its idempotency_key is refused, as documented (422)
ALLOWED_422 = TILE_RULES | {
    "tag:lexicon-judge,2026:problem/invalid-request",
    "tag:lexicon-judge,2026:problem/idempotency-key-required",
}


@pytest.fixture
def event_app(tmp_path, lexicon_files):
    path = tmp_path / "e.db"
    create_event(path, "Open", PASSWORD, lexicon="es").close()
    db = open_event(path)
    _, code = db.add_device("Juez 1", "judge")
    _, token = db.pair(code)
    db.close()
    app = create_app(app_config(lexicon_files, LEXICON_EVENT=str(path)))
    login = app.test_client().post("/v1/director/session", json={"password": PASSWORD})
    cookie = login.headers["Set-Cookie"].split(";")[0]
    return app, token, cookie


@pytest.mark.parametrize(
    "method, path", [("POST", "/v1/challenge"), ("GET", "/v1/challenge"), ("POST", "/v1/challenges")]
)
def test_a_judge_devices_challenges_keep_the_document(event_app, method, path, monkeypatch):
    app, token, _ = event_app
    monkeypatch.setattr("tests.service.test_openapi.TILE_RULES", ALLOWED_422)
    assert run(app, method, path, GenerationMode.POSITIVE, 25, {"Authorization": f"Bearer {token}"}) > 0
    assert run(app, method, path, GenerationMode.POSITIVE, 5) > 0  # no device, no round: answered too
    assert run(app, method, path, GenerationMode.POSITIVE, 5, {"Authorization": "Bearer nobody"}) > 0  # 401


@pytest.mark.parametrize("path", ["/v1/devices", "/v1/rounds", "/v1/records", "/v1/event", "/v1/director/session"])
def test_the_directors_reading_operations_keep_the_document(event_app, path):
    app, _, cookie = event_app
    assert run(app, "GET", path, GenerationMode.POSITIVE, 10, {"Cookie": cookie}) > 0
    assert run(app, "GET", path, GenerationMode.POSITIVE, 3) > 0  # not logged in: a documented 401


def test_every_event_operation_is_in_the_document(event_app):
    app, _, _ = event_app
    listed = {(r.ok().method.upper(), r.ok().path) for r in load(app).get_all_operations()}
    assert {
        ("POST", "/v1/director/session"),
        ("DELETE", "/v1/devices/{device_id}"),
        ("POST", "/v1/rounds/close"),
        ("GET", "/v1/records/{seq}"),
        ("POST", "/v1/devices/pair"),
    } <= listed


def every_write(event):  # noqa: F811
    """Each POST and DELETE of the event's document, asked as its caller would, with what it needs
    made first: {(method, path): (client, url, body, headers)}, and the document's paths. Checks
    that none of the document's writes is left out."""
    from .conftest import keyed

    device_id, judge = event.device()
    event.open_round()
    code = event.director.post("/v1/devices", json={"name": "Juez 2", "role": "judge"}, headers=SAME).json["code"]
    link = event.db.new_login_link()
    anyone, director = event.app.test_client(), event.director
    bearer = {"Authorization": f"Bearer {judge}", **SAME}
    calls = {  # (method, path): (client, body, headers)
        ("post", "/v1/challenge"): (anyone, keyed({"lexicon": "es", "words": ["CARRO"]}), bearer),
        ("post", "/v1/challenges"): (anyone, {"lexicon": "es", "plays": [keyed({"words": ["CARRO"]})]}, bearer),
        ("post", "/v1/director/session"): (anyone, {"password": PASSWORD}, SAME),
        ("delete", "/v1/director/session"): (director, None, SAME),
        ("post", "/v1/director/link"): (anyone, {"token": link}, SAME),
        ("post", "/v1/devices"): (director, {"name": "Juez 3", "role": "judge"}, SAME),
        ("delete", "/v1/devices/{device_id}"): (director, None, SAME),
        ("post", "/v1/devices/{device_id}/code"): (director, None, SAME),
        ("post", "/v1/devices/pair"): (anyone, {"code": code}, SAME),
        ("post", "/v1/rounds"): (director, {}, SAME),
        ("post", "/v1/rounds/close"): (director, None, SAME),
        ("post", "/v1/rounds/{number}/final"): (director, None, SAME),
    }
    paths = anyone.get("/openapi.json").json["paths"]
    writes = {(method, path) for path, item in paths.items() for method in item if method in ("post", "delete")}
    assert writes == set(calls)  # every write of the document is asked
    urls = {key: key[1].replace("{device_id}", str(device_id)).replace("{number}", "1") for key in calls}
    return {key: (client, urls[key], body, headers) for key, (client, body, headers) in calls.items()}, paths


def test_every_write_of_an_event_moved_away_is_its_declared_410(event, tmp_path):  # noqa: F811
    """Once `lexicon event move` took the event elsewhere, every operation that writes (each POST and
    DELETE of the document, a director's logout too) answers 410 `event-moved`, and the document
    declares it on each, so a tool author finds it where it comes."""
    from tournament import copy_event

    calls, paths = every_write(event)
    copy_event(str(event.path), tmp_path / "hall.db", "move")
    for (method, path), (client, url, body, headers) in calls.items():
        problem(client.open(url, method=method.upper(), json=body, headers=headers), 410, "event-moved")
        assert "`event-moved`" in paths[path][method]["responses"]["410"]["description"], (method, path)


def test_every_write_of_an_event_whose_lock_is_held_is_its_declared_503(event, monkeypatch):  # noqa: F811
    """The event's write lock held by another process past its bound (a record busy, as a database
    away is): every operation that writes answers 503 `record-unavailable` with `Retry-After`, and
    the document declares that 503 on each. The login, the login link, the logout and the pairing
    declared none, though each writes the event (a wrong password counted, a session begun or
    ended, a device paired), and a tool author read no 503 there."""
    from tests.support import lock_held_elsewhere
    from tournament.stores.sqlite import connection

    calls, paths = every_write(event)
    monkeypatch.setattr(connection, "BUSY_SECONDS", 0.2)
    with lock_held_elsewhere(event.path):
        for (method, path), (client, url, body, headers) in calls.items():
            answer = client.open(url, method=method.upper(), json=body, headers=headers)
            problem(answer, 503, "record-unavailable")
            assert answer.headers["Retry-After"] == str(answer.json["retry_after"]), (method, path)
            declared = paths[path][method]["responses"].get("503", {}).get("description", "")
            assert "`record-unavailable`" in declared and "`Retry-After`" in declared, (method, path)
            assert "Retry-After" in paths[path][method]["responses"]["503"]["headers"], (method, path)


def test_every_problem_type_is_declared_on_an_operation_under_its_status(event, lexicon_files):  # noqa: F811
    """Each problem type the service can answer (service/problems.py: TYPES) is named, in an
    operation's answer of its own status, by the document of the mode that answers it: an event's,
    or a service's with a venue token. (`event-lexicon-missing` comes only from a service of every
    event, before any event's app: that event's document names it in its `servers` entry,
    test_federation.py.)"""
    from service.problems import TYPES

    with_token = create_app(app_config(lexicon_files, LEXICON_TOKEN="venue-token-1"))
    documents = [event.app.test_client().get("/openapi.json").json, with_token.test_client().get("/openapi.json").json]
    declared = {
        (status, description)
        for document in documents
        for item in document["paths"].values()
        for operation in item.values()
        for status, answer in operation["responses"].items()
        for description in [answer["description"]]
    }
    missing = [
        name
        for name, (status, _) in TYPES.items()
        if name != "event-lexicon-missing" and not any(s == str(status) and f"`{name}`" in d for s, d in declared)
    ]
    assert missing == []
