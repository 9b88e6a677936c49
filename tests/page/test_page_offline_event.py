"""The judge's page offline in an event, in Debian's Chromium: a paired judge device's
offline verdicts wait on the phone and reach the record once when the service is back (not when a
captive portal answers, and from the tab itself where IndexedDB is refused), also from the
installed app reopened with no network; the browser lexicon, and judging offline, are for paired
judge devices only: a table device keeps none and says to call a judge. Helpers: test_page_offline.py.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.support import LiveServer, stop_soon, until

from . import phone_states
from .conftest import VERDICT_SECONDS, Phone
from .phone_states import PASSWORD, Director
from .test_director_browser import pair_phone
from .test_page_browser import shot, submit, type_word, verdict
from .test_page_offline import HERE, KEPT, PORTAL, clear, no_verdict, play, ready

pytestmark = pytest.mark.server  # its phones talk to a live `lexicon serve` of its own


@pytest.fixture
def event_server(page_lexicons, tmp_path):
    server = phone_states.event_server(page_lexicons, tmp_path, LEXICON_VERDICT_SECONDS=str(VERDICT_SECONDS))
    yield server
    stop_soon(server)


def none_waiting(page, seconds: float = 10) -> None:
    """Waits until no verdict waits on the phone, without asking it to send them: the page does
    that itself when the network is back. (A Promise is truthy to wait_for_function: polled here.)"""
    until(lambda: page.evaluate("LexiconOffline.waiting()") == 0, "no verdict waiting on the phone", seconds, 0.25)


def flushed(page, seconds: float = 10) -> int:
    """Asks the page to send what waits, again until nothing does, and gives what still waits.
    One call is not enough: the flush the page starts itself when the network comes back may be
    under way (flush() then answers with it), and under load it can meet the network still down
    (Chromium says online a moment before it is); the page would try again later, this sooner."""
    for _ in range(int(seconds * 4)):
        if page.evaluate("LexiconOffline.flush().then(() => LexiconOffline.waiting())") == 0:
            return 0
        page.wait_for_timeout(250)
    return page.evaluate("LexiconOffline.waiting()")


def the_one_row_is_offline(page, director: Director, words: list[str]) -> None:
    """Once the page holds nothing more, the record holds one row: the verdict judged offline of `words`."""
    assert flushed(page) == 0
    [row] = director.ask("GET", "/v1/records")["records"]
    assert row["offline"] is True and row["words"] == words


def no_copy_kept(page, seconds: float = 10) -> None:
    """Waits until the phone keeps no lexicon in IndexedDB (the page deletes it itself once the
    service says this phone is no judge's)."""
    until(lambda: not page.evaluate(KEPT), "no copy kept on the phone", seconds, 0.25)


def installed(browser, server: LiveServer, code: str) -> tuple[Phone, object]:
    """A phone paired by `code` as the installed app: its lexicon ready, its service worker in control."""
    phone = Phone(browser, server, service_workers="allow")
    try:
        page = pair_phone(phone, f"/#pair={code}")
        ready(page)
        page.evaluate("navigator.serviceWorker.ready")
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    except BaseException:
        phone.close()
        raise
    return phone, page


def judge_in_a_round(browser, server: LiveServer) -> tuple[Director, str, Phone]:
    """The director, a round open, the pairing code of a judge device, and a phone to pair."""
    director = Director(server)
    code = director.device("Juez 1", "judge")
    director.ask("POST", "/v1/rounds", {})
    return director, code, Phone(browser, server)


def test_an_offline_verdict_reaches_the_record_once_when_the_service_is_back(browser, event_server, shots):
    director, code, phone = judge_in_a_round(browser, event_server)
    try:
        page = phone.page
        pair_phone(phone, f"/#pair={code}")
        ready(page)
        phone.context.set_offline(True)
        shown = play(page, "CARRO", "CHICOX")
        assert "JUGADA NO VÁLIDA" in shown and HERE in shown and "Irá al registro" in shown
        assert "Registro nº" not in shown  # it has none yet
        shot(page, shots, "offline-06-event-queued")
        assert page.evaluate("LexiconOffline.waiting()") == 1
        assert director.ask("GET", "/v1/records")["records"] == []
        waiting = page.evaluate("""() => new Promise((resolve) => indexedDB.open("lexicon-judge").onsuccess = (e) =>
            e.target.result.transaction("waiting").objectStore("waiting").getAll().onsuccess = (r) => resolve(r.target.result))""")
        phone.context.set_offline(False)
        none_waiting(page)
        page.evaluate("LexiconOffline.flush()")
        [row] = director.ask("GET", "/v1/records")["records"]
        assert row["offline"] is True and row["valid"] is False and row["words"] == ["CARRO", "CHICOX"]
        # the verdict still on the screen now says its record's number, for the slip
        expect(page.locator(".v-offline")).to_contain_text(f"Ya en el registro: nº {row['seq']}")
        assert "Irá al registro" not in page.locator("#verdict").inner_text()
        assert (
            row["device_time"] == waiting[0]["device_time"] and row["idempotency_key"] == waiting[0]["idempotency_key"]
        )
        # The same verdict sent again (a queue sent twice): the same row, nothing added.
        again = page.evaluate(
            """(play) => fetch("v1/challenge", {method: "POST", body: JSON.stringify(play),
            headers: {"Content-Type": "application/json", Authorization: "Bearer " + localStorage.getItem("lexicon-judge.device")}})
            .then((r) => r.json())""",
            waiting[0],
        )
        assert again.get("record") == row["seq"], again
        assert len(director.ask("GET", "/v1/records")["records"]) == 1
        assert page.locator("#offline-note").is_hidden()  # nothing waiting
        assert phone.foreign_requests() == [] and phone.problems == []
    finally:
        phone.close()


def test_verdicts_held_while_the_service_was_away_go_at_the_first_heartbeat_it_answers(browser, event_server):
    """The service stopped answering (restarted, or the laptop's Wi-Fi down) while the phone's own
    network stayed up, so the browser never says it is back online: a verdict judged meanwhile goes
    to the record right after the first heartbeat (every 4 s) the service answers again, not at the
    page's next retry, up to half a minute later. On the page's clock, held: the heartbeat answered
    is the only one of the 4 s it is moved on by, and the retry's 30 s never pass."""
    director, code, phone = judge_in_a_round(browser, event_server)
    try:
        page = on_the_service_s_clock(phone, code)
        page.route("**/v1/**", lambda route: route.abort("connectionrefused"))  # the service away
        page.clock.pause_at(datetime.now(UTC) + timedelta(seconds=1))
        assert "Irá al registro" in play(page, "CARRO")
        with page.expect_event("requestfailed", lambda request: "/v1/event" in request.url):
            page.clock.run_for(4_100)  # a heartbeat, refused: the service is away
        answered: list[str] = []  # the heartbeats answered again
        page.on("response", lambda r: answered.append(r.url) if "/v1/event" in r.url else None)
        page.unroute("**/v1/**")
        with page.expect_request(lambda r: r.method == "POST" and "/v1/challenge" in r.url):
            page.clock.run_for(4_100)  # the next heartbeat, answered: the verdict goes, no more time passing
        assert answered, "the verdict went before any heartbeat was answered"
        page.clock.resume()
        the_one_row_is_offline(page, director, ["CARRO"])
        assert phone.problems == []
    finally:
        phone.close()


def test_the_waiting_line_that_goes_once_the_record_has_its_verdicts_moves_nothing(browser, event_server):
    """At 320 px the line that counts the verdicts waiting takes two rows under the lexicon's. The
    network back, the page sends them by itself, with the judge typing the next play: the line goes,
    its place stays, and word 1 stays under the thumb. The place is given back under the next
    verdict's screen, which covers the page."""
    director, code, phone = judge_in_a_round(browser, event_server)
    phone.close()
    phone = Phone(browser, event_server, viewport={"width": 320, "height": 640})
    try:
        page = pair_phone(phone, f"/#pair={code}")
        ready(page)
        bare = page.locator("#word-1").bounding_box()["y"]  # nothing under the lexicon's line
        phone.context.set_offline(True)
        play(page, "CARRO")
        clear(page)
        note = page.locator("#offline-note")
        expect(note).to_have_text("Veredictos sin conexión pendientes de registro: 1")
        top = page.locator("#word-1").bounding_box()["y"]
        assert top > bare + 30  # two rows
        phone.context.set_offline(False)
        none_waiting(page)
        page.wait_for_function("() => document.getElementById('offline-note').textContent === ''")
        assert page.locator("#word-1").bounding_box()["y"] == top  # the line went, nothing moved
        assert len(director.ask("GET", "/v1/records")["records"]) == 1
        play(page, "CARRO")  # with the network: the service's verdict
        clear(page)
        assert page.locator("#word-1").bounding_box()["y"] == bare  # its place given back, under the verdict
        assert phone.foreign_requests() == [] and phone.problems == []
    finally:
        phone.close()


def on_the_service_s_clock(phone: Phone, code: str):
    """The phone's page, its clock installed at the service's time (which then believes the
    verdict's device_time) for a test to move, paired, its copy ready."""
    page = phone.page
    page.clock.install(time=datetime.now(UTC))
    pair_phone(phone, f"/#pair={code}")
    ready(page)
    return page


def test_a_send_the_network_swallows_is_given_up_and_the_verdict_reaches_the_record_at_the_next_try(
    browser, event_server
):
    """A hall's Wi-Fi that swallows a request (no answer and no reset: the phone's TCP waits on it
    for many minutes): the queue's send is given up after 15 s of the page's clock (SEND_MS in
    offline.js), so the next try sends the verdict. Waited on instead, the one flush under way held
    every verdict of the phone, and a closed round's head, for as long as its TCP did."""
    director, code, phone = judge_in_a_round(browser, event_server)
    try:
        page = on_the_service_s_clock(phone, code)
        swallowing = [True]  # while true, asked and never answered; then carried again

        def network(route):
            if not swallowing[0]:
                route.continue_()

        page.route("**/v1/challenge", network)
        type_word(page, 1, "CARRO")
        page.clock.pause_at(datetime.now(UTC) + timedelta(seconds=1))
        with page.expect_request("**/v1/challenge"):
            submit(page)
        with page.expect_request(lambda r: r.method == "POST" and "/v1/challenge" in r.url):
            page.clock.run_for(3_100)  # judged on the phone, queued, and the queue's send swallowed too
        assert "Irá al registro" in verdict(page)
        swallowing[0] = False  # the network carries again; that send is never answered
        page.clock.run_for(15_000)
        page.clock.resume()
        sent = """Promise.race([LexiconOffline.flush().then(() => LexiconOffline.waiting()),
            new Promise((r) => setTimeout(() => r(-1), 500))])"""  # -1: the flush under way still waits
        until(lambda: page.evaluate(sent) == 0, "the verdict sent again and recorded", 10, 0.25)
        [row] = director.ask("GET", "/v1/records")["records"]
        assert row["offline"] is True and row["words"] == ["CARRO"]
        assert phone.problems == []
    finally:
        phone.close()


def test_heartbeats_the_network_swallows_are_given_up_so_verdicts_go_at_the_first_one_answered(browser, event_server):
    """The service refused while the phone's heartbeats are swallowed (no answer, no reset): each
    heartbeat is given up after 10 s of the page's clock (event.js's `refresh`), so the page
    learns the service is away, and the first heartbeat answered after sends what waits, not the
    page's next retry (every 30 s). Waited on instead, no heartbeat ever said the service was away."""
    director, code, phone = judge_in_a_round(browser, event_server)
    try:
        page = on_the_service_s_clock(phone, code)
        away = [True]

        def refused(route):
            if away[0]:
                route.abort("connectionrefused")
            else:
                route.continue_()

        def swallowed(route):
            if not away[0]:
                route.continue_()

        page.route("**/v1/challenge", refused)
        page.route(lambda url: "/v1/event" in url, swallowed)
        page.clock.pause_at(datetime.now(UTC) + timedelta(seconds=1))
        assert "Irá al registro" in play(page, "CARRO")
        page.clock.run_for(10_100)  # the heartbeats sent meanwhile given up
        away[0] = False
        with page.expect_request(lambda r: r.method == "POST" and "/v1/challenge" in r.url, timeout=5_000):
            page.clock.run_for(4_100)  # the next heartbeat, answered
        page.clock.resume()
        the_one_row_is_offline(page, director, ["CARRO"])
        assert phone.problems == []
    finally:
        phone.close()


def test_an_offline_verdict_answered_by_a_captive_portal_still_waits_for_the_record(browser, event_server):
    """Back on the venue's Wi-Fi, before its login page was accepted: every request gets 200 and
    that page. The verdict is not the record's yet, so it stays in the queue until the service answers."""
    director, code, phone = judge_in_a_round(browser, event_server)
    try:
        page = pair_phone(phone, f"/#pair={code}")
        ready(page)
        phone.context.set_offline(True)
        assert "Irá al registro" in play(page, "CARRO")
        page.route("**/v1/challenge", lambda route: route.fulfill(status=200, body=PORTAL, content_type="text/html"))
        phone.context.set_offline(False)
        assert page.evaluate("LexiconOffline.flush().then(() => LexiconOffline.waiting())") == 1
        assert ("POST", event_server.url + "/v1/challenge") in phone.requests  # it was sent, to the portal
        assert director.ask("GET", "/v1/records")["records"] == []
        page.unroute("**/v1/challenge")
        the_one_row_is_offline(page, director, ["CARRO"])
        assert phone.problems == []
    finally:
        phone.close()


def test_a_front_end_s_limit_per_address_spent_by_another_phone_is_judged_offline(browser, event_server):
    """Behind nginx (deploy/nginx.conf), every phone behind a hall's NAT address shares one limit
    per address, which anyone there can spend: its 429 (nginx's own problem, not the service's)
    means the service was not reached and nothing recorded. The judge's phone judges offline, as
    with no answer, and the record gets the verdict once the service is reached."""
    nginx = (Path(__file__).parents[2] / "deploy" / "nginx-problems.conf").read_text()
    refused = re.search(r"return 429 '([^']*)'", nginx).group(1)  # the very body nginx answers
    director, code, phone = judge_in_a_round(browser, event_server)
    try:
        page = pair_phone(phone, f"/#pair={code}")
        ready(page)
        limited = {"Content-Type": "application/problem+json", "Retry-After": "1"}
        page.route("**/v1/challenge", lambda route: route.fulfill(status=429, body=refused, headers=limited), times=1)
        shown = play(page, "CARRO", "CHICOX")  # its queue may be sent at once: the service is there
        assert "JUGADA NO VÁLIDA" in shown and HERE in shown
        the_one_row_is_offline(page, director, ["CARRO", "CHICOX"])
    finally:
        phone.close()


NO_INDEXEDDB = """Object.defineProperty(window, "indexedDB", { get: () => ({ open() {  // as some private windows
    const request = {};
    setTimeout(() => { request.error = new DOMException("refused", "InvalidStateError"); request.onerror(); });
    return request;
} }) })"""


def paired_with(phone: Phone, code: str, script: str):
    """The phone's page, `script` run before each of its pages loads, paired, its copy ready."""
    page = phone.page
    page.add_init_script(script)
    pair_phone(phone, f"/#pair={code}")
    ready(page)
    return page


def test_a_verdict_recorded_online_whose_answer_was_lost_says_its_number_once_sent_again(browser, event_server):
    """The service recorded the challenge, but its answer never reached the phone (an instance
    killed after its COMMIT): the phone judged on its own copy and queued the verdict with the same
    key. Sent again, the record answers that key is its row already (409 idempotency-conflict,
    with the row's number for this device only): the line says where the verdict went, and
    nothing waits or is counted refused."""
    director, code, phone = judge_in_a_round(browser, event_server)
    try:
        page = pair_phone(phone, f"/#pair={code}")
        ready(page)
        answered = []

        def lost(route):  # the request reaches the service; its answer is lost on the way back
            answered.append(route.fetch().status)
            route.abort("connectionreset")

        page.route("**/v1/challenge", lost, times=1)
        shown = play(page, "CARRO", "CHICOX")
        assert "JUGADA NO VÁLIDA" in shown and HERE in shown and answered == [200]
        [row] = director.ask("GET", "/v1/records")["records"]
        assert row["offline"] is False and row["words"] == ["CARRO", "CHICOX"]
        assert flushed(page) == 0
        expect(page.locator(".v-offline")).to_contain_text(f"Ya en el registro: nº {row['seq']}")
        assert "Irá al registro" not in page.locator("#verdict").inner_text()
        assert page.locator("#offline-note").is_hidden()  # nothing waiting, nothing refused
        assert len(director.ask("GET", "/v1/records")["records"]) == 1
        assert phone.problems == []
    finally:
        phone.close()


def test_where_indexeddb_is_refused_an_offline_verdict_waits_in_the_tab_and_reaches_the_record(browser, event_server):
    director, code, phone = judge_in_a_round(browser, event_server)
    try:
        page = paired_with(phone, code, NO_INDEXEDDB)  # the copy judges in this tab, kept nowhere
        phone.context.set_offline(True)
        shown = play(page, "CARRO", "CHICOX")
        assert "JUGADA NO VÁLIDA" in shown and "Irá al registro" in shown
        assert page.evaluate("LexiconOffline.waiting()") == 1
        phone.context.set_offline(False)
        none_waiting(page)
        [row] = director.ask("GET", "/v1/records")["records"]
        assert row["offline"] is True and row["valid"] is False and row["words"] == ["CARRO", "CHICOX"]
        assert phone.problems == []
    finally:
        phone.close()


def test_in_an_event_the_browser_lexicon_is_for_paired_judge_devices_only(browser, event_server):
    director = Director(event_server)
    status, _, body = event_server.request("GET", "/v1/lexicons/es-page/browser")
    assert status == 401 and json.loads(body)["type"].endswith("/device-unknown")
    phone = Phone(browser, event_server)
    try:
        pair_phone(phone, f"/#pair={director.device('Consulta', 'lookup')}")
        token = phone.page.evaluate("localStorage.getItem('lexicon-judge.device')")
        status, _, body = event_server.request(
            "GET", "/v1/lexicons/es-page/browser", headers={"Authorization": f"Bearer {token}"}
        )
        assert status == 403 and json.loads(body)["type"].endswith("/offline-not-allowed")
        phone.page.wait_for_function("() => window.LexiconOffline")
        assert phone.page.evaluate("document.documentElement.dataset.offline") is None
        assert not phone.page.evaluate("LexiconOffline.ready('es-page')")
    finally:
        phone.close()


def test_a_lookup_device_deletes_the_copy_kept_when_it_was_a_judge_and_asks_for_none(browser, event_server):
    """The same phone paired first as a judge device (its copy kept), then as a lookup device: the
    copy is deleted, and during a round, with the network gone, it judges nothing, says nothing of
    a copy, and asks for none."""
    director = Director(event_server)
    phone = Phone(browser, event_server)
    try:
        page = pair_phone(phone, f"/#pair={director.device('Juez 1', 'judge')}")
        ready(page)
        page.goto(f"/#pair={director.device('Consulta', 'lookup')}")
        page.wait_for_function("() => /Consulta/.test(document.getElementById('event-device').textContent)")
        no_copy_kept(page)
        director.ask("POST", "/v1/rounds", {})
        before = len(phone.requests)
        page.reload()
        page.locator("#event-device").wait_for(state="visible")
        page.wait_for_function("() => window.LexiconOffline")
        # As the 30 s retry would, and until that retry is done: the 'online' handler asks for the
        # lexicon (a read of the copies kept, then the download) before it starts the flush, whose
        # own reads come after; flush() gives the flush under way, so a download would have been
        # asked for when it settles.
        page.evaluate("() => { window.dispatchEvent(new Event('online')); return LexiconOffline.flush(); }")
        assert page.evaluate("document.documentElement.dataset.offline") is None
        assert page.locator("#offline-mark").is_hidden() and page.locator("#offline-note").is_hidden()
        assert not page.evaluate("LexiconOffline.ready('es-page')")
        assert not [url for _, url in phone.requests[before:] if "/browser?" in url]
        phone.context.set_offline(True)
        no_verdict(page, "CARRO")
        assert director.ask("GET", "/v1/records")["records"] == []
    finally:
        phone.close()


def test_an_offline_verdict_of_a_device_revoked_meanwhile_is_refused_and_the_page_says_it_is_unpaired(
    browser, event_server
):
    """Judged offline, then the director revokes the phone: back online, the record answers 401.
    The verdict no longer waits for ever: it is counted as refused, and the page says the phone is
    no longer paired, as it does when a challenge gets that answer."""
    director = Director(event_server)
    added = director.ask("POST", "/v1/devices", {"name": "Juez 1", "role": "judge"})
    director.ask("POST", "/v1/rounds", {})
    phone = Phone(browser, event_server)
    try:
        page = pair_phone(phone, f"/#pair={added['code']}")
        ready(page)
        saved = json.loads(page.evaluate("localStorage.getItem('lexicon-judge.event')"))
        assert saved["body"]["device"]["role"] == "judge"
        assert page.evaluate("localStorage.getItem('lexicon-judge.device')") not in json.dumps(saved)  # no copy of it
        phone.context.set_offline(True)
        assert "Irá al registro" in play(page, "CARRO")
        director.ask("DELETE", f"/v1/devices/{added['device']['id']}")
        phone.context.set_offline(False)
        assert flushed(page) == 0
        mark = page.locator("#offline-note").inner_text()
        assert "que el registro no aceptó: 1" in mark and "pendientes" not in mark, mark
        assert "ya no está vinculado" in page.locator("#pair-error").text_content()
        assert page.evaluate("localStorage.getItem('lexicon-judge.device')") is None
        assert page.evaluate("localStorage.getItem('lexicon-judge.event')") is None  # what it was, forgotten too
        no_copy_kept(page)  # and its lexicon: a revoked phone may be a lost one
        assert director.ask("GET", "/v1/records")["records"] == []
    finally:
        phone.close()


@pytest.mark.parametrize("learns", ["challenge", "refresh"])
def test_a_judge_phone_revoked_deletes_its_copy_as_soon_as_it_learns_it(browser, event_server, learns):
    """The director revokes a judge's phone (lost, perhaps): the page deletes the lexicon it keeps
    as soon as the service says so, whether a challenge gets the 401 or the page's own look at the
    event does (when it is shown again, or every few seconds), not only when an offline verdict
    that happens to wait is refused."""
    director = Director(event_server)
    added = director.ask("POST", "/v1/devices", {"name": "Juez 1", "role": "judge"})
    director.ask("POST", "/v1/rounds", {})
    phone = Phone(browser, event_server)
    try:
        page = pair_phone(phone, f"/#pair={added['code']}")
        ready(page)
        assert page.evaluate(KEPT)
        director.ask("DELETE", f"/v1/devices/{added['device']['id']}")
        if learns == "challenge":
            type_word(page, 1, "CARRO")
            submit(page)
        else:
            page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
        expect(page.locator("#pair-error")).to_contain_text("ya no está vinculado")
        no_copy_kept(page)
        assert not page.evaluate("LexiconOffline.ready('es-page')")
        assert page.evaluate("LexiconOffline.waiting()") == 0 and director.ask("GET", "/v1/records")["records"] == []
    finally:
        phone.close()


# Each challenge's idempotency key smaller than the one before (ff…, fe…, fd…): a queue read in
# key order would be sent newest first.
FALLING_KEYS = """(() => { let next = 255;
    crypto.getRandomValues = (array) => array.fill(next--); })()"""


def test_offline_verdicts_reach_the_record_in_the_order_they_were_judged(browser, event_server):
    director, code, phone = judge_in_a_round(browser, event_server)
    try:
        page = paired_with(phone, code, FALLING_KEYS)
        phone.context.set_offline(True)
        judged = ["CARRO", "CASA", "CHICO", "PERRO"]
        for word in judged:
            assert "Irá al registro" in play(page, word)
            clear(page)
        assert page.evaluate("LexiconOffline.waiting()") == 4
        phone.context.set_offline(False)
        assert flushed(page) == 0
        rows = director.ask("GET", "/v1/records")["records"]
        assert [row["words"] for row in rows] == [[word] for word in judged]
        assert [row["device_time"] for row in rows] == sorted(row["device_time"] for row in rows)
    finally:
        phone.close()


def test_the_installed_app_reopened_with_no_network_still_judges_as_the_paired_device(browser, event_server, shots):
    """The app (its service worker) reopened where the service cannot be reached: the page knows
    this phone is a judge's device from what the service said last time, so it judges with its
    copy, and the verdict reaches the record once the service is back."""
    director = Director(event_server)
    code = director.device("Juez 1", "judge")
    director.ask("POST", "/v1/rounds", {})
    phone, page = installed(browser, event_server, code)
    try:
        phone.context.set_offline(True)
        page.reload()
        page.locator("#event-device").wait_for(state="visible")  # as the service said last time
        assert "Juez 1" in page.locator("#event-device").inner_text()
        ready(page)
        shown = play(page, "CARRO", "CHICO")
        assert "JUGADA VÁLIDA" in shown and HERE in shown and "Irá al registro" in shown
        shot(page, shots, "offline-07-app-reopened-in-an-event")
        phone.context.set_offline(False)
        none_waiting(page)
        [row] = director.ask("GET", "/v1/records")["records"]
        assert row["offline"] is True and row["valid"] is True and row["words"] == ["CARRO", "CHICO"]
        assert phone.foreign_requests() == []

        # What the service said is one token's, for an event day: another token's, or a day-old
        # one, makes the app reopened with no network a phone that cannot judge offline.
        for stale in ("saved.at -= 13 * 3600e3", "saved.token = 'another'"):
            page.reload()
            page.locator("#event-device").wait_for(state="visible")
            phone.context.set_offline(True)
            page.evaluate(f"""() => {{ const saved = JSON.parse(localStorage.getItem("lexicon-judge.event"));
                {stale}; localStorage.setItem("lexicon-judge.event", JSON.stringify(saved)); }}""")
            page.reload()
            page.locator("#keys .key").first.wait_for()
            page.evaluate("LexiconEvent.refresh()")  # the page asks the service, has no answer, decides
            assert page.locator("#event-device").is_hidden(), stale
            assert page.evaluate("document.documentElement.dataset.offline") != "ready", stale
            phone.context.set_offline(False)
    finally:
        phone.close()


def test_a_table_device_keeps_no_lexicon_and_offline_says_to_call_a_judge(browser, event_server):
    """The same phone paired first as a judge device (its copy kept), then as a table device (mesa):
    the copy is deleted, none is asked for, and with the network gone it judges nothing and says
    to call a judge, in the page's language."""
    director = Director(event_server)
    phone = Phone(browser, event_server)
    try:
        page = pair_phone(phone, f"/#pair={director.device('Juez 1', 'judge')}")
        ready(page)
        assert page.evaluate(KEPT)  # the judge's copy
        director.ask("POST", "/v1/rounds", {})
        page.goto(f"/#pair={director.device('Mesa 3', 'table', '3')}")
        page.wait_for_function("() => /Mesa 3/.test(document.getElementById('event-device').textContent)")
        no_copy_kept(page)
        before = len(phone.requests)
        page.reload()
        page.locator("#event-device").wait_for(state="visible")
        page.wait_for_function("() => window.LexiconOffline")
        page.evaluate("window.dispatchEvent(new Event('online'))")  # as the 30 s retry would
        assert page.evaluate(KEPT) == []
        assert page.evaluate("document.documentElement.dataset.offline") is None
        assert not page.evaluate("LexiconOffline.ready('es-page')")
        phone.context.set_offline(True)
        type_word(page, 1, "CARRO")
        submit(page)
        page.wait_for_function("() => document.getElementById('form-error').textContent")
        message = page.locator("#form-error").inner_text()
        assert message.startswith("Sin conexión con el servicio: llama a un juez") and "No hay veredicto" in message
        assert page.locator("#screen.show").count() == 0
        assert page.evaluate("LexiconOffline.waiting()") == 0
        assert not [url for _, url in phone.requests[before:] if "/browser?" in url]
        assert director.ask("GET", "/v1/records")["records"] == []
    finally:
        phone.close()


def test_the_app_reopened_offline_shows_the_round_of_its_last_record_not_the_one_it_asked_about(browser, event_server):
    """A judge's device in round 1 loses the network; the director closes round 1 and opens round
    2; its verdict judged offline, showing round 1 (the phone could not know), is recorded when the
    network is back outside rounds with the round it showed (round 1 was closed then: it is never
    moved into round 2); the page learns round 2, and reopened with no network again it says
    round 2, not round 1."""
    director = Director(event_server)
    code = director.device("Juez 3", "judge")
    director.ask("POST", "/v1/rounds", {"number": 1})
    phone, page = installed(browser, event_server, code)
    try:
        assert page.locator("#event-round").inner_text() == "Ronda 1"
        phone.context.set_offline(True)
        director.ask("POST", "/v1/rounds/close", {})
        director.ask("POST", "/v1/rounds", {"number": 2})
        assert "JUGADA VÁLIDA" in play(page, "CARRO")
        phone.context.set_offline(False)
        assert flushed(page) == 0
        [row] = director.ask("GET", "/v1/records")["records"]
        assert (row["round"], row["shown_round"]) == (None, 1)
        page.wait_for_function("() => document.getElementById('event-round').textContent === 'Ronda 2'")
        phone.context.set_offline(True)
        page.reload()
        page.locator("#event-device").wait_for(state="visible")
        assert page.locator("#event-round").inner_text() == "Ronda 2"
    finally:
        phone.close()


def test_an_offline_verdict_filed_outside_rounds_says_so_beside_its_number(browser, page_lexicons, tmp_path):
    """A Catalan judge's phone with no network shows *Ronda 1* on its verdict after the director
    closed round 1 and opened round 2: the record files it outside rounds (never in round 2), and
    the console marks why. The phone said only *Ja al registre: núm. 1* under that verdict, and the
    judge wrote round 1 on the slip beside the number, as if the row were of round 1. Its line says
    the row is outside rounds, and why, in the page's language; a verdict filed in the round it
    showed says its number alone."""
    server = phone_states.event_server(page_lexicons, tmp_path)  # a verdict stays until Borrar
    phone = Phone(browser, server, locale="ca-ES")
    try:
        director = Director(server)
        code = director.device("Juez 1", "judge")
        director.ask("POST", "/v1/rounds", {"number": 1})
        page = pair_phone(phone, f"/#pair={code}")
        ready(page)
        phone.context.set_offline(True)
        shown = play(page, "CASA")
        assert "Ronda 1" in shown and "Anirà al registre quan torni la connexió" in shown
        phone.context.set_offline(False)
        assert flushed(page) == 0
        [row] = director.ask("GET", "/v1/records")["records"]
        assert (row["round"], row["shown_round"]) == (1, 1)  # filed in the round it showed: its number alone
        line = page.locator("#verdict .v-offline")
        expect(line).to_contain_text("Ja al registre")
        assert line.inner_text().endswith(f"Ja al registre: núm. {row['seq']}"), line.inner_text()
        clear(page)
        phone.context.set_offline(True)
        director.ask("POST", "/v1/rounds/close", {})
        director.ask("POST", "/v1/rounds", {"number": 2})
        shown = play(page, "CARRO")
        assert "Ronda 1" in shown and "Anirà al registre quan torni la connexió" in shown
        phone.context.set_offline(False)
        assert flushed(page) == 0
        row = next(row for row in director.ask("GET", "/v1/records")["records"] if row["words"] == ["CARRO"])
        assert (row["round"], row["shown_round"], row["words"]) == (None, 1, ["CARRO"])
        expect(line).to_contain_text(
            f"Ja al registre: núm. {row['seq']}, fora de ronda: la ronda 1 no era oberta a aquella hora"
        )
    finally:
        phone.close()
        stop_soon(server)


def test_an_offline_verdict_keeps_the_round_its_phone_showed_and_the_head_waits_for_it(browser, event_server):
    """A judge's phone with no network judges ARROZ during round 2 and shows *Ronda 2*; the
    director closes round 2 (the console names Juez 2, a judge's phone silent for over a minute,
    and the head is not final) and opens round 3; the phone syncs: its row is in round 2 (it used
    to be recorded in round 3, or outside rounds, at the sync's time), marked on the console's list
    and the *papeleta* as judged offline and when it was received. Juez 2 says it holds nothing:
    the head becomes final, taken again to cover that row."""
    director = Director(event_server)
    code = director.device("Juez 1", "judge")
    paired = json.loads(
        event_server.request(
            "POST",
            "/v1/devices/pair",
            json.dumps({"code": director.device("Juez 2", "judge")}).encode(),
            {"Content-Type": "application/json"},
        )[2]
    )
    director.ask("POST", "/v1/rounds", {"number": 2})
    phone, laptop = Phone(browser, event_server), Phone(browser, event_server, viewport={"width": 1280, "height": 860})
    try:
        page = pair_phone(phone, f"/#pair={code}")
        ready(page)
        phone.context.set_offline(True)
        shown = play(page, "ARROZ")
        assert "JUGADA VÁLIDA" in shown and "Ronda 2" in shown and HERE in shown
        console = laptop.page
        console.on("dialog", lambda dialog: dialog.accept())
        console.goto("/director")
        console.locator("#password").fill(PASSWORD)
        console.get_by_role("button", name="Entrar").click()
        console.locator("#round-state.open").wait_for()
        console.locator("#round-close").click()
        pending = console.locator("#round-pending")
        expect(pending).to_contain_text("pueden guardar veredictos sin conexión de la ronda 2: Juez 2")
        assert "Juez 1" not in pending.inner_text()  # in touch less than a minute ago
        assert console.locator("#round-head.pending").is_visible() and console.locator("#round-confirm").is_visible()
        closed = director.ask("GET", "/v1/rounds")["rounds"][0]
        assert closed["head_final"] is False and [d["name"] for d in closed["pending"]] == ["Juez 2"]
        director.ask("POST", "/v1/rounds", {"number": 3})
        phone.context.set_offline(False)
        until(lambda: page.evaluate("LexiconOffline.flush().then(() => LexiconOffline.waiting())") == 0, "synced")
        [row] = director.ask("GET", "/v1/records")["records"]
        assert (row["round"], row["shown_round"], row["offline"], row["words"]) == (2, 2, True, ["ARROZ"])
        assert director.ask("GET", "/v1/records?round=2")["records"] == [row]
        # Juez 2 comes back holding nothing: round 2's head is final, and covers the late row.
        status, _, body = event_server.request(
            "GET", "/v1/event?waiting=0", None, {"Authorization": f"Bearer {paired['token']}"}
        )
        assert status == 200, body
        final = director.ask("GET", "/v1/rounds")["rounds"][0]
        assert final["head_final"] and final["pending"] == [] and final["head_seq"] == row["seq"]
        console.reload()
        console.locator("#records tbody tr").first.wait_for()
        mark = console.locator("#records tbody tr .offline-mark").inner_text()
        assert mark.startswith("juzgado sin conexión a las ") and ", recibido a las " in mark, mark
        console.locator(f'[data-slip="{row["seq"]}"]').click()
        expect(console.locator("#slip-fields")).to_contain_text("juzgado sin conexión a las ")
    finally:
        phone.close()
        laptop.close()
    assert laptop.problems == []


def test_in_an_event_a_phone_without_a_device_is_offered_no_slip_the_record_would_refuse(browser, event_server):
    """Out of rounds a phone that is not paired looks plays up, each recorded. Its page offered the
    slip's *Mesa* and *Ronda* (as outside an event), and a table typed there was refused (422
    `slip-not-allowed`: only a judge's challenge carries a slip's table), with no verdict, and the
    round was never sent. Now the page shows no slip; a paired judge's still has its *Mesa*."""
    director = Director(event_server)
    phone = Phone(browser, event_server)
    try:
        page = phone.page
        page.goto("/")
        page.wait_for_function("() => window.LexiconOffline")
        expect(page.locator("#pair-box")).to_be_visible()
        expect(page.locator("#slip-box")).to_be_hidden()
        assert "Registro nº 1" in play(page, "CARRO")
        clear(page)
        page.goto(f"/#pair={director.device('Juez 1', 'judge')}")
        page.wait_for_function("() => document.getElementById('event-device').textContent !== ''")
        expect(page.locator("#table")).to_be_visible()
        expect(page.locator("#round")).to_be_hidden()  # the record takes the round
    finally:
        phone.close()
