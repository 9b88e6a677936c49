"""One event, one live file: `lexicon event backup` marks its copy, which the service does not
serve until `lexicon event restore` gives it an identity of its own, shown by /readyz."""

from __future__ import annotations

import sqlite3

import pytest

from service import StartError, create_app
from tests.service.conftest import app_config, lexicon_files  # noqa: F401 - the fixture, shared
from tournament import create_event, open_event

from .test_event import entry, run

PASSWORD = "correct-horse-battery"


def ready(files, path) -> dict:
    app = create_app(app_config(files, LEXICON_EVENT=str(path)))
    answer = app.test_client().get("/readyz")
    assert answer.status_code == 200
    return answer.json


@pytest.mark.slow  # apps on the event files
def test_a_backup_is_served_only_once_restored_with_an_identity_of_its_own(tmp_path, lexicon_files):  # noqa: F811
    path, copy = tmp_path / "open.db", tmp_path / "copia.db"
    db = create_event(path, "Open de Lleida 2026", PASSWORD, lexicon="es")
    db.append_many([entry() for _ in range(3)])
    original = db.event().file.identity
    db.close()
    backed = run("event", "backup", path, copy)
    assert backed.exit_code == 0, backed.stderr
    assert f"marked as a copy of file {original}" in backed.stderr
    assert open_event(path, readonly=True).event().file.copy_of is None  # the original is left as it is
    marked = open_event(copy, readonly=True).event().file
    assert (marked.identity, marked.copy_of) == (original, original) and marked.copied
    with pytest.raises(StartError, match=f"is a backup copy of the event's file {original}.*lexicon event restore"):
        create_app(app_config(lexicon_files, LEXICON_EVENT=str(copy)))
    live_path = tmp_path / "open-2.db"
    restored = run("event", "restore", copy, live_path)
    assert restored.exit_code == 0, restored.stderr
    assert open_event(copy, readonly=True).event().file == marked  # the backup stays a backup
    live = open_event(live_path, readonly=True).event().file
    assert live.identity != original and live.restored_from == original and live.copy_of is None
    assert f"file {live.identity}" in restored.stderr and live_path.stat().st_mode & 0o777 == 0o600
    assert run("records", "verify", live_path).exit_code == 0
    first, second = ready(lexicon_files, path), ready(lexicon_files, live_path)
    assert first["event"] == second["event"]  # one event...
    assert (first["event_file"], second["event_file"]) == (original, live.identity)  # ...two files, told apart
    again = run("event", "restore", copy, live_path)
    assert again.exit_code == 2 and "never overwrites" in again.stderr
    refused = run("event", "restore", path, tmp_path / "x.db")
    assert refused.exit_code == 2 and "no backup copy" in refused.stderr and not (tmp_path / "x.db").exists()
    assert open_event(path, readonly=True).event().file.identity == original


def test_an_event_file_of_an_older_schema_backed_up_is_brought_up_to_date_and_marked(tmp_path):
    path, copy = tmp_path / "open.db", tmp_path / "copia.db"
    create_event(path, "Open", PASSWORD).close()
    # as a release before the file's identity left it, and before the offline verdicts' shown round
    # (schema 9), the splits (10), the shown verdict (12) and the pin's language (15)
    conn = sqlite3.connect(path)
    conn.executescript(
        "DROP TABLE file; ALTER TABLE records DROP COLUMN shown_valid; ALTER TABLE records DROP COLUMN shown_round; "
        "ALTER TABLE rounds DROP COLUMN pending; DROP TABLE unshown_seconds; DROP TABLE refused_keys; DROP TABLE refused_offline; "
        "ALTER TABLE rounds DROP COLUMN final; DROP TABLE splits; ALTER TABLE event DROP COLUMN lexicon_language; "
        "PRAGMA user_version = 7;"
    )
    conn.close()
    assert run("event", "backup", path, copy).exit_code == 0
    marked = open_event(copy, readonly=True).event().file
    assert marked.copy_of == marked.identity and len(marked.identity) == 16
