"""The director's console marks a verdict judged offline by a phone that did not say which verdict
it showed (a page from before `shown_valid`: tournament/shown.py), in its list and on its slip, in
the language tapped; a row whose phone said it, and one judged online, carry no such mark. And it
says, on a judge's row of the devices list, its offline verdicts the record refused because the
phone showed another verdict than the service gives, and apart those it judged with another list
than the event's (tournament/refused_offline.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from playwright.sync_api import expect

from .phone_states import Director
from .test_director_console import console_at, event_es, marks  # noqa: F401 (event_es: a fixture)

ES = "el teléfono no dijo qué veredicto mostró (una página anterior): este es el del servicio; lo que vieron los jugadores no consta"
CA = "el telèfon no va dir quin veredicte va mostrar (una pàgina anterior): aquest és el del servei; el que van veure els jugadors no consta"


def test_an_offline_verdict_whose_phone_did_not_say_what_it_showed_is_marked_in_the_list_and_the_slip(
    browser,
    event_es,  # noqa: F811
):
    from tests.tournament.conftest import entry
    from tournament import open_event

    db = open_event(event_es.event_path, clock=lambda: datetime(2026, 11, 22, 10, tzinfo=UTC))
    offline = dict(offline=True, device_time="2026-11-22T09:59:00.000000Z")
    play = dict(lexicon_id="es-page", words=("CARRO",), tiles=("CA[RR]O",))
    try:
        db.append(entry(**play))
        db.append(entry(idempotency_key="older-page", shown_round=0, **offline, **play))
        db.append(entry(idempotency_key="this-page", shown_round=0, shown_valid=True, **offline, **play))
    finally:
        db.close()
    laptop, console = console_at(browser, event_es)
    try:
        console.locator("#records tbody tr").nth(2).wait_for()
        unknown = marks(console, ".shown-unknown")
        assert unknown == [["3", ""], ["2", ES], ["1", ""]], unknown
        console.locator('[data-slip="2"]').click()
        expect(console.locator("#slip-fields .slip-field.shown")).to_have_text("Mostrado en el teléfono" + ES)
        console.locator("#slip-close").click()
        console.locator('[data-slip="3"]').click()
        expect(console.locator("#slip-fields .slip-field.verdict")).to_be_visible()
        assert console.locator("#slip-fields .slip-field.shown").count() == 0
        console.locator("#slip-close").click()
        console.get_by_role("button", name="Català").click()
        expect(console.locator('#records tr[data-seq="2"] .shown-unknown')).to_have_text(CA)
        console.locator('[data-slip="2"]').click()
        expect(console.locator("#slip-fields .slip-field.shown")).to_have_text("Mostrat al telèfon" + CA)
    finally:
        laptop.close()
    assert laptop.problems == []


def test_a_judge_s_offline_verdict_the_record_refused_is_counted_on_its_row_of_the_devices_list(
    browser,
    event_es,  # noqa: F811
):
    """A judge's phone sends an offline verdict it showed *válida* that the service judges *no
    válida* with the same lexicon: refused (409 `offline-verdict-differs`), said until now on the
    phone alone; and one judged with another list (409 `offline-lexicon-changed`). The console's
    devices list says each on the judge's row, a line per reason, in the language tapped: how
    many, the round its phone showed, when it judged and when it was refused, to look at that
    phone and decide the play (and for the other list, to have its page fetch the event's); no word."""
    director = Director(event_es)
    code = director.device("Juez 1", "judge")
    director.ask("POST", "/v1/rounds", {"number": 1})
    status, _, data = event_es.request(
        "POST", "/v1/devices/pair", json.dumps({"code": code}).encode(), {"Content-Type": "application/json"}
    )
    assert status == 201, data
    token = json.loads(data)["token"]
    lexicon = next(item for item in director.ask("GET", "/v1/lexicons")["lexicons"] if item["id"] == "es-page")
    play = {
        "lexicon": lexicon["id"],
        "words": ["CARROX"],
        "idempotency_key": "k-1",
        "offline": True,
        "device_time": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
        "checksum": lexicon["checksum"],
        "round": 1,
        "shown_valid": True,
    }
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    status, _, data = event_es.request("POST", "/v1/challenge", json.dumps(play).encode(), headers)
    assert status == 409 and b"offline-verdict-differs" in data, data
    other = {**play, "words": ["CARRO"], "idempotency_key": "k-2", "checksum": "0" * 64, "round": None}
    for _ in range(2):  # sent again with its key: counted once
        status, _, data = event_es.request("POST", "/v1/challenge", json.dumps(other).encode(), headers)
        assert status == 409 and b"offline-lexicon-changed" in data, data
    laptop, console = console_at(browser, event_es)
    try:
        mark = console.locator("#devices tr[data-device] .refused-offline")
        expect(mark).to_have_count(2)
        expect(mark.nth(0)).to_contain_text("1 veredicto sin conexión rechazado: el teléfono mostró otro veredicto")
        expect(mark.nth(0)).to_contain_text("(ronda 1, juzgado a las ")
        expect(mark.nth(1)).to_contain_text("1 veredicto sin conexión rechazado: el teléfono juzgó con otro léxico")
        expect(mark.nth(1)).to_contain_text("(fuera de ronda, juzgado a las ")
        expect(mark.nth(1)).to_contain_text("Revisa el teléfono y decide la jugada; con conexión, que el juez recargue")
        text = " ".join(mark.all_inner_texts()).upper()
        assert not any(secret in text for secret in ("CARRO", "K-1", "K-2", "VÁLIDA", token.upper())), text
        console.get_by_role("button", name="Català").click()
        expect(mark.nth(0)).to_contain_text(
            "1 veredicte sense connexió rebutjat: el telèfon va mostrar un altre veredicte"
        )
        expect(mark.nth(1)).to_contain_text(
            "1 veredicte sense connexió rebutjat: el telèfon va jutjar amb un altre lèxic"
        )
    finally:
        laptop.close()
    assert laptop.problems == []
