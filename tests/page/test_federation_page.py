"""Two events of one service of a database, in one browser (Debian's Chromium): a phone paired to
each keeps both, each event's page judging as that event's device, its verdicts in that event's
record; the director signed in to both in one browser, each console its own event's
(service/federation.py; docs/judge-page.md, "The installed app")."""

from __future__ import annotations

import uuid

import pytest

from tests.postgres import OWNER, SERVICE
from tests.support import LiveServer, stop_soon
from tournament import create_event, open_event

from .conftest import Phone
from .phone_states import PASSWORD
from .test_director_browser import LAPTOP, pair_phone
from .test_page_browser import submit, type_word, verdict

pytestmark = [pytest.mark.server, pytest.mark.postgres]


class EventDirector:
    """One event's director over HTTP, under the event's prefix."""

    def __init__(self, server: LiveServer, event_id: str):
        import json

        self.server, self.prefix, self.json = server, f"/e/{event_id}", json
        status, headers, body = server.request(
            "POST",
            f"{self.prefix}/v1/director/session",
            json.dumps({"password": PASSWORD}).encode(),
            {"Content-Type": "application/json"},
        )
        assert status == 201, body
        self.cookie = next(value for name, value in headers if name.lower() == "set-cookie").split(";")[0]

    def device(self, name: str) -> str:
        body = self.json.dumps({"name": name, "role": "judge"}).encode()
        headers = {"Cookie": self.cookie, "Content-Type": "application/json"}
        status, _, data = self.server.request("POST", f"{self.prefix}/v1/devices", body, headers)
        assert status == 201, data
        return self.json.loads(data)["code"]


@pytest.fixture
def federation(page_lexicons, tmp_path, postgres_server):
    events = {f"p-{uuid.uuid4().hex[:10]}": name for name in ("Open A de Lleida", "Open B de Girona")}
    for event_id, name in events.items():
        create_event(postgres_server.url(OWNER, event=event_id), name, PASSWORD, lexicon="es-page").close()
    server = LiveServer(
        tmp_path, page_lexicons.values(), LEXICON_EVENT=postgres_server.url(SERVICE), LEXICON_LOG_LEVEL="warning"
    )
    try:
        server.wait_ready()
        yield server, list(events), postgres_server
    finally:
        stop_soon(server)


def test_one_phone_paired_to_two_events_keeps_both_apart(browser, federation):
    server, (a, b), postgres_server = federation
    phone = Phone(browser, server)
    try:
        for event_id, name in ((a, "Juez A"), (b, "Juez B")):
            page = pair_phone(phone, f"/e/{event_id}/#pair={EventDirector(server, event_id).device(name)}")
            assert page.locator("#event-device").inner_text() == f"{name} · juez"
        for event_id, name, words in ((a, "Juez A", ("CARRO",)), (b, "Juez B", ("CHICO", "PERRO"))):
            page = phone.page
            page.goto(f"/e/{event_id}/")
            page.locator("#event-device").wait_for(state="visible")
            assert page.locator("#event-device").inner_text() == f"{name} · juez"  # its own token, kept
            for n, word in enumerate(words, 1):
                if n > 1:
                    page.keyboard.press("Enter")
                type_word(page, n, word)
            submit(page)
            assert verdict(page)
        for event_id, name, length in ((a, "Juez A", 1), (b, "Juez B", 2)):
            db = open_event(postgres_server.url(SERVICE, event=event_id), readonly=True)
            try:
                rows = list(db.records())
                assert [(row.entry.device_name, len(row.entry.words)) for row in rows] == [(name, length)]
            finally:
                db.close()
        assert phone.problems == []
    finally:
        phone.close()


def test_the_director_signed_in_to_two_events_in_one_browser_sees_each_console_apart(browser, federation):
    server, (a, b), _ = federation
    laptop = Phone(browser, server, **LAPTOP)
    try:
        console = laptop.page
        for event_id, name in ((a, "Open A de Lleida"), (b, "Open B de Girona")):
            console.goto(f"/e/{event_id}/director")
            console.locator("#password").fill(PASSWORD)
            console.get_by_role("button", name="Entrar").click()
            console.locator("#console").wait_for(state="visible")
            assert console.locator("#event-name").inner_text() == name
        cookies = {cookie["path"]: cookie["name"] for cookie in laptop.context.cookies()}
        assert cookies.get(f"/e/{a}/") == cookies.get(f"/e/{b}/") == "lexicon_director"
        console.goto(f"/e/{a}/director")  # still signed in to A: B's sign-in replaced nothing
        console.locator("#console").wait_for(state="visible")
        assert console.locator("#event-name").inner_text() == "Open A de Lleida"
        assert laptop.problems == []
    finally:
        laptop.close()
