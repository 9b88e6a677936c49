-- An event file of schema 1 (tournament mode before the offline fields of schema 2): 3 rows of row
-- format 1, round 1 closed at row 2. Director password: fixture-password-v1. Frozen: never regenerate.
PRAGMA user_version = 1;
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE event (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        name TEXT NOT NULL,
        lexicon TEXT,
        created TEXT NOT NULL
    ) STRICT;
INSERT INTO event VALUES(1,'Open de Lleida 2025','ca','2025-11-15T08:00:00.000000Z');
CREATE TABLE director (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        password_hash TEXT NOT NULL,
        changed TEXT NOT NULL
    ) STRICT;
INSERT INTO director VALUES(1,'scrypt$32768$8$1$BcK5m8vflf69B3Zi01F53Q==$G4rOHPFEoShduszzHwM3/LaOO8jULxtqXcpuWd1iTpw=','2025-11-15T08:00:00.000000Z');
CREATE TABLE login (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        failures INTEGER NOT NULL,
        locked_until TEXT
    ) STRICT;
INSERT INTO login VALUES(1,0,NULL);
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
INSERT INTO devices VALUES(1,'Juez 1','judge',NULL,'55e706753af2ea585e315eb87dc2e3db1b11a15e6962dfc6edfc4890fbe589b6','2025-11-15T08:01:00.000000Z','2025-11-15T08:02:00.000000Z',NULL);
INSERT INTO devices VALUES(2,'Mesa 12','table','12','b314a669304adc13cd9e7d49dcd5279cc62c3ad0ce3d859e8a31b8f503b44de9','2025-11-15T08:01:30.000000Z','2025-11-15T08:03:00.000000Z',NULL);
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
INSERT INTO rounds VALUES(1,'2025-11-15T09:00:00.000000Z','2025-11-15T10:00:00.000000Z',2,'d917faa12422f2818ce8521a38f3eda0340215bac4253831922770c638349600');
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
INSERT INTO records VALUES(1,'2025-11-15T09:10:00.000000Z',1,1,'Juez 1','judge','7','disc-ca','2.9','5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f','spelling','["COL·LEGI","QUADRE"]','["COL·LEGI","QUADRE"]',1,'0000000000000000000000000000000000000000000000000000000000000000','08b36ccd9495987aa0cbe38560c60cf836c0fe33621ac0bc91fa342d14e4b7b2',1);
INSERT INTO records VALUES(2,'2025-11-15T09:20:00.000000Z',1,2,'Mesa 12','table','12','disc-ca','2.9','5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f','spelling','["CAVALLS"]','["CAVALLS"]',0,'08b36ccd9495987aa0cbe38560c60cf836c0fe33621ac0bc91fa342d14e4b7b2','d917faa12422f2818ce8521a38f3eda0340215bac4253831922770c638349600',1);
INSERT INTO records VALUES(3,'2025-11-15T10:05:00.000000Z',NULL,1,'Juez 1','judge',NULL,'disc-ca','2.9','5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f5f','spelling','["PLAÇA"]','["PLAÇA"]',1,'d917faa12422f2818ce8521a38f3eda0340215bac4253831922770c638349600','142aa94a8dd20dd57cd30d3f0bf255d4355572f0f5c819fec9bb88ca05373ab9',1);
CREATE UNIQUE INDEX rounds_one_open ON rounds ((closed IS NULL)) WHERE closed IS NULL;
CREATE INDEX records_round_table ON records (round, "table");
CREATE INDEX records_device ON records (device_id);
CREATE TRIGGER records_append_only_update BEFORE UPDATE ON records
        BEGIN SELECT RAISE(ABORT, 'the record is append-only'); END;
CREATE TRIGGER records_append_only_delete BEFORE DELETE ON records
        BEGIN SELECT RAISE(ABORT, 'the record is append-only'); END;
COMMIT;
