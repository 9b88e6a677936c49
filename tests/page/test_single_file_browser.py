"""The single-file judge (`lexicon export-page`) in Chromium: opened from file:// with the network
off, for each default lexicon, a valid play shows JUGADA VÁLIDA and a play with one bad word
JUGADA NO VÁLIDA, judged on the phone, with the lexicon's name, version and checksum; where no
script runs (an iPhone's preview of its files), it says it does not judge there."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from lexicon_cli.common import open_lexicon
from service.page_texts import app_texts
from service.single_file import single_file

from .conftest import PHONE
from .test_page_browser import submit, type_word, verdict, wait_guard

PLAYS = {  # language: the locale of the phone, a valid play, the same with one word that is none
    "es": ("es-ES", ["CARRO", "CHICO", "LLAVE"], ["CARRO", "CHICO", "LLABE"]),
    "ca": ("ca-ES", ["COL·LEGI", "QUADRE", "ANYS"], ["COL·LEGI", "CUADRE", "ANYS"]),
}
TEXTS = {
    "es": ("JUGADA VÁLIDA", "JUGADA NO VÁLIDA", "Juzga en este teléfono"),
    "ca": ("JUGADA VÀLIDA", "JUGADA NO VÀLIDA", "Jutja en aquest telèfon"),
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("single-file")
    files = {}
    for language in PLAYS:
        lexicon = open_lexicon(language)
        path = folder / f"juez-{language}.html"
        path.write_bytes(single_file(lexicon))
        files[language] = (path, lexicon)
    return files


def play(page, words):
    for n, typed in enumerate(words, 1):
        if n > 1:
            page.locator("#add").tap()
        type_word(page, n, typed)
    submit(page)
    return verdict(page)


@pytest.mark.parametrize("language", ["es", "ca"])
def test_the_file_judges_from_file_with_the_network_off(browser, exported, language, shots):
    path, lexicon = exported[language]
    locale, valid, invalid = PLAYS[language]
    context = browser.new_context(**{**PHONE, "locale": locale})
    context.set_offline(True)
    problems, requests = [], []
    context.on("request", lambda request: requests.append(request.url))
    try:
        page = context.new_page()
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
        page.goto(path.as_uri())
        page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'")
        line = page.locator("#standalone").inner_text()
        assert line.startswith(TEXTS[language][2]) and lexicon.checksum in line
        assert lexicon.header.name in line and lexicon.header.version in line
        # read by lexicon.js's WebAssembly: the file's Content-Security-Policy allows it
        assert (
            page.evaluate("""() => LexiconDawg.load(Uint8Array.from(atob(document.getElementById(
            "lexicon-bytes").textContent.replace(/\\s/g, "")), (c) => c.charCodeAt(0))).then((l) => l.engine)""")
            == "wasm"
        )
        assert page.locator("#keys .key").all_inner_texts() == (
            ["CH", "LL", "RR", "Ñ"] if language == "es" else ["L·L", "NY", "QU", "Ç"]
        )

        shown = play(page, valid)
        assert TEXTS[language][0] in shown and TEXTS[language][1] not in shown
        assert lexicon.checksum[:8] in shown and lexicon.header.name in shown
        page.screenshot(path=str(shots / f"single-file-{language}-valid.png"))
        wait_guard(page)  # the verdict's first moment ignores taps (the one that asked is not taken for Borrar)
        page.locator("#clear").click()
        page.locator("#screen.show").wait_for(state="hidden")

        shown = play(page, invalid)
        assert TEXTS[language][1] in shown
        for word in invalid:  # every word, none marked
            assert word in shown
        page.screenshot(path=str(shots / f"single-file-{language}-invalid.png"))
        assert [url for url in requests if not url.startswith(("file:", "data:"))] == []
        assert problems == []
    finally:
        context.close()


def test_a_damaged_file_says_it_cannot_judge(browser, exported, tmp_path):
    path, _ = exported["es"]
    html = path.read_text(encoding="utf-8")
    start = html.index('id="lexicon-bytes">') + len('id="lexicon-bytes">') + 200
    flipped = "A" if html[start] != "A" else "B"
    damaged = tmp_path / "damaged.html"
    damaged.write_text(html[:start] + flipped + html[start + 1 :], encoding="utf-8")
    context = browser.new_context(**PHONE)
    context.set_offline(True)
    try:
        page = context.new_page()
        page.goto(damaged.as_uri())
        page.wait_for_function("() => document.documentElement.dataset.offline === 'failed'")
        assert "dañado" in page.locator("#standalone").inner_text()
        type_word(page, 1, "CARRO")
        submit(page)
        # the page's answer to the play, in the same step that would have shown a verdict
        page.wait_for_function("() => document.getElementById('form-error').textContent !== ''")
        assert page.locator("#screen.show").count() == 0  # no verdict from bytes that failed their check
    finally:
        context.close()


@pytest.mark.parametrize("language", ["es", "ca"])
def test_where_no_script_runs_the_file_says_it_cannot_judge_there(browser, exported, language):
    """An iPhone's Files app shows an HTML file in a preview that runs no script. The file showed
    the page there as if it worked: its line *Juzga en este teléfono, sin conexión ni servicio*,
    the word fields, the tile keys and a Comprobar that did nothing when tapped. Opened with
    JavaScript off, it says, in its language, that it does not judge there and where to open it,
    and shows neither the form (nor that line, in it) nor the language buttons."""
    path, _ = exported[language]
    context = browser.new_context(**{**PHONE, "locale": PLAYS[language][0], "java_script_enabled": False})
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        said = page.locator("noscript .form-error")
        expect(said).to_be_visible()
        assert said.inner_text() == app_texts()[language]["noScript"]
        assert said.bounding_box()["y"] + said.bounding_box()["height"] <= PHONE["viewport"]["height"]
        for hidden in ("#play", "#submit", "#standalone", "#langs"):
            expect(page.locator(hidden)).to_be_hidden()
        assert TEXTS[language][2] not in page.locator("body").inner_text()
    finally:
        context.close()
