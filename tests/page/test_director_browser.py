"""The director's console and the judge's page in an event, in Debian's Chromium.

Each test runs its own event (a fresh state file) on the real `lexicon serve`. The director uses
the console at laptop size; a phone (another browser context, so nothing is shared but the
service) opens the pairing URL the console shows. Screenshots: test-output/page/director-*.png.
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

import pytest

from service.page_texts import event_texts
from tests.support import LiveServer, stop_soon
from tournament import create_event

from .conftest import VERDICT_SECONDS, Phone
from .phone_states import PASSWORD, TABLE_WAIT, Director
from .test_page_browser import wait_guard

pytestmark = pytest.mark.server  # its phones talk to a live `lexicon serve` of its own

LAPTOP = {
    "viewport": {"width": 1280, "height": 860},
    "device_scale_factor": 1,
    "is_mobile": False,
    "has_touch": False,
    "locale": "es-ES",
}


@pytest.fixture
def event_live(page_lexicons, tmp_path):
    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD).close()
    server = LiveServer(
        tmp_path,
        page_lexicons.values(),
        LEXICON_EVENT=str(path),
        LEXICON_VERDICT_SECONDS=str(VERDICT_SECONDS),
        LEXICON_RATE_TABLE=str(TABLE_WAIT),
        LEXICON_LOG_LEVEL="warning",
    )
    server.wait_ready()
    yield server
    stop_soon(server)


@pytest.fixture
def catalan_event(page_lexicons, tmp_path):
    """An event created with `--lexicon ca-page`, for phones set to Spanish."""
    path = tmp_path / "lleida.db"
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="ca-page").close()
    server = LiveServer(tmp_path, page_lexicons.values(), LEXICON_EVENT=str(path), LEXICON_LOG_LEVEL="warning")
    server.wait_ready()
    yield server
    stop_soon(server)


def challenge(page, *words: str) -> None:
    """Types a play into the judge's page and asks; waits until the service answered."""
    for n, text in enumerate(words, 1):
        if n > 1:
            page.locator("#add").click()
        field = page.locator(f'input[name="word-{n}"]')
        field.fill(text)
    page.locator("#submit").click()
    page.wait_for_function("() => !document.getElementById('submit').disabled")


def clear_verdict(page) -> None:
    if page.locator("#screen.show").count():
        wait_guard(page)  # the verdict ignores taps for its first moment
        page.locator("#clear").click()
        page.locator("#screen.show").wait_for(state="detached")


def pair_phone(phone: Phone, url: str):
    page = phone.page
    page.goto(url)
    page.locator("#event-device").wait_for(state="visible")
    assert "pair" not in page.url  # the code is off the address at once
    return page


def test_the_director_pairs_a_phone_sees_its_challenge_and_revokes_it(browser, event_live, shots):
    laptop = Phone(browser, event_live, **LAPTOP)
    phone = Phone(browser, event_live)
    try:
        console = laptop.page
        console.goto("/director")
        console.locator("#password").fill(PASSWORD)
        console.get_by_role("button", name="Entrar").click()
        console.locator("#console").wait_for(state="visible")
        assert console.locator("#event-name").inner_text() == "Open de Lleida 2026"

        assert console.locator("#round-state").inner_text().startswith("Ninguna ronda abierta")
        console.locator("#round-number").fill("1")
        asked = []  # opening asks first, as closing does
        console.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
        console.get_by_role("button", name="Abrir ronda").click()
        console.locator("#round-state.open").wait_for()
        assert asked == [
            "¿Abrir la ronda 1? La consulta libre se cierra y los dispositivos de mesa empiezan a consultar."
        ]
        # since a date and a time ("desde el", not "desde las", which says an hour)
        assert re.fullmatch(
            r"Ronda 1 abierta desde el \d\d/\d\d/\d{4}, \d\d:\d\d:\d\d: la consulta libre está cerrada\.",
            console.locator("#round-state").inner_text(),
        )
        console.get_by_role("button", name="Català").click()
        assert re.fullmatch(
            r"Ronda 1 oberta des del \d\d/\d\d/\d{4},? \d\d:\d\d:\d\d: la consulta lliure està tancada\.",
            console.locator("#round-state").inner_text(),
        )
        console.get_by_role("button", name="Español").click()

        console.locator("#device-name").fill("Juez 1")
        console.locator("#device-role").select_option("judge")
        console.get_by_role("button", name="Vincular").click()
        console.locator("#pairing").wait_for(state="visible")
        console.wait_for_function("() => document.getElementById('pairing-qr').naturalWidth > 0")
        code = console.locator("#pairing-code").inner_text()
        url = console.locator("#pairing-url").inner_text()
        assert re.fullmatch(r"[A-Z0-9-]{8,9}", code) and url.startswith(event_live.url)
        console.locator("#devices tbody tr").filter(has_text="Juez 1").locator(".badge.waiting").wait_for()
        console.screenshot(path=str(shots / "director-laptop-pairing.png"), full_page=True)

        console.get_by_role("button", name="Código nuevo Juez 1").click()  # the first code is dropped
        console.wait_for_function(f"() => document.getElementById('pairing-code').textContent !== {code!r}")
        console.wait_for_function("() => document.getElementById('pairing-qr').naturalWidth > 0")
        stale, url = url, console.locator("#pairing-url").inner_text()
        assert url != stale

        sent = []
        phone.context.on("request", lambda r: sent.append(r.headers) if r.url.endswith("/v1/challenge") else None)
        page = phone.page
        page.goto(stale)
        page.locator("#pair-error").filter(has_text="Este código no vale").wait_for()
        page = pair_phone(phone, url)
        console.locator("#pairing").wait_for(state="hidden")  # the console saw the phone pair, by itself
        assert console.locator("#device-notice").inner_text() == "Juez 1 vinculado"
        console.locator("#devices tbody tr").filter(has_text="Juez 1").locator(".badge.paired").wait_for()
        assert page.locator("#event-name").inner_text() == "Open de Lleida 2026"
        assert page.locator("#event-device").inner_text() == "Juez 1 · juez"
        assert page.locator("#event-round").inner_text() == "Ronda 1"
        assert page.locator("#token-box").is_hidden() and page.locator("#pair-box").is_hidden()
        challenge(page, "CARRO")
        assert page.locator("#verdict .v-title").inner_text() == "JUGADA VÁLIDA"
        assert page.locator("#verdict .v-record").inner_text() == "Registro nº 1"
        page.screenshot(path=str(shots / "director-phone-verdict.png"))
        assert len(sent) == 1 and re.fullmatch(r"Bearer [\w-]{40,}", sent[0]["authorization"])
        assert sent[0]["authorization"][7:] not in console.content()  # the director never sees it

        console.get_by_role("button", name="Ver").click()
        row = console.locator('#records tbody tr[data-seq="1"]')
        row.wait_for()
        assert "CARRO" in row.inner_text() and "Juez 1" in row.inner_text() and "VÁLIDA" in row.inner_text()
        counts = console.locator("#counts tbody tr")
        assert counts.count() == 1 and counts.first.inner_text().split("\t")[::3] == ["Juez 1", "1"]

        console.screenshot(path=str(shots / "director-laptop-record.png"), full_page=True)
        exported = {
            kind: console.evaluate(f"fetch(document.getElementById('export-{kind}').href).then(r => r.text())")
            for kind in ("csv", "json")
        }
        assert "CARRO" in exported["csv"].splitlines()[1] and "CA[RR]O" in exported["csv"]
        assert [row["words"] for row in json.loads(exported["json"])["records"]] == [["CARRO"]]
        row.get_by_role("button").click()
        slip = console.locator("#slip")
        slip.wait_for(state="visible")
        text = slip.inner_text()
        for expected in (
            "Registro nº\n1",
            "Mesa",
            "CARRO",
            "Prueba español",
            "2026.1",
            "VÁLIDA",
            "Notación\nortografía (como se escribe)",
        ):
            assert expected in text, expected
        assert slip.locator(".tiles .tile").all_inner_texts() == ["C", "A", "RR", "O"]  # tiles as tiles
        assert slip.locator(".tiles .tile.multi").all_inner_texts() == ["RR"]
        checksum = console.evaluate("LexiconDirector.state.shown.lexicon_checksum")
        assert len(checksum) == 64 and checksum in text
        console.emulate_media(media="print")
        console.screenshot(path=str(shots / "director-slip-print.png"), full_page=True)
        assert console.locator("header").is_hidden() and console.locator("#slip-print").is_hidden()
        console.emulate_media(media="screen")
        console.get_by_role("button", name="Cerrar", exact=True).click()

        console.once("dialog", lambda dialog: dialog.accept())
        console.locator('#devices tr:has-text("Juez 1") button[data-revoke]').click()
        console.locator('#devices tr:has-text("Juez 1") .badge.revoked').wait_for()

        clear_verdict(page)
        challenge(page, "CASA")
        assert page.locator("#screen.show").count() == 0  # no verdict
        page.locator("#pair-box").wait_for(state="visible")
        assert "ya no está vinculado" in page.locator("#pair-error").inner_text()
        page.screenshot(path=str(shots / "director-phone-revoked.png"), full_page=True)

        console.get_by_role("button", name="Ver").click()
        console.wait_for_function("() => LexiconDirector.state.records.length === 1")  # the refusal: no row

        console.set_viewport_size({"width": 360, "height": 740})
        assert console.evaluate("document.documentElement.scrollWidth") <= 360  # nothing wider than a phone
        console.screenshot(path=str(shots / "director-phone-size.png"), full_page=True)
        console.get_by_role("button", name="Català").click()
        assert console.locator("h1").inner_text() == "Direcció del torneig"
        assert console.locator('#records tbody tr[data-seq="1"] [data-slip]').inner_text() == "Papereta"
        assert console.locator("#devices .badge.revoked").inner_text() == "revocat"
        console.reload()  # the choice is remembered, and the page comes back in it from its first byte
        console.locator("#console").wait_for(state="visible")
        assert console.evaluate("document.documentElement.lang") == "ca"
        assert console.locator("h1").inner_text() == "Direcció del torneig"
    finally:
        for device in (laptop, phone):
            device.close()
    for device in (laptop, phone):
        assert device.foreign_requests() == [] and device.problems == []


def lookup_in_round(browser, server: LiveServer, number: int):
    """The director, with round `number` open, and a phone paired as a lookup device: its page."""
    director = Director(server)
    code = director.device("Consulta 1", "lookup")
    director.ask("POST", "/v1/rounds", {"number": number})
    phone = Phone(browser, server)
    return director, phone, pair_phone(phone, f"/#pair={code}")


def test_a_lookup_device_is_refused_during_a_round_and_answered_after_it(browser, event_live, shots):
    """Refused during a round, and told so in the language of the page, and in the other once it
    is tapped (the refusal stayed in the language it was said in)."""
    director, phone, page = lookup_in_round(browser, event_live, 1)
    try:
        page.locator("#event-closed").wait_for(state="visible")
        assert "ronda 1" in page.locator("#event-closed").inner_text()
        challenge(page, "CARRO")
        assert page.locator("#screen.show").count() == 0
        assert page.locator("#form-error").text_content() == event_texts()["es"]["closedNow"]
        page.screenshot(path=str(shots / "director-lookup-closed.png"), full_page=True)
        for language, name in (("ca", "Català"), ("es", "Español")):
            page.get_by_role("button", name=name).tap()
            assert page.locator("#form-error").text_content() == event_texts()[language]["closedNow"], language

        director.ask("POST", "/v1/rounds/close", {})
        page.evaluate("window.dispatchEvent(new Event('focus'))")  # the page asks the event again
        page.locator("#event-closed").wait_for(state="hidden")
        challenge(page, "CARRO")
        assert page.locator("#verdict .v-title").inner_text() == "JUGADA VÁLIDA"
    finally:
        phone.close()
    assert phone.foreign_requests() == [] and phone.problems == []


def test_a_verdict_shows_the_round_its_record_has_not_the_one_the_page_saw(browser, event_live):
    """Refused during round 3, the kiosk's page still says round 3 when the director closes it;
    its next verdict is recorded with no round, and its screen says none either."""
    director, phone, page = lookup_in_round(browser, event_live, 3)
    try:
        # the page asks the event again after the refusal, and the service answers: round 3
        with page.expect_response(lambda response: urlsplit(response.url).path.endswith("/v1/event")):
            challenge(page, "CARRO")
        assert "Consulta cerrada" in page.locator("#form-error").inner_text()
        director.ask("POST", "/v1/rounds/close", {})
        assert page.locator("#event-round").inner_text() == "Ronda 3"  # not asked again yet
        challenge(page, "CARRO")
        assert page.locator("#verdict .v-title").inner_text() == "JUGADA VÁLIDA"
        assert "Ronda" not in page.locator("#verdict .v-slip").inner_text()
    finally:
        phone.close()
    [row] = director.ask("GET", "/v1/records")["records"]
    assert row["round"] is None
    assert phone.problems == []


def test_a_table_device_shows_its_lexicon_and_waits_between_challenges(browser, event_live, shots):
    director = Director(event_live)
    code = director.device("Mesa 12", "table", "12")
    director.ask("POST", "/v1/rounds", {"number": 3})
    phone = Phone(browser, event_live)
    try:
        page = pair_phone(phone, f"/?pair={code}")
        assert page.locator("#event-device").inner_text() == "Mesa 12 · mesa"
        assert page.locator("#event-round").inner_text() == "Ronda 3"
        full = page.locator("#event-lexicon").text_content()  # one tap away (test_phone_layout.py)
        checksum = page.evaluate("LexiconJudge.data.event.checksums[document.getElementById('lexicon').value]")
        assert "versión" in full and checksum in full and len(checksum) == 64
        assert page.locator("#slip-box").is_hidden()
        challenge(page, "CHICO", "CASA")
        assert page.locator("#verdict .v-title").inner_text() == "JUGADA VÁLIDA"
        assert "Mesa 12 · Ronda 3" in page.locator("#verdict .v-slip").inner_text()
        page.screenshot(path=str(shots / "director-table-verdict.png"))
        clear_verdict(page)
        assert page.locator("#lexicon-name").is_visible()  # at all times, the lexicon's line
        challenge(page, "MESA")
        message = page.locator("#form-error").inner_text()
        assert page.locator("#screen.show").count() == 0
        seconds = int(re.search(r"Espera (\d+) s", message)[1])
        assert 1 <= seconds <= TABLE_WAIT
        page.screenshot(path=str(shots / "director-table-wait.png"), full_page=True)
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(shots / "director-table-top.png"))
    finally:
        phone.close()
    assert phone.foreign_requests() == [] and phone.problems == []
    records = director.ask("GET", "/v1/records?round=3")
    rows = records["records"] if isinstance(records, dict) else records
    assert [(row["table"], row["words"]) for row in rows] == [("12", ["CHICO", "CASA"])]


def test_in_an_event_the_second_opinion_shown_is_on_the_record_and_the_slip(browser, page_lexicons, tmp_path, shots):
    """LEXICON_SECOND with LEXICON_EVENT: the judge's phone shows both verdicts and the record's
    number; the director's slip for that row shows the second opinion the players saw."""
    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD).close()
    server = LiveServer(
        tmp_path,
        page_lexicons.values(),
        LEXICON_EVENT=str(path),
        LEXICON_SECOND="es:es-alt",
        LEXICON_VERDICT_SECONDS=str(VERDICT_SECONDS),
        LEXICON_LOG_LEVEL="warning",
    )
    server.wait_ready()
    laptop = Phone(browser, server, **LAPTOP)
    phone = Phone(browser, server)
    try:
        code = Director(server).device("Juez 1", "judge")
        page = pair_phone(phone, f"/#pair={code}")
        challenge(page, "CARRO", "XILÓFONO")  # only in the second lexicon
        assert page.locator("#verdict .v-title").inner_text() == "JUGADA NO VÁLIDA"
        assert "Otro español" in page.locator("#verdict .v-second").inner_text()
        assert page.locator("#verdict .v-record").inner_text() == "Registro nº 1"
        page.screenshot(path=str(shots / "director-second-phone.png"))

        console = laptop.page
        console.goto("/director")
        console.locator("#password").fill(PASSWORD)
        console.get_by_role("button", name="Entrar").click()
        row = console.locator('#records tbody tr[data-seq="1"]')
        row.wait_for()
        row.get_by_role("button").click()
        slip = console.locator("#slip")
        slip.wait_for(state="visible")
        text = slip.inner_text()
        for expected in (
            "Segunda opinión\nOtro español (es-alt, 7)",
            "Veredicto de la segunda opinión\nVÁLIDA",
            "Veredicto\nNO VÁLIDA",
        ):
            assert expected in text, (expected, text)
        console.screenshot(path=str(shots / "director-second-slip.png"), full_page=True)
    finally:
        for device in (laptop, phone):
            device.close()
        server.stop()
    for device in (laptop, phone):
        assert device.foreign_requests() == [] and device.problems == []


def test_a_paired_phone_judges_with_the_events_lexicon_whatever_its_language(browser, catalan_event):
    """A Spanish phone paired at an event judged in Catalan: a judge's page opens on the event's
    lexicon and stays on it (the list is locked, reloaded too); a table device's likewise."""
    director = Director(catalan_event)
    judge, table = director.device("Juez 1", "judge"), director.device("Mesa 3", "table", "3")
    phone, other = Phone(browser, catalan_event), Phone(browser, catalan_event)
    try:
        page = phone.page
        page.goto("/")
        # the event's, before pairing too (in Spanish), and another may be chosen
        assert (
            page.locator("#lexicon").input_value() == "ca-page" and page.locator("html").get_attribute("lang") == "es"
        )
        assert page.locator("#lexicon").is_enabled()
        page.locator("#lexicon-summary").click()
        page.locator("#lexicon").select_option("es-page")
        page.goto(f"/#pair={judge}")
        page.wait_for_function("() => document.getElementById('lexicon').value === 'ca-page'")
        assert page.locator("#event-device").is_visible() and page.locator("#lexicon").is_disabled()
        page.reload()
        # The device's line is drawn by the same step that reads the event's state and would
        # switch the lexicon (event.js, apply): once it shows, the state has been read.
        page.locator("#event-device").wait_for(state="visible")
        assert page.locator("#lexicon").input_value() == "ca-page" and page.locator("#lexicon").is_disabled()
        tablet = pair_phone(other, f"/#pair={table}")
        tablet.wait_for_function("() => document.getElementById('lexicon').value === 'ca-page'")
        assert tablet.locator("#lexicon").is_disabled()
    finally:
        phone.close()
        other.close()
    assert phone.problems == [] and other.problems == []


def test_a_paired_judge_tapping_another_language_changes_the_words_not_the_lexicon(browser, catalan_event):
    """A judge's phone paired to a Catalan event taps *Español* (meaning the interface) and checks
    QUADRE: the page speaks Spanish, and the verdict is the Catalan list's, on the page and in the
    record (it used to be judged, and recorded, with the Spanish list: JUGADA NO VÁLIDA). The
    unpaired page in the same event opens on the event's list, in its own language, keeps another
    list it chooses, and the service's refusal of that one is said in the page's language, naming
    the event's."""
    director = Director(catalan_event)
    code = director.device("Juez 1", "judge")
    phone, stranger = Phone(browser, catalan_event, locale="ca-ES"), Phone(browser, catalan_event)
    try:
        page = pair_phone(phone, f"/#pair={code}")
        page.wait_for_function("() => document.getElementById('lexicon').value === 'ca-page'")
        page.locator('.lang[data-lang="es"]').click()
        assert page.locator("html").get_attribute("lang") == "es"
        assert page.locator("#submit").inner_text() == "Comprobar"
        assert page.locator("#lexicon").input_value() == "ca-page" and page.locator("#lexicon").is_disabled()
        challenge(page, "QUADRE")
        shown = page.locator("#screen").inner_text()
        assert "JUGADA VÁLIDA" in shown and "Prova català" in shown, shown
        [row] = director.ask("GET", "/v1/records")["records"]
        assert (row["lexicon_id"], row["words"], row["valid"]) == ("ca-page", ["QUADRE"], True)
        clear_verdict(page)
        page.reload()
        page.locator("#event-device").wait_for(state="visible")
        assert page.locator("#lexicon").input_value() == "ca-page"
        assert page.locator("html").get_attribute("lang") == "es"
        # Unpaired in the same event: the Spanish phone opens on the event's list, in Spanish; it
        # chooses the Spanish list and keeps it; asked between rounds, the service refuses it, and
        # the page says which list the event judges with.
        loose = stranger.page
        loose.goto("/")
        assert loose.locator("#lexicon").input_value() == "ca-page" and loose.locator("#lexicon").is_enabled()
        assert loose.locator("html").get_attribute("lang") == "es"
        loose.locator("#lexicon-summary").click()
        loose.locator("#lexicon").select_option("es-page")
        loose.reload()
        assert loose.locator("#lexicon").input_value() == "es-page"
        challenge(loose, "CASA")
        assert loose.locator("#form-error").inner_text() == (
            "Este torneo juzga cada jugada con Prova català: elige ese léxico. No hay veredicto."
        )
        assert loose.locator("#screen.show").count() == 0
        assert len(director.ask("GET", "/v1/records")["records"]) == 1
    finally:
        phone.close()
        stranger.close()
    assert phone.problems == [] and stranger.foreign_requests() == []
