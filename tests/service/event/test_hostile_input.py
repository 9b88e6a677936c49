"""Every route of the app, in tournament mode, against hostile values: never a 500.

Table-driven over the app's own URL map, so a route added later is covered without a line
here: each route is asked with every kind of hostile path parameter (numbers beyond SQLite's
64-bit integers, digits that are not ASCII), query value and body (JSON nested past Python's
recursion limit, numbers no integer type holds, lone surrogates, bytes that are no UTF-8), as
the director, as a paired judge and as nobody. Each answer must be a refusal as problem+json (or a success), never 500.
Then the answers the contract names are checked one by one.
"""

from __future__ import annotations

import re

import pytest

from service import create_app
from tests.service.conftest import app_config
from tournament import create_event
from tournament.model import MAX_NUMBER

from .conftest import PASSWORD, Clock
from .test_http import SAME, Event, problem

HUGE = "9" * 23  # beyond SQLite's integers (2**63 - 1) and any C integer
PATH_VALUES = [HUGE, str(2**63), str(MAX_NUMBER + 1), "0", "1" + "0" * 400, "²", "١"]
DEEP = "[" * 5000 + "]" * 5000
DEEP_OBJECT = '{"a":' * 2000 + "1" + "}" * 2000
BODIES = [
    DEEP,
    DEEP_OBJECT,
    '{"lexicon":"es","words":' + DEEP + "}",
    '{"lexicon":"es","plays":[' + DEEP + "]}",
    '{"lexicon":"es","plays":[{"words":' + DEEP + "}]}",
    '{"number":' + HUGE + "}",
    '{"number":-' + HUGE + "}",
    '{"number":1e400}',
    '{"number":' + str(MAX_NUMBER + 1) + "}",
    '{"name":"x","role":"judge","table":' + DEEP + "}",
    '{"code":' + HUGE + "}",
    '{"password":' + DEEP + "}",
    '{"text":' + DEEP + "}",
    '{"text":"\\ud800"}',
    "1" * 5000,
    "1e99999",
    '{"lexicon":"es","words":["CARRO"],"device_time":"2026-02-30T00:00:00.000000Z"}',
    '{"lexicon":"es","words":["CARRO"],"device_time":"2026-11-22T25:00:00.000000Z","offline":true,'
    '"idempotency_key":"k","checksum":"' + "0" * 64 + '"}',
    '{"lexicon":"es","words":["CARRO"],"checksum":"' + "0" * 64 + '"}',
    b"\xff",
    b'{"\xc3":1}',
    b'{"text":"\xed\xa0\x80"}',  # a surrogate written in UTF-8's bytes: no UTF-8
]
NOT_UTF8 = (b"\xff", b"\xc3(", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf")  # a stray, cut, surrogate, overlong byte
QUERIES = ["", f"?round={HUGE}", f"?device={HUGE}", "?round=%C2%B2", "?device=%D9%A1", f"?seq={HUGE}"]


@pytest.fixture
def event(tmp_path, lexicon_files):
    """test_http's event: an app on a fresh event file (default lexicon es), the director logged in."""
    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es", clock=Clock()).close()
    made = Event(create_app(app_config(lexicon_files, LEXICON_EVENT=str(path))), path, Clock())
    made.login()
    return made


def _routes(app) -> list[tuple[str, str]]:
    """(method, path template with {name} for each parameter) of every route of the app."""
    found = set()
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:[^:>]*:)?([^>]*)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            found.add((method, path))
    return sorted(found)


def test_no_hostile_value_anywhere_is_a_500(event):
    _, token = event.device()
    judge = {"Authorization": f"Bearer {token}"}
    clients = [(event.director, {}), (event.app.test_client(), judge), (event.app.test_client(), {})]
    routes = _routes(event.app)
    assert ("DELETE", "/v1/devices/{device_id}") in routes and ("GET", "/v1/records/{seq}") in routes
    failures = []
    for method, template in routes:
        paths = [re.sub(r"\{[^}]*\}", value, template) for value in PATH_VALUES] if "{" in template else [template]
        bodies = BODIES if method in ("POST", "PUT", "PATCH", "DELETE") else [None]
        asked = (
            [(path, "", bodies[0]) for path in paths]
            + [(paths[0], query, bodies[0]) for query in QUERIES]
            + [(paths[0], "", body) for body in bodies]
        )  # each hostile part on its own, the others plain
        for client, headers in clients:
            for path, query, body in asked:
                try:
                    response = client.open(
                        path + query,
                        method=method,
                        data=body,
                        headers={**SAME, **headers, "Content-Type": "application/json"},
                    )
                except Exception as error:  # what the app let through: a 500 under gunicorn
                    failures.append((method, path[:50], query, (body or "")[:30], type(error).__name__))
                    continue
                if response.status_code >= 500 and response.status_code != 503:
                    failures.append((method, path[:50], query, (body or "")[:30], response.status_code))
                elif response.status_code >= 400:
                    assert response.content_type == "application/problem+json", (method, path)
        # DELETE /v1/director/session (sorted before every POST) ends the director's session: signed
        # in again, so that each later route's body is read as the director's, not refused 401 first
        if event.director.get("/v1/director/session").status_code != 200:
            event.login()
    assert failures == []


def _texts(doc: dict, schema: dict) -> list[bytes]:
    """For each member of a request body's schema that holds text, a JSON member of it with `%s`
    where its text goes: `"name":"A%s"` for a string, `"name":["A%s"]` for an array of strings."""
    schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]] if "$ref" in schema else schema
    found = []
    for name, member in schema.get("properties", {}).items():
        kinds = [member, *member.get("anyOf", [])]
        if any(kind.get("type") == "string" for kind in kinds):
            found.append(b'"%s":"A%%s"' % name.encode())
        elif any(kind.get("items", {}).get("type") == "string" for kind in kinds):
            found.append(b'"%s":["A%%s"]' % name.encode())
    return found


def test_a_body_that_is_not_utf8_is_400_invalid_json_on_every_route(event):
    """Every operation with a JSON body (the OpenAPI document's), and each of its text members:
    bytes that are no UTF-8 there, in a member name or alone are 400 `invalid-json` whoever asks
    (or the refusal of who asks, before the body is read), never a 500, never read as text."""
    _, token = event.device()
    clients = [(event.director, {}), (event.app.test_client(), {"Authorization": f"Bearer {token}"})]
    clients.append((event.app.test_client(), {}))
    doc = event.director.get("/openapi.json").json
    operations = [
        (method.upper(), path, operation["requestBody"]["content"]["application/json"]["schema"])
        for path, item in doc["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "requestBody" in operation
    ]
    assert {path for _, path, _ in operations} >= {"/v1/director/session", "/v1/director/link", "/v1/devices/pair"}
    assert ("POST", "/v1/devices") in {(method, path) for method, path, _ in operations}
    answers = []
    for method, path, schema in operations:
        members = _texts(doc, schema)  # none in a round's body (a number): only the name and the bare bytes
        bodies = [b'{"' + bad + b'":1}' for bad in NOT_UTF8] + list(NOT_UTF8)
        bodies += [b"{" + member % bad + b"}" for member in members for bad in NOT_UTF8]
        for body in bodies:
            read = []
            for client, headers in clients:
                response = client.open(
                    path, method=method, data=body, headers={**SAME, **headers, "Content-Type": "application/json"}
                )
                answers.append((method, path, body, response.status_code))
                if response.status_code == 400:
                    assert response.json["type"].endswith("/invalid-json"), (path, body)
                    if body.startswith(b'{"'):  # in a string: said so (alone, it is no JSON character)
                        assert "not UTF-8 text" in response.json["detail"], (path, body, response.json)
                    read.append(client)
                else:  # refused before the body is read: who asks may not
                    assert response.status_code in (401, 403), (method, path, body, response.status_code)
            assert read, (method, path, body)  # someone may send it, and for them it is a 400
    assert not [answer for answer in answers if answer[3] >= 500]


def test_a_number_beyond_sqlite_is_no_such_record_or_device(event):
    for number in (HUGE, str(2**63), str(MAX_NUMBER + 1)):
        problem(event.director.get(f"/v1/records/{number}"), 404, "unknown-record")
        problem(event.director.delete(f"/v1/devices/{number}", headers=SAME), 404, "unknown-device")
        problem(event.director.post(f"/v1/devices/{number}/code", headers=SAME), 404, "unknown-device")


def test_a_query_number_is_ascii_digits_within_the_bound(event):
    for value in (HUGE, str(MAX_NUMBER + 1), "%C2%B2", "%D9%A1", "0", "-1"):
        assert problem(event.director.get(f"/v1/records?round={value}"), 422, "invalid-request")["parameter"] == "round"
        assert (
            problem(event.director.get(f"/v1/records?device={value}"), 422, "invalid-request")["parameter"] == "device"
        )
    unknown = problem(event.director.get(f"/v1/records?round={MAX_NUMBER}"), 422, "invalid-request")
    assert unknown["detail"].startswith(f"there is no round {MAX_NUMBER} in this event")  # a number, not had
    event.open_round(MAX_NUMBER)
    assert event.director.get(f"/v1/records?round={MAX_NUMBER}").status_code == 200


def test_a_round_number_has_the_same_bound_and_the_next_one_stops_there(event):
    for value in (HUGE, str(2**63), str(MAX_NUMBER + 1)):
        refused = problem(
            event.director.post(
                "/v1/rounds", data=f'{{"number":{value}}}', headers=SAME, content_type="application/json"
            ),
            422,
            "invalid-request",
        )
        assert refused["pointer"] == "/number"
    event.open_round(MAX_NUMBER)
    event.close_round()
    last = problem(event.director.post("/v1/rounds", json={}, headers=SAME), 409, "round-conflict")
    assert str(MAX_NUMBER) in last["detail"]


@pytest.mark.parametrize("path", ["/v1/challenge", "/v1/challenges"])
def test_a_play_nested_too_deeply_is_400_invalid_json(event, path):
    """The tournament's own bodies are typed objects: a deep array where a string belongs is a 422
    before any depth is reached (the test above). A challenge's body is read untyped in part."""
    inside = {
        "/v1/challenges": '{"lexicon":"es","plays":[' + DEEP + "]}",
        "/v1/challenge": '{"lexicon":"es","words":["CARRO","CHICO"],"x":' + DEEP + "}",
    }
    for body in (DEEP, DEEP_OBJECT, inside[path]):
        refused = problem(
            event.director.post(path, data=body, headers=SAME, content_type="application/json"), 400, "invalid-json"
        )
        assert "nested too deeply" in refused["detail"]


def test_the_director_qr_refuses_deep_json_and_lone_surrogates(event):
    for body in ('{"text":' + DEEP + "}", '{"text":"\\ud800"}'):
        response = event.director.post("/director/qr", data=body, headers=SAME, content_type="application/json")
        assert response.status_code in (400, 422) and response.content_type == "application/problem+json"


BAD_QUERIES = [b"table=%FF", b"%FF=1", b"round=1&table=%C3(", b"word=%E2%82", b"t=%ED%A0%80", b"t=%C0%AF", b"t=\xff"]


def test_a_query_that_is_not_utf8_is_400_on_every_route(event):
    """Werkzeug reads percent-encoded bytes that are no UTF-8 as U+FFFD: `?table=%FF` was a table
    named U+FFFD. On every route of the URL map, whoever asks, such a query (in a value or a name,
    stray, cut, surrogate, overlong, or raw) is a 400 problem naming the parameter, and nothing is
    recorded; percent-encoded UTF-8 is read as before."""
    _, token = event.device()
    clients = [(event.director, {}), (event.app.test_client(), {"Authorization": f"Bearer {token}"})]
    clients.append((event.app.test_client(), {}))
    event.open_round(1)
    wrong = []
    for method, template in _routes(event.app):
        path = re.sub(r"\{[^}]*\}", "1", template)
        for query in BAD_QUERIES:
            for client, headers in clients:
                response = client.open(
                    path,
                    method=method,
                    environ_overrides={"QUERY_STRING": query.decode("latin-1")},  # as a WSGI server gives it
                    data=b"{}",
                    headers={**SAME, **headers, "Content-Type": "application/json"},
                )
                if response.status_code != 400 or response.content_type != "application/problem+json":
                    wrong.append((method, path, query, response.status_code))
                elif "not UTF-8" not in response.json["detail"]:
                    wrong.append((method, path, query, response.json["detail"]))
    assert wrong == []
    refused = event.director.get("/v1/records?table=%FF")
    assert refused.json["parameter"] == "table" and "0xff" in refused.json["detail"]
    assert event.director.get("/v1/records").json["records"] == []
    assert event.director.get("/v1/records?table=Mesa%20%C3%91").status_code == 200


@pytest.mark.parametrize(
    "path, body",
    [
        ("/v1/devices/pair", b'{"code":"K7QH-3MXP"}'),
        ("/v1/rounds", b"{}"),
        ("/v1/challenge", b'{"lexicon":"es","words":["CARRO"],"idempotency_key":"k1"}'),
        ("/v1/challenges", b'{"lexicon":"es","plays":[{"words":["CARRO"],"idempotency_key":"k1"}]}'),
    ],
)
def test_a_body_that_begins_with_a_byte_order_mark_is_told_so_in_one_sentence(event, path, body):
    """A tool that saves its JSON with Windows tools sends EF BB BF first: the tournament's own
    bodies said 'invalid character (byte 0)', the challenges Python's advice to decode with
    utf-8-sig. Every route says the one sentence, and nothing is done."""
    from service.decoding import BOM

    refused = problem(
        event.director.post(path, data=b"\xef\xbb\xbf" + body, headers=SAME, content_type="application/json"),
        400,
        "invalid-json",
    )
    assert refused["detail"] == BOM
    assert event.director.get("/v1/rounds").json["current"] is None
