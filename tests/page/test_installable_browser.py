"""The installable app in Chromium (service/installable.py, static/sw.js): on http://127.0.0.1, a
secure context, the service worker registers, fills its cache, and the page opens and judges
with no network at all; over plain HTTP on a venue address (not a secure context) nothing is registered and
nothing fails."""

from __future__ import annotations

import json
import os

import pytest

from tests.service.test_reload import reload
from tests.support import LiveServer, stop_soon, until

from .conftest import Phone
from .test_page_browser import add_word, open_page, submit, type_word, verdict

pytestmark = pytest.mark.server  # its phones talk to a live `lexicon serve` of its own

VENUE = "http://juez.sede.test"  # a name, not localhost: a plain-HTTP origin is no secure context


def controlled(page) -> None:
    """Waits until the service worker is active and controls the page."""
    page.evaluate("navigator.serviceWorker.ready")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")


@pytest.fixture
def phone(browser, live):
    """The `phone` of conftest, with its service worker allowed."""
    device = Phone(browser, live, service_workers="allow")
    yield device
    device.close()
    assert device.foreign_requests() == [] and device.problems == []


def test_the_worker_registers_and_the_app_opens_and_judges_offline(phone, shots):
    page = open_page(phone)
    assert page.evaluate("window.isSecureContext") is True
    controlled(page)
    scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == phone.server.url + "/"
    cached = page.evaluate("""caches.keys().then((names) => Promise.all(names.map((name) =>
        caches.open(name).then((cache) => cache.keys()).then((keys) => [name, keys.map((r) => r.url)]))))""")
    assert len(cached) == 1 and cached[0][0].startswith("lexicon-judge-")
    paths = {url.removeprefix(phone.server.url).split("?")[0] for url in cached[0][1]}
    assert {
        "/",
        "/static/judge.js",
        "/static/judge.css",
        "/static/tiles.js",
        "/static/common.js",
        "/static/offline.js",
        "/static/lexicon.js",
        "/app.webmanifest",
    } <= paths
    # what the phone did not ask for is not kept: the icons, the other lexicons (its own is kept
    # when the page's download of it went through the worker, which depends on when it took over)
    others = [path for path in paths if "/browser" in path and path != "/v1/lexicons/es-page/browser"]
    assert not [path for path in paths if "icon-" in path] and not others, paths

    phone.context.set_offline(True)
    try:
        page.reload()
        page.locator("#keys .key").first.wait_for()
        assert page.locator("#lexicon").input_value() == "es-page"
        # The page's own copy of the browser lexicon (offline.js, IndexedDB) judges.
        page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'")
        type_word(page, 1, "CARRO")
        add_word(page)
        type_word(page, 2, "CHICO")
        submit(page)
        shown = verdict(page)
        assert "JUGADA VÁLIDA" in shown and "Juzgada en este teléfono" in shown
        shots.mkdir(exist_ok=True)
        page.screenshot(path=str(shots / "app-offline-valid.png"))
        page.locator("#clear").click()
        page.locator("#screen.show").wait_for(state="hidden")
        type_word(page, 1, "CARRO")
        add_word(page)
        type_word(page, 2, "CHOCO")
        submit(page)
        assert "JUGADA NO VÁLIDA" in verdict(page)
    finally:
        phone.context.set_offline(False)
    phone.problems.clear()  # Chromium logs the refused POSTs while offline


def test_a_first_visit_downloads_the_lexicon_once_and_nothing_it_does_not_use(browser, page_lexicons, tmp_path):
    """Counted by the service (its access log): the page's browser lexicon once, none of the
    other lexicons, no icon; the worker's install takes the page's files from the HTTP cache."""
    server = LiveServer(tmp_path, page_lexicons.values(), LEXICON_LOG_LEVEL="info")
    server.wait_ready()
    phone = Phone(browser, server, service_workers="allow")
    try:
        page = open_page(phone)
        controlled(page)
        until(lambda: len(page.evaluate("caches.keys()")) == 1, "the worker's one cache")
        # The phone has every answer it asked for: the page's copy settled (open_page), the worker
        # installed (its cache filled before it became active) and activated (it fetches nothing
        # then). Each is in the access log once the service has written its line.

        def routes(logs: str) -> list[str]:
            return [json.loads(line)["path"] for line in logs.splitlines() if '"gunicorn.access"' in line]

        asked = server.logged(
            lambda logs: (
                (paths := routes(logs)).count("/static/<name>") >= 7
                and "/v1/lexicons/<lexicon_id>/browser" in paths
                and paths
            ),
            "the page's seven files and its browser lexicon in the access log",
        )
        # the log names routes, not files: one browser lexicon, and each of the page's seven files
        # once (judge.css, common.js, tiles.js, judge.js; lexicon.js, offline-data.js, offline.js)
        assert asked.count("/v1/lexicons/<lexicon_id>/browser") == 1, asked
        assert asked.count("/static/<name>") == 7, asked
        assert phone.problems == []
    finally:
        phone.close()
        stop_soon(server)


def test_a_new_worker_replaces_what_the_phone_keeps(browser, page_lexicons, tmp_path):
    """`lexicon reload` with another setting changes the page, so sw.js: the phone's next visit
    installs the new worker, which fills a cache of its own and drops the old one."""
    server = LiveServer(tmp_path, page_lexicons.values(), LEXICON_VERDICT_SECONDS="4", LEXICON_LOG_LEVEL="warning")
    server.wait_ready()
    phone = Phone(browser, server, service_workers="allow")
    try:
        page = open_page(phone)
        controlled(page)
        old = page.evaluate("caches.keys()")
        assert len(old) == 1
        done = reload(
            server.port,
            LEXICON_FILES=os.pathsep.join(str(p) for p in page_lexicons.values()),
            LEXICON_VERDICT_SECONDS="9",
        )
        assert done.returncode == 0, done.stderr
        new = json.loads(server.get("/sw.js")[1].split(b"\n", 1)[0].removeprefix(b"const SHELL = ").rstrip(b";"))
        assert new["cache"] != old[0]
        page.reload()  # a visit: the browser checks sw.js
        until(
            lambda: page.evaluate("caches.keys()") == [new["cache"]],
            "the new worker to fill its cache and drop the old one",
        )
        kept = page.evaluate("(name) => caches.open(name).then((c) => c.keys()).then((k) => k.length)", new["cache"])
        assert kept >= len(new["urls"])  # the shell, and what the page asked for since
        assert phone.problems == []
    finally:
        phone.close()
        stop_soon(server)


def test_the_manifest_names_the_app_in_the_phones_language(browser, live):
    for locale, name in (("es-ES", "Impugnaciones · Lexicon Judge"), ("ca-ES", "Impugnacions · Lexicon Judge")):
        phone = Phone(browser, live, locale=locale, service_workers="allow")
        try:
            page = open_page(phone)
            href = page.evaluate("document.querySelector('link[rel=manifest]').href")
            manifest = json.loads(page.evaluate("(url) => fetch(url).then((r) => r.text())", href))
            assert manifest["name"] == name and manifest["display"] == "standalone"
            for icon in manifest["icons"]:
                status = page.evaluate(
                    "(url) => fetch(url).then((r) => r.status)",
                    page.evaluate("([src, base]) => new URL(src, base).href", [icon["src"], href]),
                )
                assert status == 200, icon
            assert phone.problems == []
        finally:
            phone.close()


def test_over_plain_http_on_a_venue_address_nothing_registers_and_nothing_fails(browser, live):
    """The page at a host name, not localhost, over HTTP: browsers offer no service worker there."""
    phone = Phone(browser, live, service_workers="allow")

    def forward(route):  # the venue's name answered by the live service
        response = route.fetch(url=route.request.url.replace(VENUE, live.url))
        route.fulfill(response=response)

    phone.context.route(VENUE + "/**", forward)
    try:
        page = phone.page
        page.goto(VENUE + "/")
        page.locator("#keys .key").first.wait_for()
        page.wait_for_load_state("load")
        assert page.evaluate("[window.isSecureContext, 'serviceWorker' in navigator]") == [False, False]
        type_word(page, 1, "CASA")
        submit(page)
        page.locator("#screen.show").wait_for()
        assert "JUGADA VÁLIDA" in page.locator("#verdict").inner_text()
        assert not any(url.endswith("/sw.js") for _, url in phone.requests)
        assert phone.problems == []
    finally:
        phone.close()
