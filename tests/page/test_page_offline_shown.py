"""The judge's page offline in an event, in Debian's Chromium, with a browser file forged beside the
event's `.lex` (sound, claiming that `.lex`, made without CHICO): the phone shows a verdict the
list does not give. Its queued verdict says which one it showed (`shown_valid`), the record
refuses it (409 `offline-verdict-differs`), and the phone says so, in the language of its page.
Helpers: test_page_offline.py and test_page_offline_event.py."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.support import compile_list, forge_browser_file, stop_soon

from . import phone_states
from .conftest import CA_WORDS, ES_WORDS, Phone
from .phone_states import Director
from .test_director_browser import pair_phone
from .test_page_offline import clear, play, ready
from .test_page_offline_event import flushed

pytestmark = pytest.mark.server  # its phone talks to a live `lexicon serve` of its own

WAITING = """() => new Promise((resolve) => indexedDB.open("lexicon-judge").onsuccess = (e) =>
    e.target.result.transaction("waiting").objectStore("waiting").getAll().onsuccess = (r) => resolve(r.target.result))"""
REFUSED_KEPT = """() => new Promise((resolve) => indexedDB.open("lexicon-judge").onsuccess = (e) =>
    e.target.result.transaction("refused").objectStore("refused").getAll().onsuccess = (r) => resolve(r.target.result))"""
SAID = {
    "es": "Este teléfono y el servicio dan veredictos distintos con el mismo léxico",
    "ca": "Aquest telèfon i el servei donen veredictes diferents amb el mateix lèxic",
}
REFUSED = {"es": "que el registro no aceptó: {n}", "ca": "que el registre no ha acceptat: {n}"}


@pytest.fixture
def forged_server(tmp_path):
    """A live service running an event on es-page, whose browser file someone replaced."""
    folder = tmp_path / "lexicons"
    folder.mkdir()
    lexicons = {
        "es-page": compile_list(folder / "es.lex", ES_WORDS, "es", "es-page", "Prueba español", "2026.1"),
        "ca-page": compile_list(folder / "ca.lex", CA_WORDS, "ca", "ca-page", "Prova català", "2.7.15"),
    }
    forge_browser_file(lexicons["es-page"], [word for word in ES_WORDS if word != "CHICO"])
    server = phone_states.event_server(lexicons, tmp_path)
    yield server
    stop_soon(server)


def test_an_offline_verdict_the_service_would_not_give_is_refused_and_the_phone_says_so(browser, forged_server):
    director = Director(forged_server)
    code = director.device("Juez 1", "judge")
    director.ask("POST", "/v1/rounds", {})
    phone = Phone(browser, forged_server)
    try:
        page = pair_phone(phone, f"/#pair={code}")
        ready(page)
        for n, language in enumerate(("es", "ca"), 1):
            if language == "ca":
                clear(page)
                page.locator('.lang[data-lang="ca"]').click()
            phone.context.set_offline(True)
            play(page, "CARRO", "CHICO")  # valid in the list; the forged file lacks CHICO
            [waiting] = page.evaluate(WAITING)
            assert waiting["shown_valid"] is False and waiting["offline"] is True
            phone.context.set_offline(False)
            assert flushed(page) == 0
            line = page.locator(".v-offline").filter(has_text=SAID[language])
            line.wait_for()
            assert "CHICO" not in line.inner_text()
            expect(page.locator("#offline-note")).to_contain_text(REFUSED[language].format(n=n))
            assert director.ask("GET", "/v1/records")["records"] == []  # nothing recorded, reversed or not
        # Asked again online, the same play is a verdict of its own: a new key (the record takes no
        # online verdict under the refused one's, and a verdict shown ends its key), recorded and
        # shown with its number.
        clear(page)
        play(page, "CARRO", "CHICO")
        expect(page.locator(".v-record")).to_be_visible()
        [row] = director.ask("GET", "/v1/records")["records"]
        assert row["offline"] is False and row["valid"] is True
        assert row["idempotency_key"] not in [r["idempotency_key"] for r in page.evaluate(REFUSED_KEPT)]
    finally:
        phone.close()
