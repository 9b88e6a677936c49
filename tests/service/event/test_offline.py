"""Verdicts a device gave offline, sent to an event's record later, and the browser lexicon in an
event, through Flask's test client: who may, what is recorded, what is refused."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from lexicon.browser import BrowserLexicon
from service import create_app
from tests.service.conftest import app_config
from tournament import create_event, stamp

from .conftest import PASSWORD, Clock
from .test_http import SAME, Event, checksum_of, either_store, problem  # noqa: F401 - either_store: a fixture

WHEN = "2026-11-22T10:31:07.120034Z"
PAIRED = datetime(2026, 11, 22, 10, 30, tzinfo=UTC)  # the devices' pairing: a minute before WHEN


@pytest.fixture
def event(tmp_path, lexicon_files):
    """test_http's event: an app on a fresh event file (default lexicon es), the director logged in;
    its clock at PAIRED."""
    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es", clock=Clock(PAIRED)).close()
    made = Event(create_app(app_config(lexicon_files, LEXICON_EVENT=str(path))), path, Clock(PAIRED))
    made.login()
    return made


def offline(event, key, words=("CARRO", "CHICO"), **more):
    return dict(idempotency_key=key, offline=True, device_time=WHEN, checksum=checksum_of(event), **more)


def test_a_judge_s_offline_verdict_is_recorded_once_marked_offline_with_the_phone_s_time(event):
    _, judge = event.device()
    event.open_round(2)
    sent = offline(event, "a1")
    first = event.challenge(judge, ["CARRO", "CHICO"], **sent)
    again = event.challenge(judge, ["CARRO", "CHICO"], **sent)  # the queue sent again: the same row
    assert first.status_code == again.status_code == 200 and first.data == again.data
    assert first.json["valid"] is True and first.json["record"] == 1
    [row] = event.rows()
    assert row.round == 2
    assert (row.entry.offline, row.entry.device_time, row.entry.idempotency_key, row.entry.valid) == (
        True,
        WHEN,
        "a1",
        True,
    )
    assert row.entry.lexicon_checksum == sent["checksum"] and row.entry.words == ("CARRO", "CHICO")
    bad = event.challenge(judge, ["CARRO", "CHICOX"], **offline(event, "a2"))
    assert bad.status_code == 200 and bad.json["valid"] is False and len(event.rows()) == 2


@pytest.mark.parametrize("setting", [{}, {"LEXICON_SECOND_ALWAYS": "yes"}])
def test_an_offline_verdict_is_recorded_with_no_second_opinion_as_its_phone_showed_none(
    tmp_path, lexicon_files, setting
):
    """A phone judging offline holds the event's lexicon only, and shows its verdict alone; its
    queued play still says `second: true` (the page's play, made before the service failed to
    answer). The row's second opinion is what the players were shown beside the verdict: none, so
    the record must not carry one the service computed a minute later (es-alt would say VALID here,
    and an appeal would read that the table saw it)."""
    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es", clock=Clock(PAIRED)).close()
    config = app_config(lexicon_files, LEXICON_EVENT=str(path), LEXICON_SECOND="es:es-alt", **setting)
    made = Event(create_app(config), path, Clock(PAIRED))
    made.login()
    _, judge = made.device()
    made.open_round()
    words = ["CARRO", "XILÓFONO"]  # es-alt holds XILÓFONO, the event's es-mini does not
    online = made.challenge(judge, words, second=True)
    assert online.json["second"]["valid"] is True  # online, the phone shows it, and the row keeps it
    recorded = made.challenge(judge, words, **offline(made, "o1", second=True))
    assert recorded.status_code == 200 and recorded.json["valid"] is False and "second" not in recorded.json
    kept, queued = made.rows()
    assert (kept.entry.second_lexicon_id, kept.entry.second_valid) == ("es-alt", True)
    assert queued.entry.offline and queued.entry.valid is False
    assert (queued.entry.second_lexicon_id, queued.entry.second_valid, queued.format) == (None, None, 2)


def test_an_online_row_whose_phone_showed_its_verdict_alone_offline_is_marked_everywhere_it_is_read(
    tmp_path, lexicon_files
):
    """The online challenge was recorded with its second opinion, but the phone had no answer in
    time and judged the play itself, the same verdict, shown alone: the phone takes it as recorded
    (409 with the row), and the row is marked where the director reads it: the API's row and page,
    and both exports (tournament/unshown_second.py)."""
    from tournament import read_export

    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es", clock=Clock(PAIRED)).close()
    config = app_config(lexicon_files, LEXICON_EVENT=str(path), LEXICON_SECOND="es:es-alt")
    made = Event(create_app(config), path, Clock(PAIRED))
    made.login()
    _, judge = made.device()
    words = ["CARRO", "XILÓFONO"]  # es-alt holds XILÓFONO, the event's es-mini does not
    online = made.challenge(judge, words, second=True, idempotency_key="lost")
    assert online.json["second"]["valid"] is True and online.json["valid"] is False
    assert made.director.get("/v1/records/1").json["second_not_shown"] is None
    shown = made.challenge(judge, words, **offline(made, "lost", second=True, shown_valid=False))
    assert problem(shown, 409, "idempotency-conflict")["record"] == 1
    [row] = made.rows()
    assert (row.entry.second_lexicon_id, row.entry.second_valid) == ("es-alt", True)  # the row is as recorded
    assert made.director.get("/v1/records/1").json["second_not_shown"] == WHEN
    assert [r["second_not_shown"] for r in made.director.get("/v1/records").json["records"]] == [WHEN]
    exported = made.director.get("/v1/records?format=json").json["records"]
    assert [r["second_not_shown"] for r in exported] == [WHEN]
    csv = made.director.get("/v1/records?format=csv").get_data(as_text=True)
    header, line = csv.splitlines()
    assert header.endswith(",intact,filter,second_not_shown") and line.endswith("," + WHEN)
    assert read_export(csv, "csv") == [row]  # a mark beside the row: the row reads back as recorded


def test_a_table_device_s_offline_verdict_is_refused_in_and_out_of_rounds(event):
    """A table device (mesa) never judges without the service: what it would send is refused."""
    _, table = event.device("Mesa 7", "table", "7")
    for open_round in (True, False):
        if open_round:
            event.open_round()
        else:
            event.close_round()
        refused = problem(event.challenge(table, **offline(event, "t1")), 403, "offline-not-allowed")
        assert "judge" in refused["detail"] and "valid" not in refused
    assert event.rows() == []


def test_an_offline_verdict_from_a_lookup_device_or_no_device_is_refused_in_and_out_of_rounds(event):
    _, kiosk = event.device("Consulta", "lookup")
    for open_round in (False, True):
        if open_round:
            event.open_round()
        problem(event.challenge(kiosk, **offline(event, "k1")), 403, "offline-not-allowed")
        problem(event.challenge(None, **offline(event, "n1")), 403, "offline-not-allowed")
    assert event.rows() == []


def test_a_revoked_device_s_offline_verdicts_are_not_recorded(event):
    """The director revoked the phone while it judged without the network: what it queued is refused."""
    device_id, judge = event.device()
    assert event.director.delete(f"/v1/devices/{device_id}", headers=SAME).status_code == 200
    problem(event.challenge(judge, **offline(event, "r1")), 401, "device-revoked")
    assert event.rows() == []


def test_an_offline_verdict_given_with_another_lexicon_is_not_recorded(event):
    _, judge = event.device()
    changed = problem(
        event.challenge(judge, **offline(event, "c1") | {"checksum": "0" * 64}), 409, "offline-lexicon-changed"
    )
    assert changed["lexicon"] == "es-mini" and "000000000000" in changed["detail"]
    problem(event.challenge(judge, offline=True, idempotency_key="c2", device_time=WHEN), 422, "invalid-request")
    problem(event.challenge(judge, **offline(event, "c3") | {"checksum": "ABC"}), 422, "invalid-request")
    assert event.rows() == []


def test_a_member_of_fixed_form_with_a_trailing_newline_is_refused_as_malformed_and_changes_nothing(event):
    """device_time, checksum and event_file have one form each; Python's `$` also matches before a
    final newline, so each with one was let through the type and refused (or noted) later for what
    it is not: a time no calendar has, another lexicon, another file of the event (a split noted for
    the console, whose red line named two files that read the same). Now a 422 at the member."""
    device, judge = event.device()
    file = event.app.test_client().get("/readyz").json["event_file"]
    sent = offline(event, "nl")
    for member, value in (
        ("device_time", WHEN + "\n"),
        ("checksum", sent["checksum"] + "\n"),
        ("event_file", file + "\n"),
    ):
        refused = problem(event.challenge(judge, **{**sent, member: value}), 422, "invalid-request")
        assert refused["pointer"] == f"/{member}", refused
    assert event.rows() == []
    listed = event.director.get("/v1/devices").json["devices"]
    assert next(d for d in listed if d["id"] == device)["split"] is None
    assert event.challenge(judge, **{**sent, "event_file": file}).status_code == 200  # as it should be: recorded


def test_a_verdict_recorded_online_and_then_sent_from_the_queue_is_one_row_whose_number_it_learns(either_store):  # noqa: F811
    """The service recorded the online challenge but its answer never reached the phone (an
    instance killed after its COMMIT, or the page's 3 s gone by): the phone judged too, with the
    same key, and sends it from its queue. One row, and the refusal tells that phone the row's
    number, so its line says where its verdict went; another device sending the same body learns
    nothing of that row, in either store."""
    event = either_store
    _, judge = event.device()
    _, other = event.device("Juez 2")
    event.open_round(3)
    assert event.challenge(judge, idempotency_key="earlier").json["record"] == 1
    online = event.challenge(judge, idempotency_key="same")
    assert online.status_code == 200 and online.json["record"] == 2
    sent = offline(event, "same", round=3) | {"device_time": stamp(event.clock.now)}
    mine = problem(event.challenge(judge, **sent), 409, "idempotency-conflict")
    assert mine["record"] == 2 and "record 2" in mine["detail"]
    theirs = problem(event.challenge(other, **sent), 409, "idempotency-conflict")
    assert "record" not in theirs and not re.search(r"\d", theirs["detail"].replace("same", "")), theirs
    [_, row] = event.rows()
    assert not row.entry.offline and row.entry.idempotency_key == "same" and row.entry.device_name == "Juez 1"


def test_a_play_recorded_online_while_its_phone_showed_another_verdict_is_refused_and_counted(either_store):  # noqa: F811
    """The same race, the phone showing another verdict than the row recorded online (its copy of
    the list forged or broken), or judging with another list: the record holds a verdict its
    players were not shown. Its queued verdict is refused as such, counted on its judge's row for
    the director and naming that row to its phone, never taken as recorded (409
    `idempotency-conflict`, which the page counts as recorded, said nothing to anyone). Another
    device sending the same body still learns nothing of the row; the same play shown as recorded
    is still the conflict the phone takes as recorded."""
    event = either_store
    _, judge = event.device()
    _, other = event.device("Juez 2")
    event.open_round(3)
    words = ["CARRO", "CHICOX"]  # no play: the service recorded it not valid
    assert event.challenge(judge, words, idempotency_key="lost").json["valid"] is False
    assert event.challenge(judge, words, idempotency_key="stale").status_code == 200
    assert event.challenge(judge, words, idempotency_key="agrees").status_code == 200
    now = {"device_time": stamp(event.clock.now), "round": 3}
    shown = problem(
        event.challenge(judge, words, **offline(event, "lost", shown_valid=True) | now), 409, "offline-verdict-differs"
    )
    assert shown["record"] == 1 and "record 1" in shown["detail"] and "CHICOX" not in shown["detail"]
    stale = offline(event, "stale", shown_valid=False) | now | {"checksum": "0" * 64}
    assert problem(event.challenge(judge, words, **stale), 409, "offline-lexicon-changed")["record"] == 2
    theirs = offline(event, "lost", shown_valid=True) | now
    assert "record" not in problem(event.challenge(other, words, **theirs), 409, "idempotency-conflict")
    agreed = offline(event, "agrees", shown_valid=False) | now
    assert problem(event.challenge(judge, words, **agreed), 409, "idempotency-conflict")["record"] == 3
    devices = {d["name"]: d for d in event.director.get("/v1/devices").json["devices"]}
    counted = (devices["Juez 1"]["refused_offline"], devices["Juez 1"]["refused_offline_lexicon"])
    assert [said and (said["count"], said["shown_round"]) for said in counted] == [(1, 3), (1, 3)]
    assert devices["Juez 2"]["refused_offline"] is None
    assert [row.entry.offline for row in event.rows()] == [False, False, False]


def test_an_online_challenge_arriving_after_its_play_was_refused_offline_is_not_recorded(either_store):  # noqa: F811
    """The other order of that race: the online challenge, held on the way for longer than the
    page's 3 s, arrives after the phone judged the play itself and had that verdict refused (its
    copy of the list forged or broken). Recorded, it would be the service's verdict under the key,
    which no phone showed, beside a refusal saying nothing was recorded: it is refused, the key
    being its device's refused one. Another device's challenge with that key is recorded as any."""
    event = either_store
    _, judge = event.device()
    _, other = event.device("Juez 2")
    event.open_round(3)
    words = ["CARRO", "CHICOX"]  # no play: the phone showed it valid
    sent = offline(event, "late", shown_valid=True, round=3) | {"device_time": stamp(event.clock.now)}
    problem(event.challenge(judge, words, **sent), 409, "offline-verdict-differs")
    late = problem(event.challenge(judge, words, idempotency_key="late"), 409, "idempotency-conflict")
    assert "record" not in late
    assert event.challenge(judge, words, idempotency_key="next").status_code == 200
    assert event.challenge(other, words, idempotency_key="late").status_code == 200
    assert [(row.entry.idempotency_key, row.entry.device_name) for row in event.rows()] == [
        ("next", "Juez 1"),
        ("late", "Juez 2"),
    ]


def test_the_browser_lexicon_goes_only_to_paired_judge_devices(event):
    _, judge = event.device("Juez 1", "judge")
    _, table = event.device("Mesa 7", "table", "7")
    _kiosk_id, kiosk = event.device("Consulta", "lookup")
    revoked_id, revoked = event.device("Juez 2", "judge")
    assert event.director.delete(f"/v1/devices/{revoked_id}", headers=SAME).status_code == 200

    def get(token=None, **headers):
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return event.app.test_client().get("/v1/lexicons/es-mini/browser", headers=headers)

    response = get(judge, **{"Accept-Encoding": "identity"})
    assert response.status_code == 200
    assert BrowserLexicon(response.data).header.lexicon_sha256 == checksum_of(event)
    # no HTTP cache keeps it, the phone's own neither: paired later as a table device, it holds none
    assert response.headers["Cache-Control"] == "no-store"
    problem(get(table, **{"Accept-Encoding": "identity"}), 403, "offline-not-allowed")  # never a table's
    problem(get(), 401, "device-unknown")
    problem(get("not-a-token"), 401, "device-unknown")
    problem(get(revoked), 401, "device-revoked")
    problem(get(kiosk), 403, "offline-not-allowed")
    problem(event.director.get("/v1/lexicons/es-mini/browser"), 401, "device-unknown")  # the director's cookie: no
    etag = get(judge).headers["ETag"]
    problem(get(None, **{"If-None-Match": etag}), 401, "device-unknown")  # no 304 without a device either


def test_an_offline_verdict_is_filed_in_the_round_its_phone_showed_if_it_was_open_then(event):
    """Judged during round 2 (its phone showing round 2), sent during round 3: filed in round 2.
    Showing round 2 when round 2 had closed by the service's clock: outside rounds, the shown round
    kept on the row. An online challenge cannot say a round: the record's is the service's."""
    _, judge = event.device()
    event.clock.advance(seconds=30)
    event.open_round(2)
    event.clock.advance(minutes=1)
    judged = dict(offline(event, "in-2", round=2), device_time=stamp(event.clock()))
    event.clock.advance(minutes=1)
    closed = event.close_round()
    assert closed["head_final"] is False and closed["pending"][0]["name"] == "Juez 1"  # silent: judging offline
    late = dict(offline(event, "late-2", round=2), device_time=stamp(event.clock() + timedelta(seconds=1)))
    event.open_round(3)
    event.clock.advance(minutes=2)
    answers = [event.challenge(judge, **judged), event.challenge(judge, **late)]
    assert [a.json["round"] for a in answers] == [2, None]
    rows = event.rows()
    assert [(r.round, r.entry.shown_round, r.format) for r in rows] == [(2, 2, 4), (None, 2, 4)]
    listed = event.director.get("/v1/records").json["records"]
    assert [(r["round"], r["shown_round"]) for r in listed] == [(2, 2), (None, 2)]
    assert problem(event.challenge(judge, round=3), 422, "invalid-request")["pointer"] == "/round"
    assert (
        problem(event.challenge(judge, **offline(event, "x", round=0)), 422, "invalid-request")["pointer"] == "/round"
    )
    assert len(event.rows()) == 2


def test_a_heartbeat_refused_for_its_event_file_or_last_key_settles_no_round(event):
    """waiting=0 settles a closed round's head only in a heartbeat the service answers: one refused
    for another of its parameters (422) changes nothing, as every refusal of bad input."""
    _, far = event.device("Juez 2")
    client = event.app.test_client()
    event.open_round(1)
    event.clock.advance(minutes=2)
    assert event.close_round()["pending"] != []
    heard = {"Authorization": f"Bearer {far}"}
    for query in ("waiting=0&event_file=not-a-file", "waiting=0&last_key=%01"):
        problem(client.get(f"/v1/event?{query}", headers=heard), 422, "invalid-request")
    still = event.director.get("/v1/rounds").json["rounds"][0]
    assert still["head_final"] is False and still["pending"] != []


def test_a_round_s_head_waits_for_the_silent_judges_phones_and_the_director_can_confirm_it(event):
    """Closing names the judges' phones not in touch for a minute; a phone's heartbeat with
    waiting=0 settles it; the director may confirm without it (POST /v1/rounds/N/final)."""
    _, near = event.device("Juez 1")
    far_id, far = event.device("Juez 2")
    client = event.app.test_client()
    event.open_round(1)
    event.clock.advance(minutes=2)
    assert client.get("/v1/event", headers={"Authorization": f"Bearer {near}"}).status_code == 200
    closed = event.close_round()
    assert closed["head_final"] is False and closed["pending"] == [{"id": far_id, "name": "Juez 2"}]
    heard = {"Authorization": f"Bearer {far}"}
    problem(client.get("/v1/event?waiting=tres", headers=heard), 422, "invalid-request")
    assert client.get("/v1/event?waiting=1", headers=heard).status_code == 200  # holds one: still waited for
    assert event.director.get("/v1/rounds").json["rounds"][0]["pending"] != []
    assert client.get("/v1/event?waiting=0", headers=heard).status_code == 200
    settled = event.director.get("/v1/rounds").json["rounds"][0]
    assert settled["head_final"] is True and settled["final"] == stamp(event.clock())
    event.device("Juez 3")  # paired, never in touch since
    event.open_round(2)
    event.clock.advance(minutes=2)
    for token in (near, far):  # in touch by the test's clock (contacts were stamped by the wall clock)
        assert client.get("/v1/event", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert [d["name"] for d in event.close_round()["pending"]] == ["Juez 3"]
    event.challenge(near)  # a verdict after the close, covered by the confirmed head
    confirmed = event.director.post("/v1/rounds/2/final", headers=SAME)
    assert confirmed.status_code == 200 and confirmed.json["head_final"] is True
    assert confirmed.json["head_seq"] == event.rows()[-1].seq
    problem(event.director.post("/v1/rounds/2/final", headers=SAME), 409, "round-conflict")
    problem(event.app.test_client().post("/v1/rounds/2/final", headers=SAME), 401, "director-required")
