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
