"""A disk that fails a sync of the event's log (tests/tournament/sync_fault.c, loaded with
LD_PRELOAD in a child process that runs the app): the store is failed, so the judge's retry
is refused rather than shown a verdict the disk may not hold, nothing is answered from the record,
and /readyz is a 503 saying why until the service restarts. A challenge is told so (503
`record-failed`, not `record-unavailable`'s "ask again": asking again cannot help), and so is a
device's look at the event."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support import sync_fault
from tournament import create_event

from ..conftest import app_config

PASSWORD = "a long enough password"

CHILD = r"""
import json, sys
from pathlib import Path
from service import create_app
from tournament import Entry, StorageError

app = create_app(json.loads(sys.argv[1]))
db = app.extensions["lexicon_event"].db
client = app.test_client()
play = dict(lexicon_id="es-mini", lexicon_version="1", lexicon_checksum="5f" * 32, notation="spelling",
            words=("CASA",), tiles=("CASA",), valid=True)
answers = {"before": client.get("/readyz").status_code}
db.append(Entry(**play, idempotency_key="first"))
Path(sys.argv[2]).touch()  # the disk fails every sync of the log from now on
for attempt in ("failed", "retried"):
    try:
        db.append(Entry(**play, idempotency_key="second"))
        answers[attempt] = "recorded"
    except StorageError as error:
        answers[attempt] = str(error)
    Path(sys.argv[2]).unlink(missing_ok=True)  # and syncs again: the retry is refused all the same
ready = client.get("/readyz")
answers["ready"] = [ready.status_code, ready.content_type, ready.json.get("detail")]
hall = client.get("/readyz", environ_base={"REMOTE_ADDR": "192.168.1.66"})  # a phone on the hall's Wi-Fi
answers["hall"] = [hall.status_code, hall.json.get("detail")]
asked = client.post("/v1/challenge", json={"lexicon": "es", "words": ["CASA"], "idempotency_key": "third"})
answers["challenge"] = [asked.status_code, asked.json]
looked = client.get("/v1/event", headers={"Authorization": "Bearer " + sys.argv[3]})
answers["event"] = [looked.status_code, looked.json]
print(json.dumps(answers), flush=True)
"""


def test_a_failed_sync_makes_readyz_say_why_and_refuses_the_retry(tmp_path, lexicon_files):
    library = sync_fault(tmp_path)
    path = tmp_path / "event.db"
    db = create_event(path, "Open", PASSWORD)
    _, code = db.add_device("Mesa 1", "table", "1")
    _, token = db.pair(code)
    db.close()
    config = {**app_config(lexicon_files, LEXICON_EVENT=str(path)), "LEXICON_LOG_LEVEL": "warning"}
    config["LEXICON_FILES"] = [str(name) for name in config["LEXICON_FILES"]]
    env = {**os.environ, "LD_PRELOAD": str(library), "SYNC_FAULT_FAIL": str(tmp_path / "fail")}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(config), str(tmp_path / "fail"), token],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    answers = json.loads(out.splitlines()[-1])
    assert answers["before"] == 200
    assert "could not be written to disk" in answers["failed"] and "restarted" in answers["failed"]
    assert answers["retried"] == answers["failed"]  # refused, though the disk syncs again
    status, kind, detail = answers["ready"]
    assert status == 503 and kind == "application/problem+json"
    assert "could not be written to disk" in detail and str(path) in detail and "restart" in detail
    status, detail = answers["hall"]  # what failed, not where on the laptop
    assert status == 503 and "record failed" in detail and "restart" in detail and str(tmp_path) not in detail
    for status, body in (answers["challenge"], answers["event"]):
        assert status == 503 and body["type"].endswith("/record-failed") and "valid" not in body, body
        assert "asking again cannot help" in body["detail"] and "restarts the service" in body["detail"]
