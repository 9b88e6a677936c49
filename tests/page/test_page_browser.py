"""The judge's page in Debian's Chromium, at phone size with touch, against the live service.

Every test runs in a fresh browser context whose every request is recorded: the `phone` fixture
fails a test whose page asked anything of another origin, or threw a JavaScript error.
Screenshots: test-output/page/.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest

from service import create_app
from tests.support import compile_list

from .conftest import VERDICT_SECONDS, Phone, page_config

SPANISH_UI = {"lexicon": "Léxico", "word": "Palabra 1", "submit": "Comprobar", "add": "Añadir palabra"}
CATALAN_UI = {"lexicon": "Lèxic", "word": "Paraula 1", "submit": "Comprovar", "add": "Afegir paraula"}


# -- helpers -------------------------------------------------------------------------------------


def open_page(phone: Phone, query: str = "", offline_copy: bool = True):
    """The page, drawn, and its offline copy of the lexicon settled (offline.js, after first
    paint), so that the requests a test counts are its own; without `offline_copy`, the phone
    gets none (the download refused), as a page judges only with the service."""
    page = phone.page
    if not offline_copy:
        page.route("**/v1/lexicons/*/browser?*", lambda route: route.abort())
    page.goto("/" + query)
    page.locator("#keys .key").first.wait_for()
    page.wait_for_function(
        "() => document.documentElement.dataset.offline" if offline_copy else "() => window.LexiconOffline"
    )
    return page


def pick_lexicon(page, label: str, value: str):
    """Another lexicon, from the list one tap away under the lexicon's line."""
    if not page.locator("#lexicon-box[open]").count():
        page.locator("#lexicon-box summary").tap()
    page.get_by_label(label).select_option(value)


def word(page, n: int):
    return page.locator(f'input[name="word-{n}"]')


def type_word(page, n: int, *parts: str):
    """Types a word into field n: plain strings on the phone keyboard, ("RR",) with a tile key."""
    field = word(page, n)
    field.tap()
    page.keyboard.press("End")
    for part in parts:
        if isinstance(part, tuple):
            page.get_by_role("button", name=part[0], exact=True).tap()
        else:
            page.keyboard.type(part)


def tiles(page, n: int) -> str | None:
    return page.locator(f"#word-{n}-tiles").get_attribute("data-tiles")


def drawn_tiles(page, n: int) -> list[str]:
    return page.locator(f"#word-{n}-tiles .tile").all_inner_texts()


def error(page, n: int) -> str:
    return page.locator(f"#word-{n}-error").inner_text()


def add_word(page):
    page.locator("#add").tap()


def submit(page):
    page.get_by_role("button", name=re.compile(r"^Compro[bv]ar$")).tap()


def verdict(page) -> str:
    page.locator("#screen.show").wait_for()
    return page.locator("#verdict").inner_text()


CLOCK_START = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


def own_clock(page) -> None:
    """Before the page opens: its clock (setTimeout, Date…) is Playwright's, flowing as usual until
    `stop_clock`. So a test asserts what happens after so many of the page's seconds, not of ours."""
    page.clock.install(time=CLOCK_START)


def stop_clock(page) -> None:
    """The page's time stands still from here; `page.clock.run_for(ms)` moves it, firing its timers
    due by then, and `page.clock.resume()` lets it flow again."""
    page.clock.pause_at(CLOCK_START + timedelta(hours=1))


def wait_guard(page):
    """Until the verdict's buttons take taps and keys: its first moment ignores them (so that the
    tap or Enter that asked is not taken for one), GUARD_MS of the page's own clock from shownAt."""
    page.wait_for_function("""() => { const judge = window.LexiconJudge;
        return judge.state.shown && Date.now() - judge.state.shownAt >= judge.GUARD_MS; }""")


def shot(page, shots, name):
    page.screenshot(path=str(shots / f"{name}.png"))


def challenges(phone: Phone) -> list[str]:
    return [url for method, url in phone.requests if "/v1/" in url]


# -- loading, and what the page asks for ---------------------------------------------------------


def test_the_page_loads_from_the_service_alone_and_asks_once_a_verdict(phone, shots):
    page = open_page(phone)
    loaded = [url.removeprefix(phone.server.url).split("?")[0] for _, url in phone.requests]
    assert loaded[0] == "/" and sorted(loaded[1:5]) == [
        "/static/common.js",
        "/static/judge.css",
        "/static/judge.js",
        "/static/tiles.js",
    ]
    # after first paint, offline.js and the browser lexicon of the lexicon in use
    assert loaded[5:] == [
        "/static/lexicon.js",
        "/static/offline-data.js",
        "/static/offline.js",
        "/v1/lexicons/es-page/browser",
    ]
    assert all(method == "GET" for method, _ in phone.requests)
    for label in SPANISH_UI.values():
        assert page.get_by_text(label, exact=True).count() >= 1 or page.get_by_label(label).count()
    assert page.get_by_label("Léxico").input_value() == "es-page"
    details = page.locator("#lexicon-details").text_content()
    assert (
        details.startswith("Prueba español · español · versión 2026.1 · suma ")
        and "2026.1" in details
        and re.search(r"\b[0-9a-f]{8}\b", details)
    )
    shot(page, shots, "01-start-es")

    before = len(phone.requests)
    type_word(page, 1, "CASA")
    submit(page)
    assert "JUGADA VÁLIDA" in verdict(page)
    assert phone.requests[before:] == [("POST", phone.server.url + "/v1/challenge")]


def test_every_option_names_its_lexicon_language_version_and_short_checksum(phone):
    page = open_page(phone)
    options = page.locator("select[name=lexicon] option").all_text_contents()
    assert len(options) == 3
    assert re.fullmatch(r"Prueba español · español · 2026\.1 · [0-9a-f]{8} \(predeterminado\)", options[0])
    assert re.fullmatch(r"Otro español · español · 7 · [0-9a-f]{8}", options[1])
    assert re.fullmatch(r"Prova català · catalán · 2\.7\.15 · [0-9a-f]{8} \(predeterminado\)", options[2])


# -- Spanish -------------------------------------------------------------------------------------


def test_spanish_play_typed_with_tile_keys_is_valid(phone, shots):
    page = open_page(phone)
    keys = page.locator("#keys .key").all_inner_texts()
    assert keys == ["CH", "LL", "RR", "Ñ"]
    type_word(page, 1, "CA", ("RR",), "O")
    assert word(page, 1).input_value() == "CARR" + "O" and tiles(page, 1) == "C|A|RR|O"
    assert drawn_tiles(page, 1) == ["C", "A", "RR", "O"]
    assert "4 fichas" in page.locator("#word-1-tiles").inner_text()
    add_word(page)
    type_word(page, 2, ("CH",), "ico")
    assert tiles(page, 2) == "CH|I|C|O"
    add_word(page)
    type_word(page, 3, ("Ñ",), "andú")
    assert tiles(page, 3) == "Ñ|A|N|D|U"
    page.get_by_label("Mesa").fill("12")
    page.get_by_label("Ronda").fill("3")
    shot(page, shots, "02-es-typed")
    submit(page)
    text = verdict(page)
    assert text.startswith("JUGADA VÁLIDA")
    assert "NO VÁLIDA" not in text
    for expected in (
        "CARRO",
        "CHICO",
        "ÑANDÚ",
        "Mesa 12 · Ronda 3",
        "Papeleta: SÍ",
        "Prueba español · versión 2026.1 · suma",
    ):
        assert expected in text
    assert page.locator("#screen.valid svg.v-icon").is_visible()  # an icon, not colour alone
    shot(page, shots, "03-es-valid")
    wait_guard(page)
    for x, y in ((180, 200), (30, 700), (330, 60)):  # a stray tap anywhere clears nothing
        page.locator("#screen").tap(position={"x": x, "y": y})
    assert page.locator("#screen.show").count() == 1 and "CARRO" in verdict(page)
    page.get_by_role("button", name="Borrar").tap()
    expect_cleared(page)
    assert word(page, 1).input_value() == "" and page.locator("input.word-input").count() == 1
    assert page.get_by_label("Ronda").input_value() == "3"  # the round goes on; the table changes
    assert page.evaluate("document.activeElement.name") == "word-1"  # focus where the next play goes


def expect_cleared(page):
    page.locator("#screen.show").wait_for(state="detached")
    assert page.locator("#verdict").inner_text() == ""
    assert not page.locator("#screen-foot").is_visible()


# -- the last verdict, shown again -------------------------------------------------------------

RECALL_MS = 60_000  # verdict.js: a verdict cleared can be shown again this long


def borrar(page):
    """Borrar, once the verdict takes taps (the page's clock stands still: moved on to its guard)."""
    page.clock.run_for(page.evaluate("LexiconJudge.GUARD_MS"))
    page.get_by_role("button", name=re.compile(r"^Borrar$")).tap()
    expect_cleared(page)


def shown_without_the_mark(page) -> str:
    """The verdict on the screen as it was first shown: without the line that marks a recall."""
    return page.evaluate("""() => { const copy = document.getElementById("verdict").cloneNode(true);
        copy.querySelectorAll(".v-recalled").forEach((p) => p.remove());
        return copy.innerHTML; }""")


def test_the_last_verdict_comes_back_for_a_minute_marked_as_the_previous_one(phone):
    own_clock(phone.page)
    page = open_page(phone)
    recall = page.get_by_role("button", name="Último veredicto")
    assert recall.is_hidden()
    type_word(page, 1, "CARRO")
    add_word(page)
    type_word(page, 2, "CHICO")
    page.get_by_label("Mesa").fill("12")
    stop_clock(page)
    submit(page)
    assert verdict(page).startswith("JUGADA VÁLIDA")
    first = shown_without_the_mark(page)
    borrar(page)
    assert word(page, 1).input_value() == "" and page.locator("input.word-input").count() == 1
    assert recall.is_visible()

    recall.tap()  # the same verdict, said to be the previous one
    again = verdict(page)
    assert again.startswith("Veredicto anterior") and page.locator("#screen.show.valid").count() == 1
    assert shown_without_the_mark(page) == first
    borrar(page)
    assert page.evaluate("document.activeElement.id") == "word-1"  # where the next play goes
    assert recall.is_visible()

    # In Catalan now, it is still the Spanish verdict it was, said so to a screen reader; only
    # the line that marks it is in Catalan.
    page.get_by_role("button", name="Català").tap()
    page.get_by_role("button", name="Últim veredicte").tap()
    verdict(page)
    assert page.evaluate("document.getElementById('verdict').lang") == "es"
    mark = page.locator("#verdict .v-recalled")
    assert mark.inner_text().startswith("Veredicte anterior") and mark.get_attribute("lang") == "ca"
    assert page.locator("#verdict .v-title").inner_text() == "JUGADA VÁLIDA"
    page.clock.run_for(page.evaluate("LexiconJudge.GUARD_MS"))
    page.get_by_role("button", name="Esborrar").tap()
    expect_cleared(page)
    assert page.evaluate("document.activeElement.id") == "word-1"

    # A minute after the verdict was first cleared, the button goes by itself (two guards have
    # passed on the page's clock since: the recalled verdict's, twice).
    recall = page.get_by_role("button", name="Últim veredicte")
    page.clock.run_for(RECALL_MS - 2 * page.evaluate("LexiconJudge.GUARD_MS") - 500)
    assert recall.is_visible()
    page.clock.run_for(500)
    recall.wait_for(state="hidden")
    page.clock.resume()


def test_a_new_play_typed_forgets_the_last_verdict(phone):
    """Typing the next play (on the keyboard, or with a tile key) means the last verdict is no
    longer the one to show: its button goes, and nothing clears what is typed. The table's number
    is not the play: typed first, it keeps the button, and clearing the verdict recalled keeps it."""
    own_clock(phone.page)
    page = open_page(phone)
    recall = page.get_by_role("button", name="Último veredicto")
    stop_clock(page)
    for how in ("keyboard", "tile key"):
        type_word(page, 1, "CARRO")
        submit(page)
        verdict(page)
        borrar(page)
        page.get_by_label("Mesa").fill("5")
        recall.tap()
        verdict(page)
        borrar(page)
        assert page.get_by_label("Mesa").input_value() == "5"
        assert recall.is_visible()
        if how == "keyboard":
            page.keyboard.type("CA")
            assert word(page, 1).input_value() == "CA"
        else:
            page.get_by_role("button", name="RR", exact=True).tap()
            assert word(page, 1).input_value() == "RR"
        assert recall.is_hidden()
        page.keyboard.press("Escape")  # no verdict up: nothing happens
        assert page.get_by_label("Mesa").input_value() == "5" and word(page, 1).input_value() in ("CA", "RR")
        word(page, 1).fill("")
    page.clock.resume()


def test_spanish_play_not_valid_never_says_which_word_failed(phone, shots):
    page = open_page(phone)
    htmls = []
    for failing in (1, 2):
        words = ["CARRO", "CARROS"] if failing == 2 else ["CARROS", "CARRO"]
        for n, text in enumerate(words, 1):
            if n > 1:
                add_word(page)
            type_word(page, n, text)
        page.get_by_label("Mesa").fill("4")
        submit(page)
        text = verdict(page)
        assert text.startswith("JUGADA NO VÁLIDA") and "Papeleta: NO" in text and "Mesa 4" in text
        assert page.locator("#screen.invalid svg.v-icon").is_visible()
        html = page.locator("#verdict").inner_html()
        htmls.append(html.replace("CARROS", "W1").replace("CARRO", "W2").replace("W1", "W").replace("W2", "W"))
        if failing == 1:
            shot(page, shots, "04-es-not-valid")
        page.keyboard.press("Escape")
        expect_cleared(page)
    assert htmls[0] == htmls[1]  # the same screen whichever word failed


def test_a_tile_key_goes_where_the_cursor_is_and_reads_as_that_tile(phone):
    page = open_page(phone)
    type_word(page, 1, "CAO")
    word(page, 1).evaluate("input => input.setSelectionRange(2, 2)")
    page.get_by_role("button", name="RR", exact=True).tap()
    assert word(page, 1).input_value() == "CARRO" and tiles(page, 1) == "C|A|RR|O"
    page.keyboard.type("S")  # the caret stays after the tile
    assert word(page, 1).input_value() == "CARRSO"
    word(page, 1).fill("CARO")
    word(page, 1).evaluate("input => input.setSelectionRange(3, 3)")
    page.get_by_role("button", name="RR", exact=True).tap()
    # CAR + RR + O would read C|A|RR|R|O: the key writes the bracketed tile, read as it was meant.
    assert word(page, 1).input_value() == "CAR[RR]O" and tiles(page, 1) == "C|A|R|RR|O"


def test_spanish_input_errors_show_at_once_next_to_the_field(phone, shots):
    page = open_page(phone)
    type_word(page, 1, "KIWI")
    assert error(page, 1) == "«K», posición 1: el juego español no tiene ficha K"
    assert word(page, 1).get_attribute("aria-invalid") == "true"
    assert page.locator("#word-1-tiles .tile.bad").inner_text() == "K"
    add_word(page)
    type_word(page, 2, "COL·LEGI")
    assert "posición 4" in error(page, 2) and "L·L" in error(page, 2)
    shot(page, shots, "05-es-input-errors")
    before = len(phone.requests)
    submit(page)
    assert len(phone.requests) == before  # nothing to ask: the words are not tiles
    assert page.evaluate("document.activeElement.name") == "word-1"
    word(page, 1).fill("KIO")
    word(page, 1).fill("CARRO")
    assert error(page, 1) == "" and word(page, 1).get_attribute("aria-invalid") is None
    word(page, 2).fill("OOOOOOOOOOOOOOOO")
    assert "de 2 a 15 fichas; esta tiene 16" in error(page, 2)


def test_a_word_of_one_tile_is_reported_on_submit(phone):
    page = open_page(phone)
    type_word(page, 1, "A")
    assert error(page, 1) == ""  # not while typing the first letter
    submit(page)
    assert error(page, 1) == "Una palabra tiene de 2 a 15 fichas; esta tiene 1"


def test_an_empty_play_asks_for_a_word(phone):
    page = open_page(phone)
    before = len(phone.requests)
    submit(page)
    assert error(page, 1) == "Escribe al menos una palabra."
    assert len(phone.requests) == before


def test_a_server_input_error_is_shown_next_to_its_field(phone):
    """The service's own 422 (problem+json with the word's place) lands next to that field."""
    page = open_page(phone)

    def swap_second_word(route):
        body = json.loads(route.request.post_data)
        body["words"][1] = "KIWI"  # what the service must refuse, whatever the page checked
        route.continue_(post_data=json.dumps(body))

    page.route("**/v1/challenge", swap_second_word)
    type_word(page, 1, "CARRO")
    add_word(page)
    type_word(page, 2, "CHICO")
    submit(page)
    page.locator("#word-2-error:not(:empty)").wait_for()
    assert error(page, 2) == "«K», posición 1: no es una ficha de este juego"
    assert error(page, 1) == ""
    assert not page.locator("#screen.show").count()
    assert page.evaluate("document.activeElement.name") == "word-2"


# -- Catalan -------------------------------------------------------------------------------------


def test_catalan_lexicon_speaks_catalan_with_its_tiles_valid_and_not_valid(phone, shots):
    page = open_page(phone)
    page.get_by_role("button", name="Català").tap()  # the Catalan interface offers the Catalan lexicon
    assert page.evaluate("document.documentElement.lang") == "ca"
    assert page.get_by_label("Lèxic").input_value() == "ca-page"
    assert page.locator("#keys .key").all_inner_texts() == ["L·L", "NY", "QU", "Ç"]
    assert "Prova català · català · versió 2.7.15 · suma" in page.locator("#lexicon-details").text_content()
    type_word(page, 1, "CO", ("L·L",), "EGI")
    assert word(page, 1).input_value() == "COL·LEGI" and tiles(page, 1) == "C|O|L·L|E|G|I"
    add_word(page)
    type_word(page, 2, "A", ("NY",), "S")
    assert tiles(page, 2) == "A|NY|S"
    add_word(page)
    type_word(page, 3, ("QU",), "ADRE")
    assert tiles(page, 3) == "QU|A|D|R|E"
    add_word(page)
    type_word(page, 4, "CAN", ("Ç",), "Ó")
    assert tiles(page, 4) == "C|A|N|Ç|O"
    page.get_by_label("Taula").fill("7")
    page.get_by_label("Ronda").fill("2")
    shot(page, shots, "06-ca-typed")
    submit(page)
    text = verdict(page)
    assert text.startswith("JUGADA VÀLIDA") and "Papereta: SÍ" in text and "Taula 7 · Ronda 2" in text
    assert "Prova català · versió 2.7.15 · suma" in text
    shot(page, shots, "07-ca-valid")
    page.keyboard.press("Escape")
    expect_cleared(page)

    type_word(page, 1, "col.legi")  # a phone's full stop for the middle dot
    assert tiles(page, 1) == "C|O|L·L|E|G|I"
    add_word(page)
    type_word(page, 2, "CAVALLS")
    submit(page)
    text = verdict(page)
    assert text.startswith("JUGADA NO VÀLIDA") and "Papereta: NO" in text
    shot(page, shots, "08-ca-not-valid")


def test_catalan_input_errors_in_catalan(phone, shots):
    page = open_page(phone, "?lexicon=ca")
    assert page.get_by_label("Lèxic").input_value() == "ca-page"
    type_word(page, 1, "YOGA")
    assert error(page, 1) == "«Y», posició 1: el joc català no té fitxa Y; NY és una sola fitxa"
    add_word(page)
    type_word(page, 2, "A·B")
    assert error(page, 2) == "«·», posició 2: el punt volat només va a L·L"
    add_word(page)
    type_word(page, 3, "KAYAK")
    assert error(page, 3) == "«K», posició 1: el joc català no té fitxa K"
    shot(page, shots, "09-ca-input-errors")
    page.get_by_role("button", name="Español").tap()  # Spanish offers the Spanish lexicon: Y is a tile
    assert page.get_by_label("Léxico").input_value() == "es-page"
    assert error(page, 1) == "" and tiles(page, 1) == "Y|O|G|A"
    pick_lexicon(page, "Léxico", "ca-page")  # the Catalan lexicon, explained in Spanish
    assert page.evaluate("document.documentElement.lang") == "es"
    assert error(page, 1) == "«Y», posición 1: el juego catalán no tiene ficha Y; NY es una sola ficha"
    assert error(page, 2) == "«·», posición 2: el punto medio solo va en L·L"


def test_the_language_buttons_switch_the_interface_and_the_lexicon_and_are_remembered(phone, shots):
    """A Catalan judge on a Spanish start taps Català: Catalan words, tiles and lexicon."""
    page = open_page(phone)
    assert page.get_by_label("Léxico").input_value() == "es-page"
    page.get_by_role("button", name="Català").tap()
    assert page.get_by_role("button", name="Català").get_attribute("aria-pressed") == "true"
    assert page.get_by_label("Lèxic").input_value() == "ca-page"
    assert page.locator("#keys .key").all_inner_texts() == ["L·L", "NY", "QU", "Ç"]
    assert "català · versió 2.7.15" in page.locator("#lexicon-details").text_content()
    for label in CATALAN_UI.values():
        assert page.get_by_text(label, exact=True).count() >= 1 or page.get_by_label(label).count()
    type_word(page, 1, "col·legi")
    assert error(page, 1) == "" and tiles(page, 1) == "C|O|L·L|E|G|I"
    submit(page)
    text = verdict(page)
    assert text.startswith("JUGADA VÀLIDA") and "Prova català" in text
    page.keyboard.press("Escape")
    expect_cleared(page)

    # A Catalan judge at a Spanish event: the Catalan interface, a Spanish lexicon from the list.
    pick_lexicon(page, "Lèxic", "es-alt")
    assert page.evaluate("document.documentElement.lang") == "ca"
    assert page.locator("#keys .key").all_inner_texts() == ["CH", "LL", "RR", "Ñ"]
    assert "Otro español · castellà · versió 7" in page.locator("#lexicon-details").text_content()
    type_word(page, 1, "XILÓFONO")
    submit(page)
    text = verdict(page)
    assert text.startswith("JUGADA VÀLIDA") and "Papereta: SÍ" in text and "Otro español" in text
    shot(page, shots, "10-es-lexicon-catalan-ui")
    page.keyboard.press("Escape")

    page.reload()  # both choices are remembered on this phone
    page.locator("#keys .key").first.wait_for()
    assert page.evaluate("document.documentElement.lang") == "ca"
    assert page.get_by_label("Lèxic").input_value() == "es-alt"
    page.get_by_role("button", name="Español").tap()  # Spanish: the Spanish lexicon last used
    assert page.evaluate("document.documentElement.lang") == "es"
    assert page.get_by_label("Léxico").input_value() == "es-alt"
    page.get_by_role("button", name="Català").tap()
    assert page.get_by_label("Lèxic").input_value() == "ca-page"


@pytest.mark.parametrize(
    "locale, language, lexicon, words",
    [
        ("ca-ES", "ca", "ca-page", ["COL·LEGI", "QUADRE"]),
        ("es-ES", "es", "es-page", ["CARRO", "ÑANDÚ"]),
        ("en-US", "es", "es-page", ["CARRO"]),  # no texts for English: the service's default lexicon
    ],
)
def test_the_first_visit_follows_the_browsers_language(browser, live, shots, locale, language, lexicon, words):
    device = Phone(browser, live, locale=locale)
    try:
        page = open_page(device)
        assert page.evaluate("navigator.language") == locale
        assert page.evaluate("document.documentElement.lang") == language
        assert page.locator('select[name="lexicon"]').input_value() == lexicon
        ui = CATALAN_UI if language == "ca" else SPANISH_UI
        assert page.get_by_role("button", name=ui["submit"]).is_visible()
        shot(page, shots, f"17-start-{locale}")
        for n, text in enumerate(words, 1):
            if n > 1:
                add_word(page)
            type_word(page, n, text)
            assert error(page, n) == ""
        shot(page, shots, f"18-typed-{locale}")
        submit(page)
        assert verdict(page).startswith("JUGADA VÀLIDA" if language == "ca" else "JUGADA VÁLIDA")
        assert device.foreign_requests() == [] and device.problems == []
    finally:
        device.close()


def test_the_first_of_the_browsers_languages_with_texts_wins(browser, live):
    device = Phone(browser, live, locale="en-GB")
    device.context.add_init_script("Object.defineProperty(navigator, 'languages', {get: () => ['en-GB', 'ca', 'es']})")
    try:
        page = open_page(device)
        assert page.evaluate("document.documentElement.lang") == "ca"
        assert page.locator('select[name="lexicon"]').input_value() == "ca-page"
        assert page.evaluate("localStorage.length") == 0  # a guess, not a choice: nothing stored
    finally:
        device.close()


# -- the verdict clears itself -------------------------------------------------------------------


def test_the_verdict_clears_itself_after_the_configured_time(phone, shots):
    own_clock(phone.page)
    page = open_page(phone)
    assert page.evaluate("LexiconJudge.data.verdictSeconds") == VERDICT_SECONDS
    type_word(page, 1, "PERRO")
    add_word(page)
    type_word(page, 2, "LLAVE")
    stop_clock(page)
    submit(page)
    verdict(page)
    assert f"Se borra en {VERDICT_SECONDS} s" in page.locator("#clear-hint").inner_text()
    page.clock.run_for(VERDICT_SECONDS * 1000 - 100)
    assert page.locator("#screen.show").count() == 1  # still there just before its time
    page.clock.run_for(200)
    page.locator("#screen.show").wait_for(state="detached")  # gone at its time
    page.clock.resume()
    assert page.locator("#verdict").inner_text() == ""
    assert word(page, 1).input_value() == "" and page.locator("input.word-input").count() == 1
    assert page.get_by_text("PERRO").count() == 0
    assert page.evaluate("document.activeElement.name") == "word-1"  # not dropped to <body>
    shot(page, shots, "11-cleared")


@pytest.fixture(scope="module")
def defaults(page_lexicons):
    """The service as `make run` starts it: LEXICON_VERDICT_SECONDS not set."""
    return InProcess(create_app(page_config(page_lexicons)))


def test_by_default_the_verdict_stays_until_borrar(browser, defaults, shots):
    """Players point at the verdict while they talk it over: no timer takes it away, only Borrar."""
    device = Phone(browser, defaults)
    device.context.route("**/*", defaults)
    try:
        page = device.page
        own_clock(page)
        page.goto("/")
        page.locator("#keys .key").first.wait_for()
        assert page.evaluate("LexiconJudge.data.verdictSeconds") == 0
        type_word(page, 1, "CARRO")
        stop_clock(page)
        submit(page)
        assert verdict(page).startswith("JUGADA VÁLIDA")
        hint = page.locator("#clear-hint").inner_text()
        assert hint.startswith("Sigue aquí hasta Borrar") and "Se borra en" not in hint
        page.clock.run_for(30 * 60 * 1000)  # half an hour of the page's time
        for event in ("visibilitychange", "pageshow", "focus"):  # the screen locked and back, another app
            page.evaluate(
                f"() => {{ document.dispatchEvent(new Event('{event}')); window.dispatchEvent(new Event('{event}')); }}"
            )
        assert page.locator("#screen.show").count() == 1 and word(page, 1).input_value() == "CARRO"
        page.clock.resume()
        wait_guard(page)
        page.get_by_role("button", name="Borrar").click()
        page.locator("#screen.show").wait_for(state="detached")
        assert word(page, 1).input_value() == ""
        assert page.evaluate("document.activeElement.name") == "word-1"
        assert device.problems == []
    finally:
        device.close()


# -- keyboard only, small screens, accessibility ---------------------------------------------------


def test_keyboard_only(browser, live, shots):
    device = Phone(
        browser, live, viewport={"width": 800, "height": 900}, is_mobile=False, has_touch=False, device_scale_factor=1
    )
    try:
        page = device.page
        page.goto("/")
        page.locator("#keys .key").first.wait_for()
        focused = []
        for _ in range(12):
            page.keyboard.press("Tab")
            focused.append(page.evaluate("document.activeElement.name || document.activeElement.id"))
            if focused[-1] == "word-1":
                break
        assert focused[-1] == "word-1", focused
        assert "lexicon-summary" in focused  # the lexicon's line, which opens the list
        page.keyboard.type("CA")
        for _ in range(6):  # word-1 -> add -> table -> round -> CH -> LL -> RR
            page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.textContent") == "RR"
        page.keyboard.press("Enter")  # the tile goes where the caret was, and the caret comes back
        assert page.evaluate("document.activeElement.name") == "word-1"
        page.keyboard.type("O")
        assert tiles(page, 1) == "C|A|RR|O"
        page.keyboard.press("Control+Enter")  # Ctrl+Enter judges (Enter goes to the next word)
        assert verdict(page).startswith("JUGADA VÁLIDA")
        assert page.evaluate("document.activeElement.id") == "clear"
        page.screenshot(path=str(shots / "12-keyboard-verdict.png"))
        page.keyboard.press("Escape")  # Escape clears at once
        expect_cleared(page)
        assert page.evaluate("document.activeElement.name") == "word-1"
        page.keyboard.type("KIWI")
        assert "ficha K" in error(page, 1)
        page.keyboard.press("Control+Enter")
        assert page.locator("#screen.show").count() == 0
        page.keyboard.press("Control+A")
        page.keyboard.type("LLAVE")
        page.keyboard.press("Control+Enter")
        assert verdict(page).startswith("JUGADA VÁLIDA")
        wait_guard(page)
        page.keyboard.press("x")  # a stray key clears nothing
        page.keyboard.press("Backspace")
        assert page.locator("#screen.show").count() == 1 and page.evaluate("document.activeElement.id") == "clear"
        page.keyboard.press("Enter")  # Enter on Borrar does
        expect_cleared(page)
        assert page.evaluate("document.activeElement.name") == "word-1"
        assert device.foreign_requests() == [] and device.problems == []
    finally:
        device.close()


def no_horizontal_scroll(page) -> bool:
    return page.evaluate(
        "document.documentElement.scrollWidth <= window.innerWidth && document.body.scrollWidth <= window.innerWidth"
    )


def test_320_px_wide_without_horizontal_scroll(browser, live, shots):
    device = Phone(browser, live, viewport={"width": 320, "height": 640})
    try:
        page = device.page
        page.goto("/")
        page.locator("#keys .key").first.wait_for()
        assert page.evaluate("window.innerWidth") == 320
        assert no_horizontal_scroll(page)
        for n in range(1, 9):
            if n > 1:
                add_word(page)
            word(page, n).fill("CHURRRRRRRRRRRRRRRRRRRRRRRRRRRRO"[: 16 + n])
        assert page.locator("#add").is_disabled()  # eight words at most
        assert no_horizontal_scroll(page)
        page.screenshot(path=str(shots / "13-320px-eight-words.png"), full_page=True)
        for n in range(1, 9):
            word(page, n).fill("PARANGARICUTIRI"[: 7 + n])
        submit(page)
        verdict(page)
        assert no_horizontal_scroll(page)
        page.screenshot(path=str(shots / "14-320px-verdict.png"))
        assert device.foreign_requests() == [] and device.problems == []
    finally:
        device.close()


CONTRAST = """
() => {
  const rgb = (text) => (text.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] === 1)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    if (!el.offsetParent && getComputedStyle(el).position !== "fixed") continue;
    const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length) continue;
    const a = lum(rgb(getComputedStyle(el).color)), b = lum(background(el));
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    out.push([el.tagName + "." + el.className + "#" + el.id, el.textContent.trim().slice(0, 30), ratio]);
  }
  return out;
}
"""

TARGETS = """
() => Array.from(document.querySelectorAll("button, input, select")).filter((el) => el.getClientRects().length)
  .map((el) => { const r = el.getBoundingClientRect(); return [el.id || el.name || el.textContent.trim(), r.width, r.height]; })
"""


def test_targets_contrast_labels_and_zoom(phone):
    page = open_page(phone)
    add_word(page)
    type_word(page, 1, "KIWI")
    type_word(page, 2, "CASA")
    small = [t for t in page.evaluate(TARGETS) if t[1] < 44 or t[2] < 44]
    assert small == [], "touch targets under 44 px"
    low = [c for c in page.evaluate(CONTRAST) if c[2] < 7]
    assert low == [], "text under the designed contrast (7:1; WCAG AAA)"
    for n in (1, 2):  # real labels: each field has its own, and a description of tiles and errors
        assert page.get_by_label(f"Palabra {n}", exact=True).get_attribute("name") == f"word-{n}"
        assert word(page, n).get_attribute("aria-describedby") == f"word-{n}-tiles word-{n}-error"
        for name, value in (
            ("autocomplete", "off"),
            ("autocorrect", "off"),
            ("spellcheck", "false"),
            ("autocapitalize", "characters"),
        ):
            assert word(page, n).get_attribute(name) == value
    assert page.get_by_role("button", name="Quitar la palabra 2").count() == 1
    viewport = page.locator('meta[name="viewport"]').get_attribute("content")
    assert "user-scalable" not in viewport and "maximum-scale" not in viewport
    word(page, 1).fill("CARRO")
    submit(page)
    verdict(page)
    low = [c for c in page.evaluate(CONTRAST) if c[2] < 7]
    assert low == [], "verdict text under the designed contrast (7:1)"
    small = [t for t in page.evaluate(TARGETS) if (t[1] < 44 or t[2] < 44) and t[0] == "clear"]
    assert small == []


def test_words_can_be_added_up_to_eight_and_removed(phone):
    page = open_page(phone)
    assert page.locator("input.word-input").count() == 1
    assert not page.locator("#word-list .remove").first.is_visible()  # one word stays
    for n in range(2, 9):
        add_word(page)
        word(page, n).fill(f"CASA{'A' * n}")
    assert page.locator("input.word-input").count() == 8 and page.locator("#add").is_disabled()
    page.get_by_role("button", name="Quitar la palabra 3").tap()
    names = page.locator("input.word-input").evaluate_all("inputs => inputs.map(i => i.name + '=' + i.value)")
    assert names == [
        f"word-{n}=" + v
        for n, v in enumerate(["", "CASAAA", "CASAAAAA", "CASAAAAAA", "CASAAAAAAA", "CASAAAAAAAA", "CASAAAAAAAAA"], 1)
    ]
    assert page.get_by_label("Palabra 7", exact=True).input_value() == "CASAAAAAAAAA"
    assert page.locator("#add").is_enabled()
    assert page.evaluate("document.activeElement.name") == "word-3"


# -- failures: a clear message, never a stale verdict ------------------------------------------------


def test_an_unreachable_service_says_so_and_shows_no_verdict(phone, shots):
    """With no copy of the lexicon on the phone (test_page_offline.py: with one, it judges)."""
    page = open_page(phone, offline_copy=False)
    type_word(page, 1, "CARRO")
    submit(page)
    assert verdict(page).startswith("JUGADA VÁLIDA")
    page.keyboard.press("Escape")
    page.route("**/v1/challenge", lambda route: route.abort("connectionrefused"))
    type_word(page, 1, "CARROS")
    submit(page)
    alert = page.get_by_role("alert")
    alert.filter(has_text="Sin conexión").wait_for()
    assert "No hay veredicto" in alert.inner_text()
    assert page.locator("#screen.show").count() == 0 and page.locator("#verdict").inner_text() == ""
    assert word(page, 1).input_value() == "CARROS"  # kept, to try again
    assert page.get_by_role("button", name="Comprobar").is_enabled()
    shot(page, shots, "15-offline")
    page.unroute("**/v1/challenge")
    submit(page)
    assert verdict(page).startswith("JUGADA NO VÁLIDA")
    assert page.locator("#form-error").inner_text() == ""


def test_a_service_error_is_no_verdict(phone):
    page = open_page(phone, offline_copy=False)
    page.route("**/v1/challenge", lambda route: route.fulfill(status=503, body="busy"))
    type_word(page, 1, "CARRO")
    submit(page)
    page.get_by_role("alert").filter(has_text="503").wait_for()
    assert page.locator("#screen.show").count() == 0


def test_a_front_end_s_own_503_says_the_service_failed_not_that_it_refused_the_play(phone):
    """nginx's answer when no instance answered (deploy/nginx.conf: problem+json of type
    about:blank), on a phone that cannot judge on its own copy: the service failed, try again,
    no verdict; never "the service does not accept this query", which a judge would not retry."""
    page = open_page(phone, offline_copy=False)
    body = json.dumps(
        {"type": "about:blank", "title": "Service Unavailable", "status": 503, "detail": "no instance answered"}
    )
    page.route(
        "**/v1/challenge",
        lambda route: route.fulfill(status=503, body=body, headers={"Content-Type": "application/problem+json"}),
    )
    type_word(page, 1, "CARRO")
    submit(page)
    alert = page.get_by_role("alert").filter(has_text="503")
    alert.wait_for()
    assert alert.inner_text() == "El servicio ha fallado (503): vuelve a intentarlo. No hay veredicto."
    assert page.locator("#screen.show").count() == 0


# -- the venue token ---------------------------------------------------------------------------


class InProcess:
    """The app with a venue token, created here, answering the browser through Playwright's routing.

    One live service a session is enough: this second configuration never listens on a port;
    every request of its context is handed to the app itself (the same create_app as the live
    service), so none can leave either.
    """

    url = "http://judge.venue.test"

    def __init__(self, app):
        self.client = app.test_client()

    def __call__(self, route):
        request, url = route.request, urlsplit(route.request.url)
        assert (url.scheme, url.netloc) == urlsplit(self.url)[:2], request.url
        headers = {k: v for k, v in request.all_headers().items() if k.lower() != "accept-encoding"}
        response = self.client.open(
            url.path, method=request.method, query_string=url.query, headers=headers, data=request.post_data_buffer
        )
        route.fulfill(
            status=response.status_code,
            body=response.get_data(),
            headers={k: v for k, v in response.headers.items() if k.lower() != "content-length"},
        )


@pytest.fixture(scope="module")
def guarded(page_lexicons):
    return InProcess(create_app(page_config(page_lexicons, LEXICON_TOKEN="sala-b-2026")))


def test_the_venue_token_is_taken_from_the_address_once(browser, guarded, shots):
    device = Phone(browser, guarded)
    device.context.route("**/*", guarded)
    try:
        page = device.page
        page.goto("/?token=sala-b-2026&lexicon=es-alt")
        page.locator("#keys .key").first.wait_for()
        assert page.url == guarded.url + "/?lexicon=es-alt"  # off the screen and the history
        assert page.get_by_label("Léxico").input_value() == "es-alt"
        type_word(page, 1, "XILÓFONO")
        submit(page)
        assert verdict(page).startswith("JUGADA VÁLIDA")  # only es-alt has it
        page.keyboard.press("Escape")
        page.reload()  # kept for this tab
        page.locator("#keys .key").first.wait_for()
        assert not page.locator("#token-box").is_visible()
        assert page.evaluate("sessionStorage.getItem('lexicon-judge.token')") == "sala-b-2026"

        other = device.context.new_page()  # a new tab: asks for the code
        other.goto("/")
        other.locator("#token-box").wait_for()
        assert other.get_by_label("Código del torneo").is_visible()
        other.get_by_label("Código del torneo").fill("wrong-code")
        other.get_by_role("button", name="Guardar código").tap()
        type_word(other, 1, "CARRO")
        submit(other)
        other.get_by_role("alert").filter(has_text="El código no es válido").wait_for()
        assert other.locator("#screen.show").count() == 0
        other.screenshot(path=str(shots / "16-token-wrong.png"))
        other.get_by_label("Código del torneo").fill("sala-b-2026")
        submit(other)
        assert verdict(other).startswith("JUGADA VÁLIDA")
        assert device.foreign_requests() == [] and device.problems == []
    finally:
        device.close()


@pytest.fixture(scope="module")
def long_names(tmp_path_factory):
    folder = tmp_path_factory.mktemp("long-names")
    es = compile_list(
        folder / "lp.lex", ["CASA", "CARRO"], "es", "letterpress-es", "Letterpress español (lista abierta)", "2.0.0"
    )
    ca = compile_list(
        folder / "disc.lex",
        ["CASA", "COL·LEGI"],
        "ca",
        "disc-e8b6e1c",
        "DISC (Diccionari Informatitzat de l'Scrabble en Català)",
        "2026-11-21 (e8b6e1c)",
    )
    return InProcess(create_app(page_config({"es": es, "ca": ca})))


def test_the_lexicon_s_whole_name_is_one_tap_away_at_390_px(browser, long_names, shots):
    """The lexicon's line is cut to fit ("Letterpress español (lista abier…"); a tap on it shows
    the whole name, wrapped, with its language, version and checksum, and the list to change it."""
    device = Phone(browser, long_names, viewport={"width": 390, "height": 844})
    device.context.route("**/*", long_names)
    try:
        page = device.page
        page.goto("/")
        page.locator("#keys .key").first.wait_for()
        for value, name in (
            ("letterpress-es", "Letterpress español (lista abierta)"),
            ("disc-e8b6e1c", "DISC (Diccionari Informatitzat de l'Scrabble en Català)"),
        ):
            pick_lexicon(page, "Léxico", value)
            assert page.locator("#lexicon-summary").bounding_box()["height"] <= 52  # one line, cut
            short = page.locator("#lexicon-short")  # the name is cut, its short checksum never is
            checksum = page.evaluate(f"LexiconJudge.data.lexicons.find((l) => l.id === {value!r}).short")
            assert (
                short.inner_text() == "· " + checksum
                and short.bounding_box()["x"] + short.bounding_box()["width"] <= 390
            )
            assert short.evaluate("e => e.scrollWidth <= e.clientWidth")
            details = page.locator("#lexicon-details")
            assert details.is_visible() and details.inner_text().startswith(name + " · ")
            box = details.bounding_box()
            assert box["height"] > 30 and box["x"] + box["width"] <= 390  # wrapped, whole, on the screen
        shot(page, shots, "lexicon-list-390")
    finally:
        device.close()
