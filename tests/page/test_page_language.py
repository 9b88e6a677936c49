"""The judge's page is served in the phone's language: its remembered choice (the cookies the page
sets when the judge picks), else its Accept-Language, with that language's texts, lexicon and
tile keys, so that nothing flashes in another language before the script runs. The page differs
by those headers: it says so (Vary), for every cache between the service and the phone."""

from __future__ import annotations

import re

import pytest

from service import create_app
from tests.support import stop_soon
from tournament import create_event

from .conftest import Phone, page_config
from .phone_states import EVENT_NAME, PASSWORD, Director, event_server


@pytest.fixture(scope="module")
def client(page_lexicons):
    # Cookies as a phone sends them, in a header: the client keeps no jar of its own.
    return create_app(page_config(page_lexicons)).test_client(use_cookies=False)


def served(client, headers=None, query="") -> tuple[str, str, list[str], str]:
    """(html lang, the selected lexicon, the tile keys, the whole page) of GET /."""
    html = client.get("/" + query, headers=headers or {}).get_data(as_text=True)
    lang = re.search(r'<html lang="(\w+)">', html).group(1)
    selected = re.search(r'<option value="([\w-]+)"[^>]* selected>', html).group(1)
    keys = re.findall(r'<button type="button" class="key" data-tile="[^"]+">([^<]+)</button>', html)
    return lang, selected, keys, html


def test_a_language_the_browser_refuses_is_not_chosen(client):
    """q=0 is "not this one", on the judge's page as on the console (service.page_texts.accepted)."""
    lang, selected, _, _ = served(client, {"Accept-Language": "ca;q=0, es;q=0.5"})
    assert (lang, selected) == ("es", "es-page")


def test_a_catalan_phone_gets_the_catalan_page_with_its_lexicon_and_keys(client):
    lang, selected, keys, html = served(client, {"Accept-Language": "ca-ES,ca;q=0.9,es;q=0.8"})
    assert (lang, selected, keys) == ("ca", "ca-page", ["L·L", "NY", "QU", "Ç"])
    assert "<title>Impugnacions · Lexicon Judge</title>" in html and ">Comprovar</button>" in html
    assert 'data-lang="ca" lang="ca" aria-pressed="true"' in html
    assert '<span id="lexicon-name">Prova català</span></span><span id="lexicon-short" class="lexicon-short">· ' in html
    # the lexicons named in Catalan, not by a raw code ("· es ·")
    assert re.search(r">Prova català · català · 2\.7\.15 · [0-9a-f]{8} \(predeterminat\)</option>", html)
    assert re.search(r">Prueba español · castellà · 2026\.1 · [0-9a-f]{8} \(predeterminat\)</option>", html)
    assert re.search(
        r'<p id="lexicon-details" class="details">Prova català · català · versió 2\.7\.15 · suma [0-9a-f]{8}</p>', html
    )


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        ("es-ES,es;q=0.9", ("es", "es-page")),
        ("fr-FR,fr;q=0.9,ca;q=0.5", ("ca", "ca-page")),  # the first language the page has texts for
        ("es;q=0.4,ca;q=0.8", ("ca", "ca-page")),  # by quality, not by order
        ("fr-FR", ("es", "es-page")),  # none: the service's default lexicon's
        ("", ("es", "es-page")),
    ],
)
def test_accept_language_chooses_by_the_page_s_rule(client, accept, expected):
    assert served(client, {"Accept-Language": accept} if accept else {})[:2] == expected


def test_the_remembered_choice_comes_first_and_a_link_before_it(client):
    cookies = "lexicon-judge-ui=es; lexicon-judge-lexicon=es-alt"
    assert served(client, {"Accept-Language": "ca", "Cookie": cookies})[:3] == ("es", "es-alt", ["CH", "LL", "RR", "Ñ"])
    # a language chosen, and a lexicon of the other: both as chosen
    assert served(client, {"Cookie": "lexicon-judge-ui=ca; lexicon-judge-lexicon=es-alt"})[:2] == ("ca", "es-alt")
    # a cookie naming nothing the service has: the next rule
    assert served(client, {"Accept-Language": "ca", "Cookie": "lexicon-judge-ui=xx; lexicon-judge-lexicon=gone"})[
        :2
    ] == ("ca", "ca-page")
    # ?lexicon= (an id, or a language) before everything, with its language
    assert served(client, {"Cookie": cookies}, "?lexicon=ca-page")[:2] == ("ca", "ca-page")
    assert served(client, {"Accept-Language": "ca"}, "?lexicon=es")[:2] == ("es", "es-page")


def test_the_page_says_what_it_varies_by_and_each_variant_is_its_own(client):
    spanish = client.get("/", headers={"Accept-Language": "es"})
    catalan = client.get("/", headers={"Accept-Language": "ca"})
    for response in (spanish, catalan):
        assert {"Accept-Encoding", "Accept-Language", "Cookie"} <= {
            v.strip() for v in response.headers["Vary"].split(",")
        }
        assert response.headers["Cache-Control"] == "no-cache"
    assert spanish.headers["ETag"] != catalan.headers["ETag"]
    again = client.get("/", headers={"Accept-Language": "ca", "If-None-Match": catalan.headers["ETag"]})
    assert again.status_code == 304
    assert (
        client.get("/", headers={"Accept-Language": "es", "If-None-Match": catalan.headers["ETag"]}).status_code == 200
    )


def first_paint(page) -> dict:
    """What the page shows with its scripts refused: what a phone paints before they run."""
    return page.evaluate("""() => ({
        lang: document.documentElement.lang,
        submit: document.getElementById("submit").textContent,
        keys: Array.from(document.querySelectorAll("#keys .key"), (k) => k.textContent),
        line: document.getElementById("lexicon-name").textContent + " " + document.getElementById("lexicon-short").textContent,
        label: document.querySelector("label[for=word-1]").textContent,
    })""")


def test_a_catalan_phone_paints_catalan_before_any_script_and_a_choice_is_remembered(browser, live):
    phone = Phone(browser, live, locale="ca-ES")
    try:
        page = phone.page
        page.route("**/static/*.js*", lambda route: route.abort())
        page.goto("/")
        painted = first_paint(page)
        assert painted["lang"] == "ca" and painted["submit"] == "Comprovar" and painted["label"] == "Paraula 1"
        assert painted["keys"] == ["L·L", "NY", "QU", "Ç"] and painted["line"].startswith("Prova català · ")
        # with its scripts, the page changes nothing of it
        page.unroute("**/static/*.js*")
        page.reload()
        page.locator("#offline-mark:not(:empty)").wait_for()
        assert first_paint(page) == painted
        # the judge picks Spanish: the next load is served in Spanish, before any script
        page.get_by_role("button", name="Español").click()
        page.route("**/static/*.js*", lambda route: route.abort())
        page.reload()
        painted = first_paint(page)
        assert (
            painted["lang"] == "es" and painted["submit"] == "Comprobar" and painted["keys"] == ["CH", "LL", "RR", "Ñ"]
        )
        cookies = {c["name"]: c["value"] for c in phone.context.cookies()}
        assert cookies == {"lexicon-judge-ui": "es", "lexicon-judge-lexicon": "es-page"}
    finally:
        phone.close()
    assert phone.problems == []


@pytest.fixture(scope="module")
def spanish_event(page_lexicons, tmp_path_factory):
    """An app running an event whose lexicon is es-page (the Spanish one), for a test client."""
    path = tmp_path_factory.mktemp("spanish-event") / "open.db"
    create_event(path, EVENT_NAME, PASSWORD, lexicon="es-page").close()
    return create_app(page_config(page_lexicons, LEXICON_EVENT=str(path))).test_client(use_cookies=False)


def test_in_an_event_a_phone_opens_on_the_event_s_list_in_its_own_language(spanish_event):
    """A Catalan phone at a Spanish event, not paired, that chose no list: the page in Catalan, on
    the event's list and its tile keys (it opened on the Catalan list, which every verdict of the
    event refuses). A list the phone chose, or a link's, is kept."""
    catalan = {"Accept-Language": "ca-ES,ca;q=0.9"}
    assert served(spanish_event, catalan)[:3] == ("ca", "es-page", ["CH", "LL", "RR", "Ñ"])
    assert served(spanish_event, {**catalan, "Cookie": "lexicon-judge-lexicon=ca-page"})[:2] == ("ca", "ca-page")
    assert served(spanish_event, catalan, "?lexicon=ca")[:2] == ("ca", "ca-page")


def test_a_catalan_phone_at_a_spanish_event_starts_on_the_event_s_list(browser, page_lexicons, tmp_path):
    """The page's own start (judge.js) keeps what the service served: the interface in Catalan, the
    event's list; asked between rounds, the verdict is the event's list's, and so is the record's row."""
    server = event_server(page_lexicons, tmp_path)
    phone = Phone(browser, server, locale="ca-ES")
    try:
        page = phone.page
        page.goto("/")
        page.wait_for_function("() => window.LexiconOffline && document.readyState === 'complete'")
        assert page.evaluate("document.documentElement.lang") == "ca"
        assert page.locator("#lexicon").input_value() == "es-page" and page.locator("#lexicon").is_enabled()
        assert page.locator("#keys .key").all_inner_texts() == ["CH", "LL", "RR", "Ñ"]
        page.locator("#word-1").fill("CHICO")
        page.locator("#submit").click()
        page.locator("#screen.show.valid").wait_for()
        assert "Prueba español" in page.locator("#verdict").inner_text()
        rows = Director(server).ask("GET", "/v1/records")["records"]
        assert [(row["lexicon_id"], row["words"]) for row in rows] == [("es-page", ["CHICO"])]
    finally:
        phone.close()
        stop_soon(server)
    assert phone.problems == []
