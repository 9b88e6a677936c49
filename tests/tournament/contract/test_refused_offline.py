"""Each device's offline verdicts the record refused (tournament/refused_offline.py): refused by
the write past every other rule, the device's gap among them, counted per device and reason once
per idempotency key, the latest one's round and times kept, for the console; a device that does
not exist is not noted. A refusal takes a gap as a recorded verdict does. In every store."""

from __future__ import annotations

import pytest

from tournament import (
    REFUSED_LEXICON,
    REFUSED_VERDICT,
    IdempotencyConflict,
    OfflineRefusal,
    OfflineRefused,
    RateLimited,
    RefusedOffline,
    open_event,
    stamp,
)

from ..conftest import entry

PHONE = "2026-11-22T08:58:00.000000Z"
VERDICT, LEXICON = OfflineRefusal(0, REFUSED_VERDICT), OfflineRefusal(0, REFUSED_LEXICON)


def offline(device_id: int, key: str, valid: bool = True, **more):
    return entry(device_id=device_id, idempotency_key=key, offline=True, device_time=PHONE, valid=valid, **more)


def refused(db, play, refusal: OfflineRefusal, min_gap: float = 0) -> str:
    with pytest.raises(OfflineRefused) as raised:
        db.append_many([play], min_gap, refusal=refusal)
    return raised.value.reason


def test_refusals_are_counted_per_device_and_reason_once_per_key_with_the_latest_round_and_times(db, location, clock):
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    other = db.pair(db.add_device("Juez 2", "judge")[1])[0]
    assert db.refused_offline() == {}
    assert refused(db, offline(judge.id, "k-1", shown_round=2), VERDICT) == REFUSED_VERDICT
    clock.advance(seconds=30)
    refused(db, offline(judge.id, "k-1", shown_round=2), VERDICT)  # sent again: counted once, its time the latest
    first = stamp(clock())
    assert db.refused_offline() == {judge.id: {REFUSED_VERDICT: RefusedOffline(1, "k-1", 2, PHONE, first)}}
    clock.advance(seconds=30)
    refused(db, offline(judge.id, "k-2", valid=False), VERDICT)
    assert refused(db, offline(judge.id, "k-3", shown_round=0), LEXICON) == REFUSED_LEXICON
    refused(db, offline(other.id, "k-9", shown_round=0), VERDICT)
    refused(db, offline(999, "k-4", shown_round=1), VERDICT)  # no such device: refused, not noted
    later = stamp(clock())
    again = open_event(location, clock=clock)  # another instance reads what this one noted
    try:
        assert again.refused_offline() == {
            judge.id: {
                REFUSED_VERDICT: RefusedOffline(2, "k-2", None, PHONE, later),
                REFUSED_LEXICON: RefusedOffline(1, "k-3", 0, PHONE, later),
            },
            other.id: {REFUSED_VERDICT: RefusedOffline(1, "k-9", 0, PHONE, later)},
        }
        assert list(again.records()) == []  # a hint for the console, not a row of the record
    finally:
        again.close()


def test_a_refusal_comes_past_the_gap_and_takes_one(db, location, clock):
    """Inside the gap, a play to refuse and a play to record get the same RateLimited; a refusal
    starts a gap as a row does, for another instance of the store too; past it, the next is judged."""
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    db.append(offline(judge.id, "recorded"), min_gap=30)
    clock.advance(seconds=10)
    for play, refusal in ((offline(judge.id, "a"), None), (offline(judge.id, "b"), VERDICT)):
        with pytest.raises(RateLimited) as limited:
            db.append_many([play], 30, refusal=refusal)
        assert limited.value.retry_after == 20
    assert db.refused_offline() == {}  # refused for the gap: nothing noted
    clock.advance(seconds=20)
    refused(db, offline(judge.id, "b"), VERDICT, min_gap=30)
    clock.advance(seconds=29)
    again = open_event(location, clock=clock)
    try:
        for store in (db, again):
            for play, refusal in ((offline(judge.id, "c"), None), (offline(judge.id, "d"), LEXICON)):
                with pytest.raises(RateLimited) as limited:
                    store.append_many([play], 30, refusal=refusal)
                assert limited.value.retry_after == 1
        clock.advance(seconds=1)
        assert again.append(offline(judge.id, "c"), min_gap=30).entry.idempotency_key == "c"
    finally:
        again.close()
    assert [row.entry.idempotency_key for row in db.records()] == ["recorded", "c"]


def test_a_refusal_whose_key_is_recorded_is_an_idempotency_conflict_even_with_the_same_contents(db):
    """A refused verdict is never the recorded one: the key's refusal is the record's, whatever the play."""
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    row = db.append(offline(judge.id, "kept"))
    for refusal in (VERDICT, LEXICON):
        with pytest.raises(IdempotencyConflict) as conflict:
            db.append_many([offline(judge.id, "kept")], 30, refusal=refusal)
        assert conflict.value.seq == row.seq
    assert db.refused_offline() == {} and list(db.records()) == [row]


def test_a_refusal_of_the_play_its_device_recorded_online_under_its_key_is_noted_naming_that_row(db):
    """Its phone gave up waiting for the online answer and judged the play itself, with the same
    key, while the service recorded it: the row holds a verdict the players were not shown, so the
    refusal is noted for the director and names the row, not a conflict its phone takes as recorded.
    Other words under the key, or another device's, are the conflict as before, noting nothing."""
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    other = db.pair(db.add_device("Juez 2", "judge")[1])[0]
    row = db.append(entry(device_id=judge.id, idempotency_key="lost", valid=False))
    for stranger in (offline(other.id, "lost"), offline(judge.id, "lost", words=("CASA", "QUADRE"))):
        with pytest.raises(IdempotencyConflict):
            db.append_many([stranger], refusal=VERDICT)
    assert db.refused_offline() == {}
    with pytest.raises(OfflineRefused) as raised:
        db.append_many([offline(judge.id, "lost")], refusal=VERDICT)
    assert (raised.value.reason, raised.value.seq) == (REFUSED_VERDICT, row.seq)
    assert db.refused_offline()[judge.id][REFUSED_VERDICT].count == 1
    assert list(db.records()) == [row]


def test_an_online_verdict_under_its_device_s_refused_key_is_a_conflict_and_writes_nothing(db):
    """Its phone judged the play itself once the online challenge went unanswered, and that verdict
    was refused: the online challenge arriving after it is no verdict the phone showed."""
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    other = db.pair(db.add_device("Juez 2", "judge")[1])[0]
    for key, refusal in (("shown", VERDICT), ("listed", LEXICON)):
        refused(db, offline(judge.id, key), refusal)
        with pytest.raises(IdempotencyConflict) as conflict:
            db.append(entry(device_id=judge.id, idempotency_key=key))
        assert conflict.value.seq is None
    assert list(db.records()) == []
    assert db.append(entry(device_id=other.id, idempotency_key="listed")).seq == 1


def test_a_refusal_names_one_of_the_request_s_entries(db):
    with pytest.raises(ValueError, match="names none of the 1 entries"):
        db.append_many([offline(1, "k")], refusal=OfflineRefusal(1, REFUSED_VERDICT))
    with pytest.raises(ValueError, match="one of"):
        OfflineRefusal(0, "differs")


def test_in_one_group_commit_a_refusal_takes_the_gap_of_the_device_s_next_request(db):
    """Appends written in one transaction (writer.py's group commit): a device's refused offline
    verdict starts its gap for its next append of the same transaction, as a row would."""
    from tournament.group_commit import Append

    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    other = db.pair(db.add_device("Juez 2", "judge")[1])[0]
    first = Append([offline(judge.id, "a")], 30, refusal=VERDICT)
    second = Append([offline(judge.id, "b")], 30)
    elsewhere = Append([offline(other.id, "c")], 30)
    db._commit([first, second, elsewhere])
    assert isinstance(first.outcome, OfflineRefused) and isinstance(second.outcome, RateLimited)
    assert second.outcome.retry_after == 30
    assert [row.entry.idempotency_key for row in db.records()] == ["c"]
    assert db.refused_offline()[judge.id][REFUSED_VERDICT].count == 1


def test_an_online_verdict_under_any_of_its_device_s_refused_keys_is_a_conflict_in_any_order(db):
    """Two online challenges held in the network, both plays' offline verdicts refused (of either
    reason, in either order) before they arrive: neither is a verdict the phone showed, not only
    the one of the latest refusal."""
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    refused(db, offline(judge.id, "first"), VERDICT)
    refused(db, offline(judge.id, "second"), VERDICT)
    refused(db, offline(judge.id, "third"), LEXICON)
    refused(db, offline(judge.id, "fourth"), VERDICT)
    for key in ("first", "third", "second", "fourth"):
        with pytest.raises(IdempotencyConflict) as conflict:
            db.append(entry(device_id=judge.id, idempotency_key=key))
        assert conflict.value.seq is None
    assert list(db.records()) == []
    assert db.append(entry(device_id=judge.id, idempotency_key="fifth")).seq == 1  # a key never refused


def test_refusals_sent_again_alternating_are_counted_once_a_play(db):
    """A phone sending its refused plays again, one after the other (each answer lost on the way):
    the count is the plays refused, not the requests, for each reason."""
    judge = db.pair(db.add_device("Juez 1", "judge")[1])[0]
    for key in ("a", "b", "a", "b", "a"):
        refused(db, offline(judge.id, key), VERDICT)
    for key in ("c", "d", "c", "d"):
        refused(db, offline(judge.id, key), LEXICON)
    counted = db.refused_offline()[judge.id]
    assert (counted[REFUSED_VERDICT].count, counted[REFUSED_VERDICT].key) == (2, "a")
    assert (counted[REFUSED_LEXICON].count, counted[REFUSED_LEXICON].key) == (2, "d")
