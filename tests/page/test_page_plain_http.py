"""Honest offline over plain HTTP, in Chromium: on the venue's network (`http://192.168.1.20:8000/`:
no secure context, no service worker) the phone keeps the lexicon but not the page, so the page
says it judges offline only while this tab stays open; on the laptop itself (`http://127.0.0.1`,
a secure context, where the installed app keeps the page too) it says what it always did.

The venue's address is played by a name the browser sends to the live service through
Playwright's routing: to Chromium it is a plain-HTTP origin like a LAN address. The same routing
holds the lexicon's download until the page has been measured without its note, so that the note
arrives after: how a phone on a slow Wi-Fi sees it, every run."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from .conftest import PHONE
from .engines import close_context
from .phone_states import ZOOM_200, ready
from .test_phone_layout import assert_under_the_thumb

VENUE = "http://juez.test:8000"
# the phones' widths, the smallest first, and 390 x 844 at 200 % zoom
WIDTHS = {"320": (320, 568), "360": (360, 640), "390": (390, 844), "412": (412, 915), "390-zoom-200": ZOOM_200}
LOCALES = {"es": "es-ES", "ca": "ca-ES"}
NOTES = {
    "es": "Sin conexión, juzga solo con esta pestaña abierta.",
    "ca": "Sense connexió, només amb aquesta pestanya oberta.",
}
DAMAGED = {"es": "No se puede juzgar sin conexión", "ca": "No es pot jutjar sense connexió"}  # a damaged copy's note


class Venue:
    """A phone on the venue's network, whose lexicon's download waits for `release()`."""

    def __init__(self, browser, live, size: tuple[int, int], locale: str):
        width, height = size
        self.context = browser.new_context(
            base_url=VENUE, **{**PHONE, "locale": locale, "viewport": {"width": width, "height": height}}
        )
        self.live, self.held, self.holding, self.problems = live, [], True, []
        self.context.route(f"{VENUE}/**", self.route)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda error: self.problems.append(str(error)))

    def forward(self, route, damaged: bool = False) -> None:
        response = route.fetch(url=route.request.url.replace(VENUE, self.live.url))
        if not damaged:
            route.fulfill(response=response)
            return
        body = bytearray(response.body())
        body[len(body) // 2] ^= 0x40
        route.fulfill(response=response, body=bytes(body))

    def route(self, route) -> None:
        if self.holding and "/browser?" in route.request.url:
            self.held.append(route)
        else:
            self.forward(route)

    def release(self, damaged: bool = False) -> None:
        """The lexicon's download goes on (once the page has asked for it), or arrives `damaged`."""
        self.page.wait_for_function("() => true")  # the routing's calls handled
        deadline = time.monotonic() + 30  # only how long a broken run takes to say so
        while not self.held and time.monotonic() < deadline:
            self.page.wait_for_timeout(50)  # Playwright runs the route's handler meanwhile
        assert self.held, "the page never asked for its lexicon"
        self.holding = False
        for route in self.held:
            self.forward(route, damaged)

    def close(self) -> None:
        close_context(self.context)
        assert self.problems == []


@pytest.fixture
def venue(browser, live, request):
    size, locale = request.param
    phone = Venue(browser, live, size, locale)
    yield phone
    phone.close()


def word_1(page) -> float:
    return page.locator("#word-1").bounding_box()["y"]


@pytest.mark.parametrize("copy", ["kept", "damaged"])
@pytest.mark.parametrize(
    "venue, language",
    [((WIDTHS[w], LOCALES[lang]), lang) for w in WIDTHS for lang in LOCALES],
    ids=[f"{w}-{lang}" for w in WIDTHS for lang in LOCALES],
    indirect=["venue"],
)
def test_over_plain_http_the_note_comes_after_first_paint_and_moves_nothing(venue, language, copy):
    """Whichever note fills its place on its own (the copy kept, or refused as damaged), in either
    language, at every phone's width and at 200 % zoom: word 1 stays where it was first drawn."""
    page = venue.page
    page.goto("/")
    ready(page)
    assert page.evaluate("isSecureContext") is False
    note = page.locator("#offline-note")
    assert page.evaluate("document.documentElement.dataset.offline") is None and note.inner_text() == ""
    top = word_1(page)  # the page as first painted: its lexicon not yet kept, no note yet
    venue.release(damaged=copy == "damaged")
    settled = "ready" if copy == "kept" else "failed"
    page.wait_for_function(f"() => document.documentElement.dataset.offline === '{settled}'")
    if copy == "kept":
        expect(note).to_have_text(NOTES[language])
    else:
        expect(note).to_contain_text(DAMAGED[language])
    assert word_1(page) == top  # its place was kept: nothing moved under the judge's thumb
    assert_under_the_thumb(page)


@pytest.mark.parametrize("venue", [(WIDTHS["390"], LOCALES["es"])], indirect=True)
def test_over_plain_http_the_page_says_it_judges_offline_only_while_the_tab_stays_open(venue):
    page = venue.page
    page.goto("/")
    ready(page)
    venue.release()
    page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'")
    note = page.locator("#offline-note")
    expect(note).to_have_text(NOTES["es"])
    mark = page.locator("#offline-mark")
    assert mark.inner_text() == "Juzga sin conexión solo con esta pestaña abierta"
    page.locator("#lexicon-summary").click()
    sentence = page.locator("#offline-ready").inner_text()
    assert "mientras esta pestaña siga abierta" in sentence and "HTTPS" in sentence
    assert sentence.endswith("docs/event-guide.md#phones-over-plain-http.")  # how the director serves the app
    page.get_by_role("button", name="Català").click()
    expect(note).to_have_text(NOTES["ca"])


def test_on_the_laptop_itself_the_tick_says_what_it_always_did(browser, live):
    context = browser.new_context(base_url=live.url, **{**PHONE, "viewport": {"width": 390, "height": 844}})
    try:
        page = context.new_page()
        page.goto("/")
        ready(page)
        page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'")
        assert page.evaluate("isSecureContext") is True
        assert page.locator("#offline-mark").inner_text() == "Juzga sin conexión"
        assert page.locator("#offline-note").is_hidden()
    finally:
        context.close()
