"""The judge's page as judges and players use it, in the three engines their phones run: Chromium,
WebKit (Safari's engine) and Firefox (tests/page/engines.py). Each flow is written once against a
`Device` and runs in each engine; what only Chromium can measure (axe, Lighthouse, the layout, the
page's own clock) stays in the Chromium tests beside this file.

The flows: the plain page (a play typed with a tile key, the verdict, Borrar, the last verdict
recalled); judging offline on the plain page, and the place over plain HTTP that holds the offline
note (as tall as each engine wraps it); the single file from file://; a judge's phone
paired by typing its code, its verdict on the record, an offline verdict that reaches the record
when the network is back; a table device paired by its link, its verdict with table and round,
its wait between challenges (said again in the language tapped), and its screen kept on; a
judge's phone revoked, told so once; at 200 % zoom, word 1 after Borrar, a judge's first screen
and Borrar on a verdict's, a phone not paired typing its code (a wrong one first) and pairing, a wrong venue token and
Guardar código above the dock, the director's login, a round opened and closed from the console's
first screen, and an altered record said there; Borrar on the verdict's first screen on a phone
held sideways, and a phone not paired its code's field and button; held sideways at 100 %, a
judge's and a table device's first screen, and Borrar on their longest verdict; the focus moved by Tab in the order the page is
drawn, at either size, never under the dock; and a phone paired by its typed code, its focus on the
play's words.
"""

from __future__ import annotations

import itertools
import sqlite3

import pytest

from lexicon_cli.common import open_lexicon
from service.page_texts import event_texts, interface_texts
from service.single_file import single_file
from tests.support import LiveServer, stop_soon, until
from tournament import create_event

from .phone_states import EVENT_NAME, PASSWORD, TABLE_WAIT, Director, event_server, pairing_code
from .test_director_live import paired
from .test_director_live import verdict as recorded

pytestmark = pytest.mark.server  # the event's flows start a service of their own

HERE = "Juzgada en este teléfono, sin conexión"
KEYS = ["CH", "LL", "RR", "Ñ"]


def word(n: int) -> str:
    return f'input[name="word-{n}"]'


def drawn(device) -> None:
    """The page drawn and its script run (the tile keys are the script's)."""
    device.wait("document.querySelector('#keys .key') && window.LexiconJudge", "the page drawn")


def key(device, tile: str) -> None:
    """Taps the tile key `tile`."""
    index = device.run("[...document.querySelectorAll('#keys .key')].map((k) => k.textContent).indexOf(args[0])", tile)
    assert index >= 0, f"no tile key {tile}"
    device.tap(f"#keys .key:nth-child({index + 1})")


def ask(device, *words: str) -> str:
    """Types the play (a tuple is a tile key), taps Comprobar, and gives the verdict's words."""
    for n, parts in enumerate(words, 1):
        if n > 1:  # the field made by the tap's handler, which a click through Marionette may not wait for
            device.tap("#add")
            device.wait("!!document.querySelector(args[0])", f"word {n} added", 15, word(n))
        for part in parts if isinstance(parts, tuple) else (parts,):
            if part in KEYS and isinstance(parts, tuple):
                key(device, part)
            else:
                device.type(word(n), part)
    device.tap("#submit")
    return shown(device)


def shown(device) -> str:
    """The verdict's words, once it is up (a refusal instead fails, quoting it)."""
    device.wait(
        "(document.querySelector('#screen.show') || document.getElementById('form-error').textContent)"
        " && !document.getElementById('submit').disabled",
        "a verdict",
    )
    refused = device.text("#form-error")
    assert not refused, f"{device.engine}: no verdict: {refused}"
    return device.text("#verdict")


def borrar(device) -> None:
    """Borrar, once the verdict takes taps (its first moment ignores them), and the screen gone."""
    device.wait(
        "LexiconJudge.state.shown && Date.now() - LexiconJudge.state.shownAt >= LexiconJudge.GUARD_MS",
        "the verdict to take taps",
    )
    device.tap("#clear")
    device.wait("!document.querySelector('#screen.show')", "the verdict cleared")


def ready_offline(device) -> None:
    device.wait("document.documentElement.dataset.offline === 'ready'", "the lexicon kept on the phone", 30)


@pytest.fixture(scope="module")
def live(page_lexicons, tmp_path_factory):
    """The service as a director starts it: a verdict stays until Borrar (the session's `live`
    clears it after 4 s, which a slower engine's screenshot may outlast)."""
    server = LiveServer(tmp_path_factory.mktemp("engines-live"), page_lexicons.values(), LEXICON_LOG_LEVEL="warning")
    server.wait_ready()
    yield server
    stop_soon(server)


# -- the plain page ---------------------------------------------------------------------------------


def test_a_play_with_a_tile_key_its_verdict_borrar_and_the_last_verdict(live, devices, shots, engine):
    phone = devices(live.url)
    phone.open("/")
    drawn(phone)
    assert phone.size() == (360, 740)
    assert phone.text("#lexicon-name") == "Prueba español"
    assert [
        k.strip() for k in phone.run("[...document.querySelectorAll('#keys .key')].map((k) => k.textContent)")
    ] == KEYS
    assert not phone.visible("#recall")

    # CA + the RR key + O: CARRO, drawn as its tiles while typed
    phone.type(word(1), "ca")
    key(phone, "RR")
    phone.type(word(1), "o")
    assert phone.run("document.querySelector(args[0]).value", word(1)).upper() == "CARRO"
    assert phone.run("document.getElementById('word-1-tiles').dataset.tiles") == "C|A|RR|O"
    phone.type("#table", "12")
    phone.tap("#add")
    phone.type(word(2), "CHICO")
    phone.tap("#submit")
    text = shown(phone)
    assert "JUGADA VÁLIDA" in text and "Papeleta: SÍ" in text and "Mesa 12" in text
    assert "Prueba español" in text and "2026.1" in text
    phone.screenshot(shots / f"engines-{engine}-valid.png")
    borrar(phone)
    assert phone.run("document.querySelector(args[0]).value", word(1)) == ""
    assert phone.count("input.word-input") == 1
    assert phone.run("document.activeElement.id") == "word-1"

    # the last verdict comes back, marked as the previous one
    assert phone.visible("#recall")
    phone.tap("#recall")
    again = shown(phone)
    assert again.startswith("Veredicto anterior") and "JUGADA VÁLIDA" in again
    borrar(phone)

    # not valid: every word shown, none marked
    text = ask(phone, "CARRO", "CHICOX", "CASA")
    assert "JUGADA NO VÁLIDA" in text and "Papeleta: NO" in text
    assert all(w in text for w in ("CARRO", "CHICOX", "CASA"))
    assert phone.count("#verdict .bad, #verdict mark, #verdict [data-bad]") == 0
    phone.screenshot(shots / f"engines-{engine}-not-valid.png")
    borrar(phone)

    # an input error, said at once next to its field, and nothing sent
    phone.type(word(1), "KIWI")
    phone.wait("document.getElementById('word-1-error').textContent", "the field's error")
    assert "K" in phone.text("#word-1-error")
    assert phone.storage().get("lexicon-judge.lexicon", "es-page") == "es-page"


def test_offline_the_phone_judges_with_its_own_copy_and_says_so(live, devices, shots, engine):
    phone = devices(live.url)
    phone.open("/")
    drawn(phone)
    ready_offline(phone)
    kept = phone.run(
        """new Promise((resolve) => indexedDB.open("lexicon-judge").onsuccess = (e) =>
        e.target.result.transaction("lexicons").objectStore("lexicons").getAllKeys().onsuccess = (r) =>
        resolve(r.target.result.length))"""
    )
    assert kept == 1
    phone.offline(True)
    text = ask(phone, "CARRO", "CHICOX")
    assert "JUGADA NO VÁLIDA" in text and HERE in text
    phone.screenshot(shots / f"engines-{engine}-offline.png")
    borrar(phone)
    text = ask(phone, "LLAVE")
    assert "JUGADA VÁLIDA" in text and HERE in text
    borrar(phone)
    phone.offline(False)
    text = ask(phone, "CASA")
    assert "JUGADA VÁLIDA" in text and HERE not in text  # the service's verdict again


# Where an element is on the screen, as a judge sees it: whole in the viewport, not under the dock
# of tile keys and button (sticky at the screen's foot; held sideways at 200 % zoom, a column at its
# right), above it or beside it, and drawn on top where it is.
IN_VIEW = """(() => { const el = document.querySelector(args[0]), r = el.getBoundingClientRect();
  const dock = document.getElementById("dock").getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { box: [r.left, r.top, r.right, r.bottom].map(Math.round), dock: [dock.left, dock.top].map(Math.round),
    size: [innerWidth, innerHeight],
    seen: r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth
      && (el.closest("#dock") !== null || r.bottom <= dock.top + 1 || r.right <= dock.left + 1)
      && (top === el || el.contains(top)) }; })()"""


def in_language(phone, lang: str) -> None:
    """The page in `lang` (its language button tapped), scrolled back to its top."""
    phone.tap(f'.lang[data-lang="{lang}"]')
    phone.wait(f"document.documentElement.lang === '{lang}'", f"the page in {lang}")
    phone.run("scrollTo(0, 0)")


def opened_at_its_box(devices, url: str, size, box: str):
    """A phone at 200 % zoom on the page, drawn, its box asking for a code (`pair-box`, `token-box`) shown."""
    phone = devices(url, size, zoomed=True)
    phone.open("/")
    drawn(phone)
    phone.wait(f"!document.getElementById('{box}').hidden", f"the box #{box}")
    return phone


def in_view(device, selector: str) -> None:
    where = device.run(IN_VIEW, selector)
    assert where["seen"], f"{device.engine}: {selector} is not in view: {where}"


def test_at_200_percent_zoom_borrar_puts_the_focus_on_word_1_in_view(live, devices, engine):
    """A 360 x 640 phone at 200 % zoom (180 x 320 CSS px): after Borrar the focus is on word 1,
    where the next play is typed, and word 1 is on the screen above the dock, not below it."""
    phone = devices(live.url, (360, 640), zoomed=True)
    phone.open("/")
    drawn(phone)
    assert phone.size() == (180, 320)
    ask(phone, "CARRO", "CHICO", "CASA")
    borrar(phone)
    assert phone.run("document.activeElement.id") == "word-1"
    in_view(phone, "#word-1")
    phone.tap("#recall")  # the last verdict again, cleared: the focus back on word 1, in view
    shown(phone)
    borrar(phone)
    assert phone.run("document.activeElement.id") == "word-1"
    in_view(phone, "#word-1")


@pytest.fixture(scope="module")
def guarded(page_lexicons, tmp_path_factory):
    """The service with a venue token: the page asks for the "Código del torneo"."""
    server = LiveServer(
        tmp_path_factory.mktemp("engines-guarded"),
        page_lexicons.values(),
        LEXICON_TOKEN="sala-b-2026",
        LEXICON_LOG_LEVEL="warning",
    )
    server.wait_ready()
    yield server
    stop_soon(server)


TOKEN_BOX = """["token", "token-save", "token-error"].map((id) => document.getElementById(id).getBoundingClientRect())
  .map((r) => [Math.round(r.top), Math.round(r.bottom)])"""


@pytest.mark.parametrize("size", [(360, 640), (390, 844)], ids=["360x640", "390x844"])
def test_at_200_percent_zoom_a_wrong_venue_token_moves_neither_its_field_nor_its_button(guarded, devices, engine, size):
    """A phone at 200 % zoom on a service with a venue token: a wrong code's line (seven lines at
    195 CSS px) came above the token's field and pushed it and Guardar código down, under the
    dock of tile keys and Comprobar (at 390 x 844: the field from 193 to 349 px, the dock's top
    at 315). It comes under them now: they stay where they were, the field in view above the dock,
    and the line begins under Guardar código."""
    phone = opened_at_its_box(devices, guarded.url, size, "token-box")
    phone.run("scrollTo(0, 0)")
    field, button, _ = phone.run(TOKEN_BOX)
    phone.type("#token", "wrong-code")
    # word 1 given, not tapped: below the first screen at 200 %, Firefox's driver once in a few runs
    # clicked the dock over it instead; what this test asks of is the token's panel
    phone.run("document.querySelector(args[0]).value = 'CASA'", word(1))
    phone.tap("#submit")
    phone.wait("document.getElementById('token-error').textContent", "the wrong code said")
    phone.run("scrollTo(0, 0)")
    after = phone.run(TOKEN_BOX)
    assert after[:2] == [field, button], f"{engine}: {field}, {button} -> {after}"
    assert button[1] <= after[2][0], f"{engine}: the line is not under the button: {after}"
    in_view(phone, "#token")


@pytest.mark.parametrize("size", [(360, 640), (390, 844)], ids=["360x640", "390x844"])
def test_at_200_percent_zoom_guardar_codigo_is_whole_on_the_first_screen_above_the_dock(guarded, devices, engine, size):
    """A phone at 200 % zoom on a service with a venue token: at 360 x 640 (180 x 320 CSS px) the
    panel's two-line label, its field and Guardar código (two lines) put the button's lower half
    under the dock of tile keys and Comprobar (184-248 px, the dock's top at 213), where a tap on it
    was a tap on the dock. In Spanish and Catalan, before and after a wrong code, the field and
    Guardar código are whole on the screen the page opens on, above the dock and drawn on top (the
    element at the button's centre is the button), as the keys and Comprobar are; the wrong code said
    in the language tapped; and Guardar código keeps the right code."""
    phone = opened_at_its_box(devices, guarded.url, size, "token-box")
    for wrong in (False, True):
        if wrong:
            phone.type("#token", "wrong-code")
            # word 1 given, not tapped: below the first screen here, Firefox's driver once in a few
            # runs clicked the dock over it instead; what this test asks of is the token's panel
            phone.run("document.querySelector(args[0]).value = 'CASA'", word(1))
            phone.tap("#submit")
            phone.wait("document.getElementById('token-error').textContent", "the wrong code said")
        for lang in ("ca", "es"):
            in_language(phone, lang)
            for selector in ("#token", "#token-save", "#keys .key:last-child", "#submit"):
                in_view(phone, selector)
            # a wrong code said in the language tapped (it stayed in the one it was said in)
            said = phone.run("document.getElementById('token-error').textContent")
            assert said == (interface_texts()[lang]["tokenWrong"] if wrong else ""), f"{engine}: {said}"
    phone.run("document.getElementById('token').value = ''")
    phone.type("#token", "sala-b-2026")
    phone.tap("#token-save")
    phone.wait("document.getElementById('token-box').hidden", "the code kept")
    assert phone.run("document.activeElement.id") == "word-1", engine


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    path = tmp_path_factory.mktemp("engines-single-file") / "juez-es.html"
    lexicon = open_lexicon("es")
    path.write_bytes(single_file(lexicon))
    return path, lexicon


# The note over plain HTTP in the place page.js keeps for it (html.tab, set before first paint where
# the page is no secure context: the engines' pages here are on 127.0.0.1, which is one), filled with
# each text that fills it on its own, in both languages: what moved word 1, by how much.
NOTE_MOVES = """(() => {
  const note = document.getElementById("offline-note"), word = document.getElementById("word-1");
  const top = () => word.getBoundingClientRect().top, moved = [];
  document.documentElement.classList.add("tab");
  note.textContent = "";
  note.style.minHeight = "";
  const empty = top();
  for (const language of ["es", "ca"]) for (const key of ["tab", "failed"]) {
    note.textContent = LexiconOfflineData.texts[language][key];
    if (top() !== empty) moved.push([language, key, top() - empty]);
  }
  return moved;
})()"""


@pytest.mark.parametrize("size", [(390, 844), (320, 640)], ids=["390", "320"])
def test_over_plain_http_the_offline_note_s_place_holds_its_text(live, devices, engine, size):
    """The place is as tall as the note wraps in this engine's layout (tests/page/test_page_plain_http.py
    follows the note's coming in Chromium, over a plain-HTTP origin)."""
    phone = devices(live.url, size)
    phone.open("/")
    ready_offline(phone)
    assert phone.run(NOTE_MOVES) == []


def test_the_single_file_judges_from_file_with_no_service(exported, devices, shots, engine):
    path, lexicon = exported
    phone = devices(None)
    phone.open(path.as_uri())
    drawn(phone)
    ready_offline(phone)
    line = phone.text("#standalone")
    assert line.startswith("Juzga en este teléfono") and lexicon.checksum in line
    text = ask(phone, "CARRO", "CHICO", "LLAVE")
    assert "JUGADA VÁLIDA" in text and lexicon.checksum[:8] in text
    borrar(phone)
    text = ask(phone, "CARRO", "CHICO", "LLABE")
    assert "JUGADA NO VÁLIDA" in text and all(w in text for w in ("CARRO", "CHICO", "LLABE"))
    phone.screenshot(shots / f"engines-{engine}-single-file.png")


# -- in an event ------------------------------------------------------------------------------------


# What each verdict waiting on the phone says it showed (`shown_valid`), as the page keeps it.
SHOWN = """new Promise((resolve) => { indexedDB.open("lexicon-judge").onsuccess = (e) => {
  e.target.result.transaction("waiting").objectStore("waiting").getAll().onsuccess =
    (r) => resolve(r.target.result.map((play) => play.shown_valid)); }; })"""


@pytest.fixture
def event(page_lexicons, tmp_path):
    server = event_server(page_lexicons, tmp_path, LEXICON_RATE_TABLE=str(TABLE_WAIT))
    yield server, Director(server)
    stop_soon(server)


def test_a_judge_pairs_by_code_judges_on_the_record_and_offline_reaches_it_later(event, devices, shots, engine):
    server, director = event
    code = director.device("Juez 1", "judge")
    director.ask("POST", "/v1/rounds", {"number": 2})
    phone = devices(server.url)
    phone.open("/")
    drawn(phone)
    phone.wait("document.getElementById('pair-code') && !document.getElementById('pair-box').hidden", "pairing")
    phone.type("#pair-code", code)
    phone.tap("#pair-save")
    phone.wait("document.getElementById('event-device').textContent", "the phone paired")
    assert phone.text("#event-device") == "Juez 1 · juez"
    assert phone.text("#event-round") == "Ronda 2"
    assert phone.text("#event-name") == "Open de Lleida 2026"
    assert not phone.visible("#pair-box")
    # the event's region named in the language tapped (it kept the one the page was served in)
    for lang in ("ca", "es"):
        phone.tap(f'.lang[data-lang="{lang}"]')
        name = phone.run("document.getElementById('event-box').getAttribute('aria-label')")
        assert name == event_texts()[lang]["event"], f"{engine}: {name}"

    text = ask(phone, "CARRO")
    assert "JUGADA VÁLIDA" in text
    assert phone.text("#verdict .v-record") == "Registro nº 1"
    borrar(phone)

    ready_offline(phone)
    phone.offline(True)
    text = ask(phone, "CARRO", "CHICOX")
    assert "JUGADA NO VÁLIDA" in text and HERE in text and "Registro nº" not in text
    phone.screenshot(shots / f"engines-{engine}-event-offline.png")
    assert phone.run("LexiconOffline.waiting()") == 1
    assert phone.run(SHOWN) == [False]  # the verdict it showed, which the record checks against its own
    assert len(director.ask("GET", "/v1/records")["records"]) == 1
    borrar(phone)
    phone.offline(False)
    until(
        lambda: phone.run("LexiconOffline.flush().then(() => LexiconOffline.waiting())") == 0,
        "the offline verdict sent",
        20,
        0.25,
    )
    first, second = director.ask("GET", "/v1/records")["records"]
    assert first["offline"] is False and first["round"] == 2
    assert second["offline"] is True and second["valid"] is False and second["words"] == ["CARRO", "CHICOX"]


def test_a_table_device_paired_by_its_link_judges_with_table_and_round_and_waits(event, devices, shots, engine):
    server, director = event
    code = director.device("Mesa 12", "table", "12")
    director.ask("POST", "/v1/rounds", {"number": 3})
    phone = devices(server.url)
    phone.open(f"/?pair={code}")
    phone.wait("document.getElementById('event-device').textContent", "the table device paired")
    assert "pair" not in phone.run("location.href")  # the code is off the address at once
    assert phone.text("#event-device") == "Mesa 12 · mesa"
    assert phone.text("#event-round") == "Ronda 3"
    assert not phone.visible("#slip-box")
    # In a round the screen stays on: Chromium grants the Screen Wake Lock; WebKitGTK refuses it,
    # and the page says so to the players, and what to do (Firefox: as its build decides). The
    # page asked when it showed the round, before this request: settled before it, in order.
    held = phone.run(
        "navigator.wakeLock ? navigator.wakeLock.request('screen').then((s) => s.release().then(() => true), () => false) : false"
    )
    assert held == {"chromium": True, "webkit": False}.get(engine, held)
    awake = "document.getElementById('event-awake').textContent"
    if held:
        assert phone.run(awake) == ""
    else:
        assert phone.wait(awake, "the line saying the screen may turn off").startswith("La pantalla puede apagarse")
        assert phone.visible("#event-awake")

    text = ask(phone, "CHICO", "CASA")
    assert "JUGADA VÁLIDA" in text and "Mesa 12 · Ronda 3" in text
    phone.screenshot(shots / f"engines-{engine}-table-verdict.png")
    borrar(phone)
    phone.type(word(1), "MESA")
    phone.tap("#submit")
    message = phone.wait("document.getElementById('form-error').textContent", "the wait between challenges")
    assert "Espera" in message and not phone.count("#screen.show")
    # said again, counting, in the language tapped (it stayed in Spanish until it was over)
    for lang in ("ca", "es"):
        phone.tap(f'.lang[data-lang="{lang}"]')
        before, after = event_texts()[lang]["wait"].split("{seconds}")
        said = phone.wait(
            "((line) => line.textContent.startsWith(args[0]) && line.textContent.endsWith(args[1]) &&"
            " line.querySelector('.seconds') && line.textContent)(document.getElementById('form-error'))",
            f"the wait said in {lang}",
            15,
            before,
            after,
        )
        assert said[len(before) : -len(after)].isdigit(), f"{engine}: {said}"
    rows = director.ask("GET", "/v1/records?round=3")["records"]
    assert [(row["table"], row["words"]) for row in rows] == [("12", ["CHICO", "CASA"])]


def test_a_judge_s_phone_revoked_says_so_once(event, devices, engine):
    """The director revokes a judge's phone: its next check gets no verdict, and the page says why,
    and what to do, once (it was said both in the dock and in the pairing box above the form)."""
    server, director = event
    added = director.ask("POST", "/v1/devices", {"name": "Juez 1", "role": "judge"})
    director.ask("POST", "/v1/rounds", {})
    phone = devices(server.url)
    phone.open(f"/?pair={added['code']}")
    phone.wait("document.getElementById('event-device').textContent", "the phone paired")
    director.ask("DELETE", f"/v1/devices/{added['device']['id']}")
    phone.type(word(1), "CARRO")
    phone.tap("#submit")
    said = phone.run("LexiconJudge.data.event.texts.es.unpaired")
    assert said.startswith("Este dispositivo ya no está vinculado")
    # the elements on the screen that say it (WebKit's innerText of the whole page breaks its words)
    seen = """[...document.querySelectorAll("body *")].filter((e) => !e.children.length &&
        e.textContent.includes(args[0]) && e.getClientRects().length && getComputedStyle(e).visibility !== "hidden").length"""
    phone.wait(seen, "the phone told it is no longer paired", 15, said)
    assert phone.visible("#pair-box")  # where a new code goes
    assert phone.run(seen, said) == 1
    assert not phone.count("#screen.show")


# The line a page over plain HTTP keeps under the lexicon's (judge/page.js sets html.tab where the
# page is no secure context: the engines' pages here are on 127.0.0.1, which is one), filled.
OVER_PLAIN_HTTP = """(document.documentElement.classList.add("tab"),
  document.getElementById("offline-note").textContent = LexiconOfflineData.texts.es.tab)"""


def first_screen(device) -> None:
    """Word 1, the last tile key and Comprobar whole on the screen the page opens on, word 1 above
    the dock (or beside it)."""
    device.run("scrollTo(0, 0)")
    for selector in ("#word-1", "#keys .key:last-child", "#submit"):
        in_view(device, selector)


# A refusal said in the dock's line: the round closed to lookups, in the page's language.
REFUSED = "LexiconJudge.say(() => LexiconJudge.data.event.texts[document.documentElement.lang].closedNow)"


def refused_in_view(device) -> None:
    """A refusal said: whole on the screen and drawn on top, the last tile key and Comprobar where
    they were, and in view."""
    keys = ("#keys .key:last-child", "#submit")
    before = [device.run(IN_VIEW, selector)["box"] for selector in keys]
    device.run(REFUSED)
    in_view(device, "#form-error")
    assert [device.run(IN_VIEW, selector)["box"] for selector in keys] == before, device.engine
    for selector in keys:
        in_view(device, selector)


def zoomed_judge(event, devices, size):
    """A judge's phone at 200 % zoom (`size` in device pixels), paired in a round the director opened."""
    server, director = event
    code = director.device("Juez 1", "judge")
    director.ask("POST", "/v1/rounds", {})
    phone = devices(server.url, size, zoomed=True)
    phone.open(f"/?pair={code}")
    phone.wait("document.getElementById('event-device').textContent", "the phone paired")
    return phone


@pytest.mark.parametrize(
    "size", [(360, 640), (390, 844), (640, 360), (844, 390)], ids=["360x640", "390x844", "640x360", "844x390"]
)
def test_at_200_percent_zoom_a_judge_s_first_screen_holds_word_1_the_keys_and_the_button(event, devices, engine, size):
    """A judge's phone in a round at 200 % zoom (360 x 640: 180 x 320 CSS px): the dock of tile
    keys and button took half the screen (its keys in two rows), and the event's and the
    lexicon's lines the rest, so word 1 was under the dock or below it. Held sideways (640 x 360:
    320 x 180 CSS px; 844 x 390: 422 x 195), the page's top, the event's and the lexicon's lines
    came first and the dock, 132 px tall, covered the rest: word 1 was 216 px down. In Catalan
    and Spanish, and over plain HTTP, where the page keeps a line under the lexicon's, word 1, the
    keys and the button are on the screen the page opens on, word 1 above the dock or beside it;
    and a refusal is said whole on that screen, the keys and the button where they were."""
    phone = zoomed_judge(event, devices, size)
    phone.wait("window.LexiconOfflineData", "the page's offline part")
    for lang in ("ca", "es"):
        in_language(phone, lang)
        first_screen(phone)
    phone.run(OVER_PLAIN_HTTP)
    first_screen(phone)
    refused_in_view(phone)


# Borrar on the verdict's screen: where it is drawn, whether it is whole on the screen and nothing
# is drawn over it (what is at its centre is it), and where the verdict's last line (the hint about
# Borrar) ends, the screen scrolled to its top (args[0] false) or to its end.
BORRAR = """(() => { const screen = document.getElementById("screen"), el = document.getElementById("clear");
  screen.scrollTo(0, args[0] ? screen.scrollHeight : 0);
  const r = el.getBoundingClientRect(), hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { box: [r.top, r.bottom], height: innerHeight, tall: screen.scrollHeight, seen: r.top >= 0 && r.bottom <= innerHeight && hit === el,
    last: document.getElementById("clear-hint").getBoundingClientRect().bottom }; })()"""


def borrar_at_the_foot(phone, engine) -> None:
    """A verdict taller than the screen: Borrar seen whole at the top and scrolled to its end, its
    last line above Borrar; and Borrar then gives the focus to word 1."""
    for end in (False, True):
        where = phone.run(BORRAR, end)
        assert where["seen"] and where["tall"] > where["height"], f"{engine}, {'end' if end else 'top'}: {where}"
    assert where["last"] <= where["box"][0] + 1, f"{engine}: the verdict's last line under Borrar: {where}"
    borrar(phone)
    assert phone.run("document.activeElement.id") == "word-1"


@pytest.mark.parametrize("size", [(360, 640), (390, 844)], ids=["360x640", "390x844"])
def test_at_200_percent_zoom_borrar_is_on_the_verdict_s_first_screen(event, devices, engine, size):
    """A judge's verdict at 200 % zoom (360 x 640: 180 x 320 CSS px; 195 x 422 at 390 x 844) is
    taller than the screen (its three words, the slip's table and result, the lexicon's line and
    the hint): Borrar, at its foot, was 560 px down, below the first screen, and the judge had to
    scroll to start the next play. Borrar stays at the screen's foot, where Comprobar was, and the
    verdict scrolls above it: scrolled to its end, its last line is above Borrar, not under it."""
    phone = zoomed_judge(event, devices, size)
    phone.type("#table", "12")
    assert "JUGADA VÁLIDA" in ask(phone, "CARRO", "CHICO", "CASA")
    borrar_at_the_foot(phone, engine)


@pytest.mark.parametrize("size", [(640, 360), (844, 390)], ids=["640x360", "844x390"])
def test_at_200_percent_zoom_held_sideways_borrar_is_on_the_verdict_s_first_screen(event, devices, engine, size):
    """A phone held sideways at 200 % zoom (640 x 360: 320 x 180 CSS px; 844 x 390: 422 x 195):
    its verdict, three words, is taller than the screen, and Borrar was under it, 445 px down at
    640 x 360 in Chromium and Firefox (WebKit, whose zoom reads a screen that short as narrow,
    kept it at the screen's foot). Borrar stays at the screen's foot, the verdict scrolling above
    it, as on a phone held upright; and Borrar gives the focus to word 1, in view beside the dock."""
    phone = zoomed_judge(event, devices, size)
    assert "JUGADA VÁLIDA" in ask(phone, "CARRO", "CHICO", "CASA")
    borrar_at_the_foot(phone, engine)
    in_view(phone, "#word-1")


@pytest.mark.parametrize("role", ["judge", "table"])
@pytest.mark.parametrize("size", [(640, 360), (844, 390)], ids=["640x360", "844x390"])
def test_held_sideways_a_device_s_first_screen_and_its_verdict_s_borrar(event, devices, engine, size, role):
    """A phone held sideways at 100 % (640 x 360, a small Android's; 844 x 390, an iPhone's), in a
    round. The page was drawn as upright, the dock across the screen's foot: a judge's word 1 was
    under the dock (at 216 to 272 px, the dock from 228 px down at 640 x 360); on a table device, the
    players' lines above the form left no room for the dock, sticky inside the form, and Comprobar
    was cut at the screen's foot (336 to 392 px of 360) with word 1 below it; and a verdict with
    more lines than the online one (the table device's checksum, a judge's offline lines) put
    Borrar partly under the screen's edge. In Catalan and Spanish, word 1, the keys and Comprobar
    are on the first screen (the dock a column at the right, as held sideways at 200 % zoom), a
    refusal is said there, and Borrar is whole on the verdict's screen, its last line above Borrar."""
    server, director = event
    code = director.device("Mesa 7", "table", "7") if role == "table" else director.device("Juez 1", "judge")
    director.ask("POST", "/v1/rounds", {})
    phone = devices(server.url, size)
    phone.open(f"/?pair={code}")
    phone.wait("document.getElementById('event-device').textContent", "the phone paired")
    phone.wait("LexiconJudge.data.event.texts && window.LexiconOfflineData", "the page's offline part")
    for lang in ("ca", "es"):
        in_language(phone, lang)
        first_screen(phone)
    refused_in_view(phone)
    phone.run("document.getElementById('form-error').textContent = ''")
    assert "JUGADA VÁLIDA" in ask(phone, "CARRO", "CHICO", "CASA")
    if role == "judge":  # a judge's verdict of the longest kind: judged offline, waiting for the record
        borrar(phone)
        ready_offline(phone)
        phone.offline(True)
        assert HERE in ask(phone, "CARRO", "CHICO", "CASA")
    for end in (False, True):
        where = phone.run(BORRAR, end)
        assert where["seen"], f"{engine}, {'end' if end else 'top'}: {where}"
    assert where["last"] <= where["box"][0] + 1, f"{engine}: the verdict's last line under Borrar: {where}"


# The pairing box's field and button, each box (left, top, right, bottom) with the panel's and the
# line saying a code is wrong, the screen's height and that line's, and the width a code takes in
# the field's font (args[0]: one as the director's console shows it) beside the width the field
# gives it (its content box).
PAIRING = """(() => { const box = (id) => { const r = document.getElementById(id).getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom]; }, field = document.getElementById("pair-code");
  const style = getComputedStyle(field), pen = document.createElement("canvas").getContext("2d");
  pen.font = style.font;
  const sides = ["borderLeftWidth", "borderRightWidth", "paddingLeft", "paddingRight"];
  return { panel: box("pair-box"), field: box("pair-code"), button: box("pair-save"), error: box("pair-error"),
    height: innerHeight, line: parseFloat(getComputedStyle(document.getElementById("pair-error")).lineHeight),
    text: pen.measureText(args[0]).width,
    room: field.getBoundingClientRect().width - sides.reduce((sum, side) => sum + parseFloat(style[side]), 0) }; })()"""


@pytest.mark.parametrize("size", [(360, 640), (390, 844)], ids=["360x640", "390x844"])
def test_at_200_percent_zoom_a_phone_not_paired_types_its_code_and_pairs_on_the_first_screen(
    event, devices, engine, size
):
    """A phone not paired at 200 % zoom (360 x 640: 180 x 320 CSS px): the pairing code's field was
    squeezed to 23 px beside Vincular, which stuck out of its panel; and once a wrong code was
    tapped, the line saying so (a dozen lines at that width) came above the field and pushed
    Vincular under the first screen. In Spanish and Catalan, after a wrong code, the field and
    Vincular are whole in the panel and on the screen the page opens on, the line about the wrong
    code begins on it (under Vincular), in the language tapped (it stayed in the one it was said
    in), the field is wide enough to show a code whole, and Vincular pairs the phone with the
    right code typed. Pairing is that phone's primary action (in a round the service refuses it a
    lookup), and it comes first: the screen cannot hold both the panel and word 1, the lexicon's
    line, the keys and Comprobar (these alone fill a 180 x 320 one), so they come under the panel
    until the phone is paired; then the panel is gone and they are on its first screen."""
    server, director = event
    phone = opened_at_its_box(devices, server.url, size, "pair-box")
    phone.type("#pair-code", "K7QH-1MX0")  # no code: 1 and 0 are not in a code's alphabet
    phone.tap("#pair-save")
    phone.wait("document.getElementById('pair-error').textContent", "the wrong code said")
    phone.run("document.getElementById('pair-code').value = ''")
    phone.type("#pair-code", director.device("Juez 1", "judge"))
    for lang in ("ca", "es"):
        in_language(phone, lang)
        pairing = phone.run(PAIRING, "K7QH-3MXP")
        where = f"{engine}, {lang}: {pairing}"
        for part in ("field", "button"):
            left, top, right, bottom = pairing[part]
            assert pairing["panel"][0] < left and right < pairing["panel"][2], where
            assert pairing["panel"][1] < top and bottom < pairing["panel"][3], where
        assert pairing["text"] <= pairing["room"], where
        in_view(phone, "#pair-code")
        in_view(phone, "#pair-save")
        assert pairing["button"][3] <= pairing["error"][1], where
        assert pairing["error"][1] + pairing["line"] <= pairing["height"], where
        # in the language tapped, as the label and the help above and below it
        assert phone.run("document.getElementById('pair-error').textContent") == event_texts()[lang]["pairWrong"]
    phone.tap("#pair-save")
    phone.wait("document.getElementById('event-device').textContent", "the phone paired")
    assert phone.text("#event-device") == "Juez 1 · juez"
    first_screen(phone)


@pytest.mark.parametrize("size", [(640, 360), (844, 390)], ids=["640x360", "844x390"])
def test_at_200_percent_zoom_held_sideways_a_phone_not_paired_has_its_code_s_field_and_button_on_the_first_screen(
    event, devices, engine, size
):
    """A phone not paired held sideways at 200 % zoom (640 x 360: 320 x 180 CSS px; 844 x 390:
    422 x 195): WebKit, whose zoom reads so short a screen as narrow, stacked the pairing code's
    field and Vincular, Vincular 143 to 187 px down a screen 180 px tall. In Spanish and Catalan,
    before and after a wrong code, both are whole on the screen the page opens on, drawn on top
    (stacked, in the page's column beside the dock, the page's top drawn after the page)."""
    server, _ = event
    phone = opened_at_its_box(devices, server.url, size, "pair-box")
    for wrong in (False, True):
        if wrong:
            phone.type("#pair-code", "K7QH-1MX0")  # no code: 1 and 0 are not in a code's alphabet
            phone.tap("#pair-save")
            phone.wait("document.getElementById('pair-error').textContent", "the wrong code said")
        for lang in ("ca", "es"):
            in_language(phone, lang)
            in_view(phone, "#pair-code")
            in_view(phone, "#pair-save")


# Where the login's field and button are (left, top, right, bottom), the screen's size and what has
# the focus, the page at its top.
LOGIN = """(() => { scrollTo(0, 0); const box = (el) => { const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom]; };
  return { field: box(document.getElementById("password")), button: box(document.querySelector("#login-form [type=submit]")),
    width: innerWidth, height: innerHeight, focus: document.activeElement.id }; })()"""


@pytest.mark.parametrize("size", [(360, 640), (390, 844)], ids=["360x640", "390x844"])
def test_at_200_percent_zoom_a_director_s_phone_signs_in_on_the_first_screen(event, devices, engine, size):
    """The director's console on a phone at 200 % zoom (360 x 640: 180 x 320 CSS px): the page's
    title, the event's name, the language buttons a line each and the login's title put the
    password's field and Entrar under the first screen, the field squeezed beside Entrar to 42 px.
    In Spanish and Catalan (the language tapped, remembered for the next visit), the field, a line
    wide, and Entrar under it are whole on the screen the page opens on, the field with the focus,
    and Entrar signs in."""
    server, _ = event
    phone = devices(server.url, size, zoomed=True)
    for lang in ("es", "ca"):
        phone.open("/director")
        phone.wait(
            f"document.documentElement.lang === '{lang}' && document.activeElement.id === 'password'", "the login"
        )
        login = phone.run(LOGIN)
        where = f"{engine}, {lang}: {login}"
        for part in ("field", "button"):
            left, top, right, bottom = login[part]
            assert left >= 0 and right <= login["width"] and top >= 0 and bottom <= login["height"], where
        assert login["field"][3] <= login["button"][1], where  # Entrar under the field,
        assert login["field"][2] - login["field"][0] >= login["button"][2] - login["button"][0], where  # as wide
        phone.tap('.lang[data-lang="ca"]')
    phone.type("#password", PASSWORD)
    phone.tap("#login-form [type=submit]")
    phone.wait("!document.getElementById('console').hidden", "the console signed in")
    # signed in, nothing wider than the screen (the forms' fields were 11 rem at least, 176 px)
    wide = """[...document.querySelectorAll("main *")].filter((e) => e.getClientRects().length && !e.closest(".scroll"))
      .filter((e) => e.getBoundingClientRect().right > innerWidth + 1).map((e) => e.id || e.className || e.tagName)"""
    assert phone.run(wide) == [], engine
    assert phone.run("[innerWidth, document.documentElement.scrollWidth]") == [size[0] // 2] * 2, engine


# The round's button shown (Abrir ronda or Cerrar ronda), the page at its top: where it is, the
# screen's size, and whether it is drawn on top there.
ROUND_BUTTON = """(() => { scrollTo(0, 0); const button = ["round-open", "round-close"].map((id) => document.getElementById(id))
    .find((b) => !b.hidden), r = button.getBoundingClientRect();
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { id: button.id, box: [r.left, r.top, r.right, r.bottom], width: innerWidth, height: innerHeight,
    drawn: top === button || button.contains(top) }; })()"""


def signed_in(phone, ready: str, what: str) -> None:
    """The console opened on the phone and signed in with the director's password, then waited on
    until `ready` (a JavaScript condition; `what` names it) holds."""
    phone.open("/director")
    phone.wait("document.activeElement.id === 'password'", "the login")
    phone.type("#password", PASSWORD)
    phone.tap("#login-form [type=submit]")
    phone.wait(ready, what)


def round_button_on_the_first_screen(phone, engine: str, shown: str, langs=("ca", "es")) -> None:
    """In Catalan and Spanish (or `langs`), the round's button `shown` whole on the screen the page
    opens on."""
    for lang in langs:
        phone.tap(f'.lang[data-lang="{lang}"]')
        phone.wait(f"document.documentElement.lang === '{lang}'", f"the console in {lang}")
        button = phone.run(ROUND_BUTTON)
        left, top, right, bottom = button["box"]
        where = f"{engine}, {lang}: {button}"
        assert button["id"] == shown, where
        assert left >= 0 and right <= button["width"] and top >= 0 and bottom <= button["height"], where
        assert button["drawn"], where


@pytest.mark.parametrize("size", [(360, 640), (390, 844)], ids=["360x640", "390x844"])
def test_at_200_percent_zoom_a_director_s_phone_opens_and_closes_a_round_on_the_first_screen(
    event, devices, engine, size
):
    """Signed in on a phone at 200 % zoom (360 x 640: 180 x 320 CSS px), Abrir ronda was 671 px
    down, under the header, the record's line (as tall as its longest words: 200 px) and the
    round's state. In Spanish and Catalan, Abrir ronda is whole on the screen the page opens on
    and opens the round (asked first); then Cerrar ronda is, and closes it."""
    server, _ = event
    phone = devices(server.url, size, zoomed=True)
    signed_in(
        phone,
        "!document.getElementById('console').hidden && document.getElementById('chain-state').dataset.room"
        " && document.getElementById('round-state').textContent",
        "the console signed in, the record's line and the round's state drawn",
    )
    round_button_on_the_first_screen(phone, engine, "round-open")
    assert phone.confirm("#round-open").startswith("¿Abrir la ronda 1?"), engine
    phone.wait("document.getElementById('round-state').classList.contains('open')", "the round open")
    round_button_on_the_first_screen(phone, engine, "round-close")
    assert phone.confirm("#round-close").startswith("¿Cerrar la ronda 1?"), engine
    phone.wait("document.getElementById('round-state').classList.contains('closed')", "the round closed")


# The record's line, the page at its top: its box, its first line of words (a range over its first
# character), the screen's height and its words.
CHAIN_LINE = """(() => { scrollTo(0, 0); const box = document.getElementById("chain-state"), words = box.firstElementChild;
  const range = document.createRange(); range.setStart(words.firstChild, 0); range.setEnd(words.firstChild, 1);
  const r = box.getBoundingClientRect(), line = range.getBoundingClientRect();
  return { box: [r.top, r.bottom], line: [line.top, line.bottom], height: innerHeight, text: words.textContent,
    drawn: box.contains(document.elementFromPoint(line.left + 1, (line.top + line.bottom) / 2)) }; })()"""


@pytest.mark.parametrize("size", [(360, 640), (390, 844)], ids=["360x640", "390x844"])
def test_at_200_percent_zoom_an_altered_record_is_said_on_the_console_s_first_screen(event, devices, engine, size):
    """Signed in on a phone at 200 % zoom (360 x 640: 180 x 320 CSS px), the record's line, red
    with REGISTRO ALTERADO, came under the whole round's panel (its state, a closed round's head,
    the event's lexicon), 698 px down. In Catalan and Spanish, it begins on the screen the page
    opens on, its first line whole and drawn on top, under Abrir ronda, which is whole there too."""
    server, director = event
    token = paired(server, director, "Juez 1")
    director.ask("POST", "/v1/rounds", {})
    for _ in range(3):
        recorded(server, token, "CARRO")
    director.ask("POST", "/v1/rounds/close", {})
    conn = sqlite3.connect(server.event_path)
    conn.executescript("DROP TRIGGER records_append_only_update; UPDATE records SET valid = 0 WHERE seq = 2;")
    conn.close()
    phone = devices(server.url, size, zoomed=True)
    signed_in(
        phone,
        "document.querySelector('#chain-state.broken') && document.getElementById('round-state').textContent",
        "the console signed in, the record said altered",
    )
    for lang, alarm in (("ca", "REGISTRE ALTERAT al núm. 2: "), ("es", "REGISTRO ALTERADO en el nº 2: ")):
        round_button_on_the_first_screen(phone, engine, "round-open", [lang])
        chain, button = phone.run(CHAIN_LINE), phone.run(ROUND_BUTTON)
        where = f"{engine}, {lang}: {chain}, {button['box']}"
        assert chain["text"].startswith(alarm), where
        assert button["box"][3] <= chain["box"][0] and chain["line"][1] <= chain["height"] and chain["drawn"], where


# The event's line read whole: not cut at its end (an ellipsis) nor scrolled inside itself, each of
# its parts within it and on the screen's width.
EVENT_LINE_CUT = """(() => { const line = document.querySelector(".event-line"), box = line.getBoundingClientRect();
  const out = [...line.children].filter((part) => part.textContent).filter((part) => {
    const r = part.getBoundingClientRect();
    return r.left < box.left - 1 || r.right > box.right + 1 || r.bottom > box.bottom + 1 || r.right > innerWidth; });
  return { scrolled: line.scrollWidth > line.clientWidth + 1 || line.scrollHeight > line.clientHeight + 1,
    out: out.map((part) => part.id), parts: [...line.children].map((part) => part.textContent) }; })()"""


def test_at_200_percent_zoom_a_judge_reads_the_event_s_line_whole(event, devices, engine):
    """On a 360 x 640 phone at 200 % zoom the event's line (the round, the device, the event's
    name) was cut after "Ronda 1 · Jue…": it wraps instead."""
    phone = zoomed_judge(event, devices, (360, 640))
    phone.wait("document.getElementById('event-name').textContent", "the event's line")
    phone.run("document.getElementById('event-box').scrollIntoView({ block: 'center' })")
    line = phone.run(EVENT_LINE_CUT)
    assert not line["scrolled"] and line["out"] == [], f"{engine}: {line}"
    assert line["parts"] == ["Ronda 1", "Juez 1 · juez", "Open de Lleida 2026"]


def test_a_phone_not_paired_opens_on_the_event_s_list_in_its_own_language(page_lexicons, tmp_path, devices, engine):
    """A Spanish phone at a Catalan event, not paired, that chose no list: the page in Spanish, on
    the event's list and its tile keys (it opened on the Spanish list, which the event refuses);
    between rounds its play is judged, and recorded, with the event's list."""
    create_event(tmp_path / "lleida.db", EVENT_NAME, PASSWORD, lexicon="ca-page").close()
    server = LiveServer(
        tmp_path, page_lexicons.values(), LEXICON_EVENT=str(tmp_path / "lleida.db"), LEXICON_LOG_LEVEL="warning"
    )
    try:
        server.wait_ready()
        phone = devices(server.url)
        phone.open("/")
        drawn(phone)
        # its own language: Spanish (WebKitGTK's here says en-US, which the page has no texts for: the event list's)
        spanish = phone.run("navigator.language.startsWith('es')")
        assert phone.run("[document.documentElement.lang, document.getElementById('lexicon').value]") == [
            "es" if spanish else "ca",
            "ca-page",
        ]
        assert [
            k.strip() for k in phone.run("[...document.querySelectorAll('#keys .key')].map((k) => k.textContent)")
        ] == ["L·L", "NY", "QU", "Ç"]
        text = ask(phone, "QUADRE")
        assert ("JUGADA VÁLIDA" if spanish else "JUGADA VÀLIDA") in text and "Prova català" in text
        [row] = Director(server).ask("GET", "/v1/records")["records"]
        assert (row["lexicon_id"], row["words"]) == ("ca-page", ["QUADRE"])
    finally:
        stop_soon(server)


# Where the focus is, as the keyboard moved it: the element (its id, tile or language), where it is
# drawn, where the element the focus left is drawn now (the page scrolled to the focus), and whether
# it is seen: what is drawn at its centre is it, not the dock over it nor nothing, off the screen.
FOCUS = """(() => { const now = document.activeElement, last = window.lastFocus;
  window.lastFocus = now;
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  if (!now || now === document.body) return null;
  const r = now.getBoundingClientRect(), hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return { name: now.id || now.dataset.tile || now.dataset.lang || now.tagName, at: box(now), last: last && box(last),
    clear: !!hit && (hit === now || now.contains(hit)) }; })()"""


def drawn_before(first: list[float], then: list[float]) -> bool:
    """Whether a box (left, top, right, bottom) is drawn before another, as a page is read: on one
    line (their heights overlapping by half the smaller one's), to its left; else above it."""
    overlap = min(first[3], then[3]) - max(first[1], then[1])
    if overlap > min(first[3] - first[1], then[3] - then[1]) / 2:
        return first[0] + first[2] < then[0] + then[2]
    return first[1] + first[3] < then[1] + then[3]


def tabbed(device) -> list[dict]:
    """The page tabbed through from its top, each element the focus reaches once."""
    device.run("(document.activeElement && document.activeElement.blur(), window.lastFocus = null, scrollTo(0, 0))")
    reached: list[dict] = []
    for _ in range(40):
        device.tab()
        focus = device.run(FOCUS)
        if focus is None or focus["name"] in [seen["name"] for seen in reached]:
            break  # past the page's last element (to the browser's own, or round to the first)
        reached.append(focus)
    return reached


@pytest.mark.parametrize("zoomed", [False, True], ids=["100%", "200%"])
def test_the_keyboard_s_focus_follows_what_is_drawn(event, devices, engine, zoomed):
    """Tab moves the focus in the order the page is drawn (WCAG 2.4.3), on a 360 x 640 phone and at
    200 % zoom, on a table device, a judge's phone and a phone not paired. At 200 % zoom a table
    device's full-screen button, drawn in the event's line after the form, took the focus before
    word 1, between the language buttons and the lexicon's line. And each element it reaches is
    seen (WCAG 2.4.11): in WebKit at 200 % the judge's table field was focused under the dock."""
    server, director = event
    director.ask("POST", "/v1/rounds", {})
    for role in ("table", "judge", None):
        phone = devices(server.url, (360, 640), zoomed=zoomed)
        if role is None:
            phone.open("/")
            drawn(phone)
            phone.wait("!document.getElementById('pair-box').hidden", "the pairing box")
        else:
            phone.open(f"/?pair={pairing_code(director, role)}")
            phone.wait("document.getElementById('event-device').textContent", "the phone paired")
        reached = tabbed(phone)
        names = [focus["name"] for focus in reached]
        where = f"{engine}, {role or 'not paired'}{' at 200 %' if zoomed else ''}: {names}"
        assert {"word-1", "submit", "lexicon-summary"} <= set(names), where
        if role == "table":
            assert ("fullscreen" in names) == phone.run("document.fullscreenEnabled"), where
        if role is None:
            assert {"pair-code", "pair-save"} <= set(names), where
        hidden = [focus["name"] for focus in reached if not focus["clear"]]
        assert hidden == [], f"the focus went to elements under the dock or off the screen ({hidden}): {where}"
        out = [(a["name"], b["name"]) for a, b in itertools.pairwise(reached) if not drawn_before(b["last"], b["at"])]
        assert out == [], f"Tab went on to an element drawn before the one it left (left, reached): {where}"


@pytest.mark.parametrize("size", [(640, 360), (844, 390)], ids=["640x360", "844x390"])
def test_at_200_percent_zoom_held_sideways_the_focus_reaches_the_language_buttons_after_comprobar(
    event, devices, engine, size
):
    """A judge's phone held sideways at 200 % zoom draws the language buttons after the page, and
    the dock in a column beside it. Tab reaches them where they are drawn, after Comprobar (not first,
    before the lexicon's line, as they are written in the page), and every element it reaches is
    seen, none under the dock (WCAG 2.4.3, 2.4.11)."""
    phone = zoomed_judge(event, devices, size)
    reached = tabbed(phone)
    names = [focus["name"] for focus in reached]
    where = f"{engine}: {names}"
    order = ["lexicon-summary", "word-1", "submit", "ca", "es"]
    assert set(order) <= set(names), where
    assert [names.index(name) for name in order] == sorted(names.index(name) for name in order), where
    hidden = [focus["name"] for focus in reached if not focus["clear"]]
    assert hidden == [], f"the focus went to elements under the dock or off the screen ({hidden}): {where}"


# What has the focus: its id (or tag), whether it is drawn, whether a phone's keyboard would open on
# it (a field), and what a screen reader names it by (a group's legend, or its aria-label).
FOCUSED = """(() => { const el = document.activeElement, legend = el.matches("fieldset") && el.querySelector("legend");
  return { name: el.id || el.tagName, drawn: el !== document.body && el.getClientRects().length > 0,
    field: el.matches("input, select, textarea, [contenteditable]"),
    said: el.getAttribute("aria-label") || (legend ? legend.textContent : "") }; })()"""


@pytest.mark.parametrize("zoomed", [False, True], ids=["100%", "200%"])
def test_a_phone_paired_by_its_typed_code_has_the_focus_on_its_words(event, devices, engine, zoomed):
    """A phone not paired, its code typed and sent (Vincular tapped, or Enter in the field, as a
    keyboard's user does), on a 360 x 640 phone and at 200 % zoom: the pairing box went, and the
    focus with it, to the page's body (Chromium, Vincular tapped) or left on the hidden field
    (WebKit; every engine on Enter), and a keyboard's or a screen reader's user was lost (WCAG
    2.4.3, 3.2). The focus goes to the play's words, a group named in the page's language (Catalan,
    tapped before), not to word 1, on which a phone's keyboard would open unasked; the next Tab
    reaches word 1, in view above the dock."""
    server, director = event
    director.ask("POST", "/v1/rounds", {})
    for send in ("tap", "enter"):
        phone = devices(server.url, (360, 640), zoomed=zoomed)
        phone.open("/")
        drawn(phone)
        phone.wait("!document.getElementById('pair-box').hidden", "the pairing box")
        phone.tap('.lang[data-lang="ca"]')
        phone.wait("document.documentElement.lang === 'ca'", "the page in Catalan")
        phone.type("#pair-code", pairing_code(director, "judge"))
        if send == "tap":
            phone.tap("#pair-save")
        else:
            phone.enter()
        phone.wait("document.getElementById('event-device').textContent", "the phone paired")
        focus = phone.run(FOCUSED)
        where = f"{engine}, {send}{' at 200 %' if zoomed else ''}: {focus}"
        assert focus["drawn"] and not focus["field"], where
        assert focus["said"] == interface_texts()["ca"]["words"], where
        phone.tab()
        assert phone.run("document.activeElement.id") == "word-1", where
        in_view(phone, "#word-1")
