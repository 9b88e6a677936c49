"""The event file edited on the laptop (sqlite3, a trigger dropped first): a stored value this
service cannot read back is a refusal that names where (409 `record-tampered`), never a 500,
never a word of a play, and is logged as an error once."""

from __future__ import annotations

import logging
import sqlite3

import pytest

from .test_http import SAME, problem
from .test_offline import WHEN, event, offline  # noqa: F401 - the fixture, shared


def edit(path, sql: str) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(
        "DROP TRIGGER IF EXISTS records_append_only_update; DROP TRIGGER IF EXISTS records_append_only_delete; " + sql
    )
    conn.close()


def errors(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR and "edited by hand" in r.getMessage()]


def test_a_judge_whose_pairing_time_was_edited_gets_a_refusal_for_each_offline_verdict(event, caplog):  # noqa: F811
    device_id, judge = event.device()
    edit(event.path, f"UPDATE devices SET paired = 'zz' WHERE id = {device_id}")
    for key in ("k1", "k2"):
        body = problem(event.challenge(judge, ["CARRO", "CHICOX"], **offline(event, key)), 409, "record-tampered")
        assert "devices.paired" in body["detail"] and "CHICOX" not in body["detail"] and "zz" not in body["detail"]
    assert event.rows() == []
    assert len(errors(caplog)) == 1  # once, however many times it is met


def test_a_table_whose_last_row_s_time_was_edited_gets_a_refusal_not_a_500(event, caplog):  # noqa: F811
    _, table = event.device("Mesa 7", "table", "7")
    event.open_round()
    assert event.challenge(table, ["CARRO", "LLAVEX"]).status_code == 200
    edit(event.path, "UPDATE records SET time = 'garbage' WHERE seq = 1")
    event.clock.advance(seconds=11)
    for _ in range(2):
        refused = event.challenge(table, ["CARRO", "LLAVEX"])
        body = problem(refused, 409, "record-tampered")
        assert "LLAVEX" not in refused.get_data(as_text=True) and "garbage" not in body["detail"]
    assert len(event.rows()) == 1 and len(errors(caplog)) == 1
    # the other devices, whose rows read back, are judged and recorded as before
    _, judge = event.device()
    assert event.challenge(judge).status_code == 200


@pytest.mark.parametrize(
    "sql, then",
    [
        ("UPDATE sessions SET expires = 'soon'", "session"),
        ("UPDATE director SET password_hash = 'scrypt$x$y$z$$'", "login"),
    ],
)
def test_the_director_s_stored_session_or_password_edited_is_a_refusal(event, sql, then):  # noqa: F811
    edit(event.path, sql)
    if then == "session":
        answer = event.director.get("/v1/director/session")
    else:
        answer = event.app.test_client().post("/v1/director/session", json={"password": "whatever it is"}, headers=SAME)
    problem(answer, 409, "record-tampered")


def test_an_edited_pairing_code_expiry_is_a_refusal(event):  # noqa: F811
    added = event.director.post("/v1/devices", json={"name": "Juez 2", "role": "judge"}, headers=SAME)
    edit(event.path, "UPDATE pairing_codes SET expires = 'never'")
    problem(event.app.test_client().post("/v1/devices/pair", json={"code": added.json["code"]}), 409, "record-tampered")


@pytest.mark.parametrize(
    "column, edited, kind, kept",
    [
        ("name", "''", "record-tampered", "'Mesa 7'"),
        ("table", "''", "table-missing", "'7'"),
        ("table", "NULL", "table-missing", "'7'"),
    ],
)
def test_a_device_whose_name_or_table_was_edited_empty_gets_a_refusal_not_a_500(
    event,  # noqa: F811
    caplog,
    column,
    edited,
    kind,
    kept,
):
    """A device's name and table go into each of its rows: edited into '' (text no row holds), its
    requests are refused naming where, and nothing of it is kept in a worker's cache of live
    devices: put back, the device is judged and recorded at once (a 500 before, at every verdict,
    the device cached as read). A table device with no table at all (NULL: answered before, its
    rows carrying no table) or a blank one is `table-missing`, whose words say who mends it and
    where: the director, in the console, not `records verify`."""
    device_id, table = event.device("Mesa 7", "table", "7")
    event.open_round()
    edit(event.path, f'UPDATE devices SET "{column}" = {edited} WHERE id = {device_id}')
    for _ in range(2):
        refused = event.challenge(table, ["CARRO", "LLAVEX"])
        body = problem(refused, 409, kind)
        assert f"device {device_id}" in body["detail"]
        assert "LLAVEX" not in refused.get_data(as_text=True)
    if kind == "table-missing":
        assert "the director revokes it in the console" in body["detail"] and "records verify" not in body["detail"]
    heartbeat = event.app.test_client().get("/v1/event", headers={"Authorization": f"Bearer {table}"})
    problem(heartbeat, 409, kind)
    assert event.rows() == [] and len(errors(caplog)) == 1
    edit(event.path, f'UPDATE devices SET "{column}" = {kept} WHERE id = {device_id}')
    assert event.challenge(table).status_code == 200
    assert [(row.entry.device_name, row.entry.table) for row in event.rows()] == [("Mesa 7", "7")]


def test_stored_text_that_is_no_utf8_is_shown_in_the_director_s_lists_and_refuses_its_device(event, caplog):  # noqa: F811
    """A byte edited into a device's name, a round's times or a device's split (text that is no
    UTF-8: the store reads it as its own kind of text, with U+FFFD) is passed on as the lists pass
    any stored value, shown with U+FFFD: the console's lists of devices and rounds answer (each a
    500 before, its JSON unwritable). The device itself, whose name its rows would carry, is
    refused as any device edited into a name no row holds."""
    device_id, judge = event.device()
    event.open_round()
    assert event.app.test_client().get("/v1/event?event_file=0123456789abcdef", headers=_bearer(judge)).json["split"]
    edit(
        event.path,
        f"UPDATE devices SET name = CAST(x'4a75657a20ff' AS TEXT) WHERE id = {device_id}; "
        "UPDATE rounds SET opened = CAST(x'ff' AS TEXT); UPDATE splits SET seen = CAST(x'ff' AS TEXT)",
    )
    devices = event.director.get("/v1/devices")
    assert devices.status_code == 200
    [shown] = devices.json["devices"]
    assert shown["name"] == "Juez \ufffd" and shown["split"]["seen"] == "\ufffd"
    rounds = event.director.get("/v1/rounds")
    assert rounds.status_code == 200 and rounds.json["rounds"][0]["opened"] == "\ufffd"
    body = problem(event.challenge(judge, ["CARRO", "LLAVEX"]), 409, "record-tampered")
    assert f"devices.name of device {device_id}" in body["detail"]
    assert event.rows() == []


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.parametrize("expires", ["5", "'zz'"])
def test_a_login_link_whose_expiry_was_edited_gets_a_refusal_not_a_500_nor_a_sign_in(event, caplog, expires):  # noqa: F811
    """A link's expiry is a stored time like any other: edited into a number (a TypeError when it
    was compared as text with now: a 500), into text after every date ('zz': a link that never
    expired),, the link is refused naming where (409), and nobody is signed in by it."""
    token = event.db.new_login_link()
    edit(event.path, f"UPDATE login_links SET expires = {expires}")
    anyone = event.app.test_client()
    body = problem(anyone.post("/v1/director/link", json={"token": token}, headers=SAME), 409, "record-tampered")
    assert "login_links.expires" in body["detail"] and token not in body["detail"]
    assert anyone.get("/v1/director/session").status_code == 401
    assert len(errors(caplog)) == 1
