"""A record changed by hand is said wherever it shows: each row's `intact`, the whole record's
`chain` (verified incrementally), the exports' column and file names, and the pairing URL a
phone can reach."""

from __future__ import annotations

import csv
import io
import os
import sqlite3
import threading

import pytest
from flask import Flask

from service import create_app
from service.addresses import public_base
from service.config import SettingsError, load_settings
from service.director import UI_COOKIE, director_texts
from service.event.record_routes import EXPORT_WORDS
from tests.service.conftest import app_config
from tournament import chain, create_event, open_event, read_export, read_stamp
from tournament.export_check import check_export
from tournament.stores.sqlite import verification

from .conftest import PASSWORD, Clock, entry
from .test_http import SAME, Event, event, problem  # noqa: F401 - the fixture, shared


def tamper(path, sql: str) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(
        "DROP TRIGGER IF EXISTS records_append_only_update; DROP TRIGGER IF EXISTS records_append_only_delete; " + sql
    )
    conn.close()


def five(event) -> None:  # noqa: F811
    _, judge = event.device()
    for _ in range(5):
        assert event.challenge(judge).status_code == 200


def test_a_row_changed_by_hand_is_marked_in_the_list_the_row_and_the_export(event):  # noqa: F811
    five(event)
    before = event.director.get("/v1/records").json
    assert before["chain"] == {
        "intact": True,
        "last": 5,
        "last_hash": before["records"][-1]["hash"],
        "verified": 5,
        "broken": None,
        "checking": False,  # a record this short is verified whole in the request
        "checked": before["chain"]["checked"],
        "guarded": True,
        "failed": False,
        "replaced": False,
    }
    assert read_stamp(before["chain"]["checked"], "checked")
    assert all(row["intact"] for row in before["records"])
    tamper(event.path, "UPDATE records SET valid = 0 WHERE seq = 3;")

    after = event.director.get("/v1/records").json
    assert after["chain"]["intact"] is False and after["chain"]["verified"] == 2
    assert after["chain"]["broken"]["seq"] == 3 and "changed" in after["chain"]["broken"]["reason"]
    assert [row["intact"] for row in after["records"]] == [True, True, False, True, True]
    assert event.director.get("/v1/records/3").json["intact"] is False
    assert event.director.get("/v1/records/4").json["intact"] is True
    assert event.director.get("/v1/records?table=none").json["chain"]["broken"]["seq"] == 3  # a page of no row
    rows = list(csv.DictReader(io.StringIO(event.director.get("/v1/records?format=csv").data.decode())))
    assert [row["intact"] for row in rows] == ["true", "true", "false", "true", "true"]
    # the service keeps recording (the judges still get verdicts): the break stays said
    assert event.challenge(event.device("Juez 2")[1]).status_code == 200
    assert event.director.get("/v1/records").json["chain"]["broken"]["seq"] == 3


def test_the_last_rows_deleted_while_the_service_ran_are_a_break(event):  # noqa: F811
    five(event)
    assert event.director.get("/v1/records").json["chain"]["intact"]
    tamper(event.path, "DELETE FROM records WHERE seq >= 4;")
    state = event.director.get("/v1/records").json["chain"]
    assert state["intact"] is False and state["last"] == 3 and state["broken"]["seq"] == 4
    assert "records 4 to 5 are missing: this service had verified the record up to 5" in state["broken"]["reason"]


def test_a_row_nested_past_the_parser_s_limit_is_a_refusal_and_a_break_not_a_500(event, monkeypatch):  # noqa: F811
    monkeypatch.setattr(verification, "INLINE_ROWS", 10)  # this record is verified off the request
    db = open_event(event.path)
    db.append_many([entry() for _ in range(12)])
    db.close()
    tamper(event.path, "UPDATE records SET words = '" + "[" * 100_000 + "]" * 100_000 + "' WHERE seq = 2;")
    assert event.director.get("/v1/records/2").status_code == 409  # record-tampered
    first = event.director.get("/v1/records?limit=5").json["chain"]  # the rows shown read back
    assert first["checking"] and not first["intact"] and first["guarded"] is False
    assert event.app.extensions["lexicon_event"].db._storage._verification.wait(timeout=60)
    state = event.director.get("/v1/records?limit=5").json["chain"]
    assert state["broken"]["seq"] == 2 and "words is not a list of words" in state["broken"]["reason"]
    assert state["verified"] == 1 and not state["intact"] and not state["failed"]
    assert event.app.extensions["lexicon_event"].db._storage._verification.wait(timeout=60)


def test_a_filtered_rows_link_to_the_row_before_it_is_checked(event):  # noqa: F811
    five(event)
    tamper(event.path, "UPDATE records SET hash = '" + "ab" * 32 + "' WHERE seq = 2;")
    rows = event.director.get("/v1/records").json["records"]
    assert [row["intact"] for row in rows] == [True, False, False, True, True]  # 3 no longer chains to 2
    assert event.director.get("/v1/records/3").json["intact"] is False


def test_the_chain_is_verified_again_only_from_the_last_row_verified(event_path, clock, monkeypatch):
    db = create_event(event_path, "Open", PASSWORD, clock=clock)
    db.append_many([entry() for _ in range(50)])
    assert db.chain_state().verified == 50
    inline = verification.INLINE_ROWS
    monkeypatch.setattr(verification, "INLINE_ROWS", 10)  # 50 rows: verified whole only when due
    hashed = []
    real = chain.row_hash
    monkeypatch.setattr(chain, "row_hash", lambda record: hashed.append(record.seq) or real(record))
    monkeypatch.setattr("tournament.stores.sqlite.verification.row_hash", chain.row_hash)
    db.append(entry())
    state = db.chain_state()
    assert state.intact and state.verified == state.last == 51
    assert sorted(set(hashed)) == [50, 51]  # the row verified last, checked again, and the new one
    hashed.clear()
    monkeypatch.setattr(verification, "INLINE_ROWS", inline)  # short again: verified whole in the look
    tamper(event_path, "")  # the append-only triggers gone: an edit by hand may follow, all is checked
    state = db.chain_state()
    assert state.verified == 51 and state.broken is None and len(set(hashed)) == 51
    assert not state.guarded and not state.intact  # proof of an edit by hand, said
    db.close()


@pytest.mark.slow  # 50,000 rows appended first (seconds): the look itself is not timed
def test_a_console_look_at_a_big_record_never_hashes_every_row_in_the_request(event, monkeypatch):  # noqa: F811
    db = open_event(event.path)
    db.append_many([entry() for _ in range(50_000)])
    db.close()
    hashed = []  # the thread of each row hashed: the request's, or the verification's
    real = chain.row_hash
    monkeypatch.setattr(chain, "row_hash", lambda record: hashed.append(threading.get_ident()) or real(record))
    monkeypatch.setattr(verification, "row_hash", chain.row_hash)
    started = []
    start = verification.Verification.start
    monkeypatch.setattr(
        verification.Verification, "start", lambda self, check: started.append(self) or start(self, check)
    )

    def look() -> dict:
        hashed.clear()
        state = event.director.get("/v1/records").json["chain"]
        assert hashed.count(threading.get_ident()) <= 101  # the page's own rows (and the row verified last)
        return state

    first = look()
    assert first["checking"] and not first["intact"] and first["verified"] == 0 and first["last"] == 50_000
    assert started and started[0].wait(timeout=300)
    assert len(hashed) >= 50_000  # every row, off the request
    state = look()
    assert not state["checking"] and state["intact"] and state["verified"] == 50_000 and state["checked"]


def test_an_export_is_named_for_its_event_filter_and_format(event):  # noqa: F811
    event.open_round(2)
    five(event)
    for query, name in (
        ("format=csv", "open-de-lleida-2026-registro.csv"),
        ("format=json", "open-de-lleida-2026-registro.json"),
        ("format=json&round=2", "open-de-lleida-2026-ronda-2.json"),
        ("format=csv&table=12&device=1", "open-de-lleida-2026-mesa-12-dispositivo-1.csv"),
    ):
        response = event.director.get(f"/v1/records?{query}")
        assert response.headers["Content-Disposition"] == f'attachment; filename="{name}"', query
    assert "Content-Disposition" not in event.director.get("/v1/records").headers  # the console's own list
    # in the console's language: the one chosen there (its cookie) first, else the browser's
    catalan = {"Accept-Language": "ca-ES,ca;q=0.9"}
    for chosen, headers, name in (
        (None, catalan, "open-de-lleida-2026-taula-12-dispositiu-1.csv"),
        ("es", catalan, "open-de-lleida-2026-mesa-12-dispositivo-1.csv"),
        ("ca", {"Accept-Language": "fr"}, "open-de-lleida-2026-taula-12-dispositiu-1.csv"),
    ):
        if chosen:
            event.director.set_cookie(UI_COOKIE, chosen)
        response = event.director.get("/v1/records?format=csv&table=12&device=1", headers=headers)
        assert response.headers["Content-Disposition"] == f'attachment; filename="{name}"', (chosen, headers)
    response = event.director.get("/v1/records?format=json")
    assert response.headers["Content-Disposition"] == 'attachment; filename="open-de-lleida-2026-registre.json"'
    assert set(EXPORT_WORDS) == set(director_texts())  # a file's name in every language the console speaks
    for kind in ("csv", "json"):  # what the console downloads verifies on another computer
        rows = read_export(event.director.get(f"/v1/records?format={kind}").data.decode(), kind)
        assert len(rows) == 5 and check_export(rows).broken is None


def test_a_round_the_event_never_had_is_refused_not_listed_or_exported_empty(event):  # noqa: F811
    """A tool asking for round 33 (meant 3) got an empty list, and an empty sheet named
    `…-ronda-33.csv` that reads as a round without challenges; `lexicon records export --round 33`
    refuses it. The service now says the same, and a round without rows is still an empty list."""
    event.open_round(3)
    five(event)
    event.close_round()
    event.open_round(4)
    for query in ("round=33", "round=33&format=csv", "round=33&format=json", "round=1&table=12"):
        refused = problem(event.director.get(f"/v1/records?{query}"), 422, "invalid-request")
        assert refused["detail"] == f"there is no round {query[6:8].strip('&')} in this event (its rounds: 3, 4)"
        assert refused["parameter"] == "round"
    assert len(event.director.get("/v1/records?round=3").json["records"]) == 5
    assert event.director.get("/v1/records?round=4").json["records"] == []  # opened, no challenge yet
    assert event.director.get("/v1/records?round=4&format=csv").status_code == 200


# -- the pairing URL: an address a phone can reach ---------------------------------------------------


def base(settings: dict, url: str, monkeypatch=None, address: str | None = "192.168.1.10"):
    if monkeypatch is not None:
        monkeypatch.setattr("service.addresses.network_address", lambda: address)
    app = Flask(__name__)
    with app.test_request_context(url):
        from flask import request

        return public_base(load_settings(settings, {}), request)


def test_the_pairing_url_is_never_the_laptops_own_loopback_when_another_is_known(monkeypatch):
    every = {"LEXICON_HOST": "0.0.0.0", "LEXICON_PORT": "8102"}
    assert base(every, "http://127.0.0.1:8102/v1/devices", monkeypatch).url == "http://192.168.1.10:8102/"
    assert base(every, "http://localhost:8102/v1/devices", monkeypatch).reachable
    assert base({"LEXICON_HOST": "10.0.0.5"}, "http://127.0.0.1:8000/x").url == "http://10.0.0.5:8000/"
    assert base(every, "http://[::1]:8102/x", monkeypatch, "fd00::7").url == "http://[fd00::7]:8102/"
    seen = base(every, "http://192.168.1.22:8102/v1/devices", monkeypatch)  # opened from the network
    assert (seen.url, seen.reachable) == ("http://192.168.1.22:8102/", True)


def test_the_pairing_url_keeps_the_consoles_scheme_with_its_port(monkeypatch):
    """The console opened at https://localhost (a front end on 443, the service on 8000 behind
    it): the QR is that scheme on its default port, never the front end's scheme on the
    service's own port, which no phone could open."""
    every = {"LEXICON_HOST": "0.0.0.0", "LEXICON_PORT": "8000"}
    assert base(every, "https://localhost/director", monkeypatch).url == "https://192.168.1.10/"
    assert base(every, "http://localhost/director", monkeypatch).url == "http://192.168.1.10/"
    assert base(every, "https://localhost:8443/director", monkeypatch).url == "https://192.168.1.10:8443/"
    assert base({"LEXICON_HOST": "10.0.0.5", "LEXICON_PORT": "8000"}, "https://127.0.0.1/x").url == "https://10.0.0.5/"


def test_the_console_is_told_when_no_reachable_address_is_known(monkeypatch):
    only_here = base({"LEXICON_HOST": "127.0.0.1"}, "http://127.0.0.1:8102/v1/devices")
    assert (only_here.url, only_here.reachable, only_here.reason) == ("http://127.0.0.1:8102/", False, "loopback-only")
    offline = base({"LEXICON_HOST": "0.0.0.0"}, "http://127.0.0.1:8102/x", monkeypatch, None)
    assert (offline.reachable, offline.reason) == (False, "no-network")


def test_a_public_url_setting_is_used_as_given(monkeypatch):
    named = base({"LEXICON_PUBLIC_URL": "https://juez.example.org/torneo"}, "http://127.0.0.1:8000/x")
    assert (named.url, named.reachable) == ("https://juez.example.org/torneo/", True)
    for bad in ("juez.example.org", "ftp://x/", "https://x/?a=1", "http://x:port/"):
        with pytest.raises(SettingsError, match="LEXICON_PUBLIC_URL"):
            load_settings({"LEXICON_PUBLIC_URL": bad}, {})


def test_the_api_gives_the_reachable_pairing_url(tmp_path, lexicon_files, monkeypatch):
    monkeypatch.setattr("service.addresses.network_address", lambda: "192.168.1.10")
    path = tmp_path / "open.db"
    create_event(path, "Open", PASSWORD, clock=Clock()).close()
    made = Event(create_app(app_config(lexicon_files, LEXICON_EVENT=str(path), LEXICON_HOST="0.0.0.0")), path, Clock())
    laptop = {"base_url": "http://127.0.0.1:8000", "headers": {"Origin": "http://127.0.0.1:8000"}}
    assert made.director.post("/v1/director/session", json={"password": PASSWORD}, **laptop).status_code == 201
    added = made.director.post("/v1/devices", json={"name": "Juez 1", "role": "judge"}, **laptop).json
    assert added["pairing_url"] == f"http://192.168.1.10:8000/#pair={added['code']}" and added["reachable"]
    again = made.director.post(f"/v1/devices/{added['device']['id']}/code", **laptop).json
    assert again["pairing_url"].startswith("http://192.168.1.10:8000/#pair=")


def test_the_devices_list_says_each_devices_last_verdict_and_lexicon(event):  # noqa: F811
    judge_id, judge = event.device()
    other_id, _ = event.device("Juez 2")
    event.challenge(judge)
    event.clock.advance(minutes=3)
    event.challenge(judge)
    devices = {d["id"]: d for d in event.director.get("/v1/devices").json["devices"]}
    assert devices[judge_id]["last_seen"] == event.rows()[-1].time != event.rows()[0].time
    assert devices[judge_id]["last_lexicon"] == "es-mini test-1"
    assert devices[other_id]["last_seen"] is None and devices[other_id]["last_lexicon"] is None


@pytest.mark.parametrize("change", ["moved", "replaced"])
def test_an_event_file_moved_or_replaced_is_said_by_readyz_and_the_console(event, change):  # noqa: F811
    """Every write refuses once the file at the event's path is not the one served (no verdict is
    given); /readyz said `ready` and the console `intact` meanwhile. Now /readyz is a 503 saying
    why and the console's chain says `replaced` (never intact), until the file is back."""
    _, judge = event.device()
    assert event.challenge(judge).status_code == 200
    kept = event.path.with_name("kept.db")
    os.rename(event.path, kept)
    if change == "replaced":
        other = event.path.with_name("other.db")
        create_event(other, "Another event", PASSWORD).close()
        os.replace(other, event.path)
    client = event.app.test_client()
    refused = client.get("/readyz")
    assert refused.status_code == 503 and refused.content_type == "application/problem+json"
    assert "is not the one this service opened" in refused.json["detail"]
    chain = event.director.get("/v1/records").json["chain"]
    assert chain["replaced"] is True and chain["intact"] is False
    assert event.challenge(judge).status_code == 503  # the write check refuses, as before
    os.replace(kept, event.path)
    assert client.get("/readyz").json["status"] == "ready"
    chain = event.director.get("/v1/records").json["chain"]
    assert chain["replaced"] is False and chain["intact"] is True
