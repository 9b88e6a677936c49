"""axe-core finds nothing on the phone pages, in every state a judge or a table sees: the judge's
page (both languages, the lexicon's identity open, an input error), its verdicts (valid, not
valid, judged offline), an event's page as a judge's phone, as a table device and unpaired, and
the single-file judge. WCAG 2.2 A/AA and axe's best practices (tests/page/axe.py)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from lexicon_cli.common import open_lexicon
from service.single_file import single_file
from tests.support import compile_list, stop_soon

from .axe import assert_accessible
from .conftest import CA_WORDS, PHONE
from .phone_states import SIZES, event_with_a_round, opened, pair, phone_of, typed, verdict
from .test_page_browser import wait_guard


@pytest.fixture(scope="module")
def event_server(page_lexicons, tmp_path_factory):
    server, director = event_with_a_round(page_lexicons, tmp_path_factory.mktemp("axe-event"))
    yield server, director
    stop_soon(server)


@pytest.mark.parametrize("size", SIZES)
def test_the_judge_s_page_in_every_state(browser, live, size):
    phone = phone_of(browser, live, SIZES[size])
    try:
        page = opened(phone)
        assert_accessible(page, "the page")
        page.locator("#lexicon-summary").click()
        assert_accessible(page, "the lexicon's identity open")
        typed(page, "CARRO", "KIWI")
        page.locator("#submit").click()
        page.locator("#word-2-error:not(:empty)").wait_for()
        assert_accessible(page, "an input error")
        page.locator("#word-2").fill("CHICO")
        page.locator("#submit").click()
        page.locator("#screen.show.valid").wait_for()
        assert_accessible(page, "a valid verdict")
        wait_guard(page)
        page.locator("#clear").click()
        assert_accessible(page, "cleared, the last verdict to recall")
        verdict(page, "CARRO", "CHOCO")
        assert page.locator("#screen.invalid").count() == 1
        assert_accessible(page, "a verdict not valid")
        page.keyboard.press("Escape")
        page.get_by_role("button", name="Català").click()
        assert_accessible(page, "in Catalan")
        page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'")
        phone.context.set_offline(True)
        verdict(page, *CA_WORDS[:2])
        assert "sense connexió" in page.locator("#verdict").inner_text()
        assert_accessible(page, "a verdict judged offline")
    finally:
        phone.context.set_offline(False)
        phone.close()


@pytest.mark.parametrize("role", ["judge", "table", None])
def test_an_event_s_page_as_each_device(browser, event_server, role):
    server, director = event_server
    phone = phone_of(browser, server)
    try:
        page = phone.page
        if role:
            pair(page, director, role)
        else:
            page.goto("/")
            page.locator("#pair-box").wait_for()
        assert_accessible(page, f"paired as {role}")
        if role:
            page.locator("#lexicon-summary").click()
            assert_accessible(page, f"paired as {role}, the lexicon's identity open")
            verdict(page, "CARRO")
            assert_accessible(page, f"a verdict on the {role} device")
    finally:
        phone.close()


def test_a_table_device_whose_browser_will_not_keep_its_screen_on(browser, event_server):
    server, director = event_server
    phone = phone_of(browser, server)
    try:
        page = phone.page
        page.add_init_script("delete Navigator.prototype.wakeLock;")  # as a browser without the API
        pair(page, director, "table")
        expect(page.locator("#event-awake")).to_contain_text("La pantalla puede apagarse")
        assert_accessible(page, "a table device saying its screen may turn off")
    finally:
        phone.close()


def test_the_single_file_judge(browser, tmp_path):
    path = compile_list(tmp_path / "es.lex", ["CARRO", "CHICO", "CASA"], "es", "es-file", "Prueba", "1")
    page_file = tmp_path / "juez.html"
    page_file.write_bytes(single_file(open_lexicon(str(path))))
    context = browser.new_context(**{**PHONE, "viewport": {"width": 390, "height": 844}})
    context.set_offline(True)
    try:
        page = context.new_page()
        page.goto(page_file.as_uri())
        page.wait_for_function("() => document.documentElement.dataset.offline === 'ready'")
        assert_accessible(page, "the single file")
        verdict(page, "CARRO", "CHICO")
        assert_accessible(page, "the single file's verdict")
    finally:
        context.close()
