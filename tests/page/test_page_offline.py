"""The judge's page keeps judging when the network goes, in Debian's Chromium.

After first paint the page keeps the browser lexicon of the lexicon in use (IndexedDB) and marks
itself `data-offline="ready"`; when the service cannot be reached (the browser offline, the
service killed, no answer in 3 s, a 5xx, a captive portal's page) it gives the same joint verdict
on the phone, saying so. A corrupt download, or another lexicon's file, is refused; a new list
replaces the copy. In an event: test_page_offline_event.py. Screenshots:
test-output/page/offline-*.png.
"""

from __future__ import annotations

import json
import os
import re
import signal

import pytest

from tests.support import LiveServer, compile_list, stop_soon, until

from .conftest import ES_WORDS, VERDICT_SECONDS, Phone
from .test_page_browser import add_word, open_page, own_clock, shot, stop_clock, submit, type_word, verdict, wait_guard

pytestmark = pytest.mark.server  # its phones talk to a live `lexicon serve` of its own

HERE = "Juzgada en este teléfono, sin conexión"
PORTAL = "<!doctype html><title>Wi-Fi del hotel</title><form>Acepto las condiciones</form>"
BROWSER = "**/v1/lexicons/*/browser?*"


def ready(page) -> None:
    page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'")


def play(page, *words: str) -> str:
    for n, text in enumerate(words, 1):
        if n > 1:
            add_word(page)
        type_word(page, n, text)
    submit(page)
    return verdict(page)


def clear(page) -> None:
    wait_guard(page)
    page.locator("#clear").click()
    page.locator("#screen.show").wait_for(state="detached")


def no_verdict(page, word: str) -> None:
    """Asks with the service out of reach and no copy to judge with: the page says so, no verdict."""
    type_word(page, 1, word)
    submit(page)
    page.wait_for_function("() => document.getElementById('form-error').textContent")
    assert page.locator("#form-error").inner_text().startswith("Sin conexión con el servicio")
    assert page.locator("#screen.show").count() == 0


def served_bytes(server: LiveServer, lexicon: str) -> bytes:
    status, _, body = server.request("GET", f"/v1/lexicons/{lexicon}/browser", headers={"Accept-Encoding": "identity"})
    assert status == 200
    return body


@pytest.fixture
def own_live(page_lexicons, tmp_path):
    """A service of this test's own, which it may kill."""
    server = LiveServer(
        tmp_path, page_lexicons.values(), LEXICON_VERDICT_SECONDS=str(VERDICT_SECONDS), LEXICON_LOG_LEVEL="warning"
    )
    server.wait_ready()
    yield server
    stop_soon(server)


# -- the copy on the phone -----------------------------------------------------------------------


def test_the_page_keeps_the_lexicon_after_first_paint_and_then_uses_its_own_copy(phone, shots):
    page = phone.page
    page.goto("/")
    ready(page)
    mark = page.locator("#offline-mark")
    # in the lexicon's line, a mark whose words are said (aria-live), not shown; the sentence as
    # its title and in the lexicon's identity, one tap away
    sentence = "Juzga sin conexión: este teléfono guarda una copia del léxico."
    assert mark.inner_text() == "Juzga sin conexión" and mark.get_attribute("aria-live") == "polite"
    # an icon's size, its words under it, cut off
    assert mark.evaluate("""(e) => { const r = document.createRange(), box = e.getBoundingClientRect();
        r.selectNodeContents(e);
        return box.width < 40 && box.height < 40 && r.getBoundingClientRect().top >= box.bottom; }""")
    assert mark.get_attribute("title") == sentence
    assert page.locator("#offline-ready").is_hidden()
    page.locator("#lexicon-summary").click()
    assert page.locator("#offline-ready").inner_text() == sentence and page.locator("#offline-ready").is_visible()
    page.locator("#lexicon-summary").click()
    stored = page.evaluate("""() => new Promise((resolve) => indexedDB.open("lexicon-judge").onsuccess = (e) =>
        e.target.result.transaction("lexicons").objectStore("lexicons").getAll().onsuccess = (r) =>
        resolve(r.target.result.map((item) => [item.id, item.checksum, item.bytes.byteLength])))""")
    checksums = page.evaluate("window.LexiconOfflineData.checksums")
    assert [(i, c) for i, c, _ in stored] == [("es-page", checksums["es-page"])] and stored[0][2] > 100
    # the kept copy, read as the page reads it: by lexicon.js's WebAssembly, which the page's
    # Content-Security-Policy allows ('wasm-unsafe-eval'); JavaScript only where it is refused
    engine = page.evaluate("""() => new Promise((resolve) => indexedDB.open("lexicon-judge").onsuccess = (e) =>
        e.target.result.transaction("lexicons").objectStore("lexicons").getAll().onsuccess = (r) =>
        LexiconDawg.load(r.target.result[0].bytes).then((lexicon) => resolve(lexicon.engine)))""")
    assert engine == "wasm"
    shot(page, shots, "offline-01-ready")

    page.get_by_role("button", name="Català", exact=True).tap()  # the other lexicon, kept too
    page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'")
    assert mark.inner_text() == "Jutja sense connexió"
    assert mark.get_attribute("title") == "Jutja sense connexió: aquest telèfon guarda una còpia del lèxic."
    assert page.evaluate("LexiconOffline.ready('ca-page')")

    # Loaded again with the download refused: the copy kept under the listed checksum is used,
    # without asking the service for another.
    page.route(BROWSER, lambda route: route.abort())
    before = len(phone.requests)
    page.reload()
    ready(page)
    assert page.evaluate("LexiconOffline.ready('ca-page')")
    assert not [url for _, url in phone.requests[before:] if "/browser?" in url]


KEPT = """() => new Promise((resolve) => indexedDB.open("lexicon-judge").onsuccess = (e) =>
    e.target.result.transaction("lexicons").objectStore("lexicons").getAll().onsuccess = (r) =>
    resolve(r.target.result.map((item) => [item.id, item.checksum])))"""


def test_a_new_list_replaces_the_old_copy_of_the_same_lexicon_only(phone):
    page = open_page(phone)
    ready(page)
    page.evaluate("""() => new Promise((resolve) => indexedDB.open("lexicon-judge").onsuccess = (e) => {
        const transaction = e.target.result.transaction("lexicons", "readwrite"), store = transaction.objectStore("lexicons");
        store.clear();  // as if this phone had kept an older es-page, and a copy of another lexicon
        store.put({checksum: "0".repeat(64), id: "es-page", bytes: new ArrayBuffer(8)});
        store.put({checksum: "1".repeat(64), id: "another", bytes: new ArrayBuffer(8)});
        transaction.oncomplete = resolve; })""")
    page.reload()
    ready(page)
    listed = page.evaluate("window.LexiconOfflineData.checksums['es-page']")
    assert sorted(map(tuple, page.evaluate(KEPT))) == [("another", "1" * 64), ("es-page", listed)]


def test_with_the_browser_offline_the_phone_judges_and_says_so(phone, shots):
    own_clock(phone.page)
    page = open_page(phone)
    ready(page)
    phone.context.set_offline(True)
    type_word(page, 1, "CARRO")
    add_word(page)
    type_word(page, 2, "CHICO")
    stop_clock(page)
    submit(page)
    shown = verdict(page)  # with the page's time standing still: a network error is known at once,
    page.clock.resume()  # not after the 3 s wait for an answer
    assert "JUGADA VÁLIDA" in shown and HERE in shown
    checksum = page.evaluate("window.LexiconOfflineData.checksums['es-page']")
    assert re.search(rf"Prueba español · versión 2026\.1 · suma {checksum[:8]}", shown)
    shot(page, shots, "offline-02-valid")
    clear(page)
    shown = play(page, "CARRO", "CHICOX")
    assert "JUGADA NO VÁLIDA" in shown and HERE in shown
    assert "CHICOX" in shown and "Papeleta: NO" in shown  # the words played, never which failed
    shot(page, shots, "offline-03-invalid")
    clear(page)
    phone.context.set_offline(False)
    shown = play(page, "CARRO")  # back online: the service judges, as before
    assert "JUGADA VÁLIDA" in shown and HERE not in shown
    assert phone.requests[-1] == ("POST", phone.server.url + "/v1/challenge")


def test_with_the_service_killed_the_phone_judges(browser, own_live, shots):
    phone = Phone(browser, own_live)
    try:
        page = open_page(phone)
        ready(page)
        os.killpg(own_live.process.pid, signal.SIGKILL)  # the service this test started, gone
        own_live.process.wait(10)
        shown = play(page, "LLAVE", "CASA")
        assert "JUGADA VÁLIDA" in shown and HERE in shown
        clear(page)
        shown = play(page, "LLAVE", "CASAX")
        assert "JUGADA NO VÁLIDA" in shown and HERE in shown
        shot(page, shots, "offline-04-service-killed")
        assert phone.foreign_requests() == [] and phone.problems == []
    finally:
        phone.close()


def test_no_answer_in_3_s_or_a_5xx_is_judged_on_the_phone_but_a_4xx_is_shown(phone):
    own_clock(phone.page)
    page = open_page(phone)
    ready(page)
    page.route("**/v1/challenge", lambda route: None)  # asked, never answered
    type_word(page, 1, "PERRO")
    stop_clock(page)
    with page.expect_request("**/v1/challenge"):
        submit(page)
    page.clock.run_for(2_900)
    assert page.locator("#screen.show").count() == 0  # still waiting for the service
    page.clock.run_for(200)  # the 3 s of a phone with a copy, not the 10 s without
    shown = verdict(page)
    page.clock.resume()
    assert "JUGADA VÁLIDA" in shown and HERE in shown
    clear(page)
    page.unroute("**/v1/challenge")
    page.route("**/v1/challenge", lambda route: route.fulfill(status=503, body="{}"))
    shown = play(page, "PERRO")
    assert "JUGADA VÁLIDA" in shown and HERE in shown
    clear(page)
    page.unroute("**/v1/challenge")
    page.route("**/v1/challenge", lambda route: route.fulfill(status=200, body=PORTAL, content_type="text/html"))
    shown = play(page, "PERRO")  # a venue's captive portal: not the service
    assert "JUGADA VÁLIDA" in shown and HERE in shown
    clear(page)
    page.unroute("**/v1/challenge")
    page.route(
        "**/v1/challenge",
        lambda route: route.fulfill(
            status=429,
            content_type="application/problem+json",
            body=json.dumps(
                {"type": "tag:lexicon-judge,2026:problem/rate-limited", "title": "Too many requests", "status": 429}
            ),
        ),
    )
    type_word(page, 1, "PERRO")
    submit(page)
    page.wait_for_function("() => document.getElementById('form-error').textContent")
    shown = page.locator("#form-error").inner_text()  # the page's own words for the problem, not its title
    assert "Demasiadas consultas" in shown and "Too many" not in shown
    assert page.locator("#screen.show").count() == 0


def test_a_corrupt_download_is_refused_and_never_used(phone, shots):
    bytes_ = bytearray(served_bytes(phone.server, "es-page"))
    bytes_[len(bytes_) // 2] ^= 0x40
    page = phone.page
    page.route(
        BROWSER, lambda route: route.fulfill(status=200, body=bytes(bytes_), content_type="application/octet-stream")
    )
    page.goto("/")
    page.wait_for_function("() => document.documentElement.dataset.offline === 'failed'")
    assert "No se puede juzgar sin conexión" in page.locator("#offline-note").inner_text()
    assert page.locator("#offline-mark").inner_text() == "" and page.locator("#offline-ready").text_content() == ""
    assert not page.evaluate("LexiconOffline.ready('es-page')")
    stored = page.evaluate("""() => new Promise((resolve) => indexedDB.open("lexicon-judge").onsuccess = (e) =>
        e.target.result.transaction("lexicons").objectStore("lexicons").count().onsuccess = (r) => resolve(r.target.result))""")
    assert stored == 0
    shot(page, shots, "offline-05-corrupt")
    phone.context.set_offline(True)
    no_verdict(page, "CARRO")


def test_the_file_of_another_lexicon_is_refused_even_one_the_page_lists(phone):
    """The Catalan list's intact file served as the Spanish one's (a cache or a proxy mixing up two
    URLs): its checksum is one the page lists, but not the Spanish list's, so it is never used."""
    catalan = served_bytes(phone.server, "ca-page")
    page = phone.page
    page.route(
        "**/v1/lexicons/es-page/browser?*",
        lambda route: route.fulfill(status=200, body=catalan, content_type="application/octet-stream"),
    )
    page.goto("/")
    page.wait_for_function("() => document.documentElement.dataset.offline === 'failed'")
    assert not page.evaluate("LexiconOffline.ready('es-page')")
    assert page.evaluate(KEPT) == []
    phone.context.set_offline(True)
    no_verdict(page, "CASA")  # a word of both lists


CUT_OFF = """(() => {  // the first download of a browser lexicon is cut off while its body comes
    const fetched = window.fetch;
    let cut = 1;
    window.seen = [];
    new MutationObserver(() => window.seen.push(document.documentElement.dataset.offline))
        .observe(document, { attributes: true, subtree: true, attributeFilter: ["data-offline"] });
    window.fetch = function (url) {
        if (/[/]browser[?]/.test(String(url)) && cut-- > 0) {
            return Promise.resolve(new Response(new ReadableStream({ start(c) { c.error(new TypeError("cut off")); } })));
        }
        return fetched.apply(this, arguments);
    };
})()"""


def test_a_download_cut_off_on_the_way_is_tried_again_not_called_damaged(phone):
    page = phone.page
    page.add_init_script(CUT_OFF)
    page.goto("/")
    # The network back (the "online" event), until the copy is kept: it never was "damaged".
    page.wait_for_function(
        """() => document.documentElement.dataset.offline === 'ready' ||
        void window.dispatchEvent(new Event("online"))""",
        polling=300,
    )
    assert "failed" not in page.evaluate("window.seen")
    assert [(i, c) for i, c in page.evaluate(KEPT)] == [
        ("es-page", page.evaluate("LexiconOfflineData.checksums['es-page']"))
    ]


def test_a_captive_portal_s_page_instead_of_the_copy_is_tried_again_not_called_damaged(phone):
    page = phone.page
    answered = []

    def portal_once(route):
        if answered:
            route.continue_()
        else:
            answered.append(route.request.url)
            route.fulfill(status=200, body=PORTAL, content_type="text/html")

    page.add_init_script(CUT_OFF.replace("let cut = 1", "let cut = 0"))  # only window.seen
    page.route(BROWSER, portal_once)
    page.goto("/")
    page.wait_for_function(
        """() => document.documentElement.dataset.offline === 'ready' ||
        void window.dispatchEvent(new Event("online"))""",
        polling=300,
    )
    assert answered and "failed" not in page.evaluate("window.seen")


def test_without_a_copy_the_page_says_it_cannot_reach_the_service(phone):
    page = phone.page
    page.route(BROWSER, lambda route: route.abort())
    page.goto("/")
    page.wait_for_function("() => window.LexiconOffline")
    phone.context.set_offline(True)
    no_verdict(page, "CARRO")
    assert page.evaluate("document.documentElement.dataset.offline") is None


def test_a_new_list_under_the_same_id_replaces_the_copy_in_the_open_tab_and_after_a_reload(browser, tmp_path):
    """A new list under the same lexicon id (`lexicon reload`, or a restart). The open tab never
    judges with its old copy once a verdict of the service names the new list. Reloaded, it fetches
    the new one: the browser's HTTP cache still holds the old file at the lexicon's URL, fresh for a
    year (immutable), so the page asks by checksum, or it would get the old bytes for good."""
    path = compile_list(tmp_path / "es.lex", ES_WORDS, "es", "es-page", "Prueba español", "2026.1")
    server = LiveServer(tmp_path, [path], LEXICON_LOG_LEVEL="warning")
    server.wait_ready()
    phone = Phone(browser, server)
    try:
        page = phone.page
        page.goto("/")
        ready(page)
        old = page.evaluate("LexiconOfflineData.checksums['es-page']")
        compile_list(tmp_path / "new.lex", ES_WORDS + ["ZORRO"], "es", "es-page", "Prueba español", "2026.2")
        os.replace(tmp_path / "new.lex", path)
        os.kill(server.process.pid, signal.SIGHUP)  # the master this test started: read the files again
        until(lambda: b"2026.2" in server.get("/v1/lexicons")[1], "the new list served after SIGHUP")
        # The tab, not reloaded, learns from the service's next verdict that its copy is of an old list.
        # An old worker may answer once more: asked again, the page cleared between two plays.
        until(lambda: "2026.2" in play(page, "CASA") or clear(page), "a verdict of the new list")
        clear(page)
        assert "recarga la página" in page.locator("#offline-note").inner_text()
        assert page.evaluate("document.documentElement.dataset.offline") is None
        phone.context.set_offline(True)
        no_verdict(page, "CASA")
        phone.context.set_offline(False)

        def reloaded_on_the_new_list() -> bool:  # an old worker may serve the page once more
            page.reload()
            page.wait_for_function("() => window.LexiconOfflineData")
            return page.evaluate("LexiconOfflineData.checksums['es-page']") != old

        until(reloaded_on_the_new_list, "the page reloaded on the new list")
        ready(page)
        new = page.evaluate("LexiconOfflineData.checksums['es-page']")
        assert page.evaluate(KEPT) == [["es-page", new]]
        assert [url for _, url in phone.requests if "/browser?" in url][-1].endswith(f"/es-page/browser?v={new}")
        phone.context.set_offline(True)
        shown = play(page, "ZORRO")
        assert "JUGADA VÁLIDA" in shown and HERE in shown and "2026.2" in shown
    finally:
        phone.close()
        stop_soon(server)


def test_a_standalone_page_judges_on_the_phone_alone_with_the_bytes_it_is_given(phone):
    """The interface a page with no service uses (lexicon export-page): LexiconOfflineData.standalone
    and LexiconOffline.load(bytes); judge.js then never asks a service."""

    def standalone(route):
        body = (
            route.fetch()
            .text()
            .replace("window.LexiconOfflineData = {", 'window.LexiconOfflineData = {"standalone":true,', 1)
        )
        route.fulfill(status=200, body=body, content_type="text/javascript")

    page = phone.page
    page.route("**/static/offline-data.js*", standalone)
    page.goto("/")
    page.wait_for_function("() => window.LexiconOffline")
    assert page.evaluate("LexiconOffline.standalone") and not page.evaluate("LexiconOffline.ready('es-page')")
    assert not [url for _, url in phone.requests if "/browser?" in url]  # it fetches nothing itself
    bad = bytearray(served_bytes(phone.server, "es-page"))
    bad[40] ^= 1
    refused = page.evaluate(
        "(b) => LexiconOffline.load(new Uint8Array(b)).then(() => 'used', (e) => e.name)", list(bad)
    )
    assert refused == "LexiconFileError" and page.evaluate("document.documentElement.dataset.offline") == "failed"
    good = list(served_bytes(phone.server, "es-page"))
    assert page.evaluate("(b) => LexiconOffline.load(new Uint8Array(b)).then((l) => l.header.id)", good) == "es-page"
    ready(page)
    before = len(phone.requests)
    shown = play(page, "CARRO", "CHICO")
    assert "JUGADA VÁLIDA" in shown and HERE in shown
    assert len(phone.requests) == before  # no request at all
