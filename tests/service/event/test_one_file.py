"""One event, one live file, as the service sees it with its devices as witnesses
(service/event/witness.py), and nothing recorded without an idempotency key: each refusal records
nothing, and the console's list of devices names the device and both files."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from service import create_app
from tests.service.conftest import app_config
from tests.support import LEXICON_SCRIPT, REPO
from tournament import create_event

from .conftest import PASSWORD, Clock
from .test_http import SAME, Event, checksum_of, problem

pytestmark = pytest.mark.slow  # the director's scrypt, an app per file

OTHER = "0123456789abcdef"  # an identity no file here has


@pytest.fixture
def event(tmp_path, lexicon_files):
    path = tmp_path / "open.db"
    create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es", clock=Clock()).close()
    made = Event(create_app(app_config(lexicon_files, LEXICON_EVENT=str(path))), path, Clock())
    made.login()
    return made


def served_file(event) -> str:
    return event.app.test_client().get("/readyz").json["event_file"]


def split_of(event, device_id):
    devices = event.director.get("/v1/devices").json["devices"]
    return next(device for device in devices if device["id"] == device_id)["split"]


# -- no idempotency key, no row ------------------------------------------------------------------------


def test_a_verdict_without_an_idempotency_key_is_refused_naming_the_member_and_nothing_is_recorded(event):
    _, judge = event.device()
    refused = problem(event.challenge(judge, idempotency_key=None), 422, "idempotency-key-required")
    assert refused["pointer"] == "/idempotency_key" and "idempotency_key" in refused["detail"]
    unpaired = problem(event.challenge(None, idempotency_key=None), 422, "idempotency-key-required")
    assert unpaired["pointer"] == "/idempotency_key"
    batch = event.app.test_client().post(
        "/v1/challenges",
        json={"lexicon": "es", "plays": [{"words": ["CARRO"], "idempotency_key": "b-1"}, {"words": ["CHICO"]}]},
        headers={"Authorization": f"Bearer {judge}"},
    )
    assert problem(batch, 422, "idempotency-key-required")["pointer"] == "/plays/1/idempotency_key"
    assert event.rows() == []
    # a client's retry with its key records once, and is answered the same number
    first, again = (event.challenge(judge, idempotency_key="retry-1") for _ in range(2))
    assert first.status_code == again.status_code == 200 and first.json["record"] == again.json["record"] == 1
    batch = {"lexicon": "es", "plays": [{"words": ["CARRO"], "idempotency_key": "b-2"}]}
    judged = {"Authorization": f"Bearer {judge}"}
    answers = [event.app.test_client().post("/v1/challenges", json=batch, headers=judged) for _ in range(2)]
    assert [a.json["results"][0]["record"] for a in answers] == [2, 2]
    assert len(event.rows()) == 2


def test_an_offline_verdict_without_its_key_is_refused_and_nothing_is_recorded(event):
    _, judge = event.device()
    event.clock.advance(hours=1)
    sent = dict(offline=True, device_time="2026-11-22T09:31:07.120034Z", checksum=checksum_of(event))
    problem(event.challenge(judge, idempotency_key=None, **sent), 422, "idempotency-key-required")
    assert event.rows() == []


# -- a device answered by another file of the event --------------------------------------------------


def test_each_answer_to_a_device_names_the_file_and_the_one_it_was_restored_from(event):
    _, judge = event.device()
    state = event.app.test_client().get("/v1/event", headers={"Authorization": f"Bearer {judge}"}).json
    assert state["file"] == served_file(event) and len(state["file"]) == 16 and state["restored_from"] is None


def test_a_verdict_from_a_device_another_file_answered_is_refused_and_shown_to_the_director(event):
    device, judge = event.device()
    mine = served_file(event)
    assert event.challenge(judge, event_file=mine).json["record"] == 1  # its own file: recorded
    refused = problem(event.challenge(judge, ["CARRA"], event_file=OTHER), 409, "event-file-split")
    assert OTHER in refused["detail"] and mine in refused["detail"] and "valid" not in refused
    assert len(event.rows()) == 1
    split = split_of(event, device)
    assert (split["seen"], split["served"], split["missing"]) == (OTHER, mine, False)
    # the same rule for a verdict it judged offline, judged under the other file
    event.clock.advance(hours=1)
    sent = dict(offline=True, device_time="2026-11-22T09:31:07.120034Z", checksum=checksum_of(event))
    problem(event.challenge(judge, idempotency_key="off-1", event_file=OTHER, **sent), 409, "event-file-split")
    assert len(event.rows()) == 1


def test_a_page_s_heartbeat_from_another_file_is_shown_to_the_director_and_answered(event):
    device, judge = event.device()
    headers = {"Authorization": f"Bearer {judge}"}
    client = event.app.test_client()
    assert client.get(f"/v1/event?event_file={served_file(event)}", headers=headers).json["split"] is False
    assert split_of(event, device) is None
    answer = client.get(f"/v1/event?waiting=0&event_file={OTHER}", headers=headers)
    assert answer.status_code == 200 and answer.json["split"] is True  # the page says so on screen
    assert split_of(event, device)["seen"] == OTHER
    bad = problem(client.get("/v1/event?event_file=../../etc", headers=headers), 422, "invalid-request")
    assert bad["parameter"] == "event_file"
    event.clock.advance(seconds=1)
    code = event.director.post(f"/v1/devices/{device}/code", headers=SAME).json["code"]
    again = client.post("/v1/devices/pair", json={"code": code}).json["token"]  # paired again: seen afresh
    assert split_of(event, device) is None
    client.get(f"/v1/event?event_file={OTHER}", headers={"Authorization": f"Bearer {again}"})
    assert split_of(event, device)["seen"] == OTHER  # and noted again


def test_a_copy_made_by_cp_served_beside_its_original_is_caught_by_the_device_s_last_verdict(
    event, tmp_path, lexicon_files
):
    """A plain copy keeps the file's identity: the device's last recorded verdict, which the copy
    lacks, is what tells the two apart; each file refuses the device the other one answered."""
    device, judge = event.device()
    copy = tmp_path / "copy.db"
    for suffix in ("", "-wal"):  # the file as it is now, its write-ahead log with it
        shutil.copy(f"{event.path}{suffix}", f"{copy}{suffix}")
    twin = Event(create_app(app_config(lexicon_files, LEXICON_EVENT=str(copy))), copy, Clock())
    twin.login()
    same = served_file(event)
    assert served_file(twin) == same  # what cp gives: one identity, two files
    first = event.challenge(judge, event_file=same, idempotency_key="k-1")
    assert first.json["record"] == 1
    refused = problem(twin.challenge(judge, event_file=same, last_key="k-1"), 409, "event-file-split")
    assert "last recorded verdict is not in this event file" in refused["detail"]
    assert twin.rows() == [] and len(event.rows()) == 1
    split = split_of(twin, device)
    assert (split["seen"], split["served"], split["missing"]) == (same, same, True)
    assert event.challenge(judge, event_file=same, last_key="k-1").json["record"] == 2  # the original holds it


def test_a_restored_file_takes_the_devices_of_the_file_it_was_restored_from(event, tmp_path, lexicon_files):
    _, judge = event.device()
    original = served_file(event)
    backup, restored = tmp_path / "backup.db", tmp_path / "restored.db"
    for command in (
        ["event", "backup", str(event.path), str(backup)],
        ["event", "restore", str(backup), str(restored)],
    ):
        done = subprocess.run([str(LEXICON_SCRIPT), *command], cwd=REPO, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    app = create_app(app_config(lexicon_files, LEXICON_EVENT=str(restored)))
    later = Event(app, restored, Clock())
    state = app.test_client().get("/v1/event", headers={"Authorization": f"Bearer {judge}"}).json
    assert state["restored_from"] == original and state["file"] != original
    assert later.challenge(judge, event_file=original).status_code == 200
    assert later.challenge(judge, event_file=state["file"]).status_code == 200
    problem(event.challenge(judge, event_file=state["file"]), 409, "event-file-split")  # the original, still served


def test_an_older_backup_restored_refuses_a_device_whose_last_verdict_it_lacks(event, tmp_path, lexicon_files):
    """The file it was restored from went on recording after the backup: the device's last verdict,
    which the backup lacks, is refused as a split, as for a `cp` copy, and noted with its key."""
    device, judge = event.device()
    original = served_file(event)
    assert event.challenge(judge, event_file=original, idempotency_key="k-1").json["record"] == 1
    backup, restored = tmp_path / "backup.db", tmp_path / "restored.db"
    lexicon = [str(LEXICON_SCRIPT), "event"]
    done = subprocess.run(
        [*lexicon, "backup", str(event.path), str(backup)], cwd=REPO, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert event.challenge(judge, event_file=original, idempotency_key="k-2", last_key="k-1").json["record"] == 2
    done = subprocess.run([*lexicon, "restore", str(backup), str(restored)], cwd=REPO, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    later = Event(create_app(app_config(lexicon_files, LEXICON_EVENT=str(restored))), restored, Clock())
    later.login()
    mine = served_file(later)
    refused = problem(later.challenge(judge, ["CARRA"], event_file=original, last_key="k-2"), 409, "event-file-split")
    assert "last recorded verdict is not in this event file" in refused["detail"] and original in refused["detail"]
    assert [row.seq for row in later.rows()] == [1]  # record 2 is not given again to another verdict
    split = split_of(later, device)
    assert (split["seen"], split["served"], split["missing"]) == (original, mine, True)
    headers = {"Authorization": f"Bearer {judge}"}
    beat = later.app.test_client().get(f"/v1/event?event_file={original}&last_key=k-2", headers=headers)
    assert beat.status_code == 200 and beat.json["split"] is True  # the page keeps the identity it knew
    # a device whose last verdict the backup holds takes the restored file, as before
    assert later.challenge(judge, event_file=original, last_key="k-1").json["record"] == 2


def test_a_batch_is_witnessed_once_like_a_verdict(event):
    device, judge = event.device()
    mine = served_file(event)
    client, headers = event.app.test_client(), {"Authorization": f"Bearer {judge}"}

    def batch(key, **said):
        body = {"lexicon": "es", "plays": [{"words": ["CARRO"], "idempotency_key": key}], **said}
        return client.post("/v1/challenges", json=body, headers=headers)

    assert batch("b-1", event_file=mine).json["results"][0]["record"] == 1
    problem(batch("b-2", event_file=OTHER, last_key="b-1"), 409, "event-file-split")
    assert split_of(event, device)["seen"] == OTHER
    refused = problem(batch("b-3", event_file=mine, last_key="never"), 409, "event-file-split")
    assert "last recorded verdict is not in this event file" in refused["detail"]
    assert split_of(event, device)["missing"] is True and len(event.rows()) == 1
    assert batch("b-4", event_file=mine, last_key="b-1").json["results"][0]["record"] == 2
    assert problem(batch("b-5", event_file="../x"), 422, "invalid-request")["pointer"] == "/event_file"


def test_a_device_that_says_nothing_of_files_is_recorded_as_before(event):
    _, judge = event.device()
    assert event.challenge(judge).json["record"] == 1


def test_a_device_naming_a_new_missing_key_at_every_heartbeat_is_noted_once_not_at_each(event, caplog):
    """A page's heartbeat is not rate-limited, and a split it names is a write of the event (with
    its fsync, in the write lock every verdict waits for) and a warning in the log. A table device
    sending a new made-up `last_key` with each heartbeat was noted at each: 8,000 heartbeats in 8 s
    took a judge's recorded verdict from 5.6 ms to 731 ms (p95) and wrote 8,000 warnings. What a
    device says changing is noted at most every few seconds a worker; each heartbeat is still
    answered as a split, and a device paired again is noted afresh at once."""
    device, table = event.device("Mesa 7", "table", "7")
    client = event.app.test_client()
    headers = {"Authorization": f"Bearer {table}"}
    caplog.set_level("WARNING", logger="service")
    for number in range(30):
        answer = client.get(f"/v1/event?last_key=made-up-{number}", headers=headers)
        assert answer.status_code == 200 and answer.json["split"] is True
    noted = [r for r in caplog.records if r.getMessage() == "a device was answered by another file of the event"]
    assert 1 <= len(noted) <= 3  # NOTES a worker in NOTES_SECONDS (witness.py), not 30
    assert split_of(event, device)["missing"] is True
