"""An offline verdict the record refuses, because its phone showed another verdict than the service
gives (409 `offline-verdict-differs`) or judged with another list than the event's (409
`offline-lexicon-changed`), is made known to the director, not only on the phone: the devices
list, the director's, counts them per device and reason with the latest one's round and times
(once per idempotency key), and the log says which device, why, round and time; never a word, a
verdict or a token, in either."""

from __future__ import annotations

import logging
import sqlite3

import pytest

from .test_http import problem
from .test_offline import WHEN
from .test_offline_shown import BAD, GOOD, an_event, offline


@pytest.fixture
def event(tmp_path, lexicon_files):
    return an_event(tmp_path, lexicon_files)


def refused_of(event, name: str = "Juez 1", member: str = "refused_offline"):
    listed = event.director.get("/v1/devices")
    assert listed.status_code == 200, listed.json
    return next(d for d in listed.json["devices"] if d["name"] == name)[member]


def said_no_play(lines, *words: str) -> None:
    """No word, verdict, key or token in the log's lines."""
    text = " ".join(f"{r.getMessage()} {r.fields}" for r in lines).upper()
    assert not any(word.upper() in text for word in words), text


def test_a_refused_offline_verdict_is_counted_for_its_device_in_the_director_s_list(event, caplog):
    judge = event.judge
    assert refused_of(event) is None
    caplog.set_level(logging.WARNING, logger="service")
    sent = offline(event, "k-1", shown_valid=True, round=1)
    for _ in range(2):  # sent again with its key (an answer lost on the way): counted once
        problem(event.challenge(judge, BAD, **sent), 409, "offline-verdict-differs")
    said = refused_of(event)
    assert (said["count"], said["shown_round"], said["device_time"]) == (1, 1, WHEN)
    assert said["time"].endswith("Z") and set(said) == {"count", "shown_round", "device_time", "time"}
    problem(event.challenge(judge, GOOD, **offline(event, "k-2", shown_valid=False)), 409, "offline-verdict-differs")
    assert (refused_of(event)["count"], refused_of(event)["shown_round"]) == (2, None)
    assert event.rows() == []
    assert refused_of(event, member="refused_offline_lexicon") is None  # the other reason's
    lines = [r for r in caplog.records if "offline verdict was refused" in r.getMessage()]
    assert len(lines) == 3 and lines[0].fields == {
        "device": 1,
        "reason": "verdict",
        "shown_round": 1,
        "device_time": said["device_time"],
    }
    said_no_play(lines, *BAD, *GOOD, "TRUE", "FALSE", "K-1", event.judge)


def test_an_offline_verdict_judged_with_another_list_is_counted_apart(event, caplog):
    """A phone that judged with another list than the event's (409 `offline-lexicon-changed`):
    counted on its own member, which tells the director to fetch that phone's list again, not
    that its copy of the event's list is wrong; a recorded verdict is counted nowhere."""
    judge = event.judge
    caplog.set_level(logging.WARNING, logger="service")
    assert event.challenge(judge, GOOD, **offline(event, "fine", shown_valid=True)).status_code == 200
    for key, words in (("other-1", BAD), ("other-1", BAD), ("other-2", GOOD)):  # the first sent again: once
        wrong = offline(event, key, shown_valid=True, round=1)
        wrong["checksum"] = "0" * 64
        problem(event.challenge(judge, words, **wrong), 409, "offline-lexicon-changed")
    said = refused_of(event, member="refused_offline_lexicon")
    assert (said["count"], said["shown_round"], said["device_time"]) == (2, 1, WHEN)
    assert refused_of(event) is None  # not as showing another verdict
    assert [row.entry.idempotency_key for row in event.rows()] == ["fine"]
    lines = [r for r in caplog.records if "offline verdict was refused" in r.getMessage()]
    assert [r.fields["reason"] for r in lines] == ["lexicon"] * 3 and "another list" in lines[0].getMessage()
    said_no_play(lines, *BAD, *GOOD, "TRUE", "FALSE", "OTHER-1", "OTHER-2", event.judge)


@pytest.mark.parametrize("written", ["9999-12-31T23:59:59-23:00", "0001-01-01T00:00:00+23:00"])
def test_an_offline_verdict_whose_time_is_no_moment_in_utc_is_422_whatever_the_play(event, written):
    """A time that, read in UTC, falls outside the years a datetime holds is no moment (422
    `offline-time`, not a 500), checked before the record's write: so for a play the service
    judges as the phone did and for one it does not alike (the status never says which), and
    nothing is counted."""
    for words, key in ((BAD, "differs"), (GOOD, "agrees")):
        sent = {**offline(event, key, shown_valid=True, round=1), "device_time": written}
        problem(event.challenge(event.judge, words, **sent), 422, "offline-time")
    assert refused_of(event) is None and event.rows() == []


def test_a_count_edited_past_what_it_can_hold_stays_at_its_largest_and_the_refusal_stands(event):
    """Whoever edits the event file can set a count SQLite cannot add one to (2**63 - 1): the next
    refusal is the 409 as ever (not a 500), counted at the largest count both stores hold."""
    from tournament.refused_offline import MAX_COUNT

    problem(
        event.challenge(event.judge, BAD, **offline(event, "k-1", shown_valid=True)), 409, "offline-verdict-differs"
    )
    with sqlite3.connect(event.path) as conn:
        conn.execute("UPDATE refused_offline SET count = 9223372036854775807")
    conn.close()
    problem(
        event.challenge(event.judge, BAD, **offline(event, "k-2", shown_valid=True)), 409, "offline-verdict-differs"
    )
    assert refused_of(event)["count"] == MAX_COUNT


def test_only_the_director_reads_the_count(event):
    problem(event.challenge(event.judge, BAD, **offline(event, "k", shown_valid=True)), 409, "offline-verdict-differs")
    anyone = event.app.test_client().get("/v1/devices")
    judge = event.app.test_client().get("/v1/devices", headers={"Authorization": f"Bearer {event.judge}"})
    assert (anyone.status_code, judge.status_code) == (401, 403)
    assert "refused" not in anyone.get_data(as_text=True) + judge.get_data(as_text=True)
