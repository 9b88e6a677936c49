"""The second opinion on the judge's page, in Debian's Chromium against the live service.

The service runs with LEXICON_SECOND=es:file2017,ca:disc-old over two pairs of small lexicons of
known differences (see `tests/service/test_second.py` for the same lists over HTTP): the page
asks for the second opinion when the lexicon in use has one, shows the main verdict as always
and, under it, smaller, "Con FILE 2017: NO VÁLIDA". Screenshots: test-output/page/second-*.png.
"""

from __future__ import annotations

import json

import pytest

from tests.support import LiveServer, compile_list, stop_soon

from .conftest import Phone

pytestmark = pytest.mark.server  # its phones talk to a live `lexicon serve` of its own

COMMON = ["CASA", "PERRO", "CARRO", "LLAVE"]
CA_COMMON = ["COL·LEGI", "QUADRE", "CASA"]

# (main valid, second valid): the second word of the play that makes it so.
COMBINATIONS = {(True, True): "PERRO", (True, False): "CHICOS", (False, True): "NANDU", (False, False): "ZURDO"}
NAMES = {True: "valid", False: "notvalid"}


@pytest.fixture(scope="module")
def second_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("second-page")
    return [
        compile_list(folder / "new.lex", COMMON + ["CHICOS"], "es", "file2018", "FILE 2018", "2018"),
        compile_list(folder / "old.lex", COMMON + ["NANDU"], "es", "file2017", "FILE 2017", "2017"),
        compile_list(folder / "ca-new.lex", CA_COMMON + ["NYAP"], "ca", "disc-new", "DISC 2026", "2026"),
        compile_list(folder / "ca-old.lex", CA_COMMON + ["CANÇÓ"], "ca", "disc-old", "DISC 2019", "2019"),
    ]


@pytest.fixture(scope="module")
def second_live(second_files):
    folder = second_files[0].parent
    server = LiveServer(folder, second_files, LEXICON_SECOND="es:file2017,ca:disc-old", LEXICON_LOG_LEVEL="warning")
    server.wait_ready()
    yield server
    stop_soon(server)


@pytest.fixture
def device(browser, second_live, request):
    locale = getattr(request, "param", "es-ES")
    phone = Phone(browser, second_live, locale=locale)
    phone.sent = []
    phone.page.on("request", lambda r: phone.sent.append(json.loads(r.post_data)) if r.method == "POST" else None)
    yield phone
    phone.close()
    assert phone.foreign_requests() == [] and phone.problems == []


def challenge(phone: Phone, *words: str, lexicon: str | None = None):
    page = phone.page
    page.goto("/" + (f"?lexicon={lexicon}" if lexicon else ""))
    page.locator("#keys .key").first.wait_for()
    for n, word in enumerate(words, 1):
        if n > 1:
            page.locator("#add").tap()
        field = page.locator(f'input[name="word-{n}"]')
        field.tap()
        page.keyboard.type(word)
    page.locator("#submit").tap()
    page.locator("#screen.show").wait_for()
    return page


@pytest.mark.parametrize("expected, word", COMBINATIONS.items())
def test_the_page_shows_the_second_opinion_under_the_verdict(device, shots, expected, word):
    valid, other = expected
    page = challenge(device, "CASA", word)
    status = page.locator("#verdict")
    title = status.locator(".v-title").inner_text()
    assert title == ("JUGADA VÁLIDA" if valid else "JUGADA NO VÁLIDA")
    second = status.locator(".v-second")
    assert second.inner_text() == f"Con FILE 2017: {'VÁLIDA' if other else 'NO VÁLIDA'}"
    assert "FILE 2018" in status.locator(".v-lexicon").inner_text()  # the main lexicon, as always
    assert device.sent[-1]["second"] is True and device.sent[-1]["lexicon"] == "file2018"
    # below the verdict, smaller: after the title and the slip's result, above the lexicon line
    order = status.locator("p").evaluate_all("els => els.map((e) => e.className)")
    assert order.index("v-title") < order.index("v-slip") < order.index("v-second") < order.index("v-lexicon")
    sizes = status.evaluate("""el => ['.v-title', '.v-second'].map(
        (s) => parseFloat(getComputedStyle(el.querySelector(s)).fontSize))""")
    assert sizes[1] <= sizes[0] * 0.6  # smaller than the verdict, by far
    assert page.locator(".screen.show").evaluate("el => el.scrollWidth <= el.clientWidth")
    page.screenshot(path=str(shots / f"second-es-{NAMES[valid]}-{NAMES[other]}.png"))


@pytest.mark.parametrize("device", ["ca-ES"], indirect=True)
def test_in_catalan_it_says_amb(device, shots):
    page = challenge(device, "QUADRE", "NYAP")  # only in the new DISC
    status = page.locator("#verdict")
    assert status.locator(".v-title").inner_text() == "JUGADA VÀLIDA"
    assert status.locator(".v-second").inner_text() == "Amb DISC 2019: NO VÀLIDA"
    assert device.sent[-1]["lexicon"] == "disc-new" and device.sent[-1]["second"] is True
    page.screenshot(path=str(shots / "second-ca-valid-notvalid.png"))


def test_a_lexicon_without_a_second_opinion_asks_for_none(device):
    page = challenge(device, "CASA", "NANDU", lexicon="file2017")  # the second lexicon itself, chosen
    status = page.locator("#verdict")
    assert status.locator(".v-title").inner_text() == "JUGADA VÁLIDA"
    assert status.locator(".v-second").count() == 0
    assert "second" not in device.sent[-1]


@pytest.fixture
def second_event(tmp_path, second_files):
    """The same lexicons in an event judged with FILE 2018, whose second opinion is FILE 2017."""
    from tournament import create_event

    from .test_director_browser import PASSWORD

    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="file2018").close()
    server = LiveServer(
        tmp_path,
        second_files,
        LEXICON_EVENT=str(path),
        LEXICON_SECOND="es:file2017,ca:disc-old",
        LEXICON_LOG_LEVEL="warning",
    )
    server.wait_ready()
    yield server
    stop_soon(server)


def test_a_table_device_asks_for_no_second_opinion_and_shows_none(browser, second_event):
    """A table device gets the event's verdict only (the service refuses it another's): its page
    asks for none, and shows the verdict as on any table."""
    from .test_director_browser import Director, pair_phone

    director = Director(second_event)
    code = director.device("Mesa 3", "table", "3")
    director.ask("POST", "/v1/rounds", {})
    phone = Phone(browser, second_event)
    sent = []
    phone.page.on(
        "request",
        lambda r: (
            sent.append(json.loads(r.post_data)) if r.method == "POST" and r.url.endswith("/v1/challenge") else None
        ),
    )
    try:
        page = pair_phone(phone, f"/#pair={code}")
        page.wait_for_function("() => /Mesa 3/.test(document.getElementById('event-device').textContent)")
        challenge(phone, "CASA", "NANDU")  # FILE 2017 would say valid
        status = page.locator("#verdict")
        assert status.locator(".v-title").inner_text() == "JUGADA NO VÁLIDA"
        assert status.locator(".v-second").count() == 0
        assert sent and not sent[-1].get("second")  # not asked for (false, or left out)
    finally:
        phone.close()
