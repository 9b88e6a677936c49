"""An offline verdict the record refuses is refused past the device's gap, and takes a gap as a
recorded verdict does (tournament/refused_offline.py): a judge's phone sending faster than its
gap gets the same 429 whatever the play, so the status never says the service's verdict, and
refusals cannot be sent back to back, each naming one. Nor does a key recorded already, sent
again with other words, say it: the record's idempotency refusal comes first, whatever the play."""

from __future__ import annotations

import pytest

from service import create_app
from tests.service.conftest import app_config
from tournament import create_event

from .conftest import PASSWORD
from .test_http import Event, problem
from .test_offline import PAIRED, Clock
from .test_offline_shown import BAD, GOOD, offline

GAP = 30


@pytest.fixture
def event(tmp_path, lexicon_files) -> Event:
    """test_offline_shown's event (a judge's phone paired, a round open), a judge's gap GAP s."""
    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es", clock=Clock(PAIRED)).close()
    made = Event(
        create_app(app_config(lexicon_files, LEXICON_EVENT=str(path), LEXICON_RATE_JUDGE=str(GAP))), path, Clock(PAIRED)
    )
    made.login()
    made.judge = made.device()[1]
    made.open_round()
    return made


def statuses(event, key: str) -> list[tuple[int, str]]:
    """Each of four offline plays sent inside the gap (a valid and an invalid play, each shown as
    the service gives it and as it does not): (status, problem type's last part)."""
    said = []
    for words in (GOOD, BAD):
        for shown in (True, False):
            answer = event.challenge(
                event.judge, words, **offline(event, f"{key}-{words[1]}-{shown}", shown_valid=shown)
            )
            said.append((answer.status_code, answer.json.get("type", "").rsplit("/", 1)[-1]))
    return said


def test_inside_the_gap_every_offline_verdict_gets_the_same_429_whatever_the_play(event):
    assert event.challenge(event.judge, GOOD, **offline(event, "first", shown_valid=True)).status_code == 200
    assert statuses(event, "inside") == [(429, "rate-limited")] * 4
    assert len(event.rows()) == 1


def test_a_refused_offline_verdict_takes_a_gap_as_a_recorded_one_does(event):
    problem(
        event.challenge(event.judge, BAD, **offline(event, "refused", shown_valid=True)), 409, "offline-verdict-differs"
    )
    assert statuses(event, "after-refusal") == [(429, "rate-limited")] * 4  # not refused back to back
    event.clock.advance(seconds=GAP - 1)
    limited = problem(
        event.challenge(event.judge, GOOD, **offline(event, "late", shown_valid=False)), 429, "rate-limited"
    )
    assert limited["retry_after"] == 1
    event.clock.advance(seconds=1)  # the gap past: the next one is judged, refused or recorded
    problem(
        event.challenge(event.judge, GOOD, **offline(event, "next", shown_valid=False)), 409, "offline-verdict-differs"
    )
    assert statuses(event, "after-second") == [(429, "rate-limited")] * 4
    event.clock.advance(seconds=GAP)
    assert event.challenge(event.judge, GOOD, **offline(event, "recorded", shown_valid=True)).status_code == 200
    assert [row.entry.idempotency_key for row in event.rows()] == ["recorded"]


def test_the_same_refused_verdict_sent_again_is_judged_only_past_its_gap(event):
    """Its key is not on the record, so it is no replay: sent again it may carry other words."""
    sent = offline(event, "again", shown_valid=True)
    problem(event.challenge(event.judge, BAD, **sent), 409, "offline-verdict-differs")
    event.clock.advance(seconds=GAP)
    problem(event.challenge(event.judge, BAD, **sent), 409, "offline-verdict-differs")
    assert [event.challenge(event.judge, words, **sent).status_code for words in (GOOD, BAD)] == [429, 429]


def test_a_key_recorded_already_sent_with_other_words_says_no_verdict(event):
    """A replay of a recorded key needs no gap: with other words, its refusal is the record's
    idempotency-conflict whatever the words' verdict and whatever verdict it says it showed."""
    assert event.challenge(event.judge, GOOD, **offline(event, "kept", shown_valid=True)).status_code == 200
    for words in (["CARRO", "CHICOX"], ["CARRO", "CARRO"]):  # not a word, a word: either verdict
        for shown in (True, False):
            problem(
                event.challenge(event.judge, words, **offline(event, "kept", shown_valid=shown)),
                409,
                "idempotency-conflict",
            )
    assert [row.entry.idempotency_key for row in event.rows()] == ["kept"]
