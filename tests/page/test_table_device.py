"""A table device explains itself to the players, in Chromium: a line saying what it is, that
every check is recorded with the table and the time, and that it never says which word; the
round's state within 5 s of a change; a wait that counts down; and nothing that moves when the
line about the round comes or goes."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta

import pytest
from playwright.sync_api import expect

from tests.support import stop_soon

from .phone_states import SIZES, TABLE_WAIT, ZOOM_200, event_with_a_round, pair, phone_of, typed, verdict
from .test_phone_layout import assert_under_the_thumb

ROUND_SEEN_MS = 5000  # a device shows a round opened or closed within this long


@pytest.fixture(scope="module")
def event_server(page_lexicons, tmp_path_factory):
    server, director = event_with_a_round(
        page_lexicons, tmp_path_factory.mktemp("table-event"), LEXICON_RATE_TABLE=str(TABLE_WAIT)
    )
    yield server, director
    stop_soon(server)


def word_1_top(page) -> float:
    return page.evaluate("document.getElementById('word-1').getBoundingClientRect().top + scrollY")


@pytest.mark.parametrize("language", ["es", "ca"])
def test_the_players_read_what_the_table_device_is_and_see_the_round_within_5_s(browser, event_server, language):
    server, director = event_server
    phone = phone_of(browser, server, SIZES["360x640"], locale=f"{language}-ES")
    try:
        page = phone.page
        page.clock.install()  # the page's own clock, flowing: moved on to its next look at the event
        pair(page, director, "table")
        if language == "ca":
            page.get_by_role("button", name="Català").click()
        line = page.locator("#event-closed")
        words = {
            "es": ("Mesa 7", "registrada con la mesa y la hora", "nunca qué palabra"),
            "ca": ("Taula 7", "registrada amb la taula i l'hora", "mai quina paraula"),
        }[language]
        for text in words:
            expect(line).to_contain_text(text)
        top = word_1_top(page)
        director.ask("POST", "/v1/rounds/close", {})
        try:
            page.clock.fast_forward(ROUND_SEEN_MS)
            expect(line).to_contain_text("Ninguna ronda abierta" if language == "es" else "Cap ronda oberta")
            expect(page.locator("#event-round")).to_have_text(
                "Ninguna ronda abierta" if language == "es" else "Cap ronda oberta"
            )
            assert word_1_top(page) == top  # the line replaced, in its place: nothing moved
        finally:
            director.ask("POST", "/v1/rounds", {})  # the module's event has its round again
        page.clock.fast_forward(ROUND_SEEN_MS)
        expect(line).to_contain_text(words[1])
        expect(page.locator("#event-round")).to_contain_text("Ronda")
        assert word_1_top(page) == top
    finally:
        phone.close()


def test_the_wait_between_two_checks_counts_down(browser, event_server):
    server, director = event_server
    phone = phone_of(browser, server)
    try:
        page = phone.page
        page.clock.install()
        pair(page, director, "table")
        verdict(page, "CARRO")
        page.keyboard.press("Escape")
        page.locator("#word-1").fill("CHICO")
        page.clock.pause_at(datetime.now(UTC) + timedelta(seconds=1))  # the page's time held: the wait as said
        with page.expect_response("**/v1/challenge") as refused:
            page.locator("#submit").click()
        error = page.locator("#form-error")
        expect(error).to_contain_text("antes de la próxima consulta")
        first = int(error.locator(".seconds").inner_text())
        assert refused.value.status == 429 and first == int(refused.value.headers["retry-after"]), first
        assert 1 <= first <= TABLE_WAIT, first
        page.clock.fast_forward(3000)
        expect(error).to_contain_text(f"Espera {first - 3} s antes")  # it counts
        # said once: the number that changes is hidden from a screen reader after it was said
        assert error.locator(".seconds").get_attribute("aria-hidden") == "true"
        # in the language tapped, said again, its number too (read as the tap's handlers leave it,
        # before the next tick hides it again), and counting on in it
        tapped = """() => { document.querySelector('.lang[data-lang="ca"]').click();
            return document.querySelector("#form-error .seconds").getAttribute("aria-hidden"); }"""
        assert page.evaluate(tapped) is None
        expect(error).to_have_text(re.compile(r"^Espera \d+ s abans de la propera consulta\. No hi ha veredicte\.$"))
        page.clock.fast_forward(2000)
        expect(error).to_contain_text(f"Espera {first - 5} s abans")
        assert error.locator(".seconds").get_attribute("aria-hidden") == "true"
        page.clock.fast_forward(first * 1000)
        expect(error).to_be_empty()  # gone when the next check may go
    finally:
        phone.close()


def test_a_check_whose_answer_was_lost_asked_again_shows_its_row_not_a_second_one(browser, event_server):
    """The service records a table device's check, and its answer never reaches the phone (the
    hall's Wi-Fi drops it): the page says to call a judge. The same play asked again is the same
    verdict, its key the same: the row recorded first is shown, with its number, inside the gap,
    and the record holds that one row. A new key made it a second challenge: refused inside the gap
    (a row the players never saw), or, after it, a second row of one play."""
    server, director = event_server
    phone = phone_of(browser, server)
    try:
        page = phone.page
        pair(page, director, "table")
        lost = []

        def drop_the_answer(route):  # the request reaches the service, its answer never the phone
            lost.append(route.fetch().json())
            route.abort()

        page.route("**/v1/challenge", drop_the_answer, times=1)
        typed(page, "MANGO")
        page.locator("#submit").click()
        expect(page.locator("#form-error")).to_contain_text("llama a un juez")
        [recorded] = lost
        page.locator("#submit").click()
        page.locator("#screen.show").wait_for()
        expect(page.locator(".v-record")).to_contain_text(str(recorded["record"]))
        rows = [row for row in director.ask("GET", "/v1/records")["records"] if row["words"] == ["MANGO"]]
        assert [row["seq"] for row in rows] == [recorded["record"]]
    finally:
        phone.close()


# What a page's browser does when asked to keep the screen on: no Screen Wake Lock API at all, a
# request refused (as WebKitGTK refuses it), or the lock granted (as Chromium grants it).
WAKE_LOCKS = {
    "missing": "delete Navigator.prototype.wakeLock;",
    "refused": """window.refuse = true;
    Object.defineProperty(navigator, "wakeLock", { value: { request() {
        if (!window.refuse) return Promise.resolve(Object.assign(new EventTarget(), { release: async () => {} }));
        return Promise.reject(new DOMException("refused", "NotAllowedError")); } } });""",
    "granted": """Object.defineProperty(navigator, "wakeLock", { value: { request() {
        const sentinel = new EventTarget();
        sentinel.release = () => Promise.resolve(sentinel.dispatchEvent(new Event("release")));
        window.held = true;
        return Promise.resolve(sentinel); } } });""",
}


@pytest.mark.parametrize("wake_lock", WAKE_LOCKS)
def test_the_players_read_that_the_screen_may_turn_off_when_the_browser_will_not_keep_it_on(
    browser, event_server, wake_lock
):
    server, director = event_server
    phone = phone_of(browser, server, SIZES["360x640"])
    try:
        page = phone.page
        page.add_init_script(WAKE_LOCKS[wake_lock])
        page.clock.install()
        pair(page, director, "table")
        line = page.locator("#event-awake")
        expect(page.locator("#event-round")).to_contain_text("Ronda")
        if wake_lock == "granted":
            page.wait_for_function("() => window.held")
            expect(line).to_be_empty()
            assert line.bounding_box()["height"] > 0  # its place kept all the same
            return
        expect(line).to_have_text(
            "La pantalla puede apagarse: enchufa el dispositivo y pon el tiempo de espera de su pantalla en «Nunca»."
        )
        expect(line).to_have_attribute("role", "status")
        page.get_by_role("button", name="Català").click()
        expect(line).to_contain_text("La pantalla es pot apagar")
        top = word_1_top(page)
        director.ask("POST", "/v1/rounds/close", {})
        try:
            page.clock.fast_forward(ROUND_SEEN_MS)
            expect(line).to_be_empty()  # no round: the screen may sleep, nothing to say
            assert word_1_top(page) == top  # its place kept: nothing moved
        finally:
            director.ask("POST", "/v1/rounds", {})
        page.clock.fast_forward(ROUND_SEEN_MS)
        expect(line).to_contain_text("La pantalla es pot apagar")
        assert word_1_top(page) == top
        if wake_lock == "refused":  # asked again as the page looks at the event: once held, the line goes
            page.evaluate("window.refuse = false")
            page.clock.fast_forward(ROUND_SEEN_MS)
            expect(line).to_be_empty()
            assert word_1_top(page) == top
    finally:
        phone.close()


@pytest.mark.parametrize("language", ["es", "ca"])
@pytest.mark.parametrize("role", ["table", "judge"])
def test_at_200_percent_zoom_the_first_screen_holds_word_1_the_keys_and_the_button_in_a_round(
    browser, event_server, role, language
):
    """A paired device in an open round, at 200 % zoom (a 390 x 844 phone): the players' line of a
    table device (what it is, that the record keeps every check) and the room kept for the line
    about the screen's sleep once pushed the form below the first screen, and with it the dock,
    which is sticky inside the form: neither word 1 nor the button was on it."""
    server, director = event_server
    phone = phone_of(browser, server, ZOOM_200, device_scale_factor=4, locale=f"{language}-ES")
    try:
        page = phone.page
        page.add_init_script(WAKE_LOCKS["granted"])  # a phone's browser that keeps the screen on
        pair(page, director, role)
        if language == "ca":
            page.get_by_role("button", name="Català").click()
        expect(page.locator("#event-round")).to_contain_text("Ronda")
        if role == "table":
            expect(page.locator("#event-closed")).to_contain_text("Taula 7" if language == "ca" else "Mesa 7")
        page.evaluate("scrollTo(0, 0)")
        assert_under_the_thumb(page)
        if role == "table":  # the players' line is still on the page, under the button
            line = page.locator("#event-closed")
            expect(line).to_be_visible()
            line.scroll_into_view_if_needed()
            expect(line).to_be_in_viewport()
    finally:
        phone.close()


def test_zoomed_in_and_out_the_full_screen_button_is_reached_where_it_is_drawn(browser, event_server):
    """A table device's page open on a 360 x 640 phone, zoomed to 200 % (its viewport half as wide
    and tall) and back, its full-screen button focused: its event's line is drawn after the form,
    then above it again, and the keyboard reaches the button where it is drawn (after Comprobar,
    then after the language buttons), the focus kept on it (tests/page/test_engines.py tabs
    through the page loaded at either size)."""
    server, director = event_server
    phone = phone_of(browser, server, SIZES["360x640"])
    try:
        page = phone.page
        pair(page, director, "table")
        button, focused = (
            page.locator("#fullscreen"),
            "() => document.activeElement.id || document.activeElement.dataset.lang",
        )
        for (width, height), before in (((180, 320), "submit"), ((360, 640), "es")):
            button.focus()
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_function(f"() => innerWidth === {width}")
            # the page's next two frames: its `resize` handled (a frame's first step)
            page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
            assert page.evaluate(focused) == "fullscreen", width
            page.keyboard.press("Shift+Tab")
            assert page.evaluate(focused) == before, width
            page.keyboard.press("Tab")
            assert page.evaluate(focused) == "fullscreen", width
    finally:
        phone.close()


def only_its_token(page) -> None:
    """The page loaded again keeping only its device token, no answer of the service's: as on a
    phone whose saved answer was lost, its role unknown until the service says it."""
    page.evaluate("localStorage.removeItem('lexicon-judge.event')")
    page.reload()


def word_1_seen(page) -> tuple[bool, float]:
    """Whether word 1 is seen (its form not hidden), and where it is on the page."""
    return page.locator("#word-1").is_visible(), word_1_top(page)


def test_a_table_device_loaded_with_only_its_token_moves_nothing_when_its_role_is_known(browser, event_server):
    """The lines for its players come above the form once the service says the device is a
    table's; until then the form is not shown, so nothing seen moves (Lighthouse counted the
    form's fall as a layout shift of 0.16 on a phone's first load)."""
    server, director = event_server
    phone = phone_of(browser, server)
    try:
        page = phone.page
        pair(page, director, "table")
        held = []  # the page's first look at the event, answered only once the page has painted
        page.route("**/v1/event*", lambda route: held.append(route))
        only_its_token(page)
        page.wait_for_function("() => performance.getEntriesByType('paint').length > 0")
        deadline = time.monotonic() + 10
        while not held:  # each call lets Playwright run the route's handler
            assert time.monotonic() < deadline, "the page never looked at the event"
            page.evaluate("1")
        seen, top = word_1_seen(page)
        for route in held:
            route.continue_()
        page.unroute("**/v1/event*")
        expect(page.locator("#event-closed")).to_contain_text("Mesa 7")
        expect(page.locator("#word-1")).to_be_visible()
        assert not seen or word_1_top(page) == top, f"word 1 moved from {top} to {word_1_top(page)}"
    finally:
        phone.close()


def test_a_paired_phone_whose_role_the_service_does_not_say_shows_its_form_within_2_s(browser, event_server):
    """No answer to its first look at the event (a network that swallows it): the form is shown
    anyway, 2 s after the page loaded, as it is."""
    server, director = event_server
    phone = phone_of(browser, server)
    try:
        page = phone.page
        page.clock.install(time=datetime.now(UTC))
        pair(page, director, "judge")
        page.route("**/v1/event*", lambda route: None)  # asked, never answered
        only_its_token(page)
        page.clock.pause_at(datetime.now(UTC) + timedelta(seconds=1))  # the page's time held, then moved on
        page.clock.run_for(2_000)  # by its 2 s, whatever the machine's load makes of ours
        expect(page.locator("#word-1")).to_be_visible()
        assert page.evaluate("document.documentElement.classList.contains('unknown')") is False
    finally:
        phone.close()
