"""The director's console as a new director meets it, in Debian's Chromium: the record's state
and a changed row said everywhere, the pairing URL's reachability, the event's lexicon, the
devices' last verdicts, a closed round's head, one time format, the slip as a modal dialog,
and the console at phone size (cards, nothing off-screen)."""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from service.director import director_texts
from tests.support import stop_soon

from .axe import assert_accessible
from .conftest import VERDICT_SECONDS, Phone
from .phone_states import PASSWORD, Director, event_server
from .test_director_browser import LAPTOP, challenge, clear_verdict, pair_phone


@pytest.fixture
def event_es(page_lexicons, tmp_path):
    server = event_server(page_lexicons, tmp_path, LEXICON_VERDICT_SECONDS=str(VERDICT_SECONDS))
    yield server
    stop_soon(server)


def played(browser, server, plays: int = 4) -> Director:
    """A judge's phone that has challenged `plays` times in round 1."""
    director = Director(server)
    code = director.device("Juez 1", "judge")
    director.ask("POST", "/v1/rounds", {"number": 1})
    phone = Phone(browser, server)
    try:
        page = pair_phone(phone, f"/#pair={code}")
        for n in range(plays):
            if n:
                clear_verdict(page)
            challenge(page, "CARRO")
    finally:
        phone.close()
    return director


def console_at(browser, server, **size) -> tuple[Phone, object]:
    laptop = Phone(browser, server, **{**LAPTOP, **size})
    console = laptop.page
    console.goto("/director")
    console.locator("#password").fill(PASSWORD)
    console.get_by_role("button", name="Entrar").click()
    console.locator("#console").wait_for(state="visible")
    console.locator("#chain-state").wait_for(state="visible")
    return laptop, console


def test_a_changed_row_is_said_in_the_state_the_list_and_the_slip(browser, event_es, shots):
    played(browser, event_es)
    laptop, console = console_at(browser, event_es)
    try:
        assert re.fullmatch(  # and when the service last verified every row
            r"Registro íntegro: encadena desde el primero hasta el nº 4\. Comprobado entero: .+\.",
            console.locator("#chain-state").inner_text(),
        )
        conn = sqlite3.connect(event_es.event_path)
        conn.executescript("DROP TRIGGER records_append_only_update; UPDATE records SET valid = 0 WHERE seq = 3;")
        conn.close()
        assert "editado a mano" not in console.locator("#chain-state").inner_text()
        console.get_by_role("button", name="Ver").click()
        console.locator("#chain-state.broken").wait_for()
        assert (
            console.locator("#chain-state")
            .inner_text()
            .startswith("REGISTRO ALTERADO en el nº 3: su contenido no coincide con su huella")
        )
        # the append-only triggers dropped: proof of an edit by hand, said while they are missing
        assert "alguien lo ha editado a mano" in console.locator("#chain-state").inner_text()  # the one line
        assert console.locator("#records tbody tr.broken").evaluate_all("rows => rows.map(r => r.dataset.seq)") == ["3"]
        assert "ALTERADO" in console.locator('#records tr[data-seq="3"]').inner_text()
        console.locator('#records tr[data-seq="3"] [data-slip]').click()
        slip = console.locator("#slip")
        slip.wait_for(state="visible")
        assert "no está como se grabó" in console.locator("#slip-warning").inner_text()
        assert "NO VÁLIDA" in slip.inner_text()
        console.screenshot(path=str(shots / "director-console-broken-slip.png"))
        console.keyboard.press("Escape")
        slip.wait_for(state="hidden")
        console.locator('#records tr[data-seq="4"] [data-slip]').click()
        slip.wait_for(state="visible")
        assert "alterado en el nº 3, antes de este" in console.locator("#slip-warning").inner_text()
    finally:
        laptop.close()
    assert laptop.problems == []


def test_the_console_remembers_the_highest_record_it_saw_and_says_when_the_record_is_shorter(browser, event_es):
    played(browser, event_es, plays=2)
    laptop, console = console_at(browser, event_es)
    try:
        console.wait_for_function(
            "() => Object.keys(localStorage).some(k => k.startsWith('lexicon-judge.director.seen'))"
        )
        assert console.locator("#chain-state.intact").count() == 1
        # what this console saw before the service restarted on a file that lost its last rows
        console.evaluate("""() => localStorage.setItem("lexicon-judge.director.seen.Open de Lleida 2026",
            JSON.stringify({ seq: 9, hash: "ab".repeat(32), at: "2026-11-22T10:31:07Z" }))""")
        console.get_by_role("button", name="Ver").click()
        console.locator("#chain-state.broken").filter(has_text="vio el registro nº 9").wait_for()
        assert (
            "ahora el registro acaba en el nº 2: se han borrado registros"
            in console.locator("#chain-state").inner_text()
        )
        console.evaluate("""() => localStorage.setItem("lexicon-judge.director.seen.Open de Lleida 2026",
            JSON.stringify({ seq: 1, hash: "ab".repeat(32), at: "2026-11-22T10:31:07Z" }))""")
        console.get_by_role("button", name="Ver").click()
        console.locator("#chain-state.broken").filter(
            has_text="con otra huella: el registro se ha reescrito"
        ).wait_for()
    finally:
        laptop.close()


def test_the_console_remembers_no_head_the_service_is_still_verifying(browser, event_es):
    played(browser, event_es, plays=1)
    laptop = Phone(browser, event_es, **LAPTOP)
    console = laptop.page

    def checking(route):  # an answer while a verification runs, whatever else it says
        answer = route.fetch()
        body = answer.json()
        body["chain"].update(checking=True, intact=True)
        route.fulfill(response=answer, json=body)

    console.route(re.compile(r".*/v1/records(\?.*)?$"), checking)
    try:
        console.goto("/director")
        console.locator("#password").fill(PASSWORD)
        console.get_by_role("button", name="Entrar").click()
        console.locator("#chain-state").filter(has_text="Comprobando el registro entero").wait_for()
        seen = "() => Object.keys(localStorage).some(k => k.startsWith('lexicon-judge.director.seen'))"
        assert console.evaluate(seen) is False
        console.unroute(re.compile(r".*/v1/records(\?.*)?$"))
        console.get_by_role("button", name="Ver").click()
        console.wait_for_function(seen)  # remembered once the service confirmed it
    finally:
        laptop.close()


def test_the_console_says_what_a_director_looks_for(browser, event_es, shots):
    played(browser, event_es, plays=1)
    laptop, console = console_at(browser, event_es, timezone_id="Europe/Madrid")  # UTC+1 in November
    try:
        lexicon = console.locator("#event-lexicon").inner_text()
        checksum = console.evaluate("LexiconDirector.state.lexicon.checksum")
        assert lexicon.startswith("Léxico del torneo: ") and "(es-page)" in lexicon and checksum in lexicon
        row = console.locator("#devices tbody tr").filter(has_text="Juez 1")
        record_time = console.locator('#records tr[data-seq="1"] td').nth(1).inner_text()
        assert row.locator(".last-seen").inner_text() == f"VÁLIDA · ronda 1 · {record_time}"  # one time format...
        assert row.locator(".last-lexicon").inner_text() == "Prueba español 2026.1"  # by name: the event's
        # ...to the second, in the laptop's own time, with no zone's name
        utc = datetime.fromisoformat(console.evaluate("LexiconDirector.state.records[0].time").replace("Z", "+00:00"))
        local = utc.astimezone(ZoneInfo("Europe/Madrid"))
        assert record_time == local.strftime("%d/%m/%Y, %H:%M:%S"), (record_time, utc)
        console.locator('#records tr[data-seq="1"] [data-slip]').click()
        assert record_time in console.locator("#slip .slip-field.time").inner_text()
        console.get_by_role("button", name="Cerrar", exact=True).click()

        posted = []
        console.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
        asked = []
        console.once("dialog", lambda dialog: (asked.append((dialog.type, dialog.message)), dialog.dismiss()))
        console.get_by_role("button", name="Cerrar ronda").click()  # closing a round asks first, saying it is final
        # the click is done once confirm() has returned false: the click's handler returns there,
        # or would have sent the POST in the same task, before this round trip to the page ends
        assert asked == [("confirm", "¿Cerrar la ronda 1? Es definitivo: una ronda cerrada no se vuelve a abrir.")]
        console.evaluate("() => new Promise((go) => setTimeout(go, 0))")
        assert not [url for url in posted if url.endswith("/v1/rounds/close")]
        assert console.locator("#round-state.open").count() == 1
        console.once("dialog", lambda dialog: dialog.accept())
        console.get_by_role("button", name="Cerrar ronda").click()
        console.locator("#round-head").wait_for(state="visible")
        head = console.evaluate("LexiconDirector.state.rounds[0]")
        assert console.locator("#head-seq").inner_text() == str(head["head_seq"]) == "1"
        # 16 digits (64 bits), in groups of 4: no record rewritten on purpose is ground to end so (8 could be)
        written = " ".join(head["head_hash"][i : i + 4] for i in range(0, 16, 4))
        assert console.locator("#head-prefix").inner_text() == written
        assert float(console.locator(".head-big").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 32
        console.screenshot(path=str(shots / "director-console-round-head.png"))
    finally:
        laptop.close()
    assert laptop.problems == []


def test_the_pairing_panel_fits_says_when_phones_cannot_reach_it_and_keeps_the_top_in_view(browser, event_es, shots):
    laptop, console = console_at(browser, event_es, viewport={"width": 1280, "height": 800})
    try:
        console.locator("#device-name").fill("Juez 2")
        console.get_by_role("button", name="Vincular").click()
        console.locator("#pairing").wait_for(state="visible")
        console.wait_for_function("() => document.getElementById('pairing-qr').naturalWidth > 0")
        # the test's service listens on 127.0.0.1 only: no phone can reach it, and the console says so
        assert "solo escucha en este ordenador" in console.locator("#pairing-warning").inner_text()
        box = console.locator("#pairing").bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= 800, box  # whole, on an 800 px screen
        assert console.evaluate("document.activeElement.id") == "pairing"
        console.screenshot(path=str(shots / "director-console-pairing-800.png"))
        # in the language the director taps after it (both stayed in the one they were said in)
        for language in ("ca", "es"):
            console.locator(f'.lang[data-lang="{language}"]').click()
            texts = director_texts()[language]
            assert console.locator("#pairing-for").inner_text() == texts["pairingFor"].replace("{name}", "Juez 2")
            assert console.locator("#pairing-warning").inner_text() == texts["pairingUnreachable.loopback-only"]
    finally:
        laptop.close()


def test_at_phone_size_every_action_is_on_screen_and_the_slip_is_a_modal_dialog(browser, event_es, shots):
    played(browser, event_es, plays=1)
    laptop, console = console_at(browser, event_es, viewport={"width": 390, "height": 844})
    try:
        assert console.evaluate("document.documentElement.scrollWidth") <= 390
        for name in ("Revocar Juez 1", "Código nuevo Juez 1", "Papeleta 1"):
            box = console.get_by_role("button", name=name).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390, (name, box)
        verdict = console.locator('#records tr[data-seq="1"] .verdict').bounding_box()
        assert verdict["x"] + verdict["width"] <= 390
        counts = console.locator("#counts-round")
        counts.select_option("-")
        wanted = console.evaluate("""() => { const select = document.getElementById("counts-round");
            const probe = document.createElement("span"); probe.style.font = getComputedStyle(select).font;
            probe.textContent = select.selectedOptions[0].textContent; document.body.appendChild(probe);
            const width = probe.getBoundingClientRect().width; probe.remove(); return width; }""")
        assert counts.bounding_box()["width"] >= wanted + 20  # "fuera de ronda" whole, with its arrow
        console.screenshot(path=str(shots / "director-console-390.png"), full_page=True)

        console.get_by_role("button", name="Papeleta 1").click()
        console.locator("#slip").wait_for(state="visible")
        assert console.evaluate("document.getElementById('slip').matches(':modal')")
        reached = []
        for _ in range(6):  # Tab goes round the dialog (and out to the browser): nothing behind it
            console.keyboard.press("Tab")
            reached.append(
                console.evaluate("""() => { const e = document.activeElement;
                return e === document.body || !e ? "body" : document.getElementById("slip").contains(e) ? "slip" : e.id; }""")
            )
        assert set(reached) <= {"slip", "body"} and "slip" in reached, reached
        console.screenshot(path=str(shots / "director-console-390-slip.png"))
    finally:
        laptop.close()
    assert laptop.problems == []


def test_at_200_percent_zoom_on_a_laptop_the_round_s_button_is_on_the_first_screen(browser, event_es):
    """A 1366 x 768 laptop at 200 % zoom (683 x 384 CSS px): Abrir ronda, then Cerrar ronda, whole
    on the first screen, right under the round's state. The event's lexicon (three lines there
    with the default Spanish list: its name, id, version and its checksum in full) stood between
    the state and the button, and pushed Cerrar ronda under the screen's edge."""
    laptop, console = console_at(browser, event_es, viewport={"width": 683, "height": 384}, device_scale_factor=2)
    try:

        def whole(name):  # on the first screen, and above the lexicon's lines, however long they are
            box = console.get_by_role("button", name=name).bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= 384, (name, box)
            assert box["y"] + box["height"] <= console.locator("#event-lexicon").bounding_box()["y"], name

        whole("Abrir ronda")
        console.once("dialog", lambda dialog: dialog.accept())
        console.get_by_role("button", name="Abrir ronda").click()
        console.locator("#round-state.open").wait_for()
        whole("Cerrar ronda")
        assert "suma de control" in console.locator("#round-panel #event-lexicon").inner_text()  # still there
    finally:
        laptop.close()
    assert laptop.problems == []


@pytest.mark.parametrize(
    "width,height,scale",
    [(390, 844, 1), (195, 422, 4), (180, 320, 4), (1280, 800, 1)],
    ids=["390x844", "390x844-200%", "360x640-200%", "1280x800"],
)
def test_axe_finds_nothing_on_the_console(browser, event_es, width, height, scale):
    """At a phone's size, at 200 % zoom on a phone (half its CSS pixels each way), and on a laptop."""
    played(browser, event_es, plays=1)
    laptop = Phone(
        browser, event_es, **{**LAPTOP, "viewport": {"width": width, "height": height}, "device_scale_factor": scale}
    )
    try:
        console = laptop.page
        console.goto("/director")
        console.locator("#login").wait_for(state="visible")
        assert_accessible(console, "the login")
        console.locator("#password").fill(PASSWORD)
        console.get_by_role("button", name="Entrar").click()
        console.locator("#chain-state").wait_for(state="visible")
        assert_accessible(console, "the devices, rounds and records")
        console.locator("#device-name").fill("Juez 2")
        console.get_by_role("button", name="Vincular").click()
        console.wait_for_function("() => document.getElementById('pairing-qr').naturalWidth > 0")
        assert_accessible(console, "the pairing panel open")
        console.get_by_role("button", name="Hecho").click()
        console.get_by_role("button", name="Papeleta 1").click()
        console.locator("#slip").wait_for(state="visible")
        assert_accessible(console, "the slip")
    finally:
        laptop.close()


def test_a_record_of_one_row_is_counted_in_the_singular_in_both_languages(browser, event_es):
    """A hall's first verdict: the summary said "1 registros" (ca: "1 registres"), which no
    director writes; one row is "1 registro", and "1 registre" once the console is in Catalan."""
    from tests.tournament.conftest import entry
    from tournament import open_event

    db = open_event(event_es.event_path)
    try:
        db.append(entry(lexicon_id="es-page", words=("CARRO",), tiles=("CA[RR]O",)))
    finally:
        db.close()
    laptop, console = console_at(browser, event_es)
    try:
        console.locator("#records tbody tr").first.wait_for()
        assert console.locator("#records-summary").inner_text() == "1 registro"
        console.get_by_role("button", name="Català").click()
        console.wait_for_function("() => document.getElementById('records-summary').textContent === '1 registre'")
    finally:
        laptop.close()
    assert laptop.problems == []


def test_the_list_shows_the_latest_page_of_a_long_record_and_loads_older_rows_on_demand(browser, event_es):
    """A record filled with rows (a hall's phones between rounds) is not read whole after every
    action: the list asks for its latest page, and older rows when the director asks."""
    from tests.tournament.conftest import entry
    from tournament import open_event

    db = open_event(event_es.event_path)
    try:
        db.append_many([entry(lexicon_id="es-page", words=("CARRO",), tiles=("CA[RR]O",)) for _ in range(130)])
    finally:
        db.close()
    laptop, console = console_at(browser, event_es)
    asked = []
    console.on("request", lambda r: asked.append(r.url) if "/v1/records" in r.url else None)
    try:
        console.locator("#records tbody tr").nth(99).wait_for()
        assert console.locator("#records tbody tr").count() == 100
        assert console.locator("#records-summary").inner_text() == "Los últimos 100 registros"
        assert console.locator("#records tbody tr").first.get_attribute("data-seq") == "130"  # the newest first
        console.get_by_role("button", name="Ver registros anteriores").click()
        console.locator("#records tbody tr").nth(129).wait_for()
        assert console.locator("#records-summary").inner_text() == "130 registros"
        assert console.locator("#records tbody tr").last.get_attribute("data-seq") == "1"
        assert console.locator("#records-more").is_hidden()
        assert any("before=31" in url for url in asked)
        assert "before" not in console.locator("#export-csv").get_attribute("href")  # an export is whole
    finally:
        laptop.close()
    assert laptop.problems == []


def test_a_long_record_is_verified_in_the_background_and_the_console_asks_again_for_its_result(browser, event_es):
    """On a record of more than 500 rows (INLINE_ROWS) the first look starts the verification of every row
    off the request (tournament/stores/sqlite/verification.py) and says it is checking; the console asks again
    by itself until the result is in."""
    from tests.tournament.conftest import entry
    from tournament import open_event

    db = open_event(event_es.event_path)
    try:
        db.append_many([entry(lexicon_id="es-page", words=("CARRO",), tiles=("CA[RR]O",)) for _ in range(2_500)])
    finally:
        db.close()
    laptop, console = console_at(browser, event_es)
    chains = []
    console.on(
        "response", lambda r: chains.append(r.json()["chain"]) if re.search(r"/v1/records(\?|$)", r.url) else None
    )
    try:
        console.locator("#chain-state").filter(
            has_text=re.compile(r"^Registro íntegro: encadena desde el primero hasta el nº 2500\. Comprobado entero: ")
        ).wait_for(timeout=60_000)
        assert chains[-1]["verified"] == 2_500 and not chains[-1]["checking"]
    finally:
        laptop.close()
    assert laptop.problems == []


def test_a_name_another_device_holds_is_refused_next_to_the_name_field_saying_what_to_do(browser, event_es, shots):
    """Two "Juez 1" rows could not be told apart in the list nor in the record's device column."""
    laptop, console = console_at(browser, event_es)
    try:
        console.locator("#devices-empty").wait_for()
        Director(event_es).device("Juez 1", "judge")  # from elsewhere: this console's list is empty
        console.locator("#device-name").fill(" juez 1 ")
        console.get_by_role("button", name="Vincular").click()
        error = console.locator("#device-error")
        error.filter(has_text="Juez 1").wait_for()
        assert error.inner_text() == (  # the device named as its row shows it
            "Ya hay un dispositivo «Juez 1»: elige otro nombre. Si es un teléfono que sustituye al suyo, "
            "pulsa «Código nuevo» en su fila; o revócalo primero con «Revocar»."
        )
        name = console.locator("#device-name")
        assert name.get_attribute("aria-invalid") == "true" and name.get_attribute("aria-describedby") == "device-error"
        assert console.evaluate("document.activeElement.id") == "device-name" and name.input_value() == " juez 1 "
        assert console.locator("#pairing").is_hidden() and console.locator("#devices tbody tr").count() == 1
        console.locator("#devices-panel").screenshot(path=str(shots / "director-console-name-taken.png"))
        # in the language the director taps after it (it stayed in the one it was said in)
        console.locator('.lang[data-lang="ca"]').click()
        assert error.inner_text().startswith("Ja hi ha un dispositiu «Juez 1»")
        console.locator('.lang[data-lang="es"]').click()
        assert error.inner_text().startswith("Ya hay un dispositivo «Juez 1»")
        name.fill("Juez 2")  # another name pairs, and the field is no longer marked
        console.get_by_role("button", name="Vincular").click()
        console.locator("#pairing").wait_for(state="visible")
        assert error.inner_text() == "" and name.get_attribute("aria-invalid") is None
    finally:
        laptop.close()
    assert laptop.problems == []


class FirstLoad:
    """What a load of the console logged: every console error (Chromium's "Failed to load
    resource" for a 4xx/5xx answer included, which Phone leaves out) and every 4xx/5xx answer."""

    def __init__(self, page):
        self.errors: list[str] = []
        self.failed: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on(
            "response",
            lambda r: self.failed.append(f"{r.status} {r.request.method} {r.url}") if r.status >= 400 else None,
        )
        page.on("requestfailed", lambda r: self.failed.append(f"failed {r.method} {r.url}"))

    def clear(self) -> None:
        self.errors.clear()
        self.failed.clear()


def test_the_console_loads_without_a_console_error_or_a_refused_request_signed_out_and_in(browser, event_es):
    """The page knows from the service whether it is signed in (it is rendered either way), so it
    never asks first: a question answered 401 before the login is a console error in every
    browser (and Lighthouse's best practices below 100). Signed out, after a login, a reload and
    a logout: not one error and not one refused request."""
    played(browser, event_es, plays=1)
    laptop = Phone(browser, event_es, **LAPTOP)
    console = laptop.page
    load = FirstLoad(console)
    try:
        console.goto("/director")
        console.locator("#login").wait_for(state="visible")
        console.wait_for_function("() => document.activeElement && document.activeElement.id === 'password'")
        assert (load.errors, load.failed) == ([], []), "signed out"
        assert not [url for _, url in laptop.requests if "/v1/" in url]  # nothing asked before a login

        console.locator("#password").fill(PASSWORD)
        console.get_by_role("button", name="Entrar").click()
        console.locator("#chain-state").wait_for(state="visible")
        console.reload()  # signed in: the console fills itself at once, without a login
        console.locator("#console").wait_for(state="visible")
        console.locator('#records tr[data-seq="1"]').wait_for()
        assert console.locator("#login").is_hidden() and console.locator("#logout").is_visible()
        assert console.locator("#event-name").inner_text() == "Open de Lleida 2026"
        assert (load.errors, load.failed) == ([], []), "signed in"

        console.get_by_role("button", name="Salir").click()
        console.locator("#login").wait_for(state="visible")
        console.reload()
        console.locator("#login").wait_for(state="visible")
        console.wait_for_function("() => document.activeElement && document.activeElement.id === 'password'")
        assert console.locator("#console").is_hidden()
        assert (load.errors, load.failed) == ([], []), "after a logout"
    finally:
        laptop.close()
    assert laptop.problems == []


def test_a_session_ended_elsewhere_brings_the_login_back_with_no_script_error(browser, event_es):
    """Logged out on another tab (or the session over): the console's next request is answered
    401, which it takes as the end of the session. Chromium logs that answer itself (it logs every
    4xx a page's fetch gets, and no script can keep it from doing so): that line is the only one."""
    laptop, console = console_at(browser, event_es)
    load = FirstLoad(console)
    try:
        ended = console.context.request.delete("/v1/director/session", headers={"Origin": event_es.url})
        assert ended.status == 204
        console.get_by_role("button", name="Ver").click()
        console.locator("#login").wait_for(state="visible")
        assert console.locator("#login-error").inner_text() == "La sesión ha terminado: vuelve a entrar."
        assert console.locator("#console").is_hidden()
        console.locator('.lang[data-lang="ca"]').click()  # said again in the language tapped
        assert console.locator("#login-error").inner_text() == director_texts()["ca"]["sessionOver"]
        assert load.errors and all(e.startswith("Failed to load resource") and "401" in e for e in load.errors)
    finally:
        laptop.close()
    assert laptop.problems == []


def test_at_the_session_s_end_the_login_comes_back_by_itself_with_nothing_refused(browser, event_es):
    """The service says how long a session lasts (the login's answer; GET v1/director/session for a
    page rendered signed in): at its end the console signs out without asking, so no 401 is met,
    which a browser would log as an error. Twelve hours pass on the page's clock only."""
    laptop = Phone(browser, event_es, **LAPTOP)
    console = laptop.page
    load = FirstLoad(console)

    def settled():
        """The page's clock stopped a second from now, and the console's own reading over."""
        now = console.evaluate("Date.now()") / 1000
        console.clock.pause_at(datetime.fromtimestamp(now + 1, tz=UTC))
        console.wait_for_function("() => !LexiconDirector.state.busy")

    try:
        console.clock.install()
        console.goto("/director")
        console.locator("#password").fill(PASSWORD)
        console.get_by_role("button", name="Entrar").click()
        console.locator("#chain-state").wait_for(state="visible")
        settled()
        console.clock.fast_forward(console.evaluate("LexiconDirector.state.ends - Date.now()") - 60_000)
        assert console.locator("#console").is_visible()  # not before its end
        console.wait_for_function("() => !LexiconDirector.state.busy")  # the console read the event meanwhile
        asked = []
        console.on("request", lambda r: asked.append(r.url))
        console.clock.fast_forward("01:00")
        console.locator("#login").wait_for(state="visible")
        assert console.locator("#login-error").inner_text() == "La sesión ha terminado: vuelve a entrar."
        assert asked == []

        console.locator("#password").fill(PASSWORD)  # signed in again, then the page reloaded
        console.get_by_role("button", name="Entrar").click()
        console.locator("#console").wait_for(state="visible")
        console.wait_for_function("() => LexiconDirector.state.ends !== null")
        console.reload()
        console.locator("#console").wait_for(state="visible")
        console.wait_for_function("() => LexiconDirector.state.ends !== null")
        settled()
        asked.clear()
        console.clock.fast_forward("12:00:00")
        console.locator("#login").wait_for(state="visible")
        assert asked == [] and (load.errors, load.failed) == ([], [])
    finally:
        laptop.close()
    assert laptop.problems == []


def test_an_event_file_moved_away_turns_the_line_red_saying_so(browser, event_es):
    """Moved while the service runs, the file at the event's path is not the one served: no verdict
    is recorded, and the console said *íntegro* meanwhile. Its line turns red saying why, and
    green again once the file is back."""
    import os

    laptop, console = console_at(browser, event_es)
    kept = event_es.event_path.with_name("kept.db")
    try:
        os.rename(event_es.event_path, kept)
        console.get_by_role("button", name="Ver").click()
        console.locator("#chain-state.broken").wait_for()
        assert (
            console.locator("#chain-state")
            .inner_text()
            .startswith("El archivo que hay en la ruta del torneo no es el que sirve este servicio")
        )
        os.rename(kept, event_es.event_path)
        console.get_by_role("button", name="Ver").click()
        console.locator("#chain-state.intact").wait_for()
    finally:
        if kept.exists():
            os.rename(kept, event_es.event_path)
        laptop.close()
    assert laptop.problems == []


def test_an_event_moved_elsewhere_turns_the_line_red_naming_where_its_live_copy_is(browser, event_es, tmp_path):
    """`lexicon event move` of the event while its console is open: the record's line turns red
    saying the event was moved, when, and the identity of its live copy (the director, not a judge,
    is told which), and that nothing more is recorded here."""
    from tournament import copy_event

    laptop, console = console_at(browser, event_es)
    try:
        moved = copy_event(event_es.event_path, tmp_path / "moved.db", "move")
        console.get_by_role("button", name="Ver").click()
        console.locator("#chain-state.broken").wait_for()
        said = console.locator("#chain-state").inner_text()
        assert said.startswith("EL TORNEO SE TRASLADÓ") and moved.file.identity in said
    finally:
        laptop.close()
    assert laptop.problems == []
