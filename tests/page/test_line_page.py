"""The one-line page a person's browser gets at an address the service has nothing for
(service/line_page.py): the director's console of a service started without an event. Read whole
at a phone's size and at 200 % zoom, in Spanish and in Catalan, with nothing for axe-core to find,
and the same line in every browser engine the tests run."""

from __future__ import annotations

import pytest

from service.page_texts import app_texts

from .axe import assert_accessible
from .phone_states import SIZES, ZOOM_200, phone_of

FITS = "document.documentElement.scrollWidth <= innerWidth"  # nothing cut at the right edge
SMALL_200 = (180, 320)  # a 360 x 640 phone at 200 % zoom


def read_whole(page, text: str, language: str, size: tuple[int, int], what: str) -> None:
    """The page's line is `text`, in a page of that language, nothing cut at the right edge, the
    whole line on the first screen, and nothing for axe-core to find."""
    line = page.locator("p")
    assert line.inner_text() == text
    assert page.evaluate(f"document.documentElement.lang === '{language}' && {FITS}")
    box = line.bounding_box()
    assert box["y"] + box["height"] <= size[1], "the line runs past the first screen"
    assert_accessible(page, f"{what} ({language}, {size[0]}x{size[1]})")


@pytest.mark.parametrize("language", ["es", "ca"])
@pytest.mark.parametrize("size", [SIZES["360x640"], ZOOM_200, SMALL_200], ids=["360x640", "zoom-200", "360x640-200%"])
def test_a_console_without_an_event_is_a_line_in_the_director_s_language(browser, live, language, size):
    phone = phone_of(browser, live, size, locale=f"{language}-ES")
    try:
        page = phone.page
        response = page.goto("/director")
        assert response.status == 404
        read_whole(page, app_texts()[language]["noConsole"], language, size, "the console without an event")
    finally:
        phone.close()


def test_a_console_without_an_event_reads_the_same_in_every_engine(live, devices, engine):
    phone = devices(live.url)
    phone.open("/director")
    assert phone.wait("document.querySelector('p') && document.querySelector('p').innerText", "the line") in {
        texts["noConsole"] for texts in app_texts().values()
    }
    assert phone.run(FITS), f"{engine}: the line is wider than the phone"


@pytest.fixture
def unserved(page_lexicons, tmp_path, postgres_server):
    """A service of a database's events, and an event of it pinned to a list it does not serve."""
    import uuid

    from tests.postgres import OWNER, SERVICE
    from tests.support import LiveServer, stop_soon
    from tournament import Pin, create_event

    event_id = f"u-{uuid.uuid4().hex[:10]}"
    pin = Pin("fise-old", "2016", "ab" * 32, None, "", "init", "es")
    create_event(postgres_server.url(OWNER, event=event_id), "Liga", "a long enough password", pin=pin).close()
    server = LiveServer(tmp_path, page_lexicons.values(), LEXICON_EVENT=postgres_server.url(SERVICE))
    try:
        server.wait_ready()
        yield server, event_id
    finally:
        stop_soon(server)


@pytest.mark.server
@pytest.mark.postgres
@pytest.mark.parametrize("language", ["es", "ca"])
@pytest.mark.parametrize("size", [SIZES["360x640"], ZOOM_200, SMALL_200], ids=["360x640", "zoom-200", "360x640-200%"])
def test_an_event_that_cannot_be_served_is_a_line_in_the_director_s_language(browser, unserved, language, size):
    """The director opening the console of an event whose list the service does not serve: the
    problem's own line, read whole on the first screen, with nothing for axe-core to find."""
    from service.page_texts import problem_texts

    server, event_id = unserved
    phone = phone_of(browser, server, size, locale=f"{language}-ES")
    try:
        page = phone.page
        response = page.goto(f"/e/{event_id}/director")
        assert response.status == 503
        assert page.locator("h1").inner_text() == app_texts()[language]["unavailableTitle"]
        read_whole(
            page, problem_texts()[language]["problem.event-lexicon-missing"], language, size, "an event not served"
        )
    finally:
        phone.close()
