"""An offline verdict says what its phone showed (`shown_valid`): the record takes it only if the
service, judging the same words with the same lexicon, gives the same verdict; otherwise it is
refused (409 `offline-verdict-differs`), nothing recorded, no word named. The attack it stops: a
browser file forged beside the `.lex` (sound, claiming that `.lex`, made from other words), whose
verdicts the record used to hold reversed, unsaid."""

from __future__ import annotations

import pytest

from lexicon.browser import BrowserLexicon
from lexicon.tokenizer import tokenizer
from service import create_app
from tests.service.conftest import ES_WORDS, app_config
from tests.support import compile_list, forge_browser_file
from tournament import create_event

from .conftest import PASSWORD
from .test_http import Event, problem
from .test_offline import PAIRED, Clock, offline

GOOD, BAD = ["CARRO", "CHICO"], ["CARRO", "CHICOX"]  # CHICOX is no word of es-mini


def an_event(tmp_path, lexicons: dict) -> Event:
    """test_offline's event (an app on a fresh event file, default lexicon es, the director logged
    in, its clock at PAIRED) on `lexicons`, with a judge's phone paired and a round open."""
    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es", clock=Clock(PAIRED)).close()
    made = Event(create_app(app_config(lexicons, LEXICON_EVENT=str(path))), path, Clock(PAIRED))
    made.login()
    made.judge = made.device()[1]
    made.open_round()
    return made


@pytest.fixture
def event(tmp_path, lexicon_files):
    return an_event(tmp_path, lexicon_files)


def said_nothing_of(refused: dict, *words: str) -> None:
    """No word of the play, in any case, in any member of the refusal."""
    text = " ".join(str(value) for value in refused.values()).upper()
    assert not any(word.upper() in text for word in words), refused


def test_an_offline_verdict_the_service_would_not_give_is_refused_and_nothing_is_recorded(event):
    judge = event.judge
    for words, shown in ((BAD, True), (GOOD, False)):
        refused = problem(
            event.challenge(judge, words, **offline(event, f"k-{shown}", shown_valid=shown)),
            409,
            "offline-verdict-differs",
        )
        assert refused["lexicon"] == "es-mini" and "director" in refused["detail"]
        assert "disagree" in refused["title"] and "disagree" in refused["detail"]
        said_nothing_of(refused, *words)
        assert "valid" not in refused and "record" not in refused
    assert event.rows() == []
    # The same words, shown as the service judges them: recorded, as a body without the member (an older page).
    answers = [
        event.challenge(judge, BAD, **offline(event, "shown-bad", shown_valid=False)),
        event.challenge(judge, GOOD, **offline(event, "shown-good", shown_valid=True)),
        event.challenge(judge, BAD, **offline(event, "older-page")),
    ]
    assert [(a.status_code, a.json["valid"]) for a in answers] == [(200, False), (200, True), (200, False)]
    assert [(r.entry.idempotency_key, r.entry.valid, r.entry.offline) for r in event.rows()] == [
        ("shown-bad", False, True),
        ("shown-good", True, True),
        ("older-page", False, True),
    ]


def test_the_row_keeps_what_the_phone_showed_and_an_older_page_s_row_says_it_is_not_known(event):
    """The verdict the phone showed is on its row (format 5), and the API's record says it; a
    body without it (an older page) is recorded with `shown_valid` null beside `offline` true,
    which the console, the exports and `lexicon records verify` mark (tournament/shown.py)."""
    judge = event.judge
    for key, more in (("new", {"shown_valid": True, "round": 1}), ("older", {"round": 1}), ("oldest", {})):
        assert event.challenge(judge, GOOD, **offline(event, key, **more)).status_code == 200
    assert [(r.format, r.entry.shown_valid) for r in event.rows()] == [(5, True), (4, None), (2, None)]
    listed = event.director.get("/v1/records").json["records"]
    assert [(r["idempotency_key"], r["offline"], r["shown_valid"]) for r in listed] == [
        ("new", True, True),
        ("older", True, None),
        ("oldest", True, None),
    ]


def test_shown_valid_goes_only_with_an_offline_verdict_and_is_a_boolean(event):
    judge = event.judge
    online = problem(event.challenge(judge, GOOD, shown_valid=True), 422, "invalid-request")
    assert online["pointer"] == "/shown_valid" and "offline" in online["detail"]
    for value, got in (("yes", "'yes'"), (1, "a number"), (None, "null")):
        bad = problem(event.challenge(judge, GOOD, **offline(event, "b", shown_valid=value)), 422, "invalid-request")
        assert bad["pointer"] == "/shown_valid" and bad["detail"].startswith("shown_valid must be true or false")
        assert bad["detail"].endswith(f"not {got}"), bad
    assert event.rows() == []


def test_a_verdict_shown_with_a_forged_browser_file_is_refused_not_recorded_reversed(tmp_path):
    """Someone who can write the lexicons' folder puts a browser file beside es-mini.lex, made from
    other words (CHICOX in, CHICO out) with a right checksum, claiming es-mini.lex: the service
    serves it, a judge's phone judges with it offline and shows the opposite of the list; the queued
    verdict, which says what it showed, is refused, and the record holds nothing of it."""
    folder = tmp_path / "lexicons"
    folder.mkdir()
    lexicons = {
        "es-mini": compile_list(folder / "es-mini.lex", ES_WORDS, "es", "es-mini", "Mini español"),
        "es-alt": compile_list(folder / "es-alt.lex", ES_WORDS, "es", "es-alt", "Otro español"),
        "ca-mini": compile_list(folder / "ca-mini.lex", ["CASA"], "ca", "ca-mini", "Mini català"),
    }
    forge_browser_file(lexicons["es-mini"], [w for w in ES_WORDS if w != "CHICO"] + ["CHICOX"])
    event = an_event(tmp_path, lexicons)
    judge = event.judge
    served = event.app.test_client().get(
        "/v1/lexicons/es-mini/browser", headers={"Authorization": f"Bearer {judge}", "Accept-Encoding": "identity"}
    )
    phone = BrowserLexicon(served.data)  # what the phone holds: the forged file, taken as es-mini's
    key = tokenizer("es").key
    for number, words in enumerate((BAD, GOOD)):
        shown = all(key(word) in phone for word in words)
        online = event.challenge(judge, words).json["valid"]
        assert shown is not online  # the forgery at work: the phone shows the opposite
        refused = problem(
            event.challenge(judge, words, **offline(event, f"forged-{number}", shown_valid=shown)),
            409,
            "offline-verdict-differs",
        )
        said_nothing_of(refused, *words)
    assert [row.entry.offline for row in event.rows()] == [False, False]  # the two online verdicts only
