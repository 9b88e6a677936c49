"""An event copied whole between stores (tournament/transfer.py: `lexicon event move`, and `lexicon
event backup|restore` of an event in a database): from each store into a file and back into that
store, and into the same store, the record row for row with the same hashes, the rounds, devices
and director; what starts afresh; nothing left at the target when the copy fails."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournament import (
    REFUSED_LEXICON,
    REFUSED_VERDICT,
    CopyRefused,
    EventExists,
    EventMoved,
    IdempotencyConflict,
    NotAnEvent,
    OfflineRefusal,
    OfflineRefused,
    PairingRefused,
    StorageError,
    copy_event,
    create_event,
    open_event,
    stamp,
)
from tournament import transfer as transfer_module
from tournament.store import open_storage
from tournament.transfer import MovedSince, read_whole

from ..conftest import PASSWORD, PINNED, entry


def whole(location):
    """Everything a copy carries, as the store at `location` holds it."""
    storage = open_storage(location, readonly=True)
    try:
        with storage.read() as view:
            return read_whole(view, str(location))
    finally:
        storage.close()


def played(db, clock) -> dict:
    """An event as a day of play leaves it: a paired judge in touch, a table device revoked, a
    phone never paired, a closed round whose head is final, one whose head waits for a silent
    phone, one the director confirmed, an open round, verdicts online and offline, in and out of
    rounds; a director's session, a login link and an unused pairing code. Its tokens."""
    judge_code = db.add_device("Juez 1", "judge")[1]
    judge, judge_token = db.pair(judge_code)
    table, table_token = db.pair(db.add_device("Mesa 12", "table", table="12")[1])
    _, unused_code = db.add_device("Móvil 3", "judge")
    db.touch({judge.id: stamp(clock()), table.id: stamp(clock())})
    # its phone showed another verdict (twice); judged with another list
    for key, reason in (("earlier", REFUSED_VERDICT), (REFUSED_VERDICT, REFUSED_VERDICT), (REFUSED_LEXICON,) * 2):
        offline = dict(offline=True, device_time=stamp(clock()), shown_round=1)
        with pytest.raises(OfflineRefused):
            db.append_many(
                [entry(device_id=judge.id, idempotency_key=key, **offline)], refusal=OfflineRefusal(0, reason)
            )
    db.append(entry(idempotency_key="k-0"))
    db.open_round()
    clock.advance(minutes=1)
    db.append(entry(device_id=table.id, device_name=table.name, role="table", table="12", idempotency_key="k-1"))
    db.append(entry(words=("QUADRE",), tiles=("QUADRE",), valid=False, idempotency_key="k-2"))
    db.close_round()
    clock.advance(minutes=2)
    db.open_round()
    db.append(entry(idempotency_key="k-3", device_id=judge.id, device_name=judge.name, role="judge"))
    clock.advance(minutes=2)
    db.close_round()  # the judge was silent for a minute: round 2's head waits for it
    db.open_round()
    clock.advance(minutes=2)
    db.close_round()
    db.confirm_round(3)  # round 3's the director confirmed
    db.revoke(table.id)
    db.open_round(4)
    clock.advance(seconds=30)
    db.append(entry(idempotency_key="k-4", offline=True, device_time=stamp(clock()), shown_round=2))
    db.append(
        entry(
            idempotency_key="k-5",
            second_lexicon_id="fise-2",
            second_lexicon_version="2.0",
            second_lexicon_checksum="6a" * 32,
            second_valid=False,
        )
    )
    session, link = db.start_session(), db.new_login_link()
    return {"judge": judge_token, "table": table_token, "unused_code": unused_code, "session": session, "link": link}


def other_file(tmp_path) -> str:
    return str(tmp_path / f"{uuid.uuid4().hex[:8]}.db")


def test_an_event_moved_into_a_file_and_back_is_the_same_event_with_the_same_hashes(store, location, clock, tmp_path):
    db = create_event(location, "Open de Lleida 2026", PASSWORD, lexicon="ca-mini", pin=PINNED, clock=clock)
    played(db, clock)
    db.close()
    source = whole(location)
    there, back, beside = other_file(tmp_path), store.location("back"), store.location("beside")
    moved = copy_event(location, there, "move")
    returned = copy_event(there, back, "move")
    copy_event(back, beside, "move")  # within the store: file to file, database to database
    copies = [whole(there), whole(back), whole(beside)]
    for copy in copies:
        assert copy.same_event(source)  # every row, round, device, token, contact and the director
        assert copy.event.pin == PINNED  # its list's language too
        assert [r.hash for r in copy.records] == [r.hash for r in source.records]
    assert moved.head == (6, source.records[-1].hash) and moved.records == 6 and moved.broken is None
    assert source.broken is None and source.rounds[1].pending and source.rounds[-1].closed is None
    identities = [source.event.file.identity, *(copy.event.file.identity for copy in copies)]
    assert len(set(identities)) == 4  # each live copy its own identity...
    assert copies[0].event.file.restored_from == source.event.file.identity  # ...naming the one it came from
    assert copies[1].event.file.restored_from == copies[0].event.file.identity
    assert returned.source_file.identity == copies[0].event.file.identity
    after = whole(location)  # the source read, then only marked moved to its copy
    assert after.same_event(source) and after.event.file == replace(
        source.event.file, moved=after.event.file.moved, moved_to=copies[0].event.file.identity
    )
    assert copies[0].event.file.moved_to == copies[1].event.file.identity and copies[2].event.file.moved is None


def test_a_moved_event_keeps_its_director_and_devices_and_starts_its_sessions_afresh(store, location, clock, tmp_path):
    db = create_event(location, "Open de Lleida 2026", PASSWORD, lexicon="ca", clock=clock)
    tokens = played(db, clock)
    db.close()
    target = other_file(tmp_path) if store.name == "postgres" else store.location("target")
    copy_event(location, target, "move")
    moved = open_event(target, clock=clock)
    try:
        assert moved.check_password(PASSWORD).ok
        assert moved.device_by_token(tokens["judge"]).name == "Juez 1"  # a paired phone goes on judging
        assert moved.device_by_token(tokens["table"]).revoked is not None  # a revoked one stays so
        # the director still learns that the judge's phone showed players a verdict the record lacks
        [(judge_id, refused)] = moved.refused_offline().items()
        said = {reason: (one.count, one.key, one.shown_round) for reason, one in refused.items()}
        assert judge_id == 1 and said == {
            REFUSED_VERDICT: (2, REFUSED_VERDICT, 1),
            REFUSED_LEXICON: (1, REFUSED_LEXICON, 1),
        }
        for key in ("earlier", REFUSED_VERDICT, REFUSED_LEXICON):  # every refused play's key, not the latest only
            with pytest.raises(IdempotencyConflict):
                moved.append(entry(device_id=judge_id, idempotency_key=key))
        assert not moved.session_active(tokens["session"])  # the director signs in again
        assert not moved.use_login_link(tokens["link"])
        with pytest.raises(PairingRefused):
            moved.pair(tokens["unused_code"])  # a code of the old place: a new one is a click
        assert moved.awaited() == frozenset({1})  # round 2 still waits for the judge's phone
        assert moved.append(entry(idempotency_key="k-6")).seq == 7 and moved.verify() is None
        assert moved.splits() == {}
    finally:
        moved.close()


def test_a_copy_refuses_an_event_there_and_changes_nothing(store, location, clock):
    db = create_event(location, "Open", PASSWORD, clock=clock)
    db.append(entry())
    db.close()
    there = store.location("there")
    create_event(there, "Otro", PASSWORD, clock=clock).close()
    before = whole(there)
    with pytest.raises(EventExists):
        copy_event(location, there, "move")
    assert whole(there) == before


def test_nothing_is_left_at_the_target_when_the_copy_fails_half_way(store, location, clock, monkeypatch):
    db = create_event(location, "Open", PASSWORD, clock=clock)
    played(db, clock)
    db.close()
    real = transfer_module._fill

    def fails(tx, copied, into):
        real(tx, copied, into)  # every row written in the target's transaction, then the disk is full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(transfer_module, "_fill", fails)
    target = store.location("target")
    with pytest.raises(OSError, match="No space left"):
        copy_event(location, target, "move")
    with pytest.raises(NotAnEvent):
        open_event(target, readonly=True)
    monkeypatch.undo()
    copy_event(location, target, "move")  # and the name is free for the copy that succeeds
    assert whole(target).same_event(whole(location))


def test_a_move_refuses_a_backup_copy_and_a_record_that_does_not_verify_and_a_restore_a_live_event(
    store, location, clock, tmp_path
):
    db = create_event(location, "Open", PASSWORD, lexicon="ca-mini", pin=PINNED, clock=clock)
    db.append(entry())
    db.close()
    backup = other_file(tmp_path)
    copied = copy_event(location, backup, "backup")
    assert whole(backup).event.pin == PINNED
    marked = whole(backup).event.file
    assert marked.copy_of == marked.identity == whole(location).event.file.identity and marked.copied
    assert copied.file == marked
    with pytest.raises(CopyRefused, match=r"is a backup copy of the event.s file .*lexicon event restore"):
        copy_event(backup, store.location("moved"), "move")
    with pytest.raises(CopyRefused, match="is no backup copy"):
        copy_event(location, store.location("restored"), "restore")
    restored = store.location("restored")
    if store.name == "postgres":  # beside the event it copies, in its database, whose service serves both
        with pytest.raises(CopyRefused, match=r"the database holds the event this copy was made from, event=.*, live"):
            copy_event(backup, restored, "restore")
        with pytest.raises(NotAnEvent):
            open_event(restored, readonly=True)  # nothing was written
        restored = other_file(tmp_path)  # a hall's file instead
    copy_event(backup, restored, "restore")
    live = whole(restored).event.file
    assert whole(restored).event.pin == PINNED
    assert live.copy_of is None and live.restored_from == marked.identity and live.identity != marked.identity
    with pytest.raises(NotAnEvent):
        open_event(store.location("moved"), readonly=True)


# -- a property: any event, moved to a file and back, is the event it was -------------------------------

PLAYS = st.lists(
    st.one_of(
        st.tuples(
            st.just("verdict"),
            st.lists(st.sampled_from(["QUADRE", "COL·LEGI", "ÑANDÚ", "L·L"]), min_size=1, max_size=3),
            st.booleans(),
            st.booleans(),
        ),
        st.tuples(st.just("round")),
        st.tuples(st.just("device"), st.sampled_from(["judge", "table", "lookup"])),
        st.tuples(st.just("wait"), st.integers(0, 120)),
    ),
    max_size=25,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plays=PLAYS)
def test_any_event_moved_into_a_file_and_back_has_the_same_records_and_head(store, clock, tmp_path, plays):
    name = hashlib.sha256(repr(plays).encode()).hexdigest()[:12] + uuid.uuid4().hex[:6]
    location = store.location(f"p{name}")
    db = create_event(location, "Open", PASSWORD, clock=clock)
    devices = []
    for play in plays:
        if play[0] == "verdict":
            _, words, valid, offline = play
            device = devices[-1] if devices else None
            fields = {"device_id": device.id, "device_name": device.name, "role": device.role} if device else {}
            if device is not None and device.role == "table":
                fields["table"] = device.table
            more = {"offline": True, "device_time": stamp(clock())} if offline else {}
            db.append(
                entry(
                    words=tuple(words),
                    tiles=tuple(words),
                    valid=valid,
                    idempotency_key=uuid.uuid4().hex,
                    **fields,
                    **more,
                )
            )
        elif play[0] == "round":
            db.close_round() if db.current_round() else db.open_round()
        elif play[0] == "device":
            _, code = db.add_device(
                f"Dispositivo {len(devices) + 1}", play[1], table=str(len(devices) + 1) if play[1] == "table" else None
            )
            devices.append(db.pair(code)[0])
        else:
            clock.advance(seconds=play[1])
    db.close()
    there, back = other_file(tmp_path), store.location(f"q{name}")
    copy_event(location, there, "move")
    copy_event(there, back, "move")
    source, returned = whole(location), whole(back)
    assert returned.same_event(source) and whole(there).same_event(source)
    assert returned.head == source.head and source.broken is None


def test_a_moved_event_records_nothing_more_where_it_was(store, location, clock, tmp_path):
    """Once moved, the source is marked so (when, and the copy's identity) and every write of the
    rules to it refuses (EventMoved, a StorageError: nothing recorded, paired, opened or signed in),
    whatever store serves it, an app opened before the move included; it reads on, and is not moved
    again. (Before the mark, a phone still paired with the source recorded there after the move.)"""
    db = create_event(location, "Open de Lleida 2026", PASSWORD, lexicon="ca", clock=clock)
    tokens = played(db, clock)  # `db` stays open, as a service that still serves the source
    target = other_file(tmp_path)
    moved = copy_event(location, target, "move", clock=clock)
    marked = whole(location).event.file
    assert (marked.moved, marked.moved_to) == (stamp(clock()), moved.file.identity)
    assert db.moved() == (marked.moved, moved.file.identity)
    judge = db.device_by_token(tokens["judge"])  # reads go on: the console shows what the event was
    writes = [
        lambda: db.append(entry(idempotency_key="k-late", device_id=judge.id, device_name=judge.name, role="judge")),
        lambda: db.add_device("Juez 9", "judge"),
        lambda: db.new_code(judge.id),
        lambda: db.close_round(),
        lambda: db.start_session(),
        lambda: db.revoke(judge.id),
    ]
    for write in writes:
        with pytest.raises(EventMoved) as refused:
            write()
        assert isinstance(refused.value, StorageError) and refused.value.to == moved.file.identity
    assert whole(location).same_event(whole(target))  # nothing was written after the copy
    again = open_event(location, clock=clock)
    try:
        with pytest.raises(EventMoved):
            again.open_round()
    finally:
        again.close()
        db.close()
    with pytest.raises(CopyRefused, match="was moved already"):
        copy_event(location, other_file(tmp_path), "move")
    assert whole(target).event.file.moved is None and not whole(target).event.file.copy_of


def test_a_copy_of_an_event_is_never_made_live_beside_it_by_way_of_a_file(store, location, clock, tmp_path):
    """The refusal of a restore beside the event it copies (above) was passed by way of a file: the
    backup restored into a file (a hall's file: allowed), and that file moved into the database
    holding the event (a move is no restore), or a backup of that file restored there (a copy of
    another identity). The database then held two live copies of one event, served at two
    addresses by a service of every event, one judge's token given record 2 in each. A restore or
    a move into a database is refused, nothing written, while it holds that event live under
    another id (its name, creation and director's password: what every copy carries); a move
    within the database (its source, live until marked) is no such copy, nor is an event moved
    away from it. A file holds its one event."""
    create_event(location, "Open de Lleida 2026", PASSWORD, lexicon="ca-mini", pin=PINNED, clock=clock).close()
    copy, hall, hall_copy = other_file(tmp_path), other_file(tmp_path), other_file(tmp_path)
    copy_event(location, copy, "backup", clock=clock)
    copy_event(copy, hall, "restore", clock=clock)  # a hall's file: a live copy of its own
    copy_event(hall, hall_copy, "backup", clock=clock)
    if store.name != "postgres":
        copy_event(hall, store.location("beside"), "move", clock=clock)  # file to file: one live copy
        return
    within = store.location("within")
    copy_event(location, within, "move", clock=clock)  # within the database: its source is no copy beside it
    for source, kind in ((hall, "move"), (hall_copy, "restore")):
        beside = store.location(f"beside-{kind}")
        with pytest.raises(CopyRefused, match=r"the database holds the same event live, event=\S+-within \(made "):
            copy_event(source, beside, kind, clock=clock)
        with pytest.raises(NotAnEvent):
            open_event(beside, readonly=True)  # nothing was written
    assert whole(hall).event.file.moved is None  # nor was the source marked: it is still the hall's live copy
    copy_event(within, other_file(tmp_path), "move", clock=clock)  # the event leaves the database
    copy_event(hall, store.location("back"), "move", clock=clock)  # no live copy of it there now
    own = other_file(tmp_path)  # an event of its own, of the same name and time: its password's salt is its own
    create_event(own, "Open de Lleida 2026", PASSWORD, lexicon="ca-mini", pin=PINNED, clock=clock).close()
    copy_event(own, store.location("own"), "move", clock=clock)


def test_a_backup_of_a_moved_source_keeps_its_mark_and_a_restore_of_it_is_refused(store, location, clock, tmp_path):
    """The source a move left behind, backed up by copy_event (as `lexicon event backup` backs up
    an event of a database): the copy is a copy of the source's identity and keeps its moved mark,
    so restoring it, which would make a second live event beside the one it moved to, is refused."""
    create_event(location, "Open de Lleida 2026", PASSWORD, lexicon="ca", clock=clock).close()
    moved = copy_event(location, other_file(tmp_path), "move", clock=clock)
    source = whole(location).event.file
    clock.advance(minutes=1)
    copy = other_file(tmp_path)
    backed = copy_event(location, copy, "backup", clock=clock)
    kept = whole(copy).event.file
    assert (kept.identity, kept.copy_of, kept.copied) == (source.identity, source.identity, stamp(clock()))
    assert (kept.moved, kept.moved_to) == (source.moved, moved.file.identity) and backed.file == kept
    with pytest.raises(CopyRefused, match="moved at"):
        copy_event(copy, other_file(tmp_path), "restore")


def test_a_source_that_changed_during_the_move_is_not_marked(store, location, clock, tmp_path, monkeypatch):
    """A verdict recorded in the source after its copy was read (an instance still serving it)
    makes the move fail before the source is marked: the source stays the event's live copy, and
    the message says to remove the target and move again with every instance stopped."""
    db = create_event(location, "Open de Lleida 2026", PASSWORD, lexicon="ca", clock=clock)
    played(db, clock)
    fill = transfer_module._fill

    def and_a_late_verdict(tx, whole_, into):
        fill(tx, whole_, into)
        db.append(entry(idempotency_key="k-late"))

    monkeypatch.setattr(transfer_module, "_fill", and_a_late_verdict)
    target = other_file(tmp_path)
    with pytest.raises(MovedSince, match="remove"):
        copy_event(location, target, "move", clock=clock)
    try:
        assert db.moved() is None and db.append(entry(idempotency_key="k-later")).seq == 8
    finally:
        db.close()
