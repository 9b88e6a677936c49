"""The online rows whose second opinion their phone never showed (tournament/unshown_second.py):
the phone judged the play itself, with the same key, list and verdict, and showed that verdict
alone. The row is marked, in the write that answers the offline verdict as recorded (a conflict
naming the row, as before), and a copy of the event carries the mark. In every store."""

from __future__ import annotations

import pytest

from tournament import IdempotencyConflict, OfflineRefusal, OfflineRefused, copy_event, open_event, stamp

from ..conftest import entry

PHONE = "2026-11-22T08:58:00.000000Z"
SECOND = dict(
    second_lexicon_id="fise-2", second_lexicon_version="2.0", second_lexicon_checksum="6a" * 32, second_valid=False
)


def offline(device_id: int, key: str, **more):
    return entry(device_id=device_id, idempotency_key=key, offline=True, device_time=PHONE, **more)


def conflict(db, play, **more) -> int | None:
    with pytest.raises(IdempotencyConflict) as raised:
        db.append_many([play], **more)
    return raised.value.seq


def test_an_online_row_whose_phone_showed_its_verdict_alone_offline_is_marked(db, clock):
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    row = db.append(entry(device_id=judge.id, idempotency_key="lost", **SECOND))
    assert db.unshown_seconds() == {}
    clock.advance(seconds=40)
    noted = stamp(clock())
    assert conflict(db, offline(judge.id, "lost")) == row.seq  # the phone takes it as recorded, as before
    assert db.unshown_seconds() == {row.seq: (PHONE, noted)}
    clock.advance(seconds=40)
    assert conflict(db, offline(judge.id, "lost")) == row.seq  # sent again: the first mark stands
    assert db.unshown_seconds() == {row.seq: (PHONE, noted)} and list(db.records()) == [row]


def test_only_the_same_play_of_the_same_device_over_a_second_opinion_marks_its_row(db):
    """Another device's key, other words, another list, an online row with no second opinion, a
    verdict refused for what it showed: no mark (a conflict, or the refusal, as before)."""
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    other = db.pair(db.add_device("Juez 2", "judge")[1])[0]
    seconded = db.append(entry(device_id=judge.id, idempotency_key="seconded", **SECOND))
    alone = db.append(entry(device_id=judge.id, idempotency_key="alone"))
    assert conflict(db, offline(other.id, "seconded")) is None
    assert conflict(db, offline(judge.id, "seconded", words=("CASA",), tiles=("CASA",))) == seconded.seq
    assert conflict(db, offline(judge.id, "seconded", lexicon_checksum="7b" * 32)) == seconded.seq
    assert conflict(db, offline(judge.id, "alone")) == alone.seq
    with pytest.raises(OfflineRefused):
        db.append_many([offline(judge.id, "seconded", valid=False)], refusal=OfflineRefusal(0, "verdict"))
    assert db.unshown_seconds() == {}


def test_a_copy_of_the_event_carries_its_marks(db, store, location, clock, tmp_path):
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    row = db.append(entry(device_id=judge.id, idempotency_key="lost", **SECOND))
    conflict(db, offline(judge.id, "lost"))
    target = str(tmp_path / "moved.db") if store.name == "postgres" else store.location("moved")
    copy_event(location, target, "move")
    moved = open_event(target, clock=clock)
    try:
        assert moved.unshown_seconds() == db.unshown_seconds() == {row.seq: (PHONE, stamp(clock()))}
    finally:
        moved.close()
