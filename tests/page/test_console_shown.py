"""The director's console marks a verdict judged offline by a phone that did not say which verdict
it showed (a page from before `shown_valid`: tournament/shown.py), in its list and on its slip, in
the language tapped; a row whose phone said it, and one judged online, carry no such mark."""

from __future__ import annotations

from datetime import UTC, datetime

from playwright.sync_api import expect

from .test_director_console import console_at, event_es  # noqa: F401 (event_es: a fixture)

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
        marks = console.locator("#records tbody tr").evaluate_all(
            "rows => rows.map(r => [r.dataset.seq, (r.querySelector('.shown-unknown') || {}).textContent || ''])"
        )
        assert marks == [["3", ""], ["2", ES], ["1", ""]], marks
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
