"""An offline verdict keeps the round its phone showed, and a closed round's head waits for the
judges' phones that may hold verdicts (schema 9, row format 4)."""

from __future__ import annotations

import csv
import io
import json

import pytest

from tournament import export, open_event, read_export, stamp, verify_chain

from ..conftest import entry


def offline(clock, shown, key, **more):
    """An offline verdict judged now (by the test's clock), its phone showing round `shown` (0: none)."""
    return entry(idempotency_key=key, offline=True, device_time=stamp(clock()), shown_round=shown, **more)


def judge_phone(db):
    _, code = db.add_device("Juez 1", "judge")
    return db.pair(code)[0]


def test_a_verdict_judged_offline_in_a_round_is_filed_in_it_after_it_closed(db, clock):
    """ARROZ judged offline during round 2, the phone showing *Ronda 2*; round 2 closes and round
    3 opens before the phone syncs: the row is filed in round 2 (it used to be filed in the round
    open when it arrived, or outside rounds), and its shown round, format 4 and the chain say so.
    Its phone, silent when round 2 closed, keeps round 2's head waiting."""
    phone = judge_phone(db)
    db.open_round(2)
    clock.advance(minutes=5)
    judged = offline(clock, 2, "k-2", device_id=phone.id, device_name=phone.name, role="judge")
    clock.advance(minutes=5)
    assert db.close_round().pending == (phone.id,)
    db.open_round(3)
    clock.advance(minutes=2)
    row = db.append(judged)
    assert (row.round, row.entry.shown_round, row.format) == (2, 2, 4)
    assert row.time > row.entry.device_time
    assert db.counts(2) == {phone.id: 1} and db.counts(3) == {}
    assert db.verify() is None and db.record(row.seq) == row
    for format in ("csv", "json"):
        text = export(db, format=format)
        assert read_export(text, format) == [row] and verify_chain(read_export(text, format)) is None
    [line] = csv.DictReader(io.StringIO(export(db, format="csv")))
    assert (line["round"], line["shown_round"], line["offline"]) == ("2", "2", "true")
    assert line["device_time"] == judged.device_time and line["time"] == row.time


def test_a_verdict_that_cannot_be_placed_is_filed_outside_rounds_saying_what_the_phone_showed(db, clock):
    """The phone showed round 2 (it had not learnt that it closed), or a round never played, or
    judged before round 2 opened: no round was open at its time as shown, so the row goes outside
    rounds with its shown round, never into another round; a phone that showed none: outside."""
    clock.advance(minutes=1)
    before = offline(clock, 2, "early")
    clock.advance(seconds=1)
    db.open_round(2)
    clock.advance(minutes=5)
    db.close_round()
    clock.advance(seconds=1)
    late = offline(clock, 2, "late")
    db.open_round(3)
    clock.advance(minutes=1)
    rows = [db.append(e) for e in (before, late, offline(clock, 7, "never"), offline(clock, 0, "none"))]
    assert [(r.round, r.entry.shown_round) for r in rows] == [(None, 2), (None, 2), (None, 7), (None, 0)]
    assert db.append(entry()).round == 3  # an online verdict: the round open when it is recorded
    assert db.verify() is None


def test_a_verdict_of_a_round_whose_head_is_final_is_filed_outside_rounds(db, clock):
    """A judge in touch: round 1 closes and its head is final at once (head 0); round 2 opens and
    a verdict judged offline during round 1 arrives. Filed in round 1 it would lie after the head
    the director copied, so its sheet would no longer cover round 1: it goes outside rounds,
    keeping its shown round; round 1's head still covers the round. Likewise after a confirmed head."""
    near = judge_phone(db)
    db.open_round(1)
    clock.advance(seconds=30)
    judged = offline(clock, 1, "j1", device_id=near.id, device_name=near.name, role="judge")
    db.touch({near.id: stamp(clock())})
    clock.advance(seconds=10)
    closed = db.close_round()
    assert closed.head_final and closed.head_seq == 0
    db.open_round(2)
    row = db.append(judged)
    assert (row.round, row.entry.shown_round, row.format) == (None, 1, 4)
    assert db.counts(1) == {} and db.round(1) == closed and db.verify() is None

    clock.advance(minutes=2)  # round 3 waits for a silent phone, then the director confirms its head
    db.close_round()
    db.open_round(3)
    clock.advance(seconds=30)
    waited = offline(clock, 3, "j3", device_id=near.id, device_name=near.name, role="judge")
    clock.advance(seconds=10)
    assert db.close_round().pending == (near.id,)
    db.confirm_round(3)
    assert db.append(waited).round is None


def test_an_offline_verdict_that_said_no_round_is_filed_as_before(db, clock):
    """A phone of an older page says nothing of its round: the row is format 2, in the open round."""
    db.open_round(1)
    row = db.append(entry(idempotency_key="old", offline=True, device_time=stamp(clock())))
    assert (row.round, row.entry.shown_round, row.format) == (1, None, 2)


@pytest.mark.parametrize(
    "fields",
    [
        {"shown_round": -1},
        {"shown_round": True},
        {"shown_round": 2, "offline": False, "device_time": None, "idempotency_key": None},
        {"shown_round": 2, "device_time": None},
    ],
)
def test_a_shown_round_goes_only_with_an_offline_verdict_and_its_time(fields):
    values = {"idempotency_key": "k", "offline": True, "device_time": "2026-11-22T09:00:00.000000Z", **fields}
    with pytest.raises(ValueError, match="shown_round"):
        entry(**values)


def test_closing_names_the_silent_judges_phones_and_the_head_waits_for_them(db, clock):
    """Juez 1 has been silent for over a minute when round 1 closes: it may hold verdicts, so the
    round's head is not final. Its verdict of round 1 arrives, then it says it holds none: the head
    is taken again, covering that row. Juez 2, in touch, and Juez 3, revoked, are not waited for."""
    silent = judge_phone(db)
    _, code = db.add_device("Juez 2", "judge")
    near = db.pair(code)[0]
    _, code = db.add_device("Juez 3", "judge")
    db.revoke(db.pair(code)[0].id)
    db.open_round(1)
    db.append(entry(valid=False))
    clock.advance(minutes=3)
    judged = offline(clock, 1, "j1", device_id=silent.id, device_name=silent.name, role="judge")
    clock.advance(seconds=30)
    db.touch({near.id: stamp(clock())})
    closed = db.close_round()
    assert closed.pending == (silent.id,) and not closed.head_final and closed.head_seq == 1
    assert db.awaited() == {silent.id}
    db.touch({silent.id: stamp(clock())})  # in touch, not yet saying it holds nothing: still waited for
    assert db.round(1).pending == (silent.id,)
    late = db.append(judged)
    assert late.round == 1
    clock.advance(seconds=5)
    db.synced(silent.id)
    final = db.round(1)
    assert final.head_final and final.pending is None and final.final == stamp(clock())
    assert (final.head_seq, final.head_hash) == (late.seq, late.hash)
    assert db.verify() is None and db.awaited() == frozenset()


def test_a_head_waiting_for_two_phones_is_final_once_both_have_synced_in_either_order(db, clock):
    """Two judges' phones silent when rounds 1 and 2 close: each round waits for both. Juez 2 says
    it holds nothing: both rounds wait for Juez 1 alone (and say so); then Juez 1: both heads final,
    each taken when its last phone synced. One sync must never be counted for the other phone."""
    first = judge_phone(db)
    _, code = db.add_device("Juez 2", "judge")
    second = db.pair(code)[0]
    clock.advance(minutes=2)
    for number in (1, 2):
        db.open_round(number)
        db.append(entry())
        assert db.close_round().pending == (first.id, second.id)
    db.synced(second.id)
    assert [db.round(n).pending for n in (1, 2)] == [(first.id,), (first.id,)]
    assert db.awaited() == {first.id} and not db.round(1).head_final
    db.synced(second.id)  # again: nothing changes
    assert db.round(2).pending == (first.id,)
    row = db.append(entry())
    db.synced(first.id)
    assert all(db.round(n).head_final and db.round(n).pending is None for n in (1, 2))
    assert db.round(2).head_seq == row.seq and db.awaited() == frozenset()


def test_the_director_confirms_a_head_a_phone_never_synced(db, clock):
    silent = judge_phone(db)
    clock.advance(minutes=2)
    db.open_round(1)
    assert db.close_round().pending == (silent.id,)
    row = db.append(entry())
    confirmed = db.confirm_round(1)
    assert confirmed.head_final and (confirmed.head_seq, confirmed.head_hash) == (row.seq, row.hash)
    from tournament import RoundError

    with pytest.raises(RoundError, match="has its head final"):
        db.confirm_round(1)
    db.synced(silent.id)  # syncing later changes nothing
    assert db.round(1) == confirmed
    with pytest.raises(RoundError, match="is not played"):
        db.confirm_round(9)


def test_a_round_closed_with_every_judge_in_touch_is_final_at_once(db, clock):
    near = judge_phone(db)
    db.open_round(1)
    clock.advance(seconds=50)
    db.touch({near.id: stamp(clock())})
    clock.advance(seconds=50)
    closed = db.close_round()
    assert closed.head_final and closed.pending is None and closed.final is None


def test_an_event_closed_and_opened_again_reads_as_it_was(db, location, clock):
    """A row recorded, the store closed and the event opened again: it verifies, and reads back
    with the later fields as they were written (no round shown)."""
    db.append(entry())
    db.close()
    again = open_event(location, clock=clock)
    assert again.verify() is None and json.loads(export(again, format="json"))["records"][0]["shown_round"] is None
    again.close()
