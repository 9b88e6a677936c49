"""One event, one live file, in Debian's Chromium: a judge's phone answered by a second copy of
the event file (a plain `cp` of it, served by a second instance behind the same front end) says
so in its language and shows no verdict, and the director's console of that instance shows a red
line naming the phone and the file (service/event/witness.py); and one answered by an older backup
restored in its place, which lacks its last verdict, says so too and keeps the file it knew; and a
verdict judged offline that a copy refuses says on its line that it was not recorded."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from playwright.sync_api import expect

from tests.support import LEXICON_SCRIPT, REPO, LiveServer, stop_soon

from . import phone_states
from .conftest import Phone
from .phone_states import Director, pair, verdict
from .test_director_browser import LAPTOP, challenge, clear_verdict
from .test_page_offline import play

pytestmark = pytest.mark.server  # its phone and console talk to two live `lexicon serve`s of their own

SPLIT = "Este dispositivo ha recibido respuestas de dos archivos distintos del torneo"
MOVED = "Este torneo se ha trasladado y aquí ya no se registra nada"


@pytest.fixture
def original(page_lexicons, tmp_path):
    (tmp_path / "a").mkdir()
    server = phone_states.event_server(page_lexicons, tmp_path / "a")
    yield server
    stop_soon(server)


def served_copy(original, tmp_path, page_lexicons) -> LiveServer:
    """A plain copy of the original's event file as it is now (the same identity), served beside it."""
    (tmp_path / "b").mkdir()
    for suffix in ("", "-wal"):
        shutil.copy(f"{original.event_path}{suffix}", tmp_path / "b" / f"open.db{suffix}")
    copy = LiveServer(
        tmp_path / "b",
        page_lexicons.values(),
        LEXICON_EVENT=str(tmp_path / "b" / "open.db"),
        LEXICON_LOG_LEVEL="warning",
    )
    copy.wait_ready()
    return copy


def test_a_phone_answered_by_a_copy_of_the_event_file_says_so_and_the_console_names_it(
    browser, original, page_lexicons, tmp_path
):
    director = Director(original)
    phone = Phone(browser, original)
    copy, laptop = None, None
    try:
        page = phone.page
        pair(page, director, "judge")
        copy = served_copy(original, tmp_path, page_lexicons)
        verdict(page, "CARRO")  # recorded by the original, which the copy does not hold
        assert page.locator(".v-record").inner_text().endswith("1")
        clear_verdict(page)

        # From now on the front end sends the phone to the copy.
        page.route(
            "**/v1/**",
            lambda route: route.fulfill(response=route.fetch(url=route.request.url.replace(original.url, copy.url))),
        )
        page.locator("#form-error").filter(has_text=SPLIT).wait_for(timeout=15_000)  # its heartbeat, refused nothing
        challenge(page, "CHICO")
        page.locator("#form-error").filter(has_text=SPLIT).wait_for()
        assert "Avisa a la dirección del torneo" in page.locator("#form-error").inner_text()
        assert not page.locator("#screen.show").is_visible()  # no verdict shown
        assert Director(copy).ask("GET", "/v1/records")["records"] == []  # nothing recorded

        laptop = Phone(browser, copy, **LAPTOP)
        console = laptop.page
        console.goto("/director")
        console.locator("#password").fill(phone_states.PASSWORD)
        console.get_by_role("button", name="Entrar").click()
        line = console.locator("#chain-state.broken").filter(has_text="DOS ARCHIVOS DEL TORNEO")
        line.wait_for()
        said = line.inner_text()
        assert "«Juez 1»" in said and "último veredicto registrado" in said
        assert copy.request("GET", "/readyz")[2].decode().count('"event_file"') == 1
    finally:
        for opened in (laptop, phone):
            if opened is not None:
                opened.close()
        if copy is not None:
            copy.stop()


def test_a_phone_answered_by_an_older_backup_restored_says_so_and_keeps_the_file_it_knew(
    browser, original, page_lexicons, tmp_path
):
    director = Director(original)
    phone = Phone(browser, original)
    restored = None
    try:
        page = phone.page
        pair(page, director, "judge")
        verdict(page, "CARRO")
        clear_verdict(page)
        (tmp_path / "b").mkdir()
        backup, live = tmp_path / "backup.db", tmp_path / "b" / "open.db"
        run = [str(LEXICON_SCRIPT), "event"]
        done = subprocess.run([*run, "backup", str(original.event_path), str(backup)], cwd=REPO, capture_output=True)
        assert done.returncode == 0, done.stderr
        verdict(page, "CHICO")  # recorded by the original after the backup: its last verdict
        assert page.locator(".v-record").inner_text().endswith("2")
        clear_verdict(page)
        done = subprocess.run([*run, "restore", str(backup), str(live)], cwd=REPO, capture_output=True)
        assert done.returncode == 0, done.stderr
        restored = LiveServer(
            tmp_path / "b", page_lexicons.values(), LEXICON_EVENT=str(live), LEXICON_LOG_LEVEL="warning"
        )
        restored.wait_ready()
        known = json.loads(original.request("GET", "/readyz")[2])["event_file"]
        first = original.url
        page.route(
            "**/v1/**",
            lambda route: route.fulfill(response=route.fetch(url=route.request.url.replace(first, restored.url))),
        )
        page.locator("#form-error").filter(has_text=SPLIT).wait_for(timeout=15_000)  # its heartbeat
        challenge(page, "CARRA")
        page.locator("#form-error").filter(has_text=SPLIT).wait_for()
        assert not page.locator("#screen.show").is_visible()  # no verdict shown
        assert [row["seq"] for row in Director(restored).ask("GET", "/v1/records")["records"]] == [1]
        seen = json.loads(page.evaluate("localStorage.getItem('lexicon-judge.seen')"))
        assert seen["event_file"] == known and seen["last_key"]  # it kept the file it knew, and its last verdict
    finally:
        phone.close()
        if restored is not None:
            restored.stop()


def test_an_offline_verdict_refused_by_a_copy_says_on_its_line_it_was_not_recorded(
    browser, original, page_lexicons, tmp_path
):
    """Judged offline, then sent when the network is back to a copy of the file, which refuses it
    (409 event-file-split): the verdict's line on the screen no longer says it will go to the
    record but that nothing was recorded and to tell the director, as a verdict refused online
    says; the phone keeps it apart, counted, and neither file records it."""
    director = Director(original)
    phone = Phone(browser, original)
    copy = None
    try:
        page = phone.page
        pair(page, director, "judge")
        copy = served_copy(original, tmp_path, page_lexicons)
        verdict(page, "CARRO")  # recorded by the original, which the copy does not hold
        clear_verdict(page)
        phone.context.set_offline(True)
        assert "Irá al registro" in play(page, "CHICO")
        page.route(  # the network back, through a front end that sends the phone to the copy
            "**/v1/**",
            lambda route: route.fulfill(response=route.fetch(url=route.request.url.replace(original.url, copy.url))),
        )
        phone.context.set_offline(False)
        page.evaluate("LexiconOffline.flush()")
        line = page.locator(".v-offline").filter(has_text=SPLIT)
        line.wait_for()
        assert "Avisa a la dirección del torneo" in line.inner_text() and "Irá al registro" not in line.inner_text()
        expect(page.locator("#offline-note")).to_contain_text("que el registro no aceptó: 1")
        assert SPLIT in page.locator("#form-error").inner_text()
        assert Director(copy).ask("GET", "/v1/records")["records"] == []
        assert [row["words"] for row in director.ask("GET", "/v1/records")["records"]] == [["CARRO"]]
    finally:
        phone.close()
        if copy is not None:
            copy.stop()


def test_a_phone_whose_event_was_moved_elsewhere_is_told_to_ask_the_director(browser, original, tmp_path):
    """The event moved elsewhere (`lexicon event move`) while its old address is still served: a
    verdict judged offline and sent then is refused (410 `event-moved`), its line and the form say
    the event was moved and to ask the director, the phone keeps it apart; nothing is recorded."""
    from tournament import copy_event

    director = Director(original)
    phone = Phone(browser, original)
    try:
        page = phone.page
        pair(page, director, "judge")
        verdict(page, "CARRO")
        clear_verdict(page)
        phone.context.set_offline(True)
        assert "Irá al registro" in play(page, "CHICO")
        copy_event(original.event_path, tmp_path / "moved.db", "move")
        phone.context.set_offline(False)
        page.evaluate("LexiconOffline.flush()")
        line = page.locator(".v-offline").filter(has_text=MOVED)
        line.wait_for()
        assert "Irá al registro" not in line.inner_text()
        expect(page.locator("#offline-note")).to_contain_text("que el registro no aceptó: 1")
        assert MOVED in page.locator("#form-error").inner_text()
        assert [row["words"] for row in director.ask("GET", "/v1/records")["records"]] == [["CARRO"]]
    finally:
        phone.close()
