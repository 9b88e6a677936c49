"""Honest offline over plain HTTP, in Chromium: on the venue's network (`http://192.168.1.20:8000/`:
no secure context, no service worker) the phone keeps the lexicon but not the page, so the page
says it judges offline only while this tab stays open; on the laptop itself (`http://127.0.0.1`,
a secure context, where the installed app keeps the page too) it says what it always did.

The venue's address is played by a name the browser sends to the live service through
Playwright's routing: to Chromium it is a plain-HTTP origin like a LAN address."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import PHONE
from .phone_states import SIZES, ready
from .test_phone_layout import assert_under_the_thumb

VENUE = "http://juez.test:8000"


@pytest.fixture
def venue_page(browser, live, request):
    width, height = request.param
    context = browser.new_context(base_url=VENUE, **{**PHONE, "viewport": {"width": width, "height": height}})
    problems: list[str] = []

    def forward(route):
        route.fulfill(response=route.fetch(url=route.request.url.replace(VENUE, live.url)))

    context.route(f"{VENUE}/**", forward)
    page = context.new_page()
    page.on("pageerror", lambda error: problems.append(str(error)))
    yield page
    context.close()
    assert problems == []


@pytest.mark.parametrize("venue_page", list(SIZES.values()), ids=list(SIZES), indirect=True)
def test_over_plain_http_the_page_says_it_judges_offline_only_while_the_tab_stays_open(venue_page):
    page = venue_page
    page.goto("/")
    ready(page)
    assert page.evaluate("isSecureContext") is False
    note = page.locator("#offline-note")
    top = page.locator("#word-1").bounding_box()["y"]
    page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'")
    expect(note).to_have_text("Sin conexión, juzga solo con esta pestaña abierta.")
    assert page.locator("#word-1").bounding_box()["y"] == top  # its place was kept: nothing moved
    assert_under_the_thumb(page)
    mark = page.locator("#offline-mark")
    assert mark.inner_text() == "Juzga sin conexión solo con esta pestaña abierta"
    page.locator("#lexicon-summary").click()
    sentence = page.locator("#offline-ready").inner_text()
    assert "mientras esta pestaña siga abierta" in sentence and "HTTPS" in sentence
    assert sentence.endswith("docs/event-guide.md#phones-over-plain-http.")  # how the director serves the app
    page.get_by_role("button", name="Català").click()
    expect(note).to_have_text("Sense connexió, només amb aquesta pestanya oberta.")


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
