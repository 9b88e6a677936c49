"""The record's chain: every append verifies, and any edit or deletion is named at its row."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import shutil
import sqlite3
import subprocess
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tournament import (
    Break,
    Entry,
    IdempotencyConflict,
    Record,
    create_event,
    export,
    open_event,
    read_export,
    verify,
    verify_chain,
)
from tournament.chain import (
    FIELDS,
    GENESIS,
    canonical_bytes,
    canonical_text,
    canonical_words,
    fields_of,
    row_hash,
    seal,
)
from tournament.entry import engine_tiles
from tournament.model import MAX_NUMBER, RecordFilter
from tournament.rows import Undecodable, row_of

from .conftest import PASSWORD, Clock, entry

UNDO_TRIGGERS = "DROP TRIGGER records_append_only_update; DROP TRIGGER records_append_only_delete;"


def sqlite_cli(path: Path, sql: str) -> None:
    subprocess.run(["sqlite3", str(path), sql], check=True, capture_output=True)


def test_canonical_bytes_are_sorted_compact_utf8_json_of_the_row_fields():
    record = Record(
        7,
        "2026-11-22T09:00:00.000000Z",
        3,
        entry(
            words=("PLAÇA",),
            tiles=("PLAÇA",),
            valid=False,
            device_id=2,
            device_name="Mesa 12",
            role="table",
            table="12",
        ),
        "ab" * 32,
        "",
        2,
    )
    expected = (
        '{"device_id":2,"device_name":"Mesa 12","device_time":null,"format":2,"idempotency_key":null,'
        '"lexicon_checksum":"' + "5f" * 32 + '","lexicon_id":"disc-ca","lexicon_version":"2.9",'
        '"notation":"spelling","offline":false,"prev":"' + "ab" * 32 + '","role":"table","round":3,'
        '"seq":7,"table":"12","tiles":["PLAÇA"],"time":"2026-11-22T09:00:00.000000Z","valid":false,'
        '"words":["PLAÇA"]}'
    ).encode("utf-8")
    assert canonical_bytes(fields_of(record)) == expected
    assert row_hash(record) == hashlib.sha256(expected).hexdigest()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=12,
)


@given(_JSON)
def test_canonical_bytes_are_json_dumps_with_the_format_s_arguments(value):
    """One encoder kept for every row writes what json.dumps with the same arguments writes."""
    dumped = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    assert canonical_bytes(value) == dumped.encode("utf-8")


def test_the_record_refuses_update_and_delete_by_mistake(db, event_path):
    db.append(entry())
    for sql in ("UPDATE records SET valid = 0", "DELETE FROM records"):
        with pytest.raises(subprocess.CalledProcessError) as refused:
            sqlite_cli(event_path, sql)
        assert b"append-only" in refused.value.stderr
    assert verify(db) is None


def test_editing_one_row_with_the_sqlite3_cli_names_that_row(db, event_path):
    db.append_many([entry() for _ in range(5)])
    sqlite_cli(event_path, UNDO_TRIGGERS + "UPDATE records SET valid = 0 WHERE seq = 3;")
    assert verify(db) == Break(3, "its contents do not match its hash (it was changed)")


def test_a_byte_edited_into_invalid_utf8_is_named_not_a_crash(db, event_path):
    db.append_many([entry(), entry()])
    with sqlite3.connect(event_path) as conn:
        conn.executescript(UNDO_TRIGGERS)
        conn.execute(
            "UPDATE records SET words = CAST(? AS TEXT) WHERE seq = 2",
            ('["COL·LEGI","QUADRE"]'.encode().replace(b"\xb7", b"\xff"),),
        )
    found = verify(db)
    assert found.seq == 2 and "words is not UTF-8 text" in found.reason


DEEP = "[" * 100_000 + "]" * 100_000  # nested past the JSON parser's recursion limit


@pytest.mark.parametrize("column", ["words", "tiles"])
def test_an_array_nested_past_the_parser_s_limit_is_named_not_a_crash(db, event_path, column):
    db.append_many([entry(), entry(), entry()])
    with sqlite3.connect(event_path) as conn:
        conn.executescript(UNDO_TRIGGERS)
        conn.execute(f"UPDATE records SET {column} = ? WHERE seq = 2", (DEEP,))
    found = verify(db)
    assert found.seq == 2 and f"{column} is not a list of words" in found.reason
    assert "(200,000 characters)" in found.reason and len(found.reason) < 300  # quoted, cut
    assert [r.seq for r in db.records(RecordFilter(after=2))] == [3]  # the rows after it still read


def test_an_edit_with_its_hash_recomputed_is_named_at_the_next_row(db, event_path):
    rows = db.append_many([entry() for _ in range(4)])
    forged = Record(2, rows[1].time, rows[1].round, entry(valid=False), rows[1].prev, "", 2)
    with sqlite3.connect(event_path) as conn:
        conn.executescript(UNDO_TRIGGERS)
        conn.execute("UPDATE records SET valid = 0, hash = ? WHERE seq = 2", (row_hash(forged),))
    found = verify(db)
    assert found.seq == 3 and "does not chain to record 2" in found.reason


def test_deleting_a_row_names_the_row_after_the_gap(db, event_path):
    db.append_many([entry() for _ in range(5)])
    sqlite_cli(event_path, UNDO_TRIGGERS + "DELETE FROM records WHERE seq = 2;")
    assert verify(db) == Break.of("deleted", 3, "record 2 before it is missing (deleted)", first=2, last=2)


def test_deleting_the_last_rows_of_a_closed_round_is_shown_by_its_head(db, event_path):
    db.open_round(1)
    db.append_many([entry() for _ in range(4)])
    assert db.close_round().head_seq == 4
    sqlite_cli(event_path, UNDO_TRIGGERS + "DELETE FROM records WHERE seq >= 3;")
    found = verify(db)
    assert found.seq == 3 and "round 1 closed at record 4" in found.reason


def test_rewriting_a_closed_rounds_last_row_with_its_hash_is_shown_by_the_head(db, event_path):
    db.open_round(1)
    row = db.append(entry())
    db.close_round()
    forged = Record(1, row.time, row.round, entry(valid=False), row.prev, "", 2)
    with sqlite3.connect(event_path) as conn:
        conn.executescript(UNDO_TRIGGERS)
        conn.execute("UPDATE records SET valid = 0, hash = ? WHERE seq = 1", (row_hash(forged),))
    found = verify(db)
    assert found.seq == 1 and "round 1 closed at this record" in found.reason


def test_renumbering_a_row_is_named():
    rows = _sealed(3)
    moved = Record(9, rows[2].time, rows[2].round, rows[2].entry, rows[2].prev, rows[2].hash, 2)
    assert verify_chain([rows[0], rows[1], moved]) == Break.of(
        "deleted", 9, "records 3 to 8 before it is missing (deleted)", first=3, last=8
    )


def test_a_row_of_a_round_after_its_final_head_is_a_break_from_the_very_next_row():
    """Rows 1 to 3 in round 1: with its head final at row 2, row 3 (the next one) is the break;
    at row 3, none is; a row outside rounds after the head is none either."""
    rows, prev = [], GENESIS
    for seq, number in ((1, 1), (2, 1), (3, 1), (4, None)):
        rows.append(seal(seq, "2026-11-22T09:00:00.000000Z", number, entry(), prev, 3))
        prev = rows[-1].hash
    broken = verify_chain(rows, finals={1: 2})
    assert (broken.kind, broken.seq, dict(broken.facts)) == ("after-final", 3, {"round": 1, "head": 2})
    assert verify_chain(rows, finals={1: 3}) is None


def _sealed(n: int) -> list[Record]:
    from tournament.chain import seal

    rows, prev = [], GENESIS
    for seq in range(1, n + 1):
        rows.append(seal(seq, "2026-11-22T09:00:00.000000Z", None, entry(), prev, 2))
        prev = rows[-1].hash
    return rows


# -- properties ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """One event file made once: scrypt is slow on purpose, and examples are many."""
    path = tmp_path_factory.mktemp("template") / "event.db"
    create_event(path, "Plantilla", PASSWORD).close()
    return path


def fresh_event(template: Path, clock: Clock):
    """A copy of the template in a folder of its own."""
    path = Path(tempfile.mkdtemp(prefix="event-")) / "event.db"
    shutil.copy(template, path)
    return path, open_event(path, clock=clock, synchronous="NORMAL")  # the chain, not durability


text = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1, max_size=12)
free_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)  # controls too
maybe = lambda strategy: st.none() | strategy
stamps = st.datetimes(datetime(2000, 1, 1), datetime(2100, 1, 1), timezones=st.just(UTC)).map(
    lambda moment: moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
)


second_opinions = st.none() | st.fixed_dictionaries(
    {  # shown with the verdict (row format 3), or not
        "second_lexicon_id": free_text,
        "second_lexicon_version": free_text,
        "second_lexicon_checksum": free_text,
        "second_valid": st.booleans(),
    }
)


@st.composite
def entries(draw) -> Entry:
    words = draw(st.lists(text, min_size=1, max_size=8))
    return Entry(
        lexicon_id=draw(free_text),
        lexicon_version=draw(free_text),
        lexicon_checksum=draw(free_text),
        notation=draw(st.sampled_from(["spelling", "tiles"])),
        words=words,
        tiles=draw(st.lists(text, min_size=len(words), max_size=len(words))),
        valid=draw(st.booleans()),
        device_id=draw(maybe(st.integers(1, 10**6))),
        device_name=draw(maybe(free_text)),
        role=draw(maybe(st.sampled_from(["judge", "table", "lookup"]))),
        table=draw(maybe(free_text)),
        idempotency_key=draw(maybe(st.uuids().map(str) | free_text)),
        offline=draw(st.booleans()),
        device_time=draw(maybe(stamps)),
        **(draw(second_opinions) or {}),
    )


def distinct_keys(item: Entry) -> object:
    return item.idempotency_key if item.idempotency_key is not None else id(item)


def reference_hash(seq: int, time, round_number, entry: Entry, prev, format: int) -> str:
    """A row's hash as the chain has always written it (json.dumps of the fields FIELDS names for
    its format, and the format): what every row sealed before the faster seal was hashed with."""
    every = {"seq": seq, "time": time, "round": round_number, "prev": prev, "format": format}
    every |= {name: getattr(entry, name) for name in entry.__dataclass_fields__}
    every["words"], every["tiles"] = list(entry.words), list(entry.tiles)
    fields = {name: every[name] for name in (*FIELDS[format], "format")}
    dumped = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(dumped.encode("utf-8")).hexdigest()


def pinned_rows() -> list[tuple[Entry, str]]:
    """A row of each format, Catalan and Spanish tiles among them, and the hash each had when the
    chain was first sealed with json.dumps (computed then): the bytes never change."""
    return [
        (
            Entry(
                lexicon_id="disc-ca",
                lexicon_version="2.9",
                lexicon_checksum="5f" * 32,
                notation="spelling",
                words=("Col·legi", "PLAÇA", "paella"),
                tiles=engine_tiles("ca", ["Col·legi", "PLAÇA", "paella"]),
                valid=True,
                device_id=3,
                device_name="Mesa «7»",
                role="table",
                table="7",
                idempotency_key="k-ç-1",
            ),
            "a50b1849df593ac8012286a2772654143911eabad3a65c8ef9f8e492423c8ad3",
        ),
        (
            Entry(
                lexicon_id="fise-2",
                lexicon_version="2024",
                lexicon_checksum="ab" * 32,
                notation="spelling",
                words=("carro", "Chico", "ÑANDÚ"),
                tiles=engine_tiles("es", ["carro", "Chico", "ÑANDÚ"]),
                valid=False,
                device_id=1,
                device_name='Juez "1" \\ Ñ',
                role="judge",
                idempotency_key="q\u2028x",
                second_lexicon_id="disc-ca",
                second_lexicon_version="2.9",
                second_lexicon_checksum="5f" * 32,
                second_valid=True,
            ),
            "2febb4b0d2cd5fc0d2fd25a2ea5edbd2b5ae9a6794617d79e1e2dd7e2aa5ac46",
        ),
        (
            Entry(
                lexicon_id="fise-2",
                lexicon_version="2024",
                lexicon_checksum="ab" * 32,
                notation="tiles",
                words=("CA[RR]O",),
                tiles=("CA[RR]O",),
                valid=True,
                device_id=9,
                device_name="Juez\t2 \U0001f600",
                role="judge",
                table="Mesa 3",
                idempotency_key="off-1",
                offline=True,
                device_time="2026-11-22T10:31:07.120034Z",
                shown_round=0,
            ),
            "c690034a0a470be45b8b5f5770bf94cd6a0b51dda54df4b98fb82e76b1b3b8c7",
        ),
        (  # format 5: the verdict the phone showed (its round not said: null in the hash)
            Entry(
                lexicon_id="disc-ca",
                lexicon_version="2.9",
                lexicon_checksum="5f" * 32,
                notation="spelling",
                words=("nyap", "quadre"),
                tiles=engine_tiles("ca", ["nyap", "quadre"]),
                valid=False,
                device_id=4,
                device_name="Jutge 4",
                role="judge",
                idempotency_key="off-2",
                offline=True,
                device_time="2026-11-22T10:31:07.000001Z",
                shown_valid=False,
            ),
            "2603386570b62a2c6257b08efeeb163020d7972583475ac9e61f557764158df1",
        ),
    ]


def test_a_row_of_each_format_is_sealed_with_the_hash_it_always_had():
    assert engine_tiles("es", ["carro", "Chico"]) == ("CA[RR]O", "[CH]ICO")  # the tiles are the engine's
    for format, (item, expected) in enumerate(pinned_rows(), 2):
        assert item.format == format
        round_number = None if format == 4 else 3
        record = seal(12, "2026-11-22T10:31:08.000001Z", round_number, item, "c0" * 32, format)
        assert record.hash == expected == row_hash(record)
        assert reference_hash(12, "2026-11-22T10:31:08.000001Z", round_number, item, "c0" * 32, format) == expected


letters = {
    "ca": "ABCÇDEFGHIJLMNOPQRSTUVXYZÀÈÉÍÏÒÓÚÜ·abcçlmnoàéíïòóúü",
    "es": "ABCDEFGHIJLMNÑOPQRSTUVXYZÁÉÍÓÚÜabchlnñrsáéíóúü",
}


@st.composite
def sealed_entries(draw) -> Entry:
    """An entry of any format: with words of a Catalan or Spanish board and their engine tiles
    (COL·LEGI, CA[RR]O, [CH]ICO, ÑANDU), or any text; given offline with the verdict its phone
    showed (format 5), with the round it showed (format 4), with a second opinion (format 3), or
    none of them (format 2)."""
    item = draw(entries())
    language = draw(st.sampled_from(["ca", "es", None]))
    if language is not None:
        words = draw(
            st.lists(st.text(st.sampled_from(letters[language]), min_size=2, max_size=9), min_size=1, max_size=8)
        )
        try:
            tiles = engine_tiles(language, words)
        except ValueError:
            assume(False)
        item = dataclasses.replace(item, words=tuple(words), tiles=tiles)
    if draw(st.booleans()) and item.offline and item.device_time is not None:
        item = dataclasses.replace(item, shown_round=draw(st.integers(0, MAX_NUMBER)))
    if draw(st.booleans()) and item.offline:
        item = dataclasses.replace(item, shown_valid=item.valid)
    return item


@given(
    sealed_entries(),
    st.integers(1, MAX_NUMBER),
    stamps,
    st.none() | st.integers(1, MAX_NUMBER),
    st.sampled_from([GENESIS, "c0" * 32]) | free_text,
)
def test_a_row_s_hash_is_the_one_json_dumps_of_its_fields_gives(item, seq, time, round_number, prev):
    """The seal and the verification hash a row with msgspec's encoder (chain._FAST), which writes the
    bytes json.dumps writes for every value a row holds: the same hash as every row sealed before,
    in every format, and its words and tiles stored as the same text."""
    record = seal(seq, time, round_number, item, prev, item.format)
    assert record.hash == reference_hash(seq, time, round_number, item, prev, item.format) == row_hash(record)
    stored = row_of(record)
    for words, column in ((item.words, stored[11]), (item.tiles, stored[12])):
        assert column == json.dumps(list(words), separators=(",", ":"), ensure_ascii=False)


def test_words_are_written_as_json_dumps_writes_them_for_every_code_point():
    """canonical_words (a row's words and tiles columns, and reading them back) over every code
    point: a lone surrogate, which msgspec refuses, and a str subclass too, as canonical_text writes it."""
    for start in range(0, 0x110000, 0x800):
        words = [chr(point) for point in range(start, start + 0x800)]
        assert canonical_words(words) == canonical_text(words)
        assert canonical_words(words) == json.dumps(words, separators=(",", ":"), ensure_ascii=False)
    assert canonical_words((Undecodable("a\ufffd"), "b")) == '["a\ufffd","b"]'


def test_a_row_whose_own_values_are_not_the_record_s_types_is_hashed_as_json_dumps_hashes_it():
    """A Record read from an export may hold a float where the record writes an integer (`round`:
    1e16), which msgspec and json.dumps write differently: hashed as json.dumps writes it."""
    item = pinned_rows()[0][0]
    record = Record(12, "2026-11-22T10:31:08.000001Z", 1e16, item, "c0" * 32, "", 2)
    assert row_hash(record) == reference_hash(12, "2026-11-22T10:31:08.000001Z", 1e16, item, "c0" * 32, 2)


plays_of_distinct_keys = st.lists(entries(), min_size=1, max_size=6, unique_by=distinct_keys)
steps = st.lists(
    st.one_of(st.lists(entries(), min_size=1, max_size=3), st.sampled_from(["open", "close"])), min_size=1, max_size=12
)


def play(db, script) -> list[Entry]:
    """Run the script; the entries that must be rows. A key seen before is not written again, and
    a key seen before with other contents refuses its whole batch."""
    recorded, keys = [], {}
    for step in script:
        if step == "open" and db.current_round() is None:
            db.open_round()
        elif step == "close" and db.current_round() is not None:
            db.close_round()
        elif isinstance(step, list):
            new, seen, conflict = [], dict(keys), False
            for item in step:
                key = item.idempotency_key
                if key is None:
                    new.append(item)
                elif key in seen:
                    conflict |= seen[key] != item
                else:
                    seen[key] = item
                    new.append(item)
            if conflict:
                with pytest.raises(IdempotencyConflict):
                    db.append_many(step)
            else:
                db.append_many(step)
                recorded.extend(new)
                keys = seen
    return recorded


@given(steps)
@pytest.mark.slow
def test_any_sequence_of_appends_verifies_and_reads_back(template, script):
    path, db = fresh_event(template, Clock())
    try:
        recorded = play(db, script)
        rows = list(db.records())
        assert [row.entry for row in rows] == recorded
        assert [row.seq for row in rows] == list(range(1, len(recorded) + 1))
        assert verify(db) is None
    finally:
        db.close()
        shutil.rmtree(path.parent)


COLUMNS = {  # column: how its stored value may be changed
    "time": "text",
    "round": "int?",
    "device_id": "int?",
    "device_name": "text?",
    "role": "text?",
    "table": "text?",
    "lexicon_id": "text",
    "lexicon_version": "text",
    "lexicon_checksum": "text",
    "notation": "text",
    "words": "text",
    "tiles": "text",
    "valid": "int",
    "prev": "text",
    "hash": "text",
    "format": "int",
    "idempotency_key": "text?",
    "offline": "int",
    "device_time": "text?",
    "second_lexicon_id": "text?",
    "second_lexicon_version": "text?",
    "second_lexicon_checksum": "text?",
    "second_valid": "int?",
}


@st.composite
def changes(draw, old: object, kind: str) -> object:
    """A different stored value: one byte of a text's UTF-8 changed (valid UTF-8 or not), another
    number, or null <-> a value."""
    if old is None:
        return draw(text).encode("utf-8") if kind.startswith("text") else draw(st.integers(-5, 10))
    if kind.endswith("?") and draw(st.booleans()):
        return None
    if isinstance(old, int):
        return old + draw(st.integers(-3, 3).filter(bool))
    data = bytearray(old.encode("utf-8"))
    at = draw(st.integers(0, len(data) - 1))
    data[at] = draw(st.integers(0, 255).filter(lambda b: b != data[at]))
    return bytes(data)


@given(plays_of_distinct_keys, st.data())
@pytest.mark.slow
def test_any_single_byte_change_of_a_stored_field_breaks_verification_at_that_row(template, plays, data):
    path, db = fresh_event(template, Clock())
    try:
        db.append_many(plays)
        seq = data.draw(st.integers(1, len(plays)), label="row")
        column = data.draw(st.sampled_from(sorted(COLUMNS)), label="column")
        with sqlite3.connect(path) as conn:
            conn.text_factory = bytes
            old = conn.execute(f'SELECT "{column}" FROM records WHERE seq = ?', (seq,)).fetchone()[0]
            old = old.decode("utf-8") if isinstance(old, bytes) else old
            new = data.draw(changes(old, COLUMNS[column]), label="new value")
            conn.executescript(UNDO_TRIGGERS)
            cast = "CAST(? AS TEXT)" if isinstance(new, bytes) else "?"  # the bytes as they are, UTF-8 or not
            try:
                conn.execute(f'UPDATE records SET "{column}" = {cast} WHERE seq = ?', (new, seq))
            except sqlite3.IntegrityError:  # a second row with the same idempotency key
                conn.execute(f'UPDATE records SET "{column}" = {cast} WHERE seq = ?', (new + b"x", seq))
        found = verify(db)
        assert found is not None and found.seq == seq, (column, old, new, found)
    finally:
        db.close()
        shutil.rmtree(path.parent)


@given(plays_of_distinct_keys, st.sampled_from(["csv", "json"]))
@pytest.mark.slow
def test_any_record_exports_and_reads_back_exactly(template, plays, format):
    path, db = fresh_event(template, Clock())
    try:
        db.append_many(plays)
        rows = list(db.records())
        assert read_export(export(db, format=format), format) == rows
    finally:
        db.close()
        shutil.rmtree(path.parent)
