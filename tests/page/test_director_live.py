"""The console follows the event by itself, in Debian's Chromium: a verdict from a device shows in
the open console within 5 s of the page's clock with no click, a hand edit of the event file turns
the one integrity line red within 10 s, and a service that stops answering is said (amber, never
green) until it answers again. The page's clock is Playwright's (docs/testing.md, "Waiting"):
stopped once the console is up, moved by the test; the service and its answers are real."""

from __future__ import annotations

import json
import sqlite3
import uuid
from datetime import UTC, datetime

import pytest

from tests.support import LiveServer
from tournament import open_event

from .conftest import Phone
from .phone_states import PASSWORD, Director
from .test_director_browser import LAPTOP
from .test_director_console import event_es  # noqa: F401 - a fixture
from .test_page_browser import own_clock


def paired(server: LiveServer, director: Director, name: str, role: str = "judge") -> str:
    """A device's token, paired through the API as a phone pairs."""
    code = director.device(name, role)
    status, _, body = server.request(
        "POST", "/v1/devices/pair", json.dumps({"code": code}).encode(), {"Content-Type": "application/json"}
    )
    assert status == 201, body
    return json.loads(body)["token"]


def verdict(server: LiveServer, token: str, *words: str) -> int:
    """A device's challenge, recorded: its record number."""
    status, _, body = server.request(
        "POST",
        "/v1/challenge",
        json.dumps({"lexicon": "es-page", "words": list(words), "idempotency_key": uuid.uuid4().hex}).encode(),
        {"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
    )
    assert status == 200, body
    return json.loads(body)["record"]


def open_console(browser, server, width: int = LAPTOP["viewport"]["width"]) -> tuple[Phone, object]:
    """The console signed in, `width` px wide, its clock Playwright's and stopped (a second on, as
    the service's)."""
    laptop = Phone(browser, server, **{**LAPTOP, "viewport": {**LAPTOP["viewport"], "width": width}})
    console = laptop.page
    own_clock(console)
    console.goto("/director")
    console.locator("#password").fill(PASSWORD)
    console.get_by_role("button", name="Entrar").click()
    console.locator("#chain-state.intact").wait_for()
    now = console.evaluate("Date.now()") / 1000  # stopped a second from now: moved only by the test
    console.clock.pause_at(datetime.fromtimestamp(now + 1, tz=UTC))
    console.wait_for_function("() => !LexiconDirector.state.busy")
    return laptop, console


def test_a_verdict_shows_in_the_open_console_within_5_s_with_no_click(browser, event_es):  # noqa: F811
    director = Director(event_es)
    token = paired(event_es, director, "Juez 1")
    laptop, console = open_console(browser, event_es)
    asked = []  # the console's looks at the record from here on
    console.on("request", lambda request: asked.append(request.url) if "/v1/records" in request.url else None)
    try:
        console.locator("#devices tbody tr").filter(has_text="Juez 1").wait_for()
        assert console.locator("#records tbody tr[data-seq]").count() == 0
        seq = verdict(event_es, token, "CARRO")
        director.ask("POST", "/v1/rounds", {"number": 1})
        row = console.locator(f'#records tbody tr[data-seq="{seq}"]')
        # a round trip to the page first: while its clock stands still, it has not asked again
        assert console.evaluate("() => LexiconDirector.state.busy") is False
        assert asked == [] and row.count() == 0 and console.locator("#round-state.closed").count() == 1
        console.clock.run_for(5000)
        row.wait_for()
        assert asked, "the row came without the console asking for the record"
        assert "VÁLIDA" in row.inner_text()
        console.locator("#round-state.open").wait_for()  # rounds too
        assert console.locator("#chain-state").inner_text().startswith("Registro íntegro: encadena desde el primero")

        # a keyboard user on a row's button keeps the focus while the list is drawn again
        button = console.locator(f'#records [data-slip="{seq}"]')
        button.focus()
        second = verdict(event_es, token, "CHICO")
        console.clock.run_for(5000)
        console.locator(f'#records tbody tr[data-seq="{second}"]').wait_for()
        assert console.evaluate("() => document.activeElement.dataset.slip") == str(seq)
    finally:
        laptop.close()
    assert laptop.problems == []


def test_a_hand_edit_turns_the_one_integrity_line_red_within_10_s(browser, event_es):  # noqa: F811
    director = Director(event_es)
    token = paired(event_es, director, "Juez 1")
    for word in ("CARRO", "CHICO", "LLAVE"):
        verdict(event_es, token, word)
    laptop, console = open_console(browser, event_es)
    try:
        line = console.locator("#chain-state")
        assert line.inner_text().startswith("Registro íntegro: encadena desde el primero hasta el nº 3")
        conn = sqlite3.connect(event_es.event_path)
        conn.executescript("DROP TRIGGER records_append_only_update; UPDATE records SET valid = 0 WHERE seq = 2;")
        conn.close()
        console.clock.run_for(10_000)
        console.locator("#chain-state.broken").wait_for()
        text = line.inner_text()
        assert text.startswith("REGISTRO ALTERADO en el nº 2: su contenido no coincide con su huella")
        assert "alguien lo ha editado a mano" in text  # the guards' loss, in the same line
        assert console.locator(".chain").count() == 1  # one line says the record's state
        console.locator('#records tr.broken[data-seq="2"]').wait_for()
    finally:
        laptop.close()


@pytest.mark.parametrize("width", [320, 390, 1280])
def test_a_console_cut_off_says_so_and_comes_back_by_itself(browser, event_es, width):  # noqa: F811
    """Said in the integrity line, whose place is as tall as that sentence from the start: the
    round's buttons under it do not move when the service stops answering, nor when it answers again."""
    director = Director(event_es)
    token = paired(event_es, director, "Juez 1")
    laptop, console = open_console(browser, event_es, width)
    try:
        form = console.locator("#round-form")
        top = form.bounding_box()["y"]
        console.route("**/v1/**", lambda route: route.abort())  # the network cut
        console.clock.run_for(12_000)
        console.locator("#chain-state.unconfirmed").filter(has_text="Sin conexión con el servicio").wait_for()
        assert console.locator("#chain-state.intact").count() == 0
        assert form.bounding_box()["y"] == top
        console.unroute("**/v1/**")
        seq = verdict(event_es, token, "CARRO")
        console.clock.run_for(5000)
        console.locator(f'#records tbody tr[data-seq="{seq}"]').wait_for()
        console.locator("#chain-state.intact").wait_for()
        assert "Sin conexión" not in console.locator("#chain-state").inner_text()
        assert form.bounding_box()["y"] == top
    finally:
        laptop.close()


def test_the_hall_at_a_glance_a_device_silent_for_a_minute_in_a_round_comes_first(browser, event_es):  # noqa: F811
    director = Director(event_es)
    asking = paired(event_es, director, "Juez 1")
    paired(event_es, director, "Mesa 7")  # paired, and never heard from since
    director.ask("POST", "/v1/rounds", {"number": 1})
    event = event_es.request("GET", "/v1/event", None, {"Authorization": f"Bearer {asking}"})
    assert event[0] == 200  # the judge's page asking the event: a contact, no verdict
    laptop, console = open_console(browser, event_es)
    try:
        rows = console.locator("#devices tbody tr")
        assert rows.evaluate_all("rows => rows.map(r => r.dataset.device)") == ["2", "1"]  # the silent one first
        assert "silent" in rows.nth(0).get_attribute("class")
        assert rows.nth(0).locator(".badge").inner_text() == "sin contacto desde hace más de un minuto"
        judge = rows.nth(1)
        assert "silent" not in judge.get_attribute("class")
        assert judge.locator(".last-contact").inner_text() not in ("", "ninguno aún")
        assert judge.locator(".last-seen").inner_text() == "ninguno aún"
        console.clock.run_for(61_000)  # a minute of the page's time: the judge's page has not asked again
        console.locator('#devices tbody tr.silent[data-device="1"]').wait_for()
        verdict(event_es, asking, "CARRO")
        console.clock.run_for(3000)
        console.locator('#devices tr[data-device="1"] .last-seen').filter(has_text="VÁLIDA · ronda 1 ·").wait_for()
    finally:
        laptop.close()
    assert laptop.problems == []


def test_the_counts_per_device_follow_a_round_opened_while_the_console_is_open(browser, event_es):  # noqa: F811
    """The director looks at *Consultas por dispositivo* during and after each round: a console
    left open from round 1 kept showing round 1's counts all through round 2, as if a table device
    busy in round 2 had made no challenge there. A round the director picks stays until the next opens."""
    director = Director(event_es)
    token = paired(event_es, director, "Juez 1")
    director.ask("POST", "/v1/rounds", {"number": 1})
    verdict(event_es, token, "CARRO")
    laptop, console = open_console(browser, event_es)
    try:
        counts, rows = console.locator("#counts-round"), console.locator("#counts tbody")
        assert counts.input_value() == "1" and rows.inner_text().split("\t")[-1].strip() == "1"
        director.ask("POST", "/v1/rounds/close")
        director.ask("POST", "/v1/rounds", {"number": 2})
        for word in ("CHICO", "LLAVE"):
            verdict(event_es, token, word)
        console.clock.run_for(5000)
        console.locator("#round-state.open").filter(has_text="Ronda 2").wait_for()
        console.wait_for_function("() => document.getElementById('counts-round').value === '2'")
        console.locator('#counts tbody tr[data-device="1"] .n').filter(has_text="2").wait_for()

        counts.select_option("1")  # the director looks back at round 1: it stays while round 2 lasts
        console.locator('#counts tbody tr[data-device="1"] .n').filter(has_text="1").wait_for()
        seq = verdict(event_es, token, "CASA")
        console.clock.run_for(5000)
        console.locator(f'#records tbody tr[data-seq="{seq}"]').wait_for()  # the console has read it all again
        console.wait_for_function("() => !LexiconDirector.state.busy")
        assert counts.input_value() == "1"
        counts.select_option("-")  # and so does "fuera de ronda", the lists drawn again meanwhile
        director.device("Mesa 9", "table", "9")
        console.clock.run_for(5000)
        console.locator("#devices tbody tr").filter(has_text="Mesa 9").wait_for()
        console.wait_for_function("() => !LexiconDirector.state.busy")
        assert counts.input_value() == "-"
        director.ask("POST", "/v1/rounds/close")
        director.ask("POST", "/v1/rounds", {"number": 3})
        console.clock.run_for(5000)
        console.wait_for_function("() => document.getElementById('counts-round').value === '3'")
        rows.filter(has_text="Ninguna consulta en esta ronda.").wait_for()
    finally:
        laptop.close()
    assert laptop.problems == []


def test_the_login_page_names_the_event_and_a_login_link_signs_in_in_the_tab_already_open(browser, event_es):  # noqa: F811
    laptop = Phone(browser, event_es, **LAPTOP)
    console = laptop.page
    try:
        console.goto("/director")
        console.locator("#login").wait_for(state="visible")
        assert console.locator("#event-name").inner_text() == "Open de Lleida 2026"  # which event this is
        for _ in range(5):  # someone guessing: the lockout says how to get in from the laptop
            console.locator("#password").fill("not-the-password")
            console.get_by_role("button", name="Entrar").click()
            console.wait_for_function("() => document.getElementById('login-error').textContent !== ''")
            console.evaluate("() => { document.getElementById('login-error').textContent = ''; }")
        console.locator("#password").fill("not-the-password")
        console.get_by_role("button", name="Entrar").click()
        console.locator("#login-error").filter(has_text="Demasiados intentos").wait_for()
        assert "«lexicon event login»" in console.locator("#login-error").inner_text()

        db = open_event(event_es.event_path)
        try:
            link = db.new_login_link()
        finally:
            db.close()
        console.evaluate(f"() => {{ location.hash = 'login={link}'; }}")  # pasted into this tab: no reload
        console.locator("#console").wait_for(state="visible")
        assert "login" not in console.url
        console.evaluate("() => { document.getElementById('logout').click(); }")
        console.locator("#login").wait_for(state="visible")
        console.evaluate(f"() => {{ location.hash = 'login={link}'; }}")  # used once: refused, and said
        console.locator("#login-error").filter(has_text="Este enlace de entrada ya no vale").wait_for()
        assert "login" not in console.url and console.locator("#console").is_hidden()
    finally:
        laptop.close()
