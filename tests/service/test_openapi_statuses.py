"""Statuses every route answers that /openapi.json must declare, though schemathesis never sends
what causes them (tests/service/test_openapi.py generates text; a query of raw bytes is no text).

A query whose percent-encoded bytes are no UTF-8 (`?word=%FF`) is a 400 on every route
(service/decoding.py's query_not_utf8, docs/api.md's Errors): a tool author reading the document
must find that status on each operation, with its problem+json.
"""

from __future__ import annotations

import re

import pytest

from tournament import create_event

PARAMETERS = {"lexicon_id": "es", "device_id": "1", "seq": "1", "number": "1"}


@pytest.fixture(params=[False, True], ids=["simple", "event"])
def app(request, make_app, tmp_path):
    if request.param:
        create_event(tmp_path / "event.db", "Open", "a long enough password").close()
    return make_app(**({"LEXICON_EVENT": str(tmp_path / "event.db")} if request.param else {}))


def test_every_operation_declares_the_400_of_a_query_that_is_no_utf8(app):
    client = app.test_client()
    document = client.get("/openapi.json").get_json()
    checked = 0
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method not in {"get", "post", "put", "delete", "patch"}:
                continue
            url = re.sub(r"\{(\w+)\}", lambda found: PARAMETERS[found[1]], path)
            answer = client.open(f"{url}?word=CAS%FF", method=method.upper(), data=b"{}")
            assert answer.status_code == 400, (method, path, answer.status_code)
            declared = operation["responses"].get("400", {})
            assert "application/problem+json" in declared.get("content", {}), (method, path, operation["responses"])
            assert "UTF-8" in declared["description"], (method, path, declared["description"])
            checked += 1
    assert checked >= 8


def test_the_browser_lexicon_of_a_language_code_is_a_declared_307_to_its_id(make_app):
    """`/v1/lexicons/es/browser` (the language's default, by its code) or an id in another case is
    sent on to the id's URL, the one cached as immutable: the document declares that 307 and its
    Location, which schemathesis does not send (it generates ids from no enum). Outside an event:
    in one, only a paired judge device reaches the route at all."""
    client = make_app().test_client()
    operation = client.get("/openapi.json").get_json()["paths"]["/v1/lexicons/{lexicon_id}/browser"]["get"]
    for name in ("es", "ES-MINI"):
        answer = client.get(f"/v1/lexicons/{name}/browser")
        assert answer.status_code == 307 and answer.headers["Location"] == "/v1/lexicons/es-mini/browser"
        declared = operation["responses"].get("307", {})
        assert "Location" in declared.get("headers", {}), operation["responses"]
