"""The event file's schema, as numbered migrations applied in order when the file is opened.

`PRAGMA user_version` holds the number of migrations applied. Opening a file runs the missing
ones in one `BEGIN IMMEDIATE` transaction, so several worker processes starting at once
migrate it exactly once; a file newer than this code is refused, never changed. Migrations are
only ever added, never edited: a file written by any earlier release must open.

Tables are STRICT (SQLite 3.37+: a column holds its declared type or the write fails). The
record refuses UPDATE and DELETE by trigger: that stops mistakes; the hash chain shows the rest.
"""

from __future__ import annotations

import sqlite3

MIGRATIONS: tuple[str, ...] = (
    # 1: tournament mode.
    """
    CREATE TABLE event (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        name TEXT NOT NULL,
        lexicon TEXT,
        created TEXT NOT NULL
    ) STRICT;
    CREATE TABLE director (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        password_hash TEXT NOT NULL,
        changed TEXT NOT NULL
    ) STRICT;
    CREATE TABLE login (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        failures INTEGER NOT NULL,
        locked_until TEXT
    ) STRICT;
    CREATE TABLE login_attempts (
        time TEXT NOT NULL,
        ok INTEGER NOT NULL CHECK (ok IN (0, 1))
    ) STRICT;
    CREATE TABLE devices (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('judge', 'table', 'lookup')),
        "table" TEXT,
        token_hash TEXT UNIQUE,
        created TEXT NOT NULL,
        paired TEXT,
        revoked TEXT
    ) STRICT;
    CREATE TABLE pairing_codes (
        code_hash TEXT PRIMARY KEY,
        device_id INTEGER NOT NULL REFERENCES devices (id),
        created TEXT NOT NULL,
        expires TEXT NOT NULL,
        used TEXT
    ) STRICT;
    CREATE TABLE rounds (
        number INTEGER PRIMARY KEY CHECK (number >= 1),
        opened TEXT NOT NULL,
        closed TEXT,
        head_seq INTEGER,
        head_hash TEXT
    ) STRICT;
    CREATE UNIQUE INDEX rounds_one_open ON rounds ((closed IS NULL)) WHERE closed IS NULL;
    CREATE TABLE records (
        seq INTEGER PRIMARY KEY,
        time TEXT NOT NULL,
        round INTEGER,
        device_id INTEGER,
        device_name TEXT,
        role TEXT,
        "table" TEXT,
        lexicon_id TEXT NOT NULL,
        lexicon_version TEXT NOT NULL,
        lexicon_checksum TEXT NOT NULL,
        notation TEXT NOT NULL,
        words TEXT NOT NULL,
        tiles TEXT NOT NULL,
        valid INTEGER NOT NULL,
        prev TEXT NOT NULL,
        hash TEXT NOT NULL,
        format INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX records_round_table ON records (round, "table");
    CREATE INDEX records_device ON records (device_id);
    CREATE TRIGGER records_append_only_update BEFORE UPDATE ON records
        BEGIN SELECT RAISE(ABORT, 'the record is append-only'); END;
    CREATE TRIGGER records_append_only_delete BEFORE DELETE ON records
        BEGIN SELECT RAISE(ABORT, 'the record is append-only'); END;
    """,
    # 2: devices that judge offline and send their verdicts later (row format 2).
    """
    ALTER TABLE records ADD COLUMN idempotency_key TEXT;
    ALTER TABLE records ADD COLUMN offline INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE records ADD COLUMN device_time TEXT;
    CREATE UNIQUE INDEX records_idempotency ON records (idempotency_key) WHERE idempotency_key IS NOT NULL;
    """,
    # 3: tournament mode's HTTP layer: the director's sessions, shared by every worker process.
    """
    CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        created TEXT NOT NULL,
        expires TEXT NOT NULL,
        ended TEXT
    ) STRICT;
    """,
    # 4: the second opinion (LEXICON_SECOND) the players were shown, in an event (row format 3).
    """
    ALTER TABLE records ADD COLUMN second_lexicon_id TEXT;
    ALTER TABLE records ADD COLUMN second_lexicon_version TEXT;
    ALTER TABLE records ADD COLUMN second_lexicon_checksum TEXT;
    ALTER TABLE records ADD COLUMN second_valid INTEGER;
    """,
    # 5: behind proxies: the event's lexicon pinned by checksum, the director's login limited per
    # client address, and one-time login links (`lexicon event login`).
    """
    ALTER TABLE event ADD COLUMN lexicon_id TEXT;
    ALTER TABLE event ADD COLUMN lexicon_version TEXT;
    ALTER TABLE event ADD COLUMN lexicon_checksum TEXT;
    ALTER TABLE event ADD COLUMN lexicon_file TEXT;
    ALTER TABLE event ADD COLUMN lexicon_pinned TEXT;
    ALTER TABLE event ADD COLUMN lexicon_pinned_by TEXT CHECK (lexicon_pinned_by IN ('init', 'start'));
    CREATE TABLE login_clients (
        client TEXT PRIMARY KEY,
        failures INTEGER NOT NULL,
        locked_until TEXT
    ) STRICT;
    CREATE INDEX login_attempts_time ON login_attempts (time);
    CREATE TABLE login_links (
        token_hash TEXT PRIMARY KEY,
        created TEXT NOT NULL,
        expires TEXT NOT NULL,
        used TEXT
    ) STRICT;
    """,
    # 6: a client address's recorded plays in its current minute (budget.py), for callers without a device
    """
    CREATE TABLE play_budget (
        client TEXT PRIMARY KEY,
        started TEXT NOT NULL,
        plays INTEGER NOT NULL
    ) STRICT;
    """,
    # 7: each device's last request of any kind (its page's own asking included), for the console
    """
    CREATE TABLE contacts (
        device_id INTEGER PRIMARY KEY REFERENCES devices (id),
        time TEXT NOT NULL
    ) STRICT;
    """,
    # 8: the file's own identity, and whether it is a backup copy (`lexicon event backup`), which
    # is served only once `lexicon event restore` has made it a live file with a new identity.
    """
    CREATE TABLE file (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        identity TEXT NOT NULL,
        copy_of TEXT,
        copied TEXT,
        restored_from TEXT
    ) STRICT;
    INSERT INTO file (id, identity) VALUES (1, lower(hex(randomblob(8))));
    """,
    # 9: an offline verdict keeps the round its phone showed (row format 4: `shown_round`, 0 for
    # none shown); a closed round's head final only once the judges' phones that may hold its
    # verdicts have synced (`pending`: their ids, JSON) or the director said so (`final`: when).
    """
    ALTER TABLE records ADD COLUMN shown_round INTEGER CHECK (shown_round >= 0);
    ALTER TABLE rounds ADD COLUMN pending TEXT;
    ALTER TABLE rounds ADD COLUMN final TEXT;
    """,
    # 10: a device that was answered by another file of the event (identity.py): what it said it
    # had seen (`seen`: that file's identity; `missing`: its last verdict's key, not in this file),
    # this file's identity, and when; its latest only, for the console.
    """
    CREATE TABLE splits (
        device_id INTEGER PRIMARY KEY REFERENCES devices (id),
        seen TEXT NOT NULL,
        served TEXT NOT NULL,
        missing TEXT,
        time TEXT NOT NULL
    ) STRICT;
    """,
    # 11: a file whose event `lexicon event move` copied elsewhere: when (`moved`), and the copy's
    # identity (`moved_to`); every write of the event's rules refuses then (errors.EventMoved).
    """
    ALTER TABLE file ADD COLUMN moved TEXT;
    ALTER TABLE file ADD COLUMN moved_to TEXT;
    """,
    # 12: an offline verdict keeps the verdict its phone showed (row format 5: `shown_valid`; null
    # on an offline row of an older format, or of a page that did not say: marked, never believed).
    """
    ALTER TABLE records ADD COLUMN shown_valid INTEGER CHECK (shown_valid IN (0, 1));
    """,
    # 13: each device's offline verdicts refused because its phone showed another verdict than the
    # service gives (refused_offline.py): how many, and the latest's key, shown round and times.
    """
    CREATE TABLE refused_offline (
        device_id INTEGER PRIMARY KEY REFERENCES devices (id),
        count INTEGER NOT NULL CHECK (count >= 1),
        key TEXT NOT NULL,
        shown_round INTEGER CHECK (shown_round >= 0),
        device_time TEXT,
        time TEXT NOT NULL
    ) STRICT;
    """,
    # 14: those counted per reason too (refused_offline.py): the phone showed another verdict
    # (`verdict`, every one counted by 13) or judged with another list than the event's (`lexicon`).
    """
    ALTER TABLE refused_offline RENAME TO refused_offline_13;
    CREATE TABLE refused_offline (
        device_id INTEGER NOT NULL REFERENCES devices (id),
        reason TEXT NOT NULL CHECK (reason IN ('verdict', 'lexicon')),
        count INTEGER NOT NULL CHECK (count >= 1),
        key TEXT NOT NULL,
        shown_round INTEGER CHECK (shown_round >= 0),
        device_time TEXT,
        time TEXT NOT NULL,
        PRIMARY KEY (device_id, reason)
    ) STRICT;
    INSERT INTO refused_offline SELECT device_id, 'verdict', count, key, shown_round, device_time, time
        FROM refused_offline_13;
    DROP TABLE refused_offline_13;
    """,
    # 15: the pinned list's language, so that a round of the event closes the lookups of that
    # language on a service that does not know the list (model.Pin.language); a pin kept before it
    # has none (null) until an instance that serves its list starts the event.
    """
    ALTER TABLE event ADD COLUMN lexicon_language TEXT;
    """,
    # 16: every refused offline verdict's key, per device and reason (refused_offline.py), not only
    # the latest one's: an online challenge under any of them is refused whatever order they come
    # in, and a play is counted once however its device's keys alternate. 15's latest keys are all
    # it knew of those before.
    """
    CREATE TABLE refused_keys (
        device_id INTEGER NOT NULL REFERENCES devices (id),
        key TEXT NOT NULL,
        reason TEXT NOT NULL CHECK (reason IN ('verdict', 'lexicon')),
        PRIMARY KEY (device_id, key, reason)
    ) STRICT;
    INSERT INTO refused_keys SELECT device_id, key, reason FROM refused_offline;
    """,
    # 17: the online rows whose second opinion their phone never showed (unshown_second.py): it
    # judged the play itself, the same verdict, and showed it alone; by row number (no reference:
    # the row may be its write's, inserted as the write ends), the phone's time and when the
    # service learned it. A mark beside the row, which cannot change.
    """
    CREATE TABLE unshown_seconds (
        seq INTEGER PRIMARY KEY CHECK (seq >= 1),
        device_time TEXT,
        time TEXT NOT NULL
    ) STRICT;
    """,
)

VERSION = len(MIGRATIONS)


def statements(script: str) -> list[str]:
    """A script's statements, one by one (`executescript` would commit the transaction).

    >>> statements("CREATE TABLE a (x); CREATE TRIGGER t BEFORE DELETE ON a BEGIN SELECT 1; END;")
    ['CREATE TABLE a (x);', 'CREATE TRIGGER t BEFORE DELETE ON a BEGIN SELECT 1; END;']
    """
    done, pending = [], ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                done.append(pending.strip())
            pending = ""
    return done


def migrate(conn: sqlite3.Connection, upto: int = VERSION) -> int:
    """Apply the missing migrations (up to `upto`) inside the caller's transaction; the version reached."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    for number in range(version + 1, upto + 1):
        for statement in statements(MIGRATIONS[number - 1]):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
    return max(version, upto)
