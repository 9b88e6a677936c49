"""Each device's offline verdicts refused as differing from the service's (tournament/refused_offline.py):
counted once per idempotency key, the latest one's round and times kept, for the console; a
device that does not exist is not noted. In every store."""

from __future__ import annotations

from tournament import RefusedOffline, open_event, stamp


def test_refusals_are_counted_per_device_once_per_key_with_the_latest_round_and_times(db, location, clock):
    _, code = db.add_device("Juez 1", "judge")
    judge = db.pair(code)[0]
    other = db.pair(db.add_device("Juez 2", "judge")[1])[0]
    assert db.refused_offline() == {}
    first = stamp(clock())
    db.note_refused_offline(judge.id, "k-1", 2, "2026-11-22T08:58:00.000000Z")
    clock.advance(seconds=30)
    db.note_refused_offline(judge.id, "k-1", 2, "2026-11-22T08:58:00.000000Z")  # sent again: once
    assert db.refused_offline() == {judge.id: RefusedOffline(1, "k-1", 2, "2026-11-22T08:58:00.000000Z", first)}
    db.note_refused_offline(judge.id, "k-2", None, None)
    db.note_refused_offline(other.id, "k-9", 0, "2026-11-22T08:59:00.000000Z")
    db.note_refused_offline(999, "k-3", 1, None)  # no such device
    later = stamp(clock())
    again = open_event(location, clock=clock)  # another instance reads what this one noted
    try:
        assert again.refused_offline() == {
            judge.id: RefusedOffline(2, "k-2", None, None, later),
            other.id: RefusedOffline(1, "k-9", 0, "2026-11-22T08:59:00.000000Z", later),
        }
        assert list(again.records()) == []  # a hint for the console, not a row of the record
    finally:
        again.close()
