"""The PostgreSQL store's schema: numbered migrations, applied in order, as the event file's are.

One database holds any number of events: one row per event in `events`, and `event_id` in every
other table's key. `schema_version` holds the number of migrations applied; opening a database runs
the missing ones in one transaction under an advisory lock (MIGRATION_LOCK), so several instances
starting at once migrate it exactly once, and a database newer than this code is refused, never
changed. Migrations are only ever added, never edited.

Values are stored as the domain gives them, as SQLite stores them: stamps as text (they order as
text), `words` and `tiles` as their canonical JSON text (not jsonb, which would rewrite it), flags as
0 or 1, so a row read back is the row written and its hash is byte-identical in both stores.

What the database itself enforces (docs/tournament.md, "The PostgreSQL store"):

- the tables belong to the role that ran the migrations (the owner, `lexicon event init`); the
  service's role is a member of WRITER, to which the migrations grant only what the service does:
  on `records` SELECT and INSERT, never UPDATE, DELETE or TRUNCATE; no DELETE of an event, a
  device or a round;
- a trigger refuses UPDATE, DELETE and TRUNCATE of `records` whoever asks, the owner included
  (who must drop it first, which `chain_state` sees: `guarded` false);
- at most one open round per event (a unique partial index), one device per token, one row per
  idempotency key in an event.
"""

from __future__ import annotations

WRITER = "lexicon_writer"  # the role the grants name; the service's login role is made a member of it
MIGRATION_LOCK = 7_011_985_214  # pg_advisory_xact_lock key of migrations (any constant of this program's)
# pg_advisory_xact_lock key of a copy made into the database (a restore or a move: transfer.py), held
# from its checks for a live copy of the same event beside it to its commit: two copies of one event
# made at once under two ids would otherwise each pass them before the other committed.
COPY_LOCK = 7_011_985_215

MIGRATIONS: tuple[str, ...] = (
    # 1: a federation's events, as the event file's schema 10 holds one.
    f"""
    CREATE TABLE events (
        id TEXT PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9-]{{0,62}}$'),
        name TEXT NOT NULL,
        lexicon TEXT,
        created TEXT NOT NULL,
        lexicon_id TEXT,
        lexicon_version TEXT,
        lexicon_checksum TEXT,
        lexicon_file TEXT,
        lexicon_pinned TEXT,
        lexicon_pinned_by TEXT CHECK (lexicon_pinned_by IN ('init', 'start')),
        identity TEXT NOT NULL,
        copy_of TEXT,
        copied TEXT,
        restored_from TEXT
    );
    CREATE TABLE directors (
        event_id TEXT PRIMARY KEY REFERENCES events (id),
        password_hash TEXT NOT NULL,
        changed TEXT NOT NULL
    );
    CREATE TABLE login_attempts (
        id BIGSERIAL PRIMARY KEY,
        event_id TEXT NOT NULL REFERENCES events (id),
        time TEXT NOT NULL,
        ok SMALLINT NOT NULL CHECK (ok IN (0, 1))
    );
    CREATE INDEX login_attempts_time ON login_attempts (event_id, time);
    CREATE TABLE login_clients (
        event_id TEXT NOT NULL REFERENCES events (id),
        client TEXT NOT NULL,
        failures INTEGER NOT NULL,
        locked_until TEXT,
        PRIMARY KEY (event_id, client)
    );
    CREATE TABLE login_links (
        event_id TEXT NOT NULL REFERENCES events (id),
        token_hash TEXT NOT NULL,
        created TEXT NOT NULL,
        expires TEXT NOT NULL,
        used TEXT,
        PRIMARY KEY (event_id, token_hash)
    );
    CREATE TABLE sessions (
        event_id TEXT NOT NULL REFERENCES events (id),
        token_hash TEXT NOT NULL,
        created TEXT NOT NULL,
        expires TEXT NOT NULL,
        ended TEXT,
        PRIMARY KEY (event_id, token_hash)
    );
    CREATE TABLE devices (
        event_id TEXT NOT NULL REFERENCES events (id),
        id BIGINT NOT NULL CHECK (id >= 1),
        name TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('judge', 'table', 'lookup')),
        "table" TEXT,
        token_hash TEXT,
        created TEXT NOT NULL,
        paired TEXT,
        revoked TEXT,
        PRIMARY KEY (event_id, id),
        UNIQUE (event_id, token_hash)
    );
    CREATE TABLE pairing_codes (
        event_id TEXT NOT NULL,
        code_hash TEXT NOT NULL,
        device_id BIGINT NOT NULL,
        created TEXT NOT NULL,
        expires TEXT NOT NULL,
        used TEXT,
        PRIMARY KEY (event_id, code_hash),
        FOREIGN KEY (event_id, device_id) REFERENCES devices (event_id, id)
    );
    CREATE TABLE contacts (
        event_id TEXT NOT NULL,
        device_id BIGINT NOT NULL,
        time TEXT NOT NULL,
        PRIMARY KEY (event_id, device_id),
        FOREIGN KEY (event_id, device_id) REFERENCES devices (event_id, id)
    );
    CREATE TABLE splits (
        event_id TEXT NOT NULL,
        device_id BIGINT NOT NULL,
        seen TEXT NOT NULL,
        served TEXT NOT NULL,
        missing TEXT,
        time TEXT NOT NULL,
        PRIMARY KEY (event_id, device_id),
        FOREIGN KEY (event_id, device_id) REFERENCES devices (event_id, id)
    );
    CREATE TABLE rounds (
        event_id TEXT NOT NULL REFERENCES events (id),
        number BIGINT NOT NULL CHECK (number >= 1),
        opened TEXT NOT NULL,
        closed TEXT,
        head_seq BIGINT,
        head_hash TEXT,
        pending TEXT,
        final TEXT,
        PRIMARY KEY (event_id, number)
    );
    CREATE UNIQUE INDEX rounds_one_open ON rounds (event_id) WHERE closed IS NULL;
    CREATE TABLE records (
        event_id TEXT NOT NULL REFERENCES events (id),
        seq BIGINT NOT NULL CHECK (seq >= 1),
        time TEXT NOT NULL,
        round BIGINT,
        device_id BIGINT,
        device_name TEXT,
        role TEXT,
        "table" TEXT,
        lexicon_id TEXT NOT NULL,
        lexicon_version TEXT NOT NULL,
        lexicon_checksum TEXT NOT NULL,
        notation TEXT NOT NULL,
        words TEXT NOT NULL,
        tiles TEXT NOT NULL,
        valid SMALLINT NOT NULL,
        prev TEXT NOT NULL,
        hash TEXT NOT NULL,
        format INTEGER NOT NULL,
        idempotency_key TEXT,
        offline SMALLINT NOT NULL DEFAULT 0,
        device_time TEXT,
        second_lexicon_id TEXT,
        second_lexicon_version TEXT,
        second_lexicon_checksum TEXT,
        second_valid SMALLINT,
        shown_round BIGINT CHECK (shown_round >= 0),
        PRIMARY KEY (event_id, seq)
    );
    CREATE INDEX records_round_table ON records (event_id, round, "table");
    CREATE INDEX records_device ON records (event_id, device_id, seq);
    CREATE UNIQUE INDEX records_idempotency ON records (event_id, idempotency_key)
        WHERE idempotency_key IS NOT NULL;
    CREATE TABLE play_budget (
        event_id TEXT NOT NULL REFERENCES events (id),
        client TEXT NOT NULL,
        started TEXT NOT NULL,
        plays INTEGER NOT NULL,
        PRIMARY KEY (event_id, client)
    );
    CREATE FUNCTION records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'the record is append-only' USING ERRCODE = 'restrict_violation';
        END
    $$;
    CREATE TRIGGER records_append_only BEFORE UPDATE OR DELETE ON records
        FOR EACH ROW EXECUTE FUNCTION records_append_only();
    CREATE TRIGGER records_append_only_truncate BEFORE TRUNCATE ON records
        FOR EACH STATEMENT EXECUTE FUNCTION records_append_only();
    REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC;
    GRANT SELECT ON schema_version TO {WRITER};
    GRANT SELECT, INSERT, UPDATE ON events, directors, devices, rounds TO {WRITER};
    GRANT SELECT, INSERT ON records TO {WRITER};
    GRANT SELECT, INSERT, UPDATE, DELETE
        ON login_attempts, login_clients, login_links, sessions, pairing_codes, contacts, splits, play_budget
        TO {WRITER};
    GRANT USAGE ON SEQUENCE login_attempts_id_seq TO {WRITER};
    """,
    # 2: an event that `lexicon event move` copied elsewhere (as the event file's schema 11): when
    # (`moved`), and the copy's identity (`moved_to`); every write of the event's rules refuses then.
    """
    ALTER TABLE events ADD COLUMN moved TEXT, ADD COLUMN moved_to TEXT;
    """,
    # 3: an offline verdict keeps the verdict its phone showed (as the event file's schema 12: row
    # format 5, `shown_valid`; null on an offline row of an older format, or of a page that did not say).
    """
    ALTER TABLE records ADD COLUMN shown_valid SMALLINT CHECK (shown_valid IN (0, 1));
    """,
    # 4: each device's offline verdicts refused because its phone showed another verdict than the
    # service gives (as the event file's schema 13).
    f"""
    CREATE TABLE refused_offline (
        event_id TEXT NOT NULL,
        device_id BIGINT NOT NULL,
        count INTEGER NOT NULL CHECK (count >= 1),
        key TEXT NOT NULL,
        shown_round BIGINT CHECK (shown_round >= 0),
        device_time TEXT,
        time TEXT NOT NULL,
        PRIMARY KEY (event_id, device_id),
        FOREIGN KEY (event_id, device_id) REFERENCES devices (event_id, id)
    );
    REVOKE ALL ON refused_offline FROM PUBLIC;
    GRANT SELECT, INSERT, UPDATE ON refused_offline TO {WRITER};
    """,
    # 5: those counted per reason too (as the event file's schema 14): the phone showed another
    # verdict (`verdict`, every one counted by 4) or judged with another list than the event's (`lexicon`).
    """
    ALTER TABLE refused_offline ADD COLUMN reason TEXT NOT NULL DEFAULT 'verdict'
        CHECK (reason IN ('verdict', 'lexicon'));
    ALTER TABLE refused_offline ALTER COLUMN reason DROP DEFAULT;
    ALTER TABLE refused_offline DROP CONSTRAINT refused_offline_pkey;
    ALTER TABLE refused_offline ADD PRIMARY KEY (event_id, device_id, reason);
    """,
    # 6: the pinned list's language (as the event file's schema 15): a round of the event closes the
    # lookups of that language on a service that does not know the list; null on a pin kept before.
    """
    ALTER TABLE events ADD COLUMN lexicon_language TEXT;
    """,
    # 7: every refused offline verdict's key, per device and reason (as the event file's schema
    # 16), not only the latest one's; 6's latest keys are all it knew of those before.
    f"""
    CREATE TABLE refused_keys (
        event_id TEXT NOT NULL,
        device_id BIGINT NOT NULL,
        key TEXT NOT NULL,
        reason TEXT NOT NULL CHECK (reason IN ('verdict', 'lexicon')),
        PRIMARY KEY (event_id, device_id, key, reason),
        FOREIGN KEY (event_id, device_id) REFERENCES devices (event_id, id)
    );
    INSERT INTO refused_keys SELECT event_id, device_id, key, reason FROM refused_offline;
    REVOKE ALL ON refused_keys FROM PUBLIC;
    GRANT SELECT, INSERT ON refused_keys TO {WRITER};
    """,
    # 8: the online rows whose second opinion their phone never showed (as the event file's schema 17).
    f"""
    CREATE TABLE unshown_seconds (
        event_id TEXT NOT NULL,
        seq BIGINT NOT NULL CHECK (seq >= 1),
        device_time TEXT,
        time TEXT NOT NULL,
        PRIMARY KEY (event_id, seq)
    );
    REVOKE ALL ON unshown_seconds FROM PUBLIC;
    GRANT SELECT, INSERT ON unshown_seconds TO {WRITER};
    """,
)

VERSION = len(MIGRATIONS)

# The triggers that keep the record append-only, as this schema makes them (chain_state's `guarded`).
GUARDS = ("records_append_only", "records_append_only_truncate")
