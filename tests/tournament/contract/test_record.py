"""Rounds, what a row holds, batches, idempotency keys, filters, counts, and the export round trip."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tournament import (
    GENESIS,
    REFUSED_LEXICON,
    REFUSED_VERDICT,
    Entry,
    IdempotencyConflict,
    LastKeyMissing,
    OfflineRefusal,
    OfflineRefused,
    RecordFilter,
    RoundError,
    RoundRefused,
    export,
    open_event,
    read_export,
    stamp,
    token_hash,
    verify,
    verify_chain,
)
from tournament.entry import SECOND_FIELDS, engine_tiles
from tournament.export_format import COLUMNS

from ..conftest import entry


def test_at_most_one_round_is_open_and_numbers_are_not_reused(db):
    assert db.current_round() is None
    assert db.open_round().number == 1
    with pytest.raises(RoundError, match="round 1 is open"):
        db.open_round(2)
    db.close_round()
    with pytest.raises(RoundError, match="no round is open"):
        db.close_round()
    with pytest.raises(RoundError, match="round 1 was already played"):
        db.open_round(1)
    assert db.open_round(3).number == 3 and db.current_round().number == 3
    db.close_round()
    assert db.open_round().number == 4
    assert [r.number for r in db.rounds()] == [1, 3, 4]


def test_a_round_opened_or_closed_by_another_worker_is_known_so_at_once(db, location, clock):
    """The open round, read as a table's challenge is admitted (one statement, no transaction of
    its own: storage.Storage.current_round), is the one another worker opened or closed last."""
    other = open_event(location, clock=clock)
    try:
        assert other.current_round() is None
        db.open_round()
        assert other.current_round().number == 1
        db.close_round()
        assert other.current_round() is None
        other.append(entry(idempotency_key="k-1"))  # the other worker writes between the director's changes
        db.open_round()
        assert other.current_round().number == 2 and db.current_round().number == 2
    finally:
        other.close()


def test_a_row_carries_the_open_round_and_the_time_from_the_clock(db, clock):
    before = db.append(entry())
    db.open_round(5)
    clock.advance(minutes=3)
    during = db.append(entry())
    closed = db.close_round()
    assert (before.round, during.round) == (None, 5)
    assert during.time == "2026-11-22T09:03:00.000000Z"
    assert (closed.head_seq, closed.head_hash) == (during.seq, during.hash)


def test_a_verdict_only_for_in_or_between_rounds_is_refused_by_the_round_read_in_the_lock(db):
    with pytest.raises(RoundRefused) as refused:
        db.append(entry(device_id=4), round_open=True)
    assert refused.value.current is None
    db.open_round()
    with pytest.raises(RoundRefused) as refused:
        db.append_many([entry(device_id=5), entry(device_id=5)], round_open=False)
    assert refused.value.current == 1 and list(db.records()) == []
    assert db.append(entry(device_id=4), round_open=True).round == 1
    assert db.append(entry(device_id=6)).round == 1  # a judge: any moment


def test_a_device_s_last_key_the_record_lacks_is_refused_in_the_write_and_nothing_is_written(db):
    db.append(entry(idempotency_key="k-1"))
    with pytest.raises(LastKeyMissing) as refused:
        db.append_many([entry(idempotency_key="k-2"), entry(idempotency_key="k-3")], last_key="k-0")
    assert refused.value.key == "k-0" and [row.seq for row in db.records()] == [1]
    assert [row.seq for row in db.append_many([entry(idempotency_key="k-2")], last_key="k-1")] == [2]


def test_a_row_holds_what_the_players_were_told_and_nothing_per_word(db):
    device, code = db.add_device("Mesa 12", "table", "12")
    device, _ = db.pair(code)
    played = Entry.for_device(
        device,
        lexicon_id="es-mini",
        lexicon_version="1",
        lexicon_checksum="ab" * 32,
        notation="spelling",
        words=("carro", "Chico"),
        tiles=engine_tiles("es", ["carro", "Chico"]),
        valid=False,
    )
    row = db.append(played)
    assert row.entry.tiles == ("CA[RR]O", "[CH]ICO")
    assert (row.entry.device_id, row.entry.device_name, row.entry.role, row.entry.table) == (
        device.id,
        "Mesa 12",
        "table",
        "12",
    )
    assert db.record(row.seq) == row
    assert set(json.loads(export(db, format="json"))["records"][0]) == {
        "seq",
        "time",
        "round",
        "table",
        "device_id",
        "device_name",
        "role",
        "lexicon_id",
        "lexicon_version",
        "lexicon_checksum",
        "notation",
        "words",
        "tiles",
        "valid",
        "second_lexicon_id",
        "second_lexicon_version",
        "second_lexicon_checksum",
        "second_valid",
        "offline",
        "device_time",
        "shown_round",
        "shown_valid",
        "idempotency_key",
        "format",
        "prev",
        "hash",
    }


def test_a_batch_is_one_row_per_play_all_or_none(db):
    rows = db.append_many([entry(words=("CASA",), tiles=("CASA",)), entry(valid=False)])
    assert [r.seq for r in rows] == [1, 2] and [r.entry.valid for r in rows] == [True, False]
    with pytest.raises(IdempotencyConflict):
        db.append_many([entry(idempotency_key="k"), entry(idempotency_key="k", valid=False)])
    assert len(list(db.records())) == 2 and verify(db) is None


def test_a_verdict_sent_twice_with_its_key_is_recorded_once(db):
    offline = entry(idempotency_key="juez-1/17", offline=True, device_time="2026-11-22T08:59:00.000000Z")
    first = db.append(offline)
    again = db.append_many([entry(), offline])
    assert again[1] == first and again[0].seq == 2
    assert len(list(db.records())) == 2
    with pytest.raises(IdempotencyConflict, match="already used, with") as refused:  # no device: nobody's own
        db.append(
            entry(idempotency_key="juez-1/17", offline=True, valid=False, device_time="2026-11-22T08:59:00.000000Z")
        )
    assert refused.value.seq is None


def test_a_key_conflict_names_the_row_only_to_the_device_that_recorded_it(db):
    judge = dict(device_id=4, device_name="Juez 4", role="judge", idempotency_key="juez-4/1")
    db.append(entry(**judge))
    with pytest.raises(IdempotencyConflict, match="record 1") as own:
        db.append(entry(**judge, valid=False))
    with pytest.raises(IdempotencyConflict) as other:
        db.append(entry(**{**judge, "device_id": 5, "device_name": "Juez 5"}))
    assert (own.value.seq, other.value.seq) == (1, None) and "1" not in str(other.value).replace("juez-4/1", "")


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"words": ()}, "1 to 8 words"),
        ({"words": ("A",) * 9, "tiles": ("A",) * 9}, "1 to 8 words"),
        ({"tiles": ("X",)}, "tile spellings"),
        ({"words": ("CA SA", "X")}, "without spaces"),
        ({"notation": "braille"}, "notation"),
        ({"role": "director"}, "role"),
        ({"valid": 1}, "true or false"),
        ({"table": ""}, "never ''"),
        ({"device_time": "yesterday"}, "not a UTC time"),
        ({"device_name": "\ud800"}, "not valid Unicode"),
    ],
)
def test_an_entry_that_could_not_be_a_verdict_is_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        entry(**fields)


def test_filters_and_counts_per_device(db):
    judge, code = db.add_device("Juez 1", "judge")
    judge, _ = db.pair(code)
    table, code = db.add_device("Mesa 4", "table", "4")
    table, _ = db.pair(code)
    db.append(Entry.for_device(judge, **vars(entry()) | {"device_id": None}))
    db.open_round(1)
    for _ in range(3):
        db.append(Entry.for_device(table, **vars(entry())))
    db.append(Entry.for_device(judge, **vars(entry()) | {"table": "9"}))
    db.close_round()
    assert db.counts(1) == {table.id: 3, judge.id: 1}
    assert db.counts(None) == {judge.id: 1} and db.counts(2) == {}
    assert [r.seq for r in db.records(RecordFilter(round=1, table="9"))] == [5]
    assert [r.seq for r in db.records(RecordFilter(device_id=judge.id))] == [1, 5]
    assert len(list(db.records(RecordFilter(round=1)))) == 4
    # a page of the record: a limit alone is the last rows, after or before a row its neighbours, in order
    assert [r.seq for r in db.records(RecordFilter(limit=2))] == [4, 5]
    assert [r.seq for r in db.records(RecordFilter(before=4, limit=2))] == [2, 3]
    assert [r.seq for r in db.records(RecordFilter(after=2, limit=2))] == [3, 4]
    assert [r.seq for r in db.records(RecordFilter(round=1, after=2, before=5))] == [3, 4]


@pytest.mark.parametrize("format", ["csv", "json"])
def test_an_export_reads_back_to_the_rows_it_came_from(db, format):
    db.append(entry(device_name='Mesa "12", sala B', table="12", role="table", device_id=3))
    db.open_round(1)
    db.append_many(
        [
            entry(words=("ÑANDÚ", "PINGÜINO"), tiles=("ÑANDU", "PINGUINO"), notation="spelling"),
            entry(idempotency_key="a,b\n", offline=True, device_time="2026-11-22T08:00:00.000000Z"),
        ]
    )
    db.close_round()
    rows = list(db.records())
    assert read_export(export(db, format=format), format) == rows
    assert verify_chain(read_export(export(db, format=format), format)) is None
    assert read_export(export(db, round=1, format=format), format) == rows[1:]


def test_an_export_names_its_event_and_round(db):
    db.open_round(2)
    db.append(entry())
    document = json.loads(export(db, round=2, format="json"))
    assert (document["event"], document["round"], len(document["records"])) == ("Open de Lleida 2026", 2, 1)
    assert export(db, format="csv").splitlines()[0].startswith("seq,time,round,table,")
    with pytest.raises(ValueError, match="csv, json"):
        export(db, format="xml")


def test_an_edited_export_is_caught_by_the_chain(db):
    db.append_many([entry(), entry()])
    text = export(db, format="csv").replace(",true,", ",false,", 1)
    assert verify_chain(read_export(text, "csv")).seq == 1


RUNNABLE = ['=HYPERLINK("http://x")', "+1", "-2+3", "@SUM(A1)", "'=quoted", "\tTAB", "\r=1", "'"]
# what a spreadsheet may drop before it reads a cell: white space, line feeds, invisible characters
RUNNABLE += [" =1", "  @A1", "\n=1", "\r\n-1", "\u00a0=1", "\u3000+1", "\u200b=1", "\ufeff=1", "\u2060@A1", "\u00ad=1"]
RUNNABLE += ["\u200e\u00a0 \ufe0f=1", "\x01=1"]
RUNNABLE += ["＝1", "＋1", "－1", "＠A1", "﹦1", "⁼1", " ＝1", "\u200b＠A1"]  # the signs' full-width and other forms


@pytest.mark.parametrize("text", RUNNABLE)
def test_a_csv_cell_a_spreadsheet_would_run_is_neutralised_and_read_back(db, text):
    db.append(entry(device_name=text, table=text, role="table", device_id=3, idempotency_key=text))
    csv_text = export(db, format="csv")
    row = dict(zip(COLUMNS, list(csv.reader(io.StringIO(csv_text, newline="")))[1], strict=True))
    assert row["device_name"] == row["table"] == row["idempotency_key"] == "'" + text
    assert read_export(csv_text, "csv") == list(db.records())


@pytest.mark.parametrize("text", ["Mesa 7", " Mesa 7", "\u200bMesa", "7-2", "a=b", "\u00a0Ñ", "—1", "k-1"])
def test_a_csv_cell_no_spreadsheet_runs_is_left_as_it_is(db, text):
    db.append(entry(device_name=text, table=text, role="table", device_id=3, idempotency_key=text))
    csv_text = export(db, format="csv")
    row = dict(zip(COLUMNS, list(csv.reader(io.StringIO(csv_text, newline="")))[1], strict=True))
    assert row["device_name"] == row["table"] == row["idempotency_key"] == text
    assert read_export(csv_text, "csv") == list(db.records())


SECOND = dict(second_lexicon_id="file2017", second_lexicon_version="2017.1", second_lexicon_checksum="cd" * 32)


def test_a_row_holds_the_second_opinion_the_players_were_shown_and_it_chains(db):
    alone = db.append(entry())
    both = db.append(entry(valid=False, **SECOND, second_valid=True))
    assert (alone.format, both.format) == (2, 3)  # the lowest format that holds the row
    assert db.record(both.seq) == both and both.entry.second_valid is True
    assert verify(db) is None
    for format in ("csv", "json"):
        assert read_export(export(db, format=format), format) == [alone, both]
    exported = json.loads(export(db, format="json"))["records"]
    assert [(r["second_lexicon_id"], r["second_valid"]) for r in exported] == [(None, None), ("file2017", True)]


def test_a_second_opinion_is_all_four_fields_or_none():
    with pytest.raises(ValueError, match="all four or none"):
        entry(**SECOND)  # no verdict of its own
    with pytest.raises(ValueError, match="all four or none"):
        entry(second_lexicon_id="file2017", second_valid=False)
    with pytest.raises(ValueError, match="second_valid is true, false or None"):
        entry(**SECOND, second_valid=1)


@pytest.mark.parametrize(
    "later", [("shown_valid",), ("shown_valid", "shown_round"), ("shown_valid", "shown_round", *SECOND_FIELDS)]
)
def test_an_export_made_before_the_later_columns_still_reads_back(db, later):
    """An export of schemas 9 to 11 (no shown_valid), of 4 to 8 (no shown_round either) and of 1
    to 3 (no second opinion either)."""
    rows = [db.append(entry()), db.append(entry(valid=False))]
    text = export(db, format="csv")
    old = list(csv.reader(io.StringIO(text, newline="")))
    keep = [n for n, name in enumerate(COLUMNS) if name not in later]
    older = io.StringIO()
    csv.writer(older).writerows([[line[n] for n in keep] for line in old])
    assert read_export(older.getvalue(), "csv") == rows


def test_one_group_commit_reads_the_head_once_and_a_refused_request_leaves_it_as_it_was(db):
    """The requests of one transaction share the round and the chain's head, read by the first
    (record.py, _append_in's `head`): a request refused after its first row was sealed (its second
    play's key is taken) writes nothing, and the next request chains from the row before it, with
    no gap in the numbers."""
    from tournament.group_commit import Append

    db.append(entry(idempotency_key="taken"))
    first = Append([entry(words=("CASA",), tiles=("CASA",))])
    refused = Append([entry(words=("MESA",), tiles=("MESA",)), entry(idempotency_key="taken", valid=False)])
    last = Append([entry(words=("GAT",), tiles=("GAT",)), entry(words=("GOS",), tiles=("GOS",))])
    db._commit([first, refused, last])
    assert isinstance(refused.outcome, IdempotencyConflict)
    assert [row.seq for row in first.outcome + last.outcome] == [2, 3, 4]
    assert [row.entry.words for row in db.records()] == [("COL·LEGI", "QUADRE"), ("CASA",), ("GAT",), ("GOS",)]
    assert db.verify() is None


def test_a_play_is_recorded_only_when_every_budget_has_room_and_a_refusal_charges_none(db):
    """A request charged against its address and the network its addresses share (the service's
    keys): two addresses of one network, each within its own limit, are held by the network's;
    the refused request charges neither budget, and an address of another network is not held."""
    from tournament.budget import PlaysLimited

    network = "2001:db8:1:2::/64"
    first = (("2001:db8:1:2::a", 3), (network, 4))
    db.append_many([entry(words=(w,), tiles=(w,)) for w in ("SOL", "MAR", "GAT")], budget=first)
    second = (("2001:db8:1:2::b", 2), (network, 4))  # room for the two plays: the network has not
    with pytest.raises(PlaysLimited) as held:
        db.append_many([entry(words=(w,), tiles=(w,)) for w in ("PA", "VI")], budget=second)
    assert held.value.client == network and held.value.limit == 4
    db.append_many([entry(words=("SAL",), tiles=("SAL",))], budget=second)  # the network's last play
    with pytest.raises(PlaysLimited):
        db.append_many([entry(words=("PA",), tiles=("PA",))], budget=second)
    db.append_many([entry(words=("PA",), tiles=("PA",))], budget=(("2001:db8:1:3::a", 3), ("2001:db8:1:3::/64", 4)))
    assert [row.entry.words for row in db.records()][-5:] == [("SOL",), ("MAR",), ("GAT",), ("SAL",), ("PA",)]
    assert db.verify() is None


def test_a_budget_s_minute_starts_again_when_the_clock_is_set_back(db, clock):
    """A budget's minute runs from its first play: 30 s in, the spent address waits the other 30 s;
    with the laptop's clock set back before that first play (a wrong time corrected by hand), the
    minute counted from a moment still to come is no minute at all: a new one starts, and the play
    is recorded, not refused for 70 s (budget.py's "a clock set back")."""
    from tournament.budget import PlaysLimited

    spent = (("192.0.2.7", 1),)
    db.append_many([entry(words=("SOL",), tiles=("SOL",))], budget=spent)
    clock.advance(seconds=30)
    with pytest.raises(PlaysLimited) as held:
        db.append_many([entry(words=("MAR",), tiles=("MAR",))], budget=spent)
    assert held.value.retry_after == 30
    clock.advance(seconds=-40)  # 10 s before the minute's first play
    db.append_many([entry(words=("GAT",), tiles=("GAT",))], budget=spent)
    with pytest.raises(PlaysLimited) as held:  # and that new minute is spent in turn
        db.append_many([entry(words=("MAR",), tiles=("MAR",))], budget=spent)
    assert held.value.retry_after == 60
    assert [row.entry.words for row in db.records()][-2:] == [("SOL",), ("GAT",)]


def test_in_one_group_commit_a_request_refused_for_its_key_or_its_budget_writes_nothing(db):
    """One play is refused before its row is sealed (its key taken); one whose address has spent
    its budget after (record.py charges it last, before any of its rows reaches the store):
    neither leaves a row, a budget's count or a gap in the numbers."""
    from tournament.budget import PlaysLimited
    from tournament.group_commit import Append

    db.append(entry(idempotency_key="taken"))
    spent = (("192.0.2.7", 1),)
    db._commit([Append([entry(words=("SOL",), tiles=("SOL",))], budget=spent)])  # the address's one play
    conflict = Append([entry(idempotency_key="taken", valid=False)])
    over = Append([entry(words=("MESA",), tiles=("MESA",))], budget=spent)
    last = Append([entry(words=("GAT",), tiles=("GAT",))])
    db._commit([conflict, over, last])
    assert isinstance(conflict.outcome, IdempotencyConflict) and isinstance(over.outcome, PlaysLimited)
    assert [row.seq for row in last.outcome] == [3]
    assert [row.entry.words for row in db.records()] == [("COL·LEGI", "QUADRE"), ("SOL",), ("GAT",)]
    assert db.verify() is None


def test_in_one_group_commit_a_devices_gap_counts_its_row_of_the_same_group(db, clock):
    """The rows of a group commit reach the store together, at its end (record.py's _Group.flush):
    a device's second request in the same transaction is still refused for its gap by the first's
    row, which the store does not hold yet; another device's is not."""
    from tournament import RateLimited
    from tournament.group_commit import Append

    judge, other = db.add_device("Juez 1", "judge")[0], db.add_device("Juez 2", "judge")[0]
    db.append(entry(device_id=judge.id, device_name=judge.name, role="judge"))
    clock.advance(seconds=10)  # its row in the store is older than the gap
    plays = [
        Append([entry(device_id=device.id, device_name=device.name, role="judge", words=(word,), tiles=(word,))], 5)
        for device, word in ((judge, "CASA"), (other, "MESA"), (judge, "GAT"))
    ]
    db._commit(plays)
    assert [row.seq for row in plays[0].outcome + plays[1].outcome] == [2, 3]
    assert isinstance(plays[2].outcome, RateLimited) and plays[2].outcome.retry_after == 5
    assert [row.entry.words for row in db.records()][1:] == [("CASA",), ("MESA",)] and db.verify() is None


def test_a_group_commits_rows_of_single_and_several_plays_are_stored_together_in_order(db):
    """The rows of a group commit's requests, of one play or several, wait to be inserted together
    (record.py's _Group.flush): every row is stored, numbered in order, and chains."""
    from tournament.group_commit import Append

    def play(*words: str) -> Append:
        return Append([entry(words=(word,), tiles=(word,)) for word in words])

    requests = [play("CASA"), play("MESA"), play("PA", "VI"), play("GAT"), play("GOS"), play("SOL")]
    db._commit(requests)
    assert [row.seq for request in requests for row in request.outcome] == list(range(1, 8))
    assert [row.entry.words[0] for row in db.records()] == ["CASA", "MESA", "PA", "VI", "GAT", "GOS", "SOL"]
    assert db.verify() is None


def test_rows_of_every_shape_inserted_together_read_back_as_they_were_given(location, db):
    """storage.py's `insert_records`, given rows whose empty fields differ from row to row (a
    device's or none, a second opinion, a shown round, a round), in one call: each is stored as
    given (a store may write them in runs of one shape: SQLite's writes NULL where a row has None)."""
    from tournament.chain import seal
    from tournament.store import open_storage

    shapes = [
        entry(),
        entry(device_id=1, device_name="Juez 1", role="judge", idempotency_key="k-1"),
        entry(device_id=1, device_name="Juez 1", role="judge", idempotency_key="k-2"),
        entry(**SECOND, second_valid=False, table="7"),
        entry(offline=True, device_time="2026-11-22T08:59:00.000000Z", shown_round=0, idempotency_key="k-3"),
        entry(),
    ]
    db.add_device("Juez 1", "judge")
    storage = open_storage(location)
    try:
        rows, prev = [], GENESIS
        for seq, played in enumerate(shapes, 1):
            rows.append(
                seal(seq, f"2026-11-22T09:00:0{seq}.000000Z", None if seq % 2 else 1, played, prev, played.format)
            )
            prev = rows[-1].hash
        with storage.write() as tx:
            tx.add_round(1, "2026-11-22T09:00:00.000000Z")
            tx.insert_records(rows)
    finally:
        storage.close()
    assert list(db.records()) == rows and db.verify() is None


def test_rows_chain_from_the_genesis_hash(db):
    first, second = db.append_many([entry(), entry(valid=False)])
    assert first.prev == GENESIS and second.prev == first.hash
    assert db.append(entry()).prev == second.hash
    assert verify(db) is None


def test_a_write_transaction_reads_back_the_rounds_and_rows_it_wrote_itself(location, db):
    """storage.py's Tx "sees its own writes": a store that keeps what it read as the write began
    (PostgreSQL keeps the open round and the head read with the lock) must read them again once
    this transaction has written a row, or a round (each write below is the first of its kind)."""
    from tournament.chain import seal
    from tournament.store import open_storage

    db.append(entry())
    storage = open_storage(location)
    try:
        with storage.write() as tx:
            seq, prev = tx.head()
            played = entry()
            row = seal(
                seq + 1, "2026-11-22T09:00:01.000000Z", None, played, prev, 3 if played.shown_round is None else 4
            )
            tx.insert_records([row])
            assert tx.head() == (seq + 1, row.hash)
        with storage.write() as tx:
            assert tx.current_round() is None
            tx.add_round(1, "2026-11-22T09:00:02.000000Z")
            assert tx.current_round().number == 1
        with storage.write() as tx:
            assert tx.current_round().number == 1
            tx.close_round(1, "2026-11-22T09:00:03.000000Z", tx.head(), None)
            assert tx.current_round() is None and (tx.round(1).head_seq, tx.round(1).head_hash) == tx.head()
    finally:
        storage.close()
    assert [r.hash for r in db.records()][-1] == row.hash and db.verify() is None


def test_keys_and_holders_says_which_of_many_idempotency_keys_are_recorded_and_each_device(location, db, clock):
    """storage.py's `keys_and_holders`: the keys recorded among any number given, none for none,
    the same as `holds` says of each, with each device's token hash and revocation and the latest
    time it was refused an offline verdict (its gap counts from it too), in one query (a group
    commit asks once for all its keys and devices)."""
    from tournament.store import open_storage

    written = {row.entry.idempotency_key for row in db.append_many([entry(idempotency_key=f"k-{n}") for n in range(3)])}
    asked = [f"k-{n}" for n in range(1200)] + ["other"]  # more than one query's worth of SQLite parameters
    paired, code = db.add_device("Juez 1", "judge")
    token = db.pair(code)[1]
    waiting = db.add_device("Juez 2", "judge")[0]
    db.revoke(waiting.id)
    for reason in (REFUSED_LEXICON, REFUSED_VERDICT):  # the latest of either reason's
        with pytest.raises(OfflineRefused):
            db.append_many([entry(device_id=waiting.id, idempotency_key=reason)], refusal=OfflineRefusal(0, reason))
        refused = stamp(db.now())
        clock.advance(seconds=1)
    storage = open_storage(location)
    try:
        with storage.read() as view:
            assert view.keys_and_holders(asked, ())[0] == written == {key for key in asked if view.holds(key)}
            assert view.keys_and_holders([], ()) == (set(), {}) and view.keys_and_holders(["other"], ()) == (set(), {})
            held, holders = view.keys_and_holders(asked, [waiting.id, paired.id, 999])  # with its devices, at once
            assert held == written and set(holders) == {paired.id, waiting.id}
            assert holders[paired.id] == (token_hash(token), None, None)
            assert holders[waiting.id][0] is None and holders[waiting.id][1] is not None  # never paired; revoked
            assert holders[waiting.id][2] == refused
            assert view.keys_and_holders([], [paired.id]) == (set(), {paired.id: (token_hash(token), None, None)})
        with storage.write() as tx:
            assert tx.keys_and_holders(["k-2", "k-9"], ()) == ({"k-2"}, {})
    finally:
        storage.close()


def test_in_one_group_commit_a_key_written_by_an_earlier_request_counts_once_it_stands(db):
    """The keys of one transaction are looked up once (record.py's _Group): a row an earlier
    request wrote in it is a device's last key for a later one, and a key sent again is that row,
    while the rows of a request refused count for nothing."""
    from tournament.group_commit import Append

    db.append(entry(idempotency_key="taken"))
    first = Append([entry(words=("CASA",), tiles=("CASA",), idempotency_key="a")])
    after_first = Append([entry(words=("MESA",), tiles=("MESA",), idempotency_key="b")], last_key="a")
    again = Append([entry(words=("CASA",), tiles=("CASA",), idempotency_key="a")])
    refused = Append(
        [entry(words=("GAT",), tiles=("GAT",), idempotency_key="c"), entry(idempotency_key="taken", valid=False)]
    )
    after_refused = Append([entry(words=("GOS",), tiles=("GOS",), idempotency_key="d")], last_key="c")
    anew = Append([entry(words=("GAT",), tiles=("GAT",), idempotency_key="c")], last_key="b")
    db._commit([first, after_first, again, refused, after_refused, anew])
    assert isinstance(refused.outcome, IdempotencyConflict) and isinstance(after_refused.outcome, LastKeyMissing)
    assert again.outcome == first.outcome and [row.seq for row in first.outcome + after_first.outcome] == [2, 3]
    assert [row.seq for row in anew.outcome] == [4]
    assert [row.entry.idempotency_key for row in db.records()] == ["taken", "a", "b", "c"]
    assert db.verify() is None


def test_a_group_commit_writes_the_appends_it_takes_inside_the_lock_with_their_keys(db):
    """writer.py hands a group commit the pending appends as a batch taken at its first look, once
    the lock is held (Batch): each is written, its keys looked up with the others' (record.py's
    _Group), a later one's last key found among the earlier rows; one arriving while it writes is
    the next transaction's."""
    from collections import deque

    from tournament.group_commit import Append, Batch

    pending = deque()
    for n in range(3):
        pending.append((Append([entry(idempotency_key=f"k-{n}")], last_key=f"k-{n - 1}" if n else None), None))
    late = Append([entry(idempotency_key="k-3")], last_key="k-2")
    real = db._append_in

    def arriving(tx, request, group):  # one more arrives while the transaction writes
        if request.entries[0].idempotency_key == "k-0":
            pending.append((late, None))
        return real(tx, request, group)

    db._append_in = arriving
    batch = Batch(pending)
    db._commit(batch)
    assert [request.outcome[0].seq for request, _ in batch.taken] == [1, 2, 3]
    assert list(pending) == [(late, None)] and late.outcome is None
    db._commit(Batch(pending))
    assert late.outcome[0].seq == 4 and db.verify() is None


def test_the_store_as_a_service_opens_it_could_not_switch_off_the_records_guard(db):
    """Every store, opened as an instance opens it (a file; a database as the instances' role),
    answers that its connection could not drop or disable the record's append-only guard: a store
    with no roles (a file, whose guard is whoever can edit it) never could; the service refuses to
    start on one that answers otherwise (service/event/opening.py)."""
    assert db.may_alter_guard() is None
