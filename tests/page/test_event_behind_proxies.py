"""The judge's page in an event behind a front end, in Debian's Chromium: one 401 that may come from
an instance set up wrong does not make the phone forget its pairing (it asks again first), and every
challenge it sends in an event carries an idempotency key, so that a retried one is one row."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest

from tests.support import LiveServer, stop_soon
from tournament import create_event

from .conftest import Phone
from .phone_states import PASSWORD, Director
from .test_director_browser import challenge, pair_phone

UNKNOWN = json.dumps(
    {
        "type": "tag:lexicon-judge,2026:problem/device-unknown",
        "title": "This device is not paired",
        "status": 401,
        "detail": "this token belongs to no device of the event",
    }
)


@pytest.fixture
def event_live(page_lexicons, tmp_path):
    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD).close()
    server = LiveServer(tmp_path, page_lexicons.values(), LEXICON_EVENT=str(path), LEXICON_LOG_LEVEL="warning")
    server.wait_ready()
    yield server
    stop_soon(server)


def asked_event(phone: Phone) -> int:
    return sum(1 for method, url in phone.requests if method == "GET" and urlsplit(url).path.endswith("/v1/event"))


def test_one_401_from_a_wrong_instance_does_not_unpair_the_phone_and_every_challenge_has_a_key(browser, event_live):
    director = Director(event_live)
    code = director.device("Consulta 1", "lookup")  # no round open: a lookup device challenges
    phone = Phone(browser, event_live)
    try:
        page = pair_phone(phone, f"/#pair={code}")
        token = page.evaluate("localStorage.getItem('lexicon-judge.device')")
        wrong = []

        def once(route):  # the instance behind the front end that does not know this event's devices
            if wrong:
                route.continue_()
            else:
                wrong.append(route.request.url)
                route.fulfill(status=401, body=UNKNOWN, content_type="application/problem+json")

        page.route("**/v1/event*", once)  # its heartbeat says what it saw in a query
        before = asked_event(phone)
        # The page asks the event again (on focus): refused once, it asks again after a pause and
        # keeps its pairing; a phone that forgot it at the 401 would ask nothing more.
        with page.expect_request(lambda request: urlsplit(request.url).path.endswith("/v1/event") and bool(wrong)):
            page.evaluate("""() => window.dispatchEvent(new Event("focus"))""")
        assert asked_event(phone) >= before + 2
        assert page.evaluate("localStorage.getItem('lexicon-judge.device')") == token
        assert page.locator("#pair-error").text_content() == ""

        bodies = []
        page.on(
            "request",
            lambda request: (
                bodies.append(request.post_data)
                if request.method == "POST" and request.url.endswith("/v1/challenge")
                else None
            ),
        )
        challenge(page, "CARRO")
        assert page.locator("#verdict .v-title").inner_text() == "JUGADA VÁLIDA"
        [sent] = bodies
        key = json.loads(sent)["idempotency_key"]  # a lookup device's too: a retried challenge is one row
        [row] = director.ask("GET", "/v1/records")["records"]
        assert row["idempotency_key"] == key
    finally:
        phone.close()
    assert phone.problems == []
